package org.alpsbridge.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Two real daemons ({@code proxy serve}, as the command assembles them) on loopback in front of one emulated
 * Cray, sharing a real PostgreSQL ({@code ha_db}); "killing" the active one is {@link ProxyDaemon#halt()}:
 * connections drop, its lease is neither renewed nor released, it writes nothing more.
 */
class TwoProxiesTest {

    private static final BasilCodec CODEC = BasilCodec.standard();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** Short, to keep the default run lean; {@code -Dalpsbridge.test.haLease=5} measures at the default lease. */
    private static final String LEASE = System.getProperty("alpsbridge.test.haLease", "2");

    @TempDir
    Path dir;

    private String db;
    private Emulator cray;
    private Path jobs;
    private final List<ProxyDaemon> daemons = new ArrayList<>();

    @BeforeEach
    void pairSharingOneDatabaseAndOneCray() throws Exception {
        db = PostgresServer.get().newDatabase();
        cray = Emulator.create("xc30:16");
        jobs = Files.writeString(dir.resolve("live-jobs"), ""); // no live batch job: every job's reservation is orphaned
        System.setProperty("apbasil.auth", "none");
    }

    @AfterEach
    void stop() {
        daemons.forEach(ProxyDaemon::close);
        System.clearProperty("apbasil.auth");
    }

    private ProxyDaemon start(Backend backend) throws Exception {
        return start(backend, LEASE);
    }

    private ProxyDaemon start(Backend backend, String lease, String... more) throws Exception {
        ProxyServeCommand cmd = new ProxyServeCommand();
        List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--auth", "none", "--user-ids", "learn",
                "--orphan-jobs-file", jobs.toString(), "--set", "ha_db=" + db, "--set", "ha_lease=" + lease));
        args.addAll(List.of(more));
        new CommandLine(cmd).parseArgs(args.toArray(String[]::new));
        ProxyDaemon d = cmd.start(backend);
        daemons.add(d);
        return d;
    }

    private ProxyDaemon start() throws Exception {
        return start(new EmulatorBackend("xc30:16", cray));
    }

    private static Reply send(ProxyDaemon daemon, String exchangeId, byte[] request) throws Exception {
        return ProxyConnection.roundTrip(daemon.address(), new Exchange(Exchange.Kind.BASIL, exchangeId, "", request),
                TIMEOUT, null, 1 << 24);
    }

    private static String admin(ProxyDaemon daemon, String command, Map<String, String> args) throws Exception {
        Reply r = ProxyConnection.roundTrip(daemon.address(), Exchange.admin("op-" + System.nanoTime(), "", command, args),
                TIMEOUT, null, 1 << 24);
        assertEquals(Reply.Status.OK, r.status(), r.reason());
        return r.reason();
    }

    private static byte[] engine() throws Exception {
        return CODEC.write(BasilRequest.query("1.3", "ENGINE"));
    }

    private static byte[] reserve(String batchId) throws Exception {
        return CODEC.write(BasilRequest.reserve("1.3", "alice", batchId, "chem_acct",
                List.of(ReserveParam.builder().width(2).build())));
    }

    private static ResponseData data(Reply r) throws Exception {
        assertEquals(Reply.Status.OK, r.status(), r.reason());
        return CODEC.readResponse(r.payload()).responseData();
    }

    /** Calls the survivor until it answers as the active proxy; returns the milliseconds since {@code killed}. */
    private static long firstSuccess(ProxyDaemon survivor, long killed) throws Exception {
        long deadline = killed + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            Reply r = send(survivor, "", engine());
            if (r.status() == Reply.Status.OK && data(r).isSuccess()) {
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            }
            assertEquals(Reply.Status.NOT_ACTIVE, r.status(), r.reason());
            Thread.sleep(20);
        }
        throw new AssertionError("the standby did not take over within 30 s");
    }

    @Test
    void theStandbyRunsNothingAndNamesTheActiveProxyButStillAnswersOperators() throws Exception {
        ProxyDaemon active = start();
        ProxyDaemon standby = start();
        assertTrue(data(send(active, "", engine())).isSuccess());

        Reply refused = send(standby, "job-3-reserve", reserve("3"));
        assertEquals(Reply.Status.NOT_ACTIVE, refused.status());
        assertTrue(refused.reason().endsWith(" (active: " + active.address().text() + ")"), refused.reason());
        assertEquals(0, cray.control().reservationIds().length, "the standby reserved nothing");

        assertTrue(admin(standby, "stats", Map.of()).startsWith("availability: standby, lease epoch 0"),
                admin(standby, "stats", Map.of()));
        String stats = admin(active, "stats", Map.of());
        assertTrue(stats.startsWith("availability: active, lease epoch 1"), stats);
        String metrics = admin(active, "stats", Map.of("format", "prometheus"));
        assertTrue(metrics.contains("\nalpsbridge_proxy_ha_active 1\n"), metrics);
        assertTrue(metrics.contains("\nalpsbridge_proxy_ha_epoch 1\n"), metrics);
        assertTrue(admin(standby, "stats", Map.of("format", "prometheus")).contains("\nalpsbridge_proxy_ha_active 0\n"));
    }

    @Test
    void theSurvivorTakesOverWithinTheLeaseAndAnswersARetriedReserveWithoutRunningItAgain() throws Exception {
        ProxyDaemon first = start();
        ProxyDaemon survivor = start();
        Reply reserved = send(first, "job-5-reserve", reserve("5"));
        long id = data(reserved).content(Reserved.class).orElseThrow().reservationId();

        long killed = System.nanoTime();
        first.halt();
        long ms = firstSuccess(survivor, killed);
        System.out.println("kill to first successful call through the survivor: " + ms + " ms (ha_lease=" + LEASE + " s)");

        Reply retried = send(survivor, "job-5-reserve", reserve("5"));
        assertArrayEquals(reserved.payload(), retried.payload(), "the first answer, from the shared memory");
        assertArrayEquals(new long[] {id}, cray.control().reservationIds(), "reserved once");
        Reply reused = send(survivor, "job-5-reserve", reserve("6"));
        assertTrue(data(reused).messageText().contains("already used for a different request"),
                data(reused).messageText());

        String stats = admin(survivor, "stats", Map.of());
        assertTrue(stats.startsWith("availability: active, lease epoch 2"), stats);
        assertTrue(stats.contains("ha_takeovers{expired}"), stats);
    }

    /**
     * The clients as a site installs them (no setting but the two proxies; the product's {@code ha_lease}) ride out
     * the active proxy's death: an ENGINE and a RESERVE sent by the native client, and an ENGINE by the Java one, the
     * moment it dies, each answered through the survivor. The dead proxy refuses and the standby answers NOT_ACTIVE
     * until it takes over: nothing was sent, so every method is retried. The previous default, 2 retries (0.3 s of
     * waits), gives up long before the takeover: slurmstepd fatal()ed on such an ENGINE and its job was lost.
     */
    @Test
    void theShippedClientSettingsRideOutTheActiveProxysDeathAtTheShippedLease() throws Exception {
        String lease = org.alpsbridge.proxy.server.ProxyConfig.Key.HA_LEASE.defaultValue();
        ProxyDaemon first = start(new EmulatorBackend("xc30:16", cray), lease);
        ProxyDaemon survivor = start(new EmulatorBackend("xc30:16", cray), lease);
        assertEquals(Reply.Status.OK, send(first, "", engine()).status(), "the first is active");
        String proxies = first.address().text() + "," + survivor.address().text();
        // the native client as built by its Makefile (target/c/apbasil)
        assertEquals(0, new ProcessBuilder("make", "-s", "-C", "src/main/c").inheritIO().start().waitFor());
        String config = System.setProperty("apbasil.config", "/dev/null");
        try {
            long killed = System.nanoTime();
            first.halt();
            CompletableFuture<byte[]> javaEngine = CompletableFuture.supplyAsync(() -> {
                try {
                    return org.alpsbridge.proxy.client.Apbasil.call(proxies, engine(), Duration.ofSeconds(300));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Process nativeEngine = nativeClient(proxies, engine(), Map.of());
            Process nativeReserve = nativeClient(proxies, reserve("7"), Map.of());
            Process oldDefault = nativeClient(proxies, engine(), Map.of("APBASIL_RETRIES", "2"));
            String gaveUp = new String(oldDefault.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(1, oldDefault.waitFor(), "2 retries outlast no takeover: " + gaveUp);
            assertTrue(gaveUp.contains("no apbasil proxy answered"), gaveUp);
            for (Process p : List.of(nativeEngine, nativeReserve)) {
                byte[] out = p.getInputStream().readAllBytes();
                String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, p.waitFor(), err);
                assertTrue(CODEC.readResponse(out).responseData().isSuccess(), new String(out, StandardCharsets.UTF_8));
            }
            assertTrue(CODEC.readResponse(javaEngine.get(300, TimeUnit.SECONDS)).responseData().isSuccess());
            System.out.println("kill to every shipped-settings call answered through the survivor: "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed) + " ms (ha_lease=" + lease + " s)");
            assertEquals(1, cray.control().reservationIds().length, "the RESERVE ran once");
        } finally {
            if (config == null) {
                System.clearProperty("apbasil.config");
            } else {
                System.setProperty("apbasil.config", config);
            }
        }
    }

    /** The native client with only the proxies (and auth=none) set, plus {@code more}, sending {@code request}. */
    private static Process nativeClient(String proxies, byte[] request, Map<String, String> more) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("target/c/apbasil");
        pb.environment().keySet().removeIf(k -> k.startsWith("APBASIL_"));
        pb.environment().putAll(Map.of("APBASIL_CONFIG", "/dev/null", "APBASIL_PROXY", proxies, "APBASIL_AUTH", "none"));
        pb.environment().putAll(more);
        Process p = pb.start();
        try (var in = p.getOutputStream()) {
            in.write(request);
        }
        return p;
    }

    /**
     * A backend in front of the shared Cray that answers a RESERVE's caller never: ALPS has reserved when
     * {@code forwarded} opens, then the call hangs as the proxy dies around it (its forward done, its journaling and
     * answer not).
     */
    private Backend dyingAfterAlpsReserved(CountDownLatch forwarded) {
        Backend shared = new EmulatorBackend("xc30:16", cray);
        return new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                byte[] answer = shared.call(call);
                if (call.method().equals("RESERVE")) {
                    forwarded.countDown(); // ALPS has reserved; the answer never leaves this proxy
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new BackendException("halted", true);
                }
                return answer;
            }

            @Override
            public String describe() {
                return shared.describe();
            }
        };
    }

    /** Both proxies charge one ledger on the pair's PostgreSQL (another database of the same server). */
    private String ledgerWithProject() {
        String url = PostgresServer.get().newDatabase();
        try (Ledger setup = Ledger.open(url)) {
            setup.addProject("chem", 5001, "chem_acct");
            setup.grant("chem", Resource.CPU, 1_000_000_000L, Instant.now().minusSeconds(86_400),
                    Instant.now().plusSeconds(86_400 * 30), "r", null);
        }
        return url;
    }

    private static String[] charging(String ledger) {
        return new String[] {"--ledger", ledger, "--ledger-job-accounts", "none", "--ledger-on-deny", "none",
            "--ledger-time-limits", "none"};
    }

    /**
     * Waits for the orphan watch, which judges a full inventory after it was answered, to have counted
     * {@code line} among the daemon's metrics; returns them.
     */
    private static String awaitMetric(ProxyDaemon daemon, String line) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        String metrics = admin(daemon, "stats", Map.of("format", "prometheus"));
        while (!metrics.contains(line) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            metrics = admin(daemon, "stats", Map.of("format", "prometheus"));
        }
        assertTrue(metrics.contains(line), metrics);
        return metrics;
    }

    @Test
    void theSurvivorReleasesWhatAReserveInterruptedBetweenForwardAndAnswerMadeAndVoidsItsHoldWhileTheJobWaits()
            throws Exception {
        Files.writeString(jobs, "7\n"); // job 7 still pending in the scheduler: only the journal tells it is no one's
        String ledger = ledgerWithProject();
        CountDownLatch forwarded = new CountDownLatch(1);
        ProxyDaemon dying = start(dyingAfterAlpsReserved(forwarded), LEASE, charging(ledger));
        ProxyDaemon survivor = start(new EmulatorBackend("xc30:16", cray), LEASE, charging(ledger));
        CompletableFuture<Reply> lost = CompletableFuture.supplyAsync(() -> {
            try {
                return send(dying, "job-7-reserve", reserve("7"));
            } catch (Exception e) {
                return null;
            }
        });
        assertTrue(forwarded.await(30, TimeUnit.SECONDS));
        long killed = System.nanoTime();
        dying.halt();
        assertEquals(null, lost.get(30, TimeUnit.SECONDS), "the caller got no answer from the dead proxy");
        long left = cray.control().reservationIds()[0];
        System.out.println("kill to first successful call through the survivor: " + firstSuccess(survivor, killed)
                + " ms (ha_lease=" + LEASE + " s, a RESERVE in flight)");

        ResponseData retried = data(send(survivor, "job-7-reserve", reserve("7")));
        assertFalse(retried.isSuccess());
        assertTrue(retried.messageText().contains("RESERVE exchange job-7-reserve was running on the apbasil proxy "
                + dying.address().text() + " when it stopped; its outcome is unknown"), retried.messageText());
        assertEquals(1, cray.control().reservationIds().length, "not run again");
        assertTrue(admin(survivor, "interrupted", Map.of()).contains("RESERVE exchange job-7-reserve"));

        // Slurm asks again for job 7 under a new exchange, before the survivor's first full inventory: the same
        // batch id and user, but answered, so it is the job's and is kept.
        ResponseData again = data(send(survivor, "job-7-reserve-2", reserve("7")));
        assertTrue(again.isSuccess(), again.messageText());
        long kept = again.content(Reserved.class).orElseThrow().reservationId();
        assertTrue(data(send(survivor, "", CODEC.write(BasilRequest.query("1.3", "INVENTORY")))).isSuccess());
        awaitMetric(survivor, "\nalpsbridge_proxy_orphans_interrupted_reserves_total{outcome=\"released\"} 1\n");
        assertArrayEquals(new long[] {kept}, cray.control().reservationIds(), "the interrupted RESERVE's " + left
                + " released, the retry's kept");
        try (Ledger check = Ledger.open(ledger)) {
            List<org.alpsbridge.ledger.Reservation> holds = check.reservations("default", "7");
            assertEquals(2, holds.size(), holds.toString());
            var interrupted = holds.stream().filter(r -> r.key().endsWith("~job-7-reserve")).findFirst().orElseThrow();
            assertEquals(State.VOIDED, interrupted.state(), interrupted.toString());
            assertEquals(left, interrupted.resId(), "bound to what the interrupted RESERVE made, then voided");
            var running = holds.stream().filter(r -> r.key().endsWith("~job-7-reserve-2")).findFirst().orElseThrow();
            assertEquals(State.HELD, running.state(), running.toString());
            assertEquals(kept, running.resId());
            assertEquals(List.of(), check.check());
        }

        // Settled once: a later inventory (and the next takeover) keeps the job's reservation.
        assertTrue(admin(survivor, "orphans", Map.of("refresh", "true", "format", "json")).contains("\"orphans\":[]"));
        assertArrayEquals(new long[] {kept}, cray.control().reservationIds());
        assertTrue(admin(survivor, "stats", Map.of("format", "prometheus"))
                .contains("alpsbridge_proxy_orphans_interrupted_reserves_total{outcome=\"released\"} 1"));
    }

    /** The shared Cray behind a switch: while {@code down} is set every call fails as an unreachable ALPS does. */
    private Backend reachableWhile(java.util.concurrent.atomic.AtomicBoolean down, Backend cray) {
        return new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                if (down.get()) {
                    try {
                        Thread.sleep(100); // apbasil trying to reach the SDB
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new BackendException("apbasil: cannot reach ALPS (apsys): Connection timed out", true);
                }
                return cray.call(call);
            }

            @Override
            public String describe() {
                return cray.describe();
            }
        };
    }

    @Test
    void theCrayUnreachableWhileTheActiveProxyDiesIsAnsweredTransientUntilItComesBackThenTheSurvivorSettlesAndServes()
            throws Exception {
        Files.writeString(jobs, "7\n9\n");
        String ledger = ledgerWithProject();
        java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean();
        CountDownLatch forwarded = new CountDownLatch(1);
        ProxyDaemon dying = start(reachableWhile(down, dyingAfterAlpsReserved(forwarded)), LEASE, charging(ledger));
        ProxyDaemon survivor = start(reachableWhile(down, new EmulatorBackend("xc30:16", cray)), LEASE,
                charging(ledger));
        byte[] engineBefore = send(dying, "", engine()).payload(); // what ALPS is, asked through the active proxy
        CompletableFuture.runAsync(() -> {
            try {
                send(dying, "job-7-reserve", reserve("7"));
            } catch (Exception e) {
                // the dying proxy never answers
            }
        });
        assertTrue(forwarded.await(30, TimeUnit.SECONDS));
        down.set(true); // ALPS becomes unreachable as the active proxy dies with a RESERVE between forward and answer
        long killed = System.nanoTime();
        dying.halt();
        long left = cray.control().reservationIds()[0];

        // What slurmctld keeps asking meanwhile: the inventory, and job 9's RESERVE (a new exchange each pass).
        long outage = Duration.ofSeconds(Long.parseLong(LEASE) * 2L).toNanos(); // "a minute", shortened: past the takeover
        long tookOver = -1;
        int transients = 0;
        for (int pass = 0; System.nanoTime() - killed < outage; pass++) {
            for (Reply r : List.of(send(survivor, "", CODEC.write(BasilRequest.query("1.3", "INVENTORY"))),
                    send(survivor, "job-9-pass-" + pass, reserve("9")))) {
                if (r.status() == Reply.Status.NOT_ACTIVE) {
                    assertEquals(-1, tookOver, "standby again after taking over: " + r.reason());
                    continue;
                }
                ResponseData answer = data(r);
                assertFalse(answer.isSuccess(), "ALPS is unreachable: no answer but a failure");
                assertEquals(org.alpsbridge.basil.model.ErrorClass.TRANSIENT, answer.errorClass(), answer.messageText());
                transients++;
                if (tookOver < 0) {
                    tookOver = System.nanoTime();
                }
            }
            Thread.sleep(100);
        }
        assertTrue(tookOver > 0, "the survivor took over during the outage");
        // slurmstepd asks ENGINE at every job's start and end and fatal()s without an answer: the survivor, which
        // never asked ALPS, gives the pair's last one
        assertArrayEquals(engineBefore, send(survivor, "", engine()).payload());
        assertArrayEquals(new long[] {left}, cray.control().reservationIds(), "nothing reserved or released meanwhile");

        down.set(false);
        long back = System.nanoTime();
        ResponseData first = data(send(survivor, "", CODEC.write(BasilRequest.query("1.3", "INVENTORY"))));
        assertTrue(first.isSuccess(), first.messageText()); // the survivor's first full fetch
        long fetched = System.nanoTime();
        awaitMetric(survivor, "\nalpsbridge_proxy_orphans_interrupted_reserves_total{outcome=\"released\"} 1\n");
        long settled = System.nanoTime();
        assertEquals(0, cray.control().reservationIds().length, "the interrupted RESERVE's reservation released");
        ResponseData served = data(send(survivor, "job-9-pass-after", reserve("9")));
        assertTrue(served.isSuccess(), served.messageText());
        long normal = System.nanoTime();
        System.out.printf("Cray unreachable during a failover (ha_lease=%s s, outage %d ms): kill to the survivor's"
                + " first TRANSIENT answer %d ms (%d TRANSIENT answers, no other); ALPS back to its first full fetch"
                + " %d ms, to the interrupted RESERVE's reservation released %d ms, to job 9 reserved %d ms%n", LEASE,
                TimeUnit.NANOSECONDS.toMillis(back - killed), TimeUnit.NANOSECONDS.toMillis(tookOver - killed),
                transients, TimeUnit.NANOSECONDS.toMillis(fetched - back), TimeUnit.NANOSECONDS.toMillis(settled - back),
                TimeUnit.NANOSECONDS.toMillis(normal - back));
        try (Ledger check = Ledger.open(ledger)) {
            assertEquals(List.of(), check.check());
            List<org.alpsbridge.ledger.Reservation> job9 = check.reservations("default", "9");
            assertEquals(1, job9.stream().filter(r -> r.state() == State.HELD).count(), "one hold for job 9's run: "
                    + job9);
            assertTrue(job9.stream().filter(r -> r.state() != State.HELD)
                    .allMatch(r -> r.state() == State.VOIDED && "ALPS_UNREACHABLE".equals(r.reason())), job9.toString());
            assertEquals(State.VOIDED, check.reservations("default", "7").get(0).state());
        }
    }

    @Test
    void anOldActivePausedPastItsLeaseDoesNotRecordTheAnswerItGetsAfterTheTakeover() throws Exception {
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Backend shared = new EmulatorBackend("xc30:16", cray);
        ProxyDaemon old = start(new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                if (call.method().equals("RESERVE")) {
                    paused.countDown(); // begun under its lease; then the process stalls (GC, swap, SIGSTOP)
                    try {
                        resume.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return shared.call(call);
            }

            @Override
            public String describe() {
                return shared.describe();
            }
        }, "30"); // it renews every 10 s: the stall below is over before it would notice anything
        ProxyDaemon other = start(new EmulatorBackend("xc30:16", cray), "1");
        CompletableFuture<Reply> late = CompletableFuture.supplyAsync(() -> {
            try {
                return send(old, "job-8-reserve", reserve("8"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(paused.await(30, TimeUnit.SECONDS));
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(db);
             java.sql.Statement s = c.createStatement()) {
            // the stall outlasts the lease: the database lets the other proxy take over
            s.execute("UPDATE alpsbridge_proxy_lease SET expires = now() - interval '1 second'");
        }
        firstSuccess(other, System.nanoTime());
        resume.countDown();
        late.get(30, TimeUnit.SECONDS);

        ResponseData retried = data(send(other, "job-8-reserve", reserve("8")));
        assertTrue(retried.messageText().contains("its outcome is unknown"), "the journal kept what the other proxy"
                + " found, not the answer the fenced one got later: " + retried.messageText());
        assertTrue(admin(old, "stats", Map.of()).contains("ha_fenced_writes"), admin(old, "stats", Map.of()));
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!admin(old, "stats", Map.of()).startsWith("availability: standby") && System.nanoTime() < deadline) {
            Thread.sleep(20); // the refused write made it check its lease at once, not at its next renewal
        }
        assertTrue(admin(old, "stats", Map.of()).startsWith("availability: standby"), admin(old, "stats", Map.of()));
        assertEquals(Reply.Status.NOT_ACTIVE, send(old, "job-9-reserve", reserve("9")).status());
    }
}
