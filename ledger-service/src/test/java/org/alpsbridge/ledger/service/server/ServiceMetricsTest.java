package org.alpsbridge.ledger.service.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.metrics.MetricsDocs;
import org.alpsbridge.metrics.MetricsGuide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger service's {@code /metrics}: every family declared ({@link ServiceMetrics#declared()}) and in the
 * operator's guide's table; the store's reachability and each active allocation's figures, for the alerts.
 * {@code -Dalpsbridge.docs.write=true} rewrites the table from the declarations.
 */
class ServiceMetricsTest {

    @TempDir
    Path dir;

    @Test
    void theGuidesTableIsTheDeclarations() throws Exception {
        MetricsGuide.assertTableIsTheDeclarations(MetricsGuide.OPERATOR_GUIDE, "ledger-service", ServiceMetrics.declared());
    }

    @Test
    void aRealServiceExportsOnlyDeclaredMetricsWithItsAllocationsAndItsStore() throws Exception {
        Instant now = Instant.now();
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("l.db"))) {
            ledger.addProject("chem", 5001, "chem_acct");
            ledger.grant("chem", Resource.CPU, 6000, now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(29)),
                    "default", null);
            ledger.grant("chem", Resource.CPU, 100, now.minus(Duration.ofDays(60)), now.minus(Duration.ofDays(30)),
                    "default", null); // ended: not shown
            try (LedgerServer server = LedgerServerAuthNoneTest.start(ledger, LedgerServerAuthNoneTest.none("127.0.0.1:0"))) {
                HttpClient http = HttpClient.newHttpClient();
                String base = "http://" + server.addresses().get(0);
                http.send(HttpRequest.newBuilder(URI.create(base + "/v1/balances")).build(),
                        HttpResponse.BodyHandlers.ofString());
                String text = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                assertEquals(List.of(), MetricsDocs.undeclared(text, ServiceMetrics.declared()), text);
                assertTrue(text.contains("\nalpsbridge_ledger_service_store_up 1\n"), text);
                assertTrue(text.matches("(?s).*\nalpsbridge_ledger_service_allocation_available_minutes\\{project=\"chem\","
                        + "resource=\"cpu\",allocation=\"\\d+\"} 6000\n.*"), text);
                assertTrue(text.contains("alpsbridge_ledger_service_allocation_end_timestamp_seconds{project=\"chem\""), text);
                assertEquals(1, text.lines().filter(l -> l.startsWith("alpsbridge_ledger_service_allocation_granted_minutes"))
                        .count(), "the ended allocation is left out: " + text);
                assertTrue(text.contains("alpsbridge_ledger_service_ledger_call_seconds_count{op=\"balances\"} 1"), text);
            }
        }
    }
}
