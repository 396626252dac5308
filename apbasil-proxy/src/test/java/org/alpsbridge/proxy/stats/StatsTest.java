package org.alpsbridge.proxy.stats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.junit.jupiter.api.Test;

class StatsTest {

    static final byte[] SUCCESS = ("<?xml version=\"1.0\"?><BasilResponse protocol=\"1.3\"><ResponseData status=\"SUCCESS\" "
            + "method=\"QUERY\"><Inventory/></ResponseData></BasilResponse>").getBytes(StandardCharsets.US_ASCII);
    static final byte[] FAILURE = ("<?xml version=\"1.0\"?><BasilResponse protocol=\"1.3\"><ResponseData status=\"FAILURE\" "
            + "method=\"RESERVE\" error_class=\"TRANSIENT\" error_source=\"BACKEND\"><Message severity=\"ERROR\">no</Message>"
            + "</ResponseData></BasilResponse>").getBytes(StandardCharsets.US_ASCII);

    static Call call(String method, String type) {
        return new Call(new byte[0], "1.3", method, type, Caller.UNAUTHENTICATED, null);
    }

    /** A backend answering every call with the same document. */
    static Backend answering(byte[] response) {
        return new Backend() {
            @Override
            public byte[] call(Call call) {
                return response;
            }

            @Override
            public String describe() {
                return "fixed";
            }
        };
    }

    @Test
    void aClientCallThatReachesTheBackendCountsOneRequestAndOneBackendCall() throws Exception {
        Stats stats = new Stats();
        Backend chain = stats.clientSide(stats.backendSide(answering(SUCCESS)));
        assertArrayEquals(SUCCESS, chain.call(call("QUERY", "INVENTORY")));

        MethodFigures m = stats.snapshot().methods().get("QUERY/INVENTORY");
        assertEquals(1, m.requests());
        assertEquals(1, m.backendCalls());
        assertEquals(0, m.cacheHits());
        assertEquals(0, m.backendCallsSaved());
        assertEquals(0, m.errors());
        assertEquals(SUCCESS.length, m.responseBytes());
    }

    @Test
    void aClientCallAnsweredWithoutTheBackendIsACacheHitAndSavesACall() throws Exception {
        Stats stats = new Stats();
        Backend backend = stats.backendSide(answering(SUCCESS));
        AtomicBoolean cached = new AtomicBoolean();
        Backend cache = new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                return cached.getAndSet(true) ? SUCCESS : backend.call(call);
            }

            @Override
            public String describe() {
                return "cache";
            }
        };
        Backend chain = stats.clientSide(cache);
        for (int i = 0; i < 5; i++) {
            chain.call(call("QUERY", "INVENTORY"));
        }
        MethodFigures m = stats.snapshot().methods().get("QUERY/INVENTORY");
        assertEquals(5, m.requests());
        assertEquals(1, m.backendCalls());
        assertEquals(4, m.cacheHits());
        assertEquals(4, m.backendCallsSaved());
        assertEquals(4, m.cached().count());
    }

    @Test
    void aBackendCallOfAnotherMethodDoesNotMakeTheClientCallAMiss() throws Exception {
        Stats stats = new Stats();
        Backend backend = stats.backendSide(answering(SUCCESS));
        Backend summaryFirst = new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                backend.call(StatsTest.call("QUERY", "SUMMARY"));
                return SUCCESS;
            }

            @Override
            public String describe() {
                return "polls summary";
            }
        };
        stats.clientSide(summaryFirst).call(call("QUERY", "INVENTORY"));
        Snapshot s = stats.snapshot();
        assertEquals(1, s.methods().get("QUERY/INVENTORY").cacheHits());
        assertEquals(0, s.methods().get("QUERY/SUMMARY").requests());
        assertEquals(1, s.methods().get("QUERY/SUMMARY").backendCalls());
    }

    @Test
    void failureDocumentsAndBackendExceptionsAreErrors() throws Exception {
        Stats stats = new Stats();
        stats.clientSide(stats.backendSide(answering(FAILURE))).call(call("RESERVE", null));
        Backend broken = new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                throw new BackendException("apbasil timed out", true);
            }

            @Override
            public String describe() {
                return "broken";
            }
        };
        Backend chain = stats.clientSide(stats.backendSide(broken));
        assertThrows(BackendException.class, () -> chain.call(call("RESERVE", null)));

        MethodFigures m = stats.snapshot().methods().get("RESERVE");
        assertEquals(2, m.requests());
        assertEquals(2, m.errors());
        assertEquals(2, m.backendErrors());
    }

    @Test
    void garbageFromTheBackendIsAnError() throws Exception {
        Stats stats = new Stats();
        stats.clientSide(answering("<BasilResponse".getBytes(StandardCharsets.US_ASCII))).call(call("RELEASE", null));
        assertEquals(1, stats.snapshot().methods().get("RELEASE").errors());
    }

    @Test
    void jsonHasTheContractShape() throws Exception {
        Stats stats = new Stats();
        Backend chain = stats.clientSide(stats.backendSide(answering(SUCCESS)));
        chain.call(call("QUERY", "ENGINE"));
        chain.call(call("RESERVE", null));
        stats.counter(ProxyMetric.POLICY_REFRESHES).increment("summary-changed");
        stats.gauge(ProxyMetric.ORPHANS, () -> 3);
        String json = stats.snapshot().toJson();

        assertTrue(json.contains("\"methods\":{\"QUERY/ENGINE\":{\"requests\":1,\"backendCalls\":1,\"errors\":0"), json);
        assertTrue(json.contains("\"RESERVE\":{\"requests\":1"), json);
        for (String key : new String[] {"p50Micros", "p90Micros", "p99Micros", "maxMicros", "minMicros", "cacheHits",
                "backendCallsSaved"}) {
            assertTrue(json.contains("\"" + key + "\":"), key + " missing in " + json);
        }
        assertTrue(json.contains("\"counters\":{\"policy_refreshes\":{"), json);
        assertTrue(json.contains("\"summary-changed\":1,"), json);
        assertTrue(json.contains("\"start\":0,"), json);
        assertTrue(json.contains("\"gauges\":{\"backend_up\":1,\"orphans\":3}"), json);
        assertTrue(json.startsWith("{") && json.endsWith("}"), json);
    }

    @Test
    void methodsAreListedInTheOrderASchedulerUsesThem() throws Exception {
        Stats stats = new Stats();
        Backend chain = stats.clientSide(answering(SUCCESS));
        chain.call(call("RELEASE", null));
        chain.call(call("QUERY", "TOPOLOGY"));
        chain.call(call("RESERVE", null));
        chain.call(call("QUERY", "INVENTORY"));
        chain.call(call("QUERY", "ENGINE"));
        assertEquals(java.util.List.of("QUERY/ENGINE", "QUERY/INVENTORY", "RESERVE", "RELEASE", "QUERY/TOPOLOGY"),
                java.util.List.copyOf(stats.snapshot().methods().keySet()));
    }

    @Test
    void prometheusTextHasTypedCountersAndSummariesPerMethod() throws Exception {
        Stats stats = new Stats();
        stats.clientSide(stats.backendSide(answering(SUCCESS))).call(call("QUERY", "INVENTORY"));
        stats.counter(ProxyMetric.ORPHANS_FOUND).increment("job-gone");
        String text = stats.snapshot().prometheus();

        assertTrue(text.contains("# TYPE alpsbridge_proxy_requests_total counter\n"), text);
        assertTrue(text.contains("alpsbridge_proxy_requests_total{method=\"QUERY/INVENTORY\"} 1\n"), text);
        assertTrue(text.contains("alpsbridge_proxy_backend_calls_total{method=\"QUERY/INVENTORY\"} 1\n"), text);
        assertTrue(text.contains("# TYPE alpsbridge_proxy_request_duration_seconds summary\n"), text);
        assertTrue(text.contains("alpsbridge_proxy_request_duration_seconds{method=\"QUERY/INVENTORY\",quantile=\"0.99\"} "), text);
        assertTrue(text.contains("alpsbridge_proxy_request_duration_seconds_count{method=\"QUERY/INVENTORY\"} 1\n"), text);
        assertTrue(text.contains("alpsbridge_proxy_orphans_found_total{reason=\"job-gone\"} 1\n"), text);
        assertTrue(text.contains("alpsbridge_proxy_orphans_found_total{reason=\"superseded\"} 0\n"), text);
        for (String kind : new String[] {"unreachable", "transient", "permanent"}) {
            assertTrue(text.contains("alpsbridge_proxy_backend_failures_total{method=\"QUERY/INVENTORY\",kind=\"" + kind
                    + "\"} 0\n"), text);
        }
        for (String line : text.split("\n")) {
            assertTrue(line.startsWith("# HELP ") || line.startsWith("# TYPE ") || line.matches("[a-z_]+(\\{.*\\})? [0-9.]+"),
                    "not exposition format: " + line);
        }
    }

    @Test
    void aCounterHasEveryDeclaredSeriesAtZeroFromTheStart() {
        for (ProxyMetric m : ProxyMetric.values()) {
            if (m.metric().type() != org.alpsbridge.metrics.Metric.Type.COUNTER || m.metric().series().isEmpty()) {
                continue; // a gauge, or a family with an open label: its series come as they are seen
            }
            Snapshot.CounterFigures figures = new Stats().counter(m).figures();
            java.util.Map<String, Long> zeros = new java.util.TreeMap<>();
            m.metric().series().forEach(s -> zeros.put(s.isEmpty() ? "" : s.get(0), 0L));
            assertEquals(zeros, figures.values(), m.toString());
        }
    }

    @Test
    void countingAValueTheDeclarationDoesNotHaveIsAProgrammingError() {
        Counter releases = new Stats().counter(ProxyMetric.ORPHANS_RELEASED);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> releases.increment("relesed"));
        assertTrue(e.getMessage().contains("outcome=\"relesed\" is not declared"), e.getMessage());
        assertEquals(0, releases.total(), "nothing counted");
    }

    @Test
    void tableShowsOneLinePerMethodWithBackendAndCacheLines() throws Exception {
        Stats stats = new Stats();
        stats.clientSide(stats.backendSide(answering(SUCCESS))).call(call("QUERY", "INVENTORY"));
        String table = stats.snapshot().table();
        assertTrue(table.startsWith("method "), table);
        assertTrue(table.contains("QUERY/INVENTORY"), table);
        assertTrue(table.contains("  backend"), table);
    }

    @Test
    void microsAreShownInUnitsAnOperatorReads() {
        assertEquals("850us", Snapshot.micros(850));
        assertEquals("12.3ms", Snapshot.micros(12_340));
        assertEquals("4.02s", Snapshot.micros(4_020_000));
        // three significant digits in every unit (the demo's table mixed 10.00s with 10.0ms)
        assertEquals("10.0s", Snapshot.micros(10_000_000));
        assertEquals("10.0ms", Snapshot.micros(10_000));
        assertEquals("1.00ms", Snapshot.micros(1_000));
        assertEquals("123ms", Snapshot.micros(123_456));
        assertEquals("1.00s", Snapshot.micros(999_700));
        assertEquals("1230s", Snapshot.micros(1_234_567_890));
    }
}
