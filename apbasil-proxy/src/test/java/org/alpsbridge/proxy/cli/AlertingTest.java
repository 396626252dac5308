package org.alpsbridge.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.service.console.Console;
import org.alpsbridge.ledger.service.hook.HookAgent;
import org.alpsbridge.ledger.service.server.LedgerServer;
import org.alpsbridge.ledger.service.server.ServiceSettings;
import org.alpsbridge.ledger.store.PostgresServer;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.client.ProxyConnection;
import org.alpsbridge.proxy.server.EmulatorBackend;
import org.alpsbridge.proxy.server.ProxyDaemon;
import org.alpsbridge.proxy.wire.Exchange;
import org.alpsbridge.proxy.wire.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The shipped alert rules on a real Prometheus and Alertmanager (loopback, free ports, private directories) scraping
 * a real proxy pair (shared PostgreSQL, emulated Cray), the ledger service and the hook agent: the ledger service
 * stopped, the Cray stopped for a while, the active proxy killed, an orphan planted; each fault's alert reaches the
 * test's webhook receiver, and resolves once the fault is gone. The rules are the shipped file with every
 * {@code for:} and range shortened for a test (rewritten here, not copied), and every dashboard query returns data.
 */
class AlertingTest {

    static final Path RULES = Path.of("../dist/src/prometheus/alpsbridge-rules.yml");
    static final Path DASHBOARD = Path.of("../dist/src/prometheus/alpsbridge-dashboard.json");
    private static final BasilCodec CODEC = BasilCodec.standard();

    @TempDir
    Path dir;

    private final List<ProxyDaemon> daemons = new ArrayList<>();
    private final List<AutoCloseable> services = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private HttpServer webhook;
    private final AtomicBoolean driving = new AtomicBoolean(true);

    /** The emulated Cray behind a switch: off, every call gets no answer, as when ALPS is down. */
    static final class Switched implements Backend {
        static final AtomicBoolean UP = new AtomicBoolean(true);
        private final Backend inner;

        Switched(Backend inner) {
            this.inner = inner;
        }

        @Override
        public byte[] call(Call call) throws BackendException {
            if (!UP.get()) {
                throw new BackendException("the emulated Cray is stopped", true);
            }
            return inner.call(call);
        }

        @Override
        public String describe() {
            return "switched " + inner.describe();
        }

        @Override
        public void close() {
            // the Cray outlives a proxy
        }
    }

    @AfterEach
    void stop() throws Exception {
        driving.set(false);
        daemons.forEach(ProxyDaemon::close);
        for (int i = services.size() - 1; i >= 0; i--) {
            services.get(i).close(); // the hook agent, the service, then the ledger
        }
        for (Process p : processes) {
            p.destroy();
            p.waitFor();
        }
        if (webhook != null) {
            webhook.stop(0);
        }
        Switched.UP.set(true);
        System.clearProperty("apbasil.auth");
    }

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void require(boolean condition, String reason) {
        if (!condition && "1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
            throw new AssertionError(reason + " (ALPSBRIDGE_REQUIRE_SERVICES=1)");
        }
        Assumptions.assumeTrue(condition, reason);
    }

    /** The shipped rules with every {@code for:} at 3 s and every range at 20 s: a test's minutes are seconds. */
    static String forTest(String rules) {
        return rules.replaceAll("for: \\d+[smhd]", "for: 3s").replaceAll("\\[\\d+[smhd]\\]", "[20s]");
    }

    private ProxyDaemon proxy(String db, Emulator cray, Path jobs, int metricsPort) throws Exception {
        ProxyServeCommand cmd = new ProxyServeCommand();
        new CommandLine(cmd).parseArgs("--listen", "127.0.0.1:0", "--auth", "none", "--user-ids", "learn",
                "--orphan-jobs-file", jobs.toString(), "--set", "ha_db=" + db, "--set", "ha_lease=2",
                "--refresh-interval", "1", "--full-refresh-interval", "2", "--metrics", "127.0.0.1:" + metricsPort);
        ProxyDaemon d = cmd.start(new Switched(new EmulatorBackend("xc30:16", cray)));
        daemons.add(d);
        return d;
    }

    /** The ledger service as {@code ledger serve} assembles it, on {@code port}, authenticating no one (loopback). */
    private LedgerServer ledgerService(Ledger ledger, int port) throws Exception {
        ServiceSettings s = ServiceSettings.defaults().with(ServiceSettings.Key.AUTH, "none")
                .with(ServiceSettings.Key.LISTEN, "127.0.0.1:" + port);
        LedgerServer server = LedgerServer.start(ledger, s, "test", Console.of(s));
        services.add(server);
        return server;
    }

    private Process start(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(Path.of(command[0]).getFileName() + ".log").toFile()).start();
        processes.add(p);
        return p;
    }

    @Test
    void eachFaultRaisesItsAlertAtTheReceiverAndResolves() throws Exception {
        require(Files.isExecutable(Path.of("/usr/bin/prometheus")) && Files.isExecutable(Path.of("/usr/bin/prometheus-alertmanager")),
                "Prometheus and Alertmanager are not installed (Debian packages prometheus, prometheus-alertmanager)");
        System.setProperty("apbasil.auth", "none");
        String db = PostgresServer.get().newDatabase();
        Emulator cray = Emulator.create("xc30:16");
        Path jobs = Files.writeString(dir.resolve("live-jobs"), "");
        int metricsA = freePort();
        int metricsB = freePort();
        ProxyDaemon a = proxy(db, cray, jobs, metricsA);
        ProxyDaemon b = proxy(db, cray, jobs, metricsB);
        // the ledger service with one project's allocation, and the hook agent in front of it
        Ledger ledger = Ledger.open("sqlite:" + dir.resolve("ledger.db"));
        services.add(ledger);
        ledger.addProject("chem", 5001, "chem_acct");
        Instant now = Instant.now();
        ledger.grant("chem", Resource.CPU, 60_000, now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(30)),
                "research", null);
        int ledgerPort = freePort();
        LedgerServer service = ledgerService(ledger, ledgerPort);
        int agentPort = freePort();
        Files.write(dir.resolve("hook.conf"), List.of("db=http://127.0.0.1:" + ledgerPort, "log_file=none",
                "agent_socket=" + dir.resolve("agent.sock"), "spool=" + dir.resolve("spool"),
                "agent_metrics=127.0.0.1:" + agentPort));
        services.add(HookAgent.start(Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", dir.resolve("hook.conf").toString(),
                "ALPSBRIDGE_LEDGER_AUTH", "none"), new java.io.PrintStream(java.io.OutputStream.nullOutputStream())));

        // the receiver: every notification's alerts, as "NAME firing|resolved"
        List<String> received = new CopyOnWriteArrayList<>();
        int webhookPort = freePort();
        webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", webhookPort), 16);
        webhook.createContext("/", x -> {
            String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Matcher m = Pattern.compile("\\{\"status\":\"(firing|resolved)\",\"labels\":\\{\"alertname\":\"(\\w+)\"")
                    .matcher(body);
            while (m.find()) {
                received.add(m.group(2) + " " + m.group(1));
            }
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        webhook.start();

        int amPort = freePort();
        int promPort = freePort();
        Files.writeString(dir.resolve("alertmanager.yml"), "route:\n  receiver: test\n  group_by: [alertname, instance]\n"
                + "  group_wait: 1s\n  group_interval: 1s\n  repeat_interval: 1h\nreceivers:\n  - name: test\n"
                + "    webhook_configs:\n      - url: http://127.0.0.1:" + webhookPort + "/\n        send_resolved: true\n");
        start("/usr/bin/prometheus-alertmanager", "--config.file=" + dir.resolve("alertmanager.yml"),
                "--storage.path=" + dir.resolve("am"), "--web.listen-address=127.0.0.1:" + amPort,
                "--cluster.listen-address=");
        Files.writeString(dir.resolve("rules.yml"), forTest(Files.readString(RULES)));
        Files.writeString(dir.resolve("prometheus.yml"), "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                + "rule_files: [" + dir.resolve("rules.yml") + "]\n"
                + "alerting:\n  alertmanagers:\n    - static_configs: [{targets: ['127.0.0.1:" + amPort + "']}]\n"
                + "scrape_configs:\n  - job_name: alpsbridge-proxy\n    static_configs:\n"
                + "      - targets: ['127.0.0.1:" + metricsA + "', '127.0.0.1:" + metricsB + "']\n"
                + "        labels: {pair: xc1}\n"
                + "  - job_name: alpsbridge-ledger\n    static_configs: [{targets: ['127.0.0.1:" + ledgerPort + "']}]\n"
                + "  - job_name: alpsbridge-hook-agent\n    static_configs: [{targets: ['127.0.0.1:" + agentPort + "']}]\n");
        start("/usr/bin/prometheus", "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + promPort,
                "--rules.alert.resend-delay=1s");

        // slurmctld's calls, all along: what keeps the proxies talking to ALPS
        Thread driver = new Thread(() -> {
            while (driving.get()) {
                for (ProxyDaemon d : List.copyOf(daemons)) {
                    for (String type : List.of("ENGINE", "INVENTORY")) {
                        try {
                            ProxyConnection.roundTrip(d.address(), new Exchange(Exchange.Kind.BASIL, "", "",
                                    CODEC.write(BasilRequest.query("1.3", type))), Duration.ofSeconds(5), null, 1 << 24);
                        } catch (Exception e) {
                            // a killed or standby proxy: slurmctld tries again
                        }
                    }
                }
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "slurmctld");
        driver.setDaemon(true);
        driver.start();
        String prom = "http://127.0.0.1:" + promPort;
        awaitQuery(prom, "sum(up{job=~\"alpsbridge-.*\"}) == 4", Duration.ofSeconds(60));
        // the bookkeepers' console reading balances: ledger calls for the dashboard's ledger panels
        HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ledgerPort
                + "/v1/balances")).build(), HttpResponse.BodyHandlers.ofString());

        // the ledger service stopped, then started again
        service.close();
        await(received, "AlpsbridgeLedgerServiceDown firing", Duration.ofSeconds(40));
        ledgerService(ledger, ledgerPort);
        await(received, "AlpsbridgeLedgerServiceDown resolved", Duration.ofSeconds(40));
        HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ledgerPort
                + "/v1/balances")).build(), HttpResponse.BodyHandlers.ofString());

        // the Cray stopped for a while
        Switched.UP.set(false);
        await(received, "AlpsbridgeAlpsUnreachable firing", Duration.ofSeconds(40));
        Switched.UP.set(true);
        await(received, "AlpsbridgeAlpsUnreachable resolved", Duration.ofSeconds(40));

        // the active proxy killed: its endpoint goes with it; the standby takes over; a new proxy comes back
        ProxyDaemon active = awaitActive(a, b);
        ProxyDaemon survivor = active == a ? b : a;
        int killedPort = active == a ? metricsA : metricsB;
        active.halt();
        active.backend().close(); // the process's metrics endpoint dies with it
        daemons.remove(active);
        await(received, "AlpsbridgeProxyDown firing", Duration.ofSeconds(40));
        await(received, "AlpsbridgeProxyTakeover firing", Duration.ofSeconds(40));
        assertEquals(survivor, awaitActive(survivor));
        proxy(db, cray, jobs, killedPort);
        await(received, "AlpsbridgeProxyDown resolved", Duration.ofSeconds(40));
        await(received, "AlpsbridgeProxyTakeover resolved", Duration.ofSeconds(60));

        // an orphan planted behind the proxies' back, then released by the operator
        cray.control().plantReservation("mallory", "999", 3);
        await(received, "AlpsbridgeOrphanFound firing", Duration.ofSeconds(40));
        // (by the survivor, which the dashboard's released panel then reads)
        Reply released = ProxyConnection.roundTrip(survivor.address(), Exchange.admin("op-1", "", "orphans",
                Map.of("release", "true")), Duration.ofSeconds(30), null, 1 << 24);
        assertEquals(Reply.Status.OK, released.status(), released.reason());
        await(received, "AlpsbridgeOrphanFound resolved", Duration.ofSeconds(40));

        // every dashboard query returns data (within a few scrapes: increase() needs two samples of a change)
        Matcher expr = Pattern.compile("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(Files.readString(DASHBOARD));
        Set<String> queries = new TreeSet<>();
        while (expr.find()) {
            String q = expr.group(1).replace("\\\"", "\"");
            if (q.contains("alpsbridge_")) {
                queries.add(q);
            }
        }
        int asked = queries.size();
        Set<String> empty = new TreeSet<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        do {
            empty.clear();
            for (String q : queries) {
                String answer = query(prom, q);
                if (!answer.contains("\"status\":\"success\"") || answer.contains("\"result\":[]")) {
                    empty.add(q + " -> " + answer);
                }
            }
            if (!empty.isEmpty()) {
                Thread.sleep(1000);
            }
        } while (!empty.isEmpty() && System.nanoTime() < deadline);
        assertEquals(Set.of(), empty, "dashboard queries without data");
        assertTrue(asked >= 18, "the dashboard's queries: " + asked);
    }

    private static ProxyDaemon awaitActive(ProxyDaemon... candidates) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (ProxyDaemon d : candidates) {
                Reply r = ProxyConnection.roundTrip(d.address(), Exchange.admin("op-" + System.nanoTime(), "", "stats",
                        Map.of()), Duration.ofSeconds(10), null, 1 << 24);
                if (r.status() == Reply.Status.OK && r.reason().startsWith("availability: active")) {
                    return d;
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no proxy became active");
    }

    private static String query(String prom, String q) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(prom + "/api/v1/query?query="
                + URLEncoder.encode(q, StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static void awaitQuery(String prom, String q, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                last = query(prom, q);
                if (last.contains("\"status\":\"success\"") && !last.contains("\"result\":[]")) {
                    return;
                }
            } catch (java.io.IOException e) {
                last = e.toString(); // Prometheus still starting
            }
            Thread.sleep(250);
        }
        throw new AssertionError(q + " never held: " + last);
    }

    private static void await(List<String> received, String notification, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (!received.contains(notification) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertTrue(received.contains(notification), notification + " not received; received: " + received);
    }
}
