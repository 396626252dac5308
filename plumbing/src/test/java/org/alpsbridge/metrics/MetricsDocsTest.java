package org.alpsbridge.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class MetricsDocsTest {

    private static final List<Metric> DECLARED = List.of(
            Metric.counter("x_requests_total", "Requests.", "method"),
            Metric.summary("x_duration_seconds", "Time.", "method"),
            Metric.histogram("x_call_seconds", "Calls.", "op"),
            Metric.gauge("x_up", "Up."));

    @Test
    void aScrapeOfDeclaredFamiliesHasNothingToSay() {
        String text = "# TYPE x_requests_total counter\nx_requests_total{method=\"A\"} 1\n"
                + "# TYPE x_duration_seconds summary\nx_duration_seconds{method=\"A\",quantile=\"0.5\"} 0.1\n"
                + "x_duration_seconds_sum{method=\"A\"} 0.1\nx_duration_seconds_count{method=\"A\"} 1\n"
                + "# TYPE x_call_seconds histogram\nx_call_seconds_bucket{op=\"a\",le=\"+Inf\"} 1\n"
                + "# TYPE x_up gauge\nx_up 1\n";
        assertEquals(List.of(), MetricsDocs.undeclared(text, DECLARED));
    }

    @Test
    void anUndeclaredFamilyAnotherTypeOrAnUndeclaredLabelIsNamed() {
        String text = "# TYPE x_other gauge\nx_other 1\n# TYPE x_up counter\nx_up 1\n"
                + "x_requests_total{method=\"A\",code=\"1\"} 1\nx_loose 3\n";
        assertEquals(List.of("x_loose is exported but not declared", "x_other (gauge) is exported but not declared",
                "x_requests_total has a label code not declared", "x_up is exported as a counter, declared a gauge"),
                MetricsDocs.undeclared(text, DECLARED));
    }

    @Test
    void theTableHasARowPerDeclaration() {
        assertEquals("| metric | type | labels | meaning |\n|---|---|---|---|\n"
                + "| `x_up` | gauge |  | Up. |\n| `x_requests_total` | counter | `method` | Requests. |\n",
                MetricsDocs.table(List.of(DECLARED.get(3), DECLARED.get(0))));
    }

    @Test
    void aCounterNotEndingInTotalIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Metric.counter("x_requests", "Requests."));
    }
}
