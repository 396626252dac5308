package org.alpsbridge.ledger.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The API's description is made from the route table: every route, its body and its answer. */
class OpenApiTest {

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @Test
    void everyRouteIsDescribedUnderItsPathAndMethod() {
        Map<String, Object> paths = map(OpenApi.document("t").get("paths"));
        for (Route r : Route.values()) {
            assertNotNull(map(paths.get(r.path())).get(r.method().toLowerCase()), r.toString());
        }
    }

    @Test
    void recordsBecomeSchemasWithTheirComponents() {
        Map<String, Object> schemas = map(map(OpenApi.document("t").get("components")).get("schemas"));
        Map<String, Object> reserve = map(map(schemas.get("ReserveRequest")).get("properties"));
        assertEquals(Map.of("type", "integer", "format", "int32"), reserve.get("nodes"));
        assertEquals(Map.of("$ref", "#/components/schemas/NodeShape"), reserve.get("node"));
        assertEquals(Map.of("type", "string", "format", "date-time"), reserve.get("at"));
        assertTrue(map(map(schemas.get("Outcome")).get("properties")).containsKey("decision"));
    }

    @Test
    void writesWithARequestIdSayTheyAreIdempotent() {
        Map<String, Object> grant = map(map(map(OpenApi.document("t").get("paths")).get("/v1/grant")).get("post"));
        assertTrue(((String) grant.get("description")).contains("Idempotent by requestId"), grant.toString());
    }

    @Test
    void theMetricsAreDescribedAsPrometheusTextAndTheRestAsJson() {
        Map<String, Object> paths = map(OpenApi.document("t").get("paths"));
        Map<String, Object> metrics = map(map(map(map(paths.get("/metrics")).get("get")).get("responses")).get("200"));
        assertEquals(java.util.Set.of("text/plain; version=0.0.4"), map(metrics.get("content")).keySet());
        Map<String, Object> whoami = map(map(map(map(paths.get(Route.WHOAMI.path())).get("get")).get("responses")).get("200"));
        assertEquals(java.util.Set.of("application/json"), map(whoami.get("content")).keySet());
    }
}
