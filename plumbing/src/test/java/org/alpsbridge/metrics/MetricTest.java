package org.alpsbridge.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A label's closed set of values, declared with its family: checked when counted, started at 0, documented. */
class MetricTest {

    private static final Metric RELEASES = Metric.counter("x_released_total", "Releases, by outcome.", "outcome")
            .withValues("outcome", "released", "release-failed");

    @Test
    void aDeclaredValueIsCountedAndAnotherIsAProgrammingError() {
        assertEquals("released", RELEASES.check("outcome", "released"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RELEASES.check("outcome", "relased"));
        assertTrue(e.getMessage().contains("outcome=\"relased\" is not declared"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RELEASES.check("reason", "released"));
    }

    @Test
    void anOpenLabelTakesAnyValue() {
        Metric requests = Metric.counter("x_requests_total", "Requests.", "method");
        assertEquals("ANYTHING", requests.check("method", "ANYTHING"));
        assertEquals(List.of(), requests.series(), "an open label's series are only known once seen");
    }

    @Test
    void everySeriesOfAFamilyOfClosedLabelsStartsFromTheDeclaration() {
        assertEquals(List.of(List.of("released"), List.of("release-failed")), RELEASES.series());
        Metric two = Metric.counter("x_calls_total", "Calls.", "kind", "class").withValues("kind", "a", "b")
                .withValues("class", "t", "p");
        assertEquals(List.of(List.of("a", "t"), List.of("a", "p"), List.of("b", "t"), List.of("b", "p")), two.series());
        assertEquals(List.of(List.of()), Metric.counter("x_plain_total", "Plain.").series(), "one series, no label");
        assertEquals(List.of(), Metric.counter("x_mixed_total", "Mixed.", "method", "kind").withValues("kind", "a")
                .series());
    }

    @Test
    void badDeclarationsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Metric.counter("x_a_total", "A.", "outcome")
                .withValues("reason", "x"), "a label it does not have");
        assertThrows(IllegalArgumentException.class, () -> Metric.counter("x_a_total", "A.", "outcome")
                .withValues("outcome"), "no values");
        assertThrows(IllegalArgumentException.class, () -> Metric.counter("x_a_total", "A.", "outcome")
                .withValues("outcome", "x", "x"), "a value twice");
        assertThrows(IllegalArgumentException.class, () -> RELEASES.withValues("outcome", "other"), "declared twice");
    }

    @Test
    void theTableListsAClosedLabelsValues() {
        Metric failures = Metric.counter("x_failures_total", "Failures.", "method", "kind").withValues("kind", "a", "b");
        assertEquals("| metric | type | labels | meaning |\n|---|---|---|---|\n"
                + "| `x_released_total` | counter | `outcome`: `released`, `release-failed` | Releases, by outcome. |\n"
                + "| `x_failures_total` | counter | `method`; `kind`: `a`, `b` | Failures. |\n",
                MetricsDocs.table(List.of(RELEASES, failures)));
    }

    @Test
    void aScrapedValueItsClosedLabelDoesNotDeclareIsNamed() {
        String text = "# TYPE x_released_total counter\nx_released_total{outcome=\"released\"} 1\n"
                + "x_released_total{outcome=\"lost\"} 1\n";
        assertEquals(List.of("x_released_total has outcome=\"lost\", a value not declared"),
                MetricsDocs.undeclared(text, List.of(RELEASES)));
    }
}
