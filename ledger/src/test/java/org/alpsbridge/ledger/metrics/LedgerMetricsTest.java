package org.alpsbridge.ledger.metrics;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Latency by operation and refusals by reason and class, as an operator's /metrics shows them. */
class LedgerMetricsTest {

    static final Instant T = Instant.parse("2026-03-01T00:00:00Z");

    @TempDir
    Path dir;

    @Test
    void timesCallsAndCountsRefusalsByReasonAndClass() {
        LedgerMetrics metrics = new LedgerMetrics("alpsbridge_test_ledger");
        try (Ledger ledger = metrics.wrap(Ledger.open("sqlite:" + dir.resolve("m.db")))) {
            ledger.addProject("chem", 1, null);
            ledger.grant("chem", Resource.CPU, 100, T.minusSeconds(60), T.plusSeconds(86_400), "r", null);
            ledger.reserve(ReserveRequest.of(1, "j1", "chem", "u", 1, 32, 60, T)); // 1920 > 100: denied
            assertThrows(LedgerException.class, () -> ledger.addProject("chem", 1, null));
        }
        String text = metrics.prometheus();
        assertTrue(text.contains("# TYPE alpsbridge_test_ledger_call_seconds histogram"), text);
        assertTrue(text.contains("alpsbridge_test_ledger_call_seconds_bucket{op=\"reserve\",le=\"+Inf\"} 1"), text);
        assertTrue(text.contains("alpsbridge_test_ledger_call_seconds_count{op=\"grant\"} 1"), text);
        assertTrue(text.contains("alpsbridge_test_ledger_refusals_total{op=\"reserve\",reason=\"INSUFFICIENT_BALANCE\","
                + "class=\"permanent\"} 1"), text);
        assertTrue(text.contains("alpsbridge_test_ledger_refusals_total{op=\"addproject\",reason=\"refused\","
                + "class=\"permanent\"} 1"), text);
    }
}
