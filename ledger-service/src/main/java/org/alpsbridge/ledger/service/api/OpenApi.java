package org.alpsbridge.ledger.service.api;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The OpenAPI 3.0 description of the API ({@code GET /openapi.json}), made from {@link Route} and the
 * records it names, so that it says what the service does rather than what someone remembered to write.
 */
public final class OpenApi {

    private OpenApi() {
    }

    public static Map<String, Object> document(String version) {
        Map<String, Object> schemas = new LinkedHashMap<>();
        Map<String, Object> paths = new LinkedHashMap<>();
        for (Route r : Route.values()) {
            Map<String, Object> op = new LinkedHashMap<>();
            op.put("operationId", camel(r.name()));
            op.put("summary", r.summary());
            op.put("description", "Access: " + r.access().name().toLowerCase().replace('_', ' ')
                    + (r.body() != null && hasRequestId(r.body())
                    ? ". Idempotent by requestId: a retry with the same id is applied once." : "."));
            List<Object> params = new ArrayList<>();
            for (String q : r.query()) {
                params.add(Map.of("name", q, "in", "query", "required", false, "schema",
                        Map.of("type", q.equals("limit") || q.equals("res_id") ? "integer" : "string")));
            }
            if (!params.isEmpty()) {
                op.put("parameters", params);
            }
            if (r.body() != null) {
                op.put("requestBody", Map.of("required", true, "content",
                        Map.of("application/json", Map.of("schema", schema(r.body(), schemas)))));
            }
            Map<String, Object> item = r.answer() == Object.class ? Map.of("type", "object") : schema(r.answer(), schemas);
            Object answer = r.answersList() ? Map.of("type", "array", "items", item) : item;
            Map<String, Object> responses = new LinkedHashMap<>();
            // a String answer is text (the metrics' Prometheus exposition format), everything else JSON
            responses.put("200", Map.of("description", "done", "content", r.answer() == String.class
                    ? Map.of("text/plain; version=0.0.4", Map.of("schema", Map.of("type", "string")))
                    : Map.of("application/json", Map.of("schema", answer))));
            if (r.access() != Route.Access.ANYONE) {
                Object problem = Map.of("application/json", Map.of("schema", schema(Requests.Problem.class, schemas)));
                responses.put("400", Map.of("description", "malformed request", "content", problem));
                responses.put("401", Map.of("description", "no valid MUNGE credential for this request", "content",
                        problem));
                responses.put("403", Map.of("description", "refused by an access rule (named in 'rule')", "content",
                        problem));
                responses.put("422", Map.of("description", "refused by the ledger; nothing changed", "content",
                        problem));
            }
            op.put("responses", responses);
            @SuppressWarnings("unchecked")
            Map<String, Object> methods = (Map<String, Object>) paths.computeIfAbsent(r.path(),
                    p -> new LinkedHashMap<String, Object>());
            methods.put(r.method().toLowerCase(), op);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("openapi", "3.0.3");
        doc.put("info", Map.of("title", "alpsbridge ledger service", "version", version, "description",
                "Allocation ledger over HTTP. Every request but this description carries 'Authorization: MUNGE "
                        + "<credential>' whose payload is SHA-256 of METHOD '\\n' PATH?QUERY '\\n' BODY."));
        doc.put("paths", paths);
        doc.put("components", Map.of("schemas", schemas));
        return doc;
    }

    private static boolean hasRequestId(Class<?> type) {
        if (!type.isRecord()) {
            return false;
        }
        for (RecordComponent c : type.getRecordComponents()) {
            if (c.getName().equals("requestId")) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, Object> schema(Type type, Map<String, Object> schemas) {
        if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
            return Map.of("type", "array", "items", schema(p.getActualTypeArguments()[0], schemas));
        }
        if (type instanceof ParameterizedType p && p.getRawType() == Map.class) {
            // a map with string keys: a JSON object whose values all have the value type's schema
            return Map.of("type", "object", "additionalProperties", schema(p.getActualTypeArguments()[1], schemas));
        }
        Class<?> c = (Class<?>) type;
        if (c == String.class) {
            return Map.of("type", "string");
        }
        if (c == long.class || c == Long.class || c == int.class || c == Integer.class) {
            return Map.of("type", "integer", "format", c == int.class || c == Integer.class ? "int32" : "int64");
        }
        if (c == boolean.class || c == Boolean.class) {
            return Map.of("type", "boolean");
        }
        if (c == Instant.class) {
            return Map.of("type", "string", "format", "date-time");
        }
        if (c.isEnum()) {
            List<String> names = new ArrayList<>();
            for (Object e : c.getEnumConstants()) {
                names.add(((Enum<?>) e).name());
            }
            return Map.of("type", "string", "enum", names);
        }
        if (c.isRecord()) {
            String name = c.getSimpleName();
            if (!schemas.containsKey(name)) {
                Map<String, Object> properties = new LinkedHashMap<>();
                schemas.put(name, Map.of("type", "object", "properties", properties));
                for (RecordComponent rc : c.getRecordComponents()) {
                    properties.put(rc.getName(), schema(rc.getGenericType(), schemas));
                }
            }
            return Map.of("$ref", "#/components/schemas/" + name);
        }
        return Map.of("type", "object");
    }

    private static String camel(String constant) {
        StringBuilder out = new StringBuilder();
        for (String part : constant.toLowerCase().split("_")) {
            out.append(out.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return out.toString();
    }
}
