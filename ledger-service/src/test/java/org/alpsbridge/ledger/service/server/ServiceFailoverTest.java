package org.alpsbridge.ledger.service.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.alpsbridge.ledger.LedgerUnavailableException;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.service.client.ServiceOpener;
import org.alpsbridge.ledger.store.FailoverStorm;
import org.alpsbridge.ledger.store.ReplicatedPostgres;
import org.alpsbridge.ledger.store.StoreSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger service on a primary and a synchronous standby (multi-host URL), in a charge storm of
 * clients over HTTP: kill -9 of the primary, promotion of the standby. The service reconnects by itself
 * (it is not restarted); while the store is unreachable it answers 503 with a JSON problem marked
 * transient and {@code Retry-After}, which the clients retry; every acknowledged event is on the new
 * primary once, and check and replay are clean.
 */
class ServiceFailoverTest {

    @TempDir
    Path dir;

    @Test
    void aPromotedStandbyTakesOverWithoutLossAndOutagesAnswer503Transient() throws Exception {
        try (ReplicatedPostgres pair = ReplicatedPostgres.start()) {
            FailoverStorm.prepare(pair.url(), "hot");
            try (RunningService running = RunningService.start(pair.url(), Map.of("auth", "munge",
                    StoreSettings.PG_RECONNECT_SECONDS.name(), "1"))) { // shorter than the outage below
                FailoverStorm.Result r;
                try (Ledger client = ServiceOpener.open(running.url(),
                        Map.of("ALPSBRIDGE_MUNGE_SOCKET", running.mungeSocket().toString()))) {
                    r = FailoverStorm.run(client, "daint", "hot", 16, 3_000, () -> {
                        try {
                            pair.killPrimary();
                            Thread.sleep(2_500);
                            pair.promoteStandby();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }, 2_000);
                }
                System.out.println("ServiceFailoverTest promote: " + r);
                assertTrue(r.beforeBreak.get() > 0, "the storm ran before the break: " + r);
                assertTrue(r.refusedTransient.get() > 0 && r.retriedOk.get() > 0, "the outage was answered 503"
                        + " transient and the retries succeeded: " + r);
                // what an operator's scrape shows of it: latency of the calls, and the transient refusals
                HttpResponse<String> scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(running.url() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, scrape.statusCode(), scrape.body());
                assertTrue(scrape.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
                assertTrue(scrape.body().contains("alpsbridge_ledger_service_ledger_call_seconds_bucket{op=\"reserve\""),
                        scrape.body());
                assertTrue(scrape.body().contains("reason=\"unavailable\",class=\"transient\"}"), scrape.body());
                r.verify(pair.primaryUrl(), "hot", dir);
            }
        }
    }

    @Test
    void anUnreachableStoreIsA503ProblemMarkedTransientWithRetryAfter() throws Exception {
        Ledger down = (Ledger) Proxy.newProxyInstance(Ledger.class.getClassLoader(), new Class<?>[] {Ledger.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    throw new LedgerUnavailableException("PostgreSQL ledger unreachable for 30 s; retry", null);
                });
        try (LedgerServer server = LedgerServerAuthNoneTest.start(down, LedgerServerAuthNoneTest.none("localhost:0"))) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://" + server.addresses().get(0) + "/v1/balances?project=chem")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, r.statusCode(), r.body());
            assertEquals("5", r.headers().firstValue("Retry-After").orElse(null));
            assertTrue(r.body().contains("\"transient\":true") && r.body().contains("unreachable"), r.body());
        }
    }
}
