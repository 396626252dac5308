package org.alpsbridge.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.ledger.store.PostgresServer;
import org.alpsbridge.metrics.MetricsDocs;
import org.alpsbridge.metrics.MetricsGuide;
import org.alpsbridge.proxy.client.ProxyConnection;
import org.alpsbridge.proxy.server.EmulatorBackend;
import org.alpsbridge.proxy.server.ProxyDaemon;
import org.alpsbridge.proxy.stats.ProxyMetric;
import org.alpsbridge.proxy.wire.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The operator's guide's proxy metrics table is the declarations' ({@link ProxyMetric#all()}), and a real daemon
 * ({@code proxy serve} with the policy, the orphan watch, a ledger and a pair's lease) exports nothing undeclared.
 * {@code -Dalpsbridge.docs.write=true} rewrites the table from the declarations.
 */
class ProxyMetricsDeclaredTest {

    @TempDir
    Path dir;

    @Test
    void theGuidesTableIsTheDeclarations() throws Exception {
        MetricsGuide.assertTableIsTheDeclarations(MetricsGuide.OPERATOR_GUIDE, "proxy", ProxyMetric.all());
    }

    @Test
    void aRealDaemonExportsOnlyDeclaredMetrics() throws Exception {
        int port = AlertingTest.freePort();
        Emulator cray = Emulator.create("xc30:16");
        Path jobs = Files.writeString(dir.resolve("live-jobs"), "");
        System.setProperty("apbasil.auth", "none");
        ProxyServeCommand cmd = new ProxyServeCommand();
        new CommandLine(cmd).parseArgs("--listen", "127.0.0.1:0", "--auth", "none", "--user-ids", "learn",
                "--orphan-jobs-file", jobs.toString(), "--set", "ha_db=" + PostgresServer.get().newDatabase(),
                "--set", "ha_lease=2", "--metrics", "127.0.0.1:" + port, "--ledger", "sqlite:" + dir.resolve("l.db"),
                "--ledger-job-accounts", "none", "--ledger-on-deny", "none", "--ledger-time-limits", "none");
        try (ProxyDaemon daemon = cmd.start(new EmulatorBackend("xc30:16", cray))) {
            String first = scrape(port);
            // every series of a family of closed labels is there at 0 before its first event: increase() needs it
            for (ProxyMetric m : ProxyMetric.values()) {
                if (m.metric().type() != org.alpsbridge.metrics.Metric.Type.COUNTER) {
                    continue;
                }
                for (List<String> series : m.metric().series()) {
                    String labels = series.isEmpty() ? "" : "{" + m.metric().labels().get(0) + "=\"" + series.get(0) + "\"}";
                    // the start itself may take the pair's lease (none before it) and fetch the first inventory
                    boolean mayHaveCounted = m == ProxyMetric.HA_TAKEOVERS || m == ProxyMetric.POLICY_REFRESHES
                            || m == ProxyMetric.POLICY_INVENTORY_ANSWERS;
                    assertTrue(first.contains("\n" + m.metric().name() + labels + (mayHaveCounted ? " " : " 0\n")),
                            m.metric().name() + labels + " in " + first);
                }
            }
            BasilCodec codec = BasilCodec.standard();
            for (byte[] request : List.of(codec.write(BasilRequest.query("1.3", "ENGINE")),
                    codec.write(BasilRequest.query("1.3", "INVENTORY")),
                    codec.write(BasilRequest.reserve("1.3", "alice", "7", "chem", List.of(ReserveParam.builder().width(2).build()))))) {
                ProxyConnection.roundTrip(daemon.address(), new Exchange(Exchange.Kind.BASIL, "", "", request),
                        Duration.ofSeconds(30), null, 1 << 24);
            }
            String text = scrape(port);
            assertEquals(List.of(), MetricsDocs.undeclared(text, ProxyMetric.all()), text);
            // the scrape saw the families the alerts need, so the check above looked at something
            for (ProxyMetric m : List.of(ProxyMetric.REQUESTS, ProxyMetric.HA_ACTIVE, ProxyMetric.BACKEND_UP,
                    ProxyMetric.ORPHANS, ProxyMetric.POLICY_INVENTORY_ANSWERS)) {
                assertTrue(MetricsDocs.families(text).containsKey(m.metric().name()), m + " in " + text);
            }
            assertTrue(MetricsDocs.families(text).containsKey(ProxyMetric.LEDGER_PREFIX + "_call_seconds"), text);
        } finally {
            System.clearProperty("apbasil.auth");
        }
    }

    private static String scrape(int port) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}
