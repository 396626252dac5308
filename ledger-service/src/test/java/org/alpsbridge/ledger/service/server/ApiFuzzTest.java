package org.alpsbridge.ledger.service.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.service.api.ApiJson;
import org.alpsbridge.ledger.service.api.Route;

/**
 * Coverage-guided fuzzing of the ledger service's API as the network hands it requests: any method and URI, any
 * query, any body (well-formed bodies of the route's own type with values drawn from the fuzzer, such bodies with
 * one field replaced by anything, or plain bytes), from a caller of any role and groups. The decoder and the
 * dispatcher are the service's own, on one SQLite ledger for the whole campaign. Every request is answered with
 * JSON: 2xx, or a 4xx whose {@code error} names the problem; never a 500 (a request the service did not
 * foresee); and the books check clean however the requests went.
 */
class ApiFuzzTest {

    private static final String[] PROJECTS = {"chem", "phys", "none"};
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static Ledger ledger;
    private static Dispatcher dispatcher;
    private static ObjectMapper json;
    private static int runs;

    private static synchronized void open() throws IOException {
        if (ledger != null) {
            return;
        }
        Path dir = Files.createTempDirectory("ledger-api-fuzz");
        dir.toFile().deleteOnExit();
        ledger = Ledger.open("sqlite:" + dir.resolve("ledger.db"));
        ledger.addProject("chem", 5001, "chem_acct");
        ledger.addProject("phys", 5002, "phys_acct");
        for (String p : List.of("chem", "phys")) {
            ledger.grant(p, Resource.CPU, 1_000_000, T0, T0.plusSeconds(365L * 86_400), "research", null);
        }
        json = ApiJson.mapper(false);
        dispatcher = new Dispatcher(ledger, new Policy(ledger, true), ApiJson.mapper(true), "fuzz");
    }

    @FuzzTest
    void everyRequestIsAnsweredWithJsonNeverAServerErrorAndTheBooksStayBalanced(FuzzedDataProvider data)
            throws Exception {
        open();
        Route[] routes = Route.values();
        Route target = routes[data.consumeInt(0, routes.length - 1)];
        Role role = Role.values()[data.consumeInt(0, Role.values().length - 1)];
        int uid = data.pickValue(new int[] {0, 1000, 1001, 65534});
        Set<Integer> groups = data.consumeBoolean() ? Set.of(5001) : data.consumeBoolean() ? Set.of(5002) : Set.of(100);
        Caller caller = new Caller(uid, groups.iterator().next(), uid == 1000 ? "alice" : "u" + uid, groups, role);

        String method = data.consumeBoolean() ? target.method() : data.pickValue(new String[] {"GET", "POST", "PUT",
                "DELETE", "HEAD", "OPTIONS"});
        StringBuilder uri = new StringBuilder(data.consumeBoolean() ? target.path() : data.consumeString(30));
        char sep = '?';
        for (String name : target.query()) {
            if (data.consumeBoolean()) {
                uri.append(sep).append(name).append('=').append(queryValue(data, name));
                sep = '&';
            }
        }
        if (data.consumeBoolean()) {
            uri.append(sep).append(data.consumeString(20));
        }
        byte[] body = body(data, target);

        FullHttpResponse early = null;
        ApiRequest request = null;
        EmbeddedChannel decoder = new EmbeddedChannel(new ApiResponseEncoder(), new ApiRequestDecoder());
        decoder.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(method),
                requestTarget(uri.toString()), Unpooled.wrappedBuffer(body)));
        Object out = decoder.readOutbound();
        if (out instanceof FullHttpResponse r) {
            early = r;
        } else {
            request = decoder.readInbound();
        }
        decoder.finishAndReleaseAll();

        int status;
        byte[] answer;
        if (early != null) {
            status = early.status().code();
            answer = new byte[early.content().readableBytes()];
            early.content().getBytes(0, answer);
            early.release();
            assertTrue(status == 400 || status == 404 || status == 405, "the decoder answers " + status);
        } else {
            ApiResponse r = dispatcher.handle(request.as(caller));
            status = r.status();
            answer = r.json();
        }
        String text = new String(answer, StandardCharsets.UTF_8);
        assertNotEquals(500, status, method + " " + uri + " as " + caller + " failed the service: " + text);
        JsonNode parsed = json.readTree(answer);
        if (status != 200) {
            assertTrue(status >= 400 && status < 500, "status " + status + ": " + text);
            assertTrue(parsed.hasNonNull("error") && !parsed.get("error").asText().isBlank(), "a refusal says why: " + text);
        }
        if (runs++ % 128 == 0) {
            assertEquals(List.of(), ledger.check(), "the books after " + runs + " requests");
        }
    }

    /** The URI as it can arrive in a request line: no white space or control characters, one byte a char. */
    private static String requestTarget(String uri) {
        StringBuilder b = new StringBuilder(uri.length() + 1);
        for (char ch : uri.toCharArray()) {
            if (ch > ' ' && ch != 0x7f) {
                b.append(ch > 0xff ? '?' : ch);
            }
        }
        return b.length() == 0 ? "/" : b.toString();
    }

    private static String queryValue(FuzzedDataProvider data, String name) {
        return switch (data.consumeInt(0, 2)) {
            case 0 -> switch (name) {
                case "project" -> data.pickValue(PROJECTS);
                case "limit", "res_id" -> Integer.toString(data.consumeInt(-2, 200));
                default -> Integer.toString(data.consumeInt(0, 50));
            };
            case 1 -> data.consumeString(12);
            default -> "";
        };
    }

    /** The route's body: a well-formed one from the fuzzer's values, one with a field spoilt, or bytes. */
    private static byte[] body(FuzzedDataProvider data, Route route) throws IOException {
        int shape = data.consumeInt(0, 3);
        if (route.body() == null || shape == 3) {
            return data.consumeBytes(400);
        }
        JsonNode node = json.valueToTree(Values.of(route.body(), data, 0));
        if (shape == 2 && node instanceof ObjectNode object && object.size() > 0) {
            List<String> fields = List.copyOf(object.properties().stream().map(java.util.Map.Entry::getKey).toList());
            object.put(fields.get(data.consumeInt(0, fields.size() - 1)), data.consumeString(16));
        }
        return json.writeValueAsBytes(node);
    }

    /** Values of a record type, component by component, from the fuzzer's bytes: small, nearby and plausible. */
    private static final class Values {

        static Object of(Type type, FuzzedDataProvider data, int depth) {
            if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
                int n = data.consumeInt(0, 3);
                Object[] items = new Object[n];
                for (int i = 0; i < n; i++) {
                    items[i] = of(p.getActualTypeArguments()[0], data, depth + 1);
                }
                return List.of(items);
            }
            Class<?> c = (Class<?>) type;
            if (c == String.class) {
                return data.consumeBoolean() ? data.pickValue(new String[] {"chem", "phys", "chem_acct", "alice",
                        "4242", "xc", "default", "research"}) : data.consumeString(10);
            }
            if (c == int.class || c == Integer.class) {
                return data.consumeInt(-1, 64);
            }
            if (c == long.class || c == Long.class) {
                return data.consumeBoolean() ? data.consumeLong(-1, 100_000) : data.consumeLong();
            }
            if (c == boolean.class || c == Boolean.class) {
                return data.consumeBoolean();
            }
            if (c == Instant.class) {
                return T0.plusSeconds(data.consumeLong(-86_400, 400L * 86_400));
            }
            if (c.isEnum()) {
                Object[] constants = c.getEnumConstants();
                return constants[data.consumeInt(0, constants.length - 1)];
            }
            if (c.isRecord() && depth < 3) {
                if (data.consumeInt(0, 9) == 0) {
                    return null;
                }
                RecordComponent[] parts = c.getRecordComponents();
                Object[] args = new Object[parts.length];
                Class<?>[] types = new Class<?>[parts.length];
                for (int i = 0; i < parts.length; i++) {
                    args[i] = of(parts[i].getGenericType(), data, depth + 1);
                    types[i] = parts[i].getType();
                }
                try {
                    return c.getDeclaredConstructor(types).newInstance(args);
                } catch (ReflectiveOperationException | RuntimeException refused) {
                    return null; // the record's own checks refuse these values: the body says null there
                }
            }
            return null;
        }
    }
}
