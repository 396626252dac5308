package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.munge.MungeDaemon;
import org.alpsbridge.proxy.backend.Backend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One specification for both drop-in clients: the Java one ({@code Apbasil} in a fresh JVM, as bin/apbasil runs it)
 * and the native one ({@code src/main/c}, built here with make), each run as the scheduler runs it against the same
 * real daemon. Every case runs both and requires the same exit status and the same stdout bytes; stderr is compared
 * by its key phrase. Where a message carries a figure that depends on timing (milliseconds left) or on the TLS
 * library's own words, those parts are masked before comparing, and the case says so.
 */
class DropInConformanceTest {

    private static final Path NATIVE = Path.of("target", "c", "apbasil").toAbsolutePath();
    private static final byte[] ENGINE_13 = Fixtures.basil("query-engine-1.0.xml");

    @TempDir
    static Path dir;

    enum Client { JAVA, NATIVE }

    record Run(Client client, int status, byte[] stdout, String stderr, long millis) {
        String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }
    }

    /** Builds the native client (make decides whether anything changed). */
    @BeforeAll
    static void buildNativeClient() throws Exception {
        Process make = new ProcessBuilder("make", "-s", "-C", "src/main/c", "OUT=" + NATIVE.getParent())
                .redirectErrorStream(true).start();
        String out = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(make.waitFor(300, TimeUnit.SECONDS) && make.exitValue() == 0, "make: " + out);
    }

    static Run run(Client client, Map<String, String> env, byte[] request, String... wrapper) throws Exception {
        List<String> argv = new ArrayList<>(List.of(wrapper));
        if (client == Client.JAVA) {
            argv.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", System.getProperty("java.class.path"),
                    "org.alpsbridge.proxy.client.Apbasil"));
        } else {
            argv.add(NATIVE.toString());
        }
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().keySet().removeIf(k -> k.startsWith("APBASIL_"));
        pb.environment().put("APBASIL_CONFIG", "/dev/null");
        pb.environment().putAll(env);
        long t0 = System.nanoTime();
        Process p = pb.start();
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getErrorStream().readAllBytes();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (OutputStream in = p.getOutputStream()) {
            in.write(request);
        } catch (IOException closedEarly) {
            // a client that refuses before reading all of stdin
        }
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), client + " exits");
        return new Run(client, p.exitValue(), out, new String(err.get(), StandardCharsets.UTF_8),
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** Runs both clients; requires the same status and stdout (after {@code mask}); returns the native run. */
    static Run both(Map<String, String> env, byte[] request, java.util.function.UnaryOperator<String> mask)
            throws Exception {
        Run java = run(Client.JAVA, env, request);
        Run c = run(Client.NATIVE, env, request);
        assertEquals(java.status(), c.status(), "exit status\njava: " + java.stderr() + "\nnative: " + c.stderr());
        if (mask == null) {
            assertEquals(java.out(), c.out(), "stdout\njava stderr: " + java.stderr() + "\nnative stderr: " + c.stderr());
            assertArrayEquals(java.stdout(), c.stdout());
        } else {
            assertEquals(mask.apply(java.out()), mask.apply(c.out()), "stdout, masked");
        }
        assertFalse(java.stderr().contains("\tat "), "no stack trace: " + java.stderr());
        return c;
    }

    static Run both(Map<String, String> env, byte[] request) throws Exception {
        return both(env, request, null);
    }

    static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static ProxyDaemon emulatorDaemon(Map<String, String> settings) throws Exception {
        ProxyConfig config = ProxyConfig.defaults().with(Map.of("listen", "127.0.0.1:0", "auth", "none")).with(settings);
        return ProxyDaemon.builder().config(config).backend(new EmulatorBackend("xc30:16", Emulator.create("xc30:16")))
                .start();
    }

    private static void assertFailure(Run r, ErrorClass errorClass, String phrase) throws Exception {
        assertEquals(1, r.status(), r.stderr());
        assertFalse(Basil.success(r.stdout()), r.out());
        assertEquals(errorClass, Basil.data(r.stdout()).errorClass(), r.out());
        assertTrue(r.out().contains(phrase), r.out());
        assertTrue(r.stderr().startsWith("apbasil: ") && r.stderr().contains(phrase), r.stderr());
    }

    // ---- answers ----

    @Test
    void answersQueriesAndAReservationCycleThroughTheEmulatorOverTcpAndUnixSockets() throws Exception {
        Path socket = dir.resolve("proxy.sock");
        try (ProxyDaemon daemon = emulatorDaemon(Map.of("listen", "127.0.0.1:0,unix:" + socket))) {
            for (String proxy : List.of("127.0.0.1:" + port(daemon), "unix:" + socket)) {
                Map<String, String> e = env("APBASIL_PROXY", proxy, "APBASIL_AUTH", "none");
                Run r = both(e, Basil.engine("1.3"));
                assertEquals(0, r.status(), r.stderr());
                assertTrue(Basil.success(r.stdout()));
                assertEquals("", r.stderr());
                assertTrue(Basil.success(both(e, Basil.engine("1.0")).stdout()));
                // RESERVE changes the emulator: each client makes its own reservation and releases it.
                for (Client client : Client.values()) {
                    Run reserve = run(client, e, Basil.reserve("1.3", "job-" + client, 1));
                    assertEquals(0, reserve.status(), reserve.stderr());
                    long id = Basil.reservationId(reserve.stdout());
                    Run release = run(client, e, Basil.release("1.3", id));
                    assertEquals(0, release.status(), release.stderr());
                    assertTrue(Basil.success(release.stdout()), release.out());
                }
                // ALPS's own refusal is an answer: on stdout, exit 0.
                Run gone = both(e, Basil.release("1.3", 999_999));
                assertEquals(0, gone.status());
                assertFalse(Basil.success(gone.stdout()));
            }
        }
    }

    @Test
    void aMalformedRequestIsRefusedByTheProxyNotByAlpsAndExitsOne() throws Exception {
        try (ProxyDaemon daemon = emulatorDaemon(Map.of())) {
            Map<String, String> e = env("APBASIL_PROXY", daemon.address().text(), "APBASIL_AUTH", "none");
            byte[] broken = "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"ENGINE\">\n<x>\n"
                    .getBytes(StandardCharsets.US_ASCII);
            Run r = both(e, broken);
            assertFailure(r, ErrorClass.PERMANENT, "the apbasil proxy at " + daemon.address().text()
                    + " refused the request: unreadable request:");
            assertFalse(r.out().contains("ALPS error"), r.out());
            assertTrue(r.out().contains("protocol=\"1.3\"") && r.out().contains("method=\"QUERY\""), r.out());
            Run garbage = both(e, "not xml at all".getBytes(StandardCharsets.US_ASCII));
            assertFailure(garbage, ErrorClass.PERMANENT, "refused the request: unreadable request:");
            assertTrue(garbage.out().contains("protocol=\"\"") && garbage.out().contains("method=\"UNDEFINED\""));
        }
    }

    // ---- the proxy unreachable, dying, slow ----

    @Test
    void anUnreachableProxyGivesATransientFailureInTheRequestsProtocol() throws Exception {
        int closed = closedPort();
        Run r = both(env("APBASIL_PROXY", "127.0.0.1:" + closed, "APBASIL_AUTH", "none", "APBASIL_RETRIES", "1"),
                Basil.release("1.3", 42));
        assertFailure(r, ErrorClass.TRANSIENT, "cannot connect to the apbasil proxy at 127.0.0.1:" + closed
                + ": ConnectException: Connection refused");
        assertTrue(r.out().contains("protocol=\"1.3\"") && r.out().contains("method=\"RELEASE\""), r.out());
        for (String proxy : List.of("unix:" + dir.resolve("absent.sock"), "no-such-host.invalid:6830", "host:99999",
                "host:port", "unix:", "justahost")) {
            Run u = both(env("APBASIL_PROXY", proxy, "APBASIL_AUTH", "none", "APBASIL_RETRIES", "0"),
                    Basil.engine("1.2"));
            assertEquals(1, u.status());
        }
    }

    /** A stand-in proxy that reads each request and then does what the case needs; counts connections. */
    private static final class Stub implements AutoCloseable {
        final ServerSocket server;
        final AtomicInteger connections = new AtomicInteger();
        final Thread thread;

        interface Behaviour {
            void serve(Socket s, byte[] request) throws Exception;
        }

        Stub(Behaviour behaviour) throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            thread = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        connections.incrementAndGet();
                        DataInputStream in = new DataInputStream(s.getInputStream());
                        byte[] frame = new byte[in.readInt()];
                        in.readFully(frame);
                        behaviour.serve(s, frame);
                    } catch (Exception ignored) {
                        // the next connection
                    }
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        String address() {
            return "127.0.0.1:" + server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    @Test
    void aProxyThatDiesMidAnswerLeavesOnlyTheTransientFailureOnStdout() throws Exception {
        // 50 MB announced, 6 MB sent (past the native client's memory, into its spill file), then the connection ends.
        try (Stub stub = new Stub((s, request) -> {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(5 + 50_000_000);
            out.write(new byte[] {'A', 'P', 'B', 1, 0});
            byte[] part = "<?xml version=\"1.0\"?>\n<BasilResponse protocol=\"1.3\"><ResponseData status=\"SUCCESS\">"
                    .getBytes(StandardCharsets.US_ASCII);
            out.write(part);
            out.write(new byte[6_000_000]);
            out.flush();
        })) {
            Run r = both(env("APBASIL_PROXY", stub.address(), "APBASIL_AUTH", "none", "APBASIL_RETRIES", "0"),
                    Basil.inventory("1.3"));
            assertFailure(r, ErrorClass.TRANSIENT, "the apbasil proxy at " + stub.address()
                    + " failed: the connection closed before a reply (daemon stopped or restarted?)");
            assertTrue(r.out().startsWith("<?xml version=\"1.0\"?>\n<BasilResponse protocol=\"1.3\">\n    <ResponseData "
                    + "status=\"FAILURE\""), "only the failure document: " + r.out());
        }
    }

    @Test
    void whatIsRetriedQueryAlwaysReserveOnlyIfItNeverLeft() throws Exception {
        try (Stub stub = new Stub((s, request) -> {
            // read the request, answer nothing
        })) {
            Map<String, String> e = env("APBASIL_PROXY", stub.address(), "APBASIL_AUTH", "none", "APBASIL_RETRIES", "2");
            for (Client client : Client.values()) {
                stub.connections.set(0);
                Run query = run(client, e, Basil.engine("1.3"));
                assertFailure(query, ErrorClass.TRANSIENT, "failed: the connection closed before a reply");
                assertEquals(3, stub.connections.get(), client + ": QUERY tried 1 + retries times");
                stub.connections.set(0);
                Run reserve = run(client, e, Basil.reserve("1.3", "7", 1));
                assertFailure(reserve, ErrorClass.TRANSIENT, "failed: the connection closed before a reply");
                assertEquals(1, stub.connections.get(), client + ": a RESERVE that was sent is not sent again");
            }
            both(e, Basil.reserve("1.3", "7", 1));
        }
    }

    @Test
    void aSlowProxyIsGivenUpAtTheWholeCallsTimeout() throws Exception {
        try (Stub stub = new Stub((s, request) -> Thread.sleep(30_000))) {
            Map<String, String> e = env("APBASIL_PROXY", stub.address(), "APBASIL_AUTH", "none", "APBASIL_TIMEOUT",
                    "1.5", "APBASIL_RETRIES", "0");
            // The figure is what was left of the timeout at the attempt: it depends on timing, so it is masked.
            Run r = both(e, Basil.engine("1.3"), text -> text.replaceAll("within \\d+ ms", "within N ms"));
            assertFailure(r, ErrorClass.TRANSIENT, "failed: no reply within ");
            // a guard, not a speed target: the stub sleeps 30 s; two clients' starts on a loaded host take seconds
            assertTrue(r.millis() < 20_000, "gave up after " + r.millis() + " ms: the stub's 30 s, not the timeout");
            // In a list the timeout is still the whole call's: a proxy that hangs uses it up, the next is not tried.
            try (ProxyDaemon daemon = emulatorDaemon(Map.of())) {
                Map<String, String> listed = new HashMap<>(e);
                listed.put("APBASIL_PROXY", stub.address() + "," + daemon.address().text());
                Run l = both(listed, Basil.engine("1.3"), text -> text.replaceAll("within \\d+ ms", "within N ms"));
                assertFailure(l, ErrorClass.TRANSIENT, "no apbasil proxy answered: " + stub.address()
                        + ": failed: no reply within ");
                assertTrue(l.stderr().endsWith(" ms; " + daemon.address().text()
                        + ": not tried, the call's timeout had passed\n"), l.stderr());
            }
        }
    }

    // ---- several proxies: failover ----

    /** A stand-in standby: answers every request NOT_ACTIVE, naming the active proxy, and runs nothing. */
    private static Stub standby(String active) throws IOException {
        return new Stub((s, request) -> {
            byte[] reply = org.alpsbridge.proxy.wire.Reply.notActive("standby (active: " + active + ")").encode();
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(reply.length);
            out.write(reply);
            out.flush();
        });
    }

    /** RESERVE through the list with each client, then RELEASE: both go to the live daemon; the reservation exists. */
    private static void reserveAndReleaseThrough(Map<String, String> e) throws Exception {
        for (Client client : Client.values()) {
            Run reserve = run(client, e, Basil.reserve("1.3", "failover-" + client, 1));
            assertEquals(0, reserve.status(), client + ": " + reserve.stderr());
            Run release = run(client, e, Basil.release("1.3", Basil.reservationId(reserve.stdout())));
            assertEquals(0, release.status(), release.stderr());
            assertTrue(Basil.success(release.stdout()), client + ": the reservation was made, once: " + release.out());
        }
    }

    @Test
    void aListWithADeadFirstProxyFailsOverToTheLiveOne() throws Exception {
        try (ProxyDaemon daemon = emulatorDaemon(Map.of())) {
            // Retries 0: moving on within the list is not a retry; the round over the list is the one attempt.
            Map<String, String> e = env("APBASIL_PROXY", "127.0.0.1:" + closedPort() + ", " + daemon.address().text(),
                    "APBASIL_AUTH", "none", "APBASIL_RETRIES", "0");
            Run query = both(e, Basil.engine("1.3"));
            assertEquals(0, query.status(), query.stderr());
            assertTrue(Basil.success(query.stdout()));
            assertEquals("", query.stderr());
            reserveAndReleaseThrough(e);
        }
    }

    @Test
    void aStandbyAnsweringNotActiveIsPassedOverForQueryAndReserveAndRunsNothing() throws Exception {
        try (ProxyDaemon daemon = emulatorDaemon(Map.of()); Stub standby = standby(daemon.address().text())) {
            Map<String, String> e = env("APBASIL_PROXY", standby.address() + "," + daemon.address().text(),
                    "APBASIL_AUTH", "none", "APBASIL_RETRIES", "0");
            assertTrue(Basil.success(both(e, Basil.engine("1.3")).stdout()));
            for (Client client : Client.values()) {
                standby.connections.set(0);
                Run query = run(client, e, Basil.inventory("1.3"));
                assertEquals(0, query.status(), query.stderr());
                assertEquals(1, standby.connections.get(), client + ": the standby saw the QUERY once");
            }
            standby.connections.set(0);
            reserveAndReleaseThrough(e);
            // Each client's RESERVE and RELEASE reached the standby once each, which answered NOT_ACTIVE: moving on is
            // safe because it ran nothing.
            assertEquals(4, standby.connections.get());
        }
    }

    @Test
    void whenEveryProxyFailsTheFailureNamesEachAndWhyAndARoundIsOneAttempt() throws Exception {
        int closed = closedPort();
        try (Stub standby = standby("10.0.0.3:6830")) {
            Map<String, String> e = env("APBASIL_PROXY", "127.0.0.1:" + closed + "," + standby.address(),
                    "APBASIL_AUTH", "none", "APBASIL_RETRIES", "1");
            Run r = both(e, Basil.reserve("1.3", "7", 1));
            assertFailure(r, ErrorClass.TRANSIENT, "no apbasil proxy answered: 127.0.0.1:" + closed
                    + ": cannot connect: ConnectException: Connection refused; " + standby.address()
                    + ": not active: standby (active: 10.0.0.3:6830)");
            assertTrue(r.out().contains("method=\"RESERVE\""), r.out());
            for (Client client : Client.values()) {
                standby.connections.set(0);
                assertEquals(1, run(client, e, Basil.engine("1.3")).status());
                assertEquals(2, standby.connections.get(), client + ": retries=1 is two rounds over the list");
            }
            // One address that answers NOT_ACTIVE: the single proxy's own words, as today's messages are.
            Run one = both(env("APBASIL_PROXY", standby.address(), "APBASIL_AUTH", "none", "APBASIL_RETRIES", "0"),
                    Basil.engine("1.3"));
            assertFailure(one, ErrorClass.TRANSIENT, "the apbasil proxy at " + standby.address()
                    + " is not active: standby (active: 10.0.0.3:6830)");
        }
    }

    @Test
    void aReserveWhoseProxyDiesMidAnswerIsNotSentToTheNextButAQueryIs() throws Exception {
        try (ProxyDaemon daemon = emulatorDaemon(Map.of());
                Stub dying = new Stub((s, request) -> {
                    // read the request, answer nothing: the connection closes
                });
                Stub second = standby(daemon.address().text())) {
            Map<String, String> e = env("APBASIL_PROXY", dying.address() + "," + second.address(), "APBASIL_AUTH",
                    "none", "APBASIL_RETRIES", "2");
            for (Client client : Client.values()) {
                dying.connections.set(0);
                second.connections.set(0);
                Run reserve = run(client, e, Basil.reserve("1.3", "7", 1));
                assertFailure(reserve, ErrorClass.TRANSIENT, "the apbasil proxy at " + dying.address()
                        + " failed: the connection closed before a reply (daemon stopped or restarted?)");
                assertEquals(1, dying.connections.get(), client + ": the RESERVE was sent once");
                assertEquals(0, second.connections.get(), client + ": and never to the next proxy");
            }
            both(e, Basil.reserve("1.3", "7", 1));
            // A QUERY may run twice: it goes on to the next proxy, and the next after that.
            Map<String, String> three = env("APBASIL_PROXY", dying.address() + "," + second.address() + ","
                    + daemon.address().text(), "APBASIL_AUTH", "none", "APBASIL_RETRIES", "0");
            Run query = both(three, Basil.engine("1.3"));
            assertEquals(0, query.status(), query.stderr());
        }
    }

    // ---- a proxy host that is down and drops packets: connect_timeout ----

    /**
     * Addresses whose connects hang, on loopback. TCP: a listener that never accepts, its accept queue filled, so the
     * kernel drops every further SYN as a host that is down drops packets (each filler is a connect that completed;
     * the one that did not complete within 300 ms shows the queue is full). Unix: a listener whose backlog is full, so
     * a connect waits. {@code silent}: a TCP listener that completes connects (within its backlog) and never
     * answers, for a TLS handshake that hangs.
     */
    private static final class Unreachable implements AutoCloseable {
        final List<java.io.Closeable> held = new ArrayList<>();
        final String tcp;
        final String unix;
        final String silent;

        Unreachable(Path socket) throws IOException {
            ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            held.add(full);
            java.net.InetSocketAddress at = (java.net.InetSocketAddress) full.getLocalSocketAddress();
            for (int i = 0; ; i++) {
                assertTrue(i < 100, "the accept queue fills");
                Socket filler = new Socket();
                try {
                    filler.connect(at, 300);
                    held.add(filler);
                } catch (java.net.SocketTimeoutException hangs) {
                    filler.close();
                    break;
                }
            }
            tcp = "127.0.0.1:" + full.getLocalPort();
            var unixAddress = java.net.UnixDomainSocketAddress.of(socket);
            var listener = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
            held.add(listener);
            listener.bind(unixAddress, 1);
            for (int i = 0; ; i++) {
                assertTrue(i < 100, "the unix backlog fills");
                var filler = java.nio.channels.SocketChannel.open(java.net.StandardProtocolFamily.UNIX);
                held.add(filler);
                filler.configureBlocking(false);
                try {
                    filler.connect(unixAddress);
                } catch (java.net.SocketException queueFull) {
                    break; // EAGAIN: a blocking connect would wait
                }
            }
            unix = "unix:" + socket;
            ServerSocket mute = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            held.add(mute);
            silent = "127.0.0.1:" + mute.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            for (java.io.Closeable c : held) {
                c.close();
            }
        }
    }

    /**
     * Issue 37's gap: the active proxy's host is down and drops packets. Before connect_timeout the call waited on it
     * for the whole timeout (here 60 s) and never reached the standby. Now the first address gets connect_timeout
     * (1 s here), and a connect that timed out sent nothing, so RESERVE moves on as QUERY does. The bound is generous
     * (JVM start on a loaded machine); what it rules out is waiting on the dead host for the call's timeout.
     */
    @Test
    void aProxyHostThatDropsPacketsIsPassedOverAfterConnectTimeoutForQueryAndReserve() throws Exception {
        try (Unreachable down = new Unreachable(dir.resolve("backlog-full.sock"));
                ProxyDaemon daemon = emulatorDaemon(Map.of())) {
            String live = daemon.address().text();
            for (String first : List.of(down.tcp, down.unix)) {
                Map<String, String> e = env("APBASIL_PROXY", first + "," + live, "APBASIL_AUTH", "none",
                        "APBASIL_CONNECT_TIMEOUT", "1", "APBASIL_TIMEOUT", "60", "APBASIL_RETRIES", "0");
                Run query = both(e, Basil.engine("1.3"));
                assertEquals(0, query.status(), query.stderr());
                assertTrue(Basil.success(query.stdout()));
                assertEquals("", query.stderr());
                for (Client client : Client.values()) {
                    Run reserve = run(client, e, Basil.reserve("1.3", "down-" + client, 1));
                    assertEquals(0, reserve.status(), client + " via " + first + ": " + reserve.stderr());
                    // connect_timeout (1 s) ended the wait on the first, not the call's timeout (60 s): the upper bound
                    // is half of that, not a speed target (a JVM client's start on a loaded host takes seconds)
                    assertTrue(reserve.millis() >= 1000 && reserve.millis() < 30_000, client + " via " + first
                            + ": the RESERVE took " + reserve.millis() + " ms; connect_timeout is 1000");
                    Run release = run(client, env("APBASIL_PROXY", live, "APBASIL_AUTH", "none"),
                            Basil.release("1.3", Basil.reservationId(reserve.stdout())));
                    assertTrue(Basil.success(release.stdout()), client + ": made once, released: " + release.out());
                }
            }
        }
    }

    @Test
    void aConnectOrHandshakeThatTimesOutIsNamedSoAndTheCallsTimeoutStillBounds() throws Exception {
        try (Unreachable down = new Unreachable(dir.resolve("backlog-full-2.sock"))) {
            int closed = closedPort();
            // Every address fails: each connect's limit is named; the figure is connect_timeout, the same in both.
            Run r = both(env("APBASIL_PROXY", down.tcp + "," + down.unix + ",127.0.0.1:" + closed, "APBASIL_AUTH",
                    "none", "APBASIL_CONNECT_TIMEOUT", "0.5", "APBASIL_RETRIES", "0"), Basil.reserve("1.3", "7", 1));
            assertFailure(r, ErrorClass.TRANSIENT, "no apbasil proxy answered: " + down.tcp + ": cannot connect: timed "
                    + "out after 500 ms; " + down.unix + ": cannot connect: timed out after 500 ms; 127.0.0.1:" + closed
                    + ": cannot connect: ConnectException: Connection refused");
            // The default is 3 s, and one address keeps the single proxy's words.
            Run alone = both(env("APBASIL_PROXY", down.tcp, "APBASIL_AUTH", "none", "APBASIL_RETRIES", "0"),
                    Basil.engine("1.3"));
            assertFailure(alone, ErrorClass.TRANSIENT, "cannot connect to the apbasil proxy at " + down.tcp
                    + ": timed out after 3000 ms");
            // A TLS handshake that gets no answer is part of connecting: the same limit and words.
            Path keys = Files.createDirectories(dir.resolve("tls-connect"));
            TlsTest.writeCertificates(keys);
            Run handshake = both(env("APBASIL_PROXY", down.silent + ",127.0.0.1:" + closed, "APBASIL_AUTH", "none",
                    "APBASIL_TLS_CA", keys.resolve("daemon.pem").toString(), "APBASIL_CONNECT_TIMEOUT", "0.5",
                    "APBASIL_RETRIES", "0"), Basil.engine("1.3"));
            assertFailure(handshake, ErrorClass.TRANSIENT, "no apbasil proxy answered: " + down.silent + ": cannot "
                    + "connect: timed out after 500 ms; 127.0.0.1:" + closed + ": cannot connect: ConnectException: "
                    + "Connection refused");
            // A call's timeout shorter than connect_timeout is the limit: what was left of it is named (masked here).
            Run shorter = both(env("APBASIL_PROXY", down.tcp, "APBASIL_AUTH", "none", "APBASIL_TIMEOUT", "0.7",
                    "APBASIL_CONNECT_TIMEOUT", "30", "APBASIL_RETRIES", "0"), Basil.engine("1.3"),
                    text -> text.replaceAll("after \\d+ ms", "after N ms"));
            assertFailure(shorter, ErrorClass.TRANSIENT, "cannot connect to the apbasil proxy at " + down.tcp
                    + ": timed out after ");
            // the call's 0.7 s ended it, not connect_timeout's 30 s: half of that is the bound, not a speed target
            assertTrue(shorter.millis() < 15_000, "gave up after " + shorter.millis() + " ms");
        }
    }

    // ---- size ----

    @Test
    void aHundredMegabyteAnswerPassesWholeAndTheNativeClientStaysWithinBoundedMemory() throws Exception {
        byte[] big = bigInventory(100_000_000);
        Backend backend = new Backend() {
            @Override
            public byte[] call(org.alpsbridge.proxy.backend.Call call) {
                return big;
            }

            @Override
            public String describe() {
                return "a 100 MB inventory";
            }
        };
        ProxyConfig config = ProxyDaemonTest.lab("127.0.0.1:0").with(Map.of("max_response_bytes", "200000000"));
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(config).backend(backend).start()) {
            Map<String, String> e = env("APBASIL_PROXY", daemon.address().text(), "APBASIL_AUTH", "none",
                    "TMPDIR", dir.toString());
            String want = sha256(big);
            for (Client client : Client.values()) {
                Run r = run(client, e, Basil.inventory("1.3"));
                assertEquals(0, r.status(), r.stderr());
                assertEquals(big.length, r.stdout().length, client.toString());
                assertEquals(want, sha256(r.stdout()), client.toString());
            }
            // Under a 100 MB address-space limit: the native client holds 4 MB and spills the rest to an unlinked file.
            Run limited = run(Client.NATIVE, e, Basil.inventory("1.3"), "prlimit", "--as=100000000");
            assertEquals(0, limited.status(), limited.stderr());
            assertEquals(want, sha256(limited.stdout()));
        }
    }

    private static byte[] bigInventory(int size) {
        StringBuilder b = new StringBuilder(size + 4096).append("<?xml version=\"1.0\"?>\n<BasilResponse protocol=\"1.3\">"
                + "<ResponseData status=\"SUCCESS\" method=\"QUERY\"><Inventory><NodeArray>");
        for (int nid = 0; b.length() < size - 200; nid++) {
            b.append("<Node node_id=\"").append(nid).append("\" name=\"c0-0c0s0n").append(nid % 4)
                    .append("\" architecture=\"XT\" role=\"BATCH\" state=\"UP\"/>\n");
        }
        return b.append("</NodeArray></Inventory></ResponseData></BasilResponse>\n").toString()
                .getBytes(StandardCharsets.US_ASCII);
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    // ---- settings ----

    @Test
    void theSettingsFilesGoodAndBadFormsReadTheSameInBothClients() throws Exception {
        try (ProxyDaemon daemon = emulatorDaemon(Map.of())) {
            Path conf = dir.resolve("apbasil.conf");
            Files.writeString(conf, "# lab\r\n  PROXY = " + daemon.address().text() + "  # the daemon\nauth=none\n"
                    + "munge=library\ntimeout=1e2\u2003\nconnect_timeout = 0\nretries=0x1p1\n\n");
            Run good = both(env("APBASIL_CONFIG", conf.toString()), Basil.engine("1.3"));
            assertEquals(0, good.status(), good.stderr());
            // The environment beats the file.
            assertEquals(1, both(env("APBASIL_CONFIG", conf.toString(), "APBASIL_PROXY", "127.0.0.1:" + closedPort(),
                    "APBASIL_RETRIES", "0"), Basil.engine("1.3")).status());
        }
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("# lab\nproxy = 127.0.0.1:1\nretires=3\n", ":3: unknown key 'retires' (known keys: proxy, auth, munge, "
                + "munge_socket, timeout, connect_timeout, retries, tls_ca)");
        bad.put("auth=mung\n", ":1: auth=mung: expected munge or none");
        bad.put("munge=jna\n", ":1: munge=jna: expected socket, program or library");
        bad.put("timeout=-3\n", ":1: timeout=-3: expected seconds from 0 to 86400");
        bad.put("retries=two\n", ":1: retries=two: expected a whole number from 0 to 100");
        bad.put("timeout=300\nconnect_timeout = -0.5\n", ":2: connect_timeout=-0.5: expected seconds from 0 to 86400");
        bad.put("Connect_Timeout=3s\n", ":1: connect_timeout=3s: expected seconds from 0 to 86400");
        bad.put("connect-timeout=3\n", ":1: unknown key 'connect-timeout'");
        bad.put("proxy\n", ":1: expected key=value, got 'proxy'");
        bad.put("=x\n", ":1: expected key=value, got '=x'");
        bad.put("auth=none\r\nTIMEOUT = NaN\n", ":2: timeout=NaN: expected seconds from 0 to 86400");
        // Infinity parses as a number, and a limit that cannot be kept was taken and silently capped
        bad.put("timeout=Infinity\n", ":1: timeout=Infinity: expected seconds from 0 to 86400");
        bad.put("connect_timeout=+Infinity\n", ":1: connect_timeout=+Infinity: expected seconds from 0 to 86400");
        bad.put("timeout=86400.001\n", ":1: timeout=86400.001: expected seconds from 0 to 86400");
        bad.put("connect_timeout=1e300\n", ":1: connect_timeout=1e300: expected seconds from 0 to 86400");
        bad.put("retries=Infinity\n", ":1: retries=Infinity: expected a whole number from 0 to 100");
        bad.put("retries=2.5\n", ":1: retries=2.5: expected a whole number from 0 to 100");
        bad.put("retries=101\n", ":1: retries=101: expected a whole number from 0 to 100");
        bad.put("proxy=127.0.0.1:1,,127.0.0.1:2\n", ":1: proxy list 127.0.0.1:1,,127.0.0.1:2 has an empty entry (number 2); "
                + "expected host:port or unix:/path, separated by commas");
        bad.put("proxy = 127.0.0.1:1 ,\n", ":1: proxy list 127.0.0.1:1 , has an empty entry (number 2)");
        bad.put("proxy=127.0.0.1:1, unix:\n", ":1: unix: address without a path: unix:");
        bad.put("proxy=127.0.0.1:1,justahost\n", ":1: proxy address justahost is not host:port or unix:/path");
        bad.put("proxy=justahost\n", ":1: proxy address justahost is not host:port or unix:/path");
        // Non-ASCII in a message: a character reference in the document, in both.
        // U+00A0 is no white space to Java's strip(), U+2003 is: the value is "caf\u00e9\u2003\u00a0".
        bad.put("auth=caf\u00e9\u2003\u00a0\u2003\n", ":1: auth=caf&#233;&#8195;&#160;: expected munge or none");
        int n = 0;
        for (Map.Entry<String, String> c : bad.entrySet()) {
            Path conf = dir.resolve("bad" + n++ + ".conf");
            Files.writeString(conf, c.getKey());
            Run r = both(env("APBASIL_CONFIG", conf.toString()), Basil.engine("1.3"));
            assertEquals(1, r.status());
            assertEquals(ErrorClass.TRANSIENT, Basil.data(r.stdout()).errorClass());
            assertTrue(r.out().contains(conf + c.getValue()), r.out());
        }
        Path latin1 = dir.resolve("latin1.conf");
        Files.write(latin1, "auth=caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        assertFailure(both(env("APBASIL_CONFIG", latin1.toString()), Basil.engine("1.3")), ErrorClass.TRANSIENT,
                latin1 + ": not UTF-8 text");
        assertFailure(both(env("APBASIL_CONFIG", dir.resolve("missing.conf").toString()), Basil.engine("1.3")),
                ErrorClass.TRANSIENT, "APBASIL_CONFIG names " + dir.resolve("missing.conf") + ", which does not exist");
        assertFailure(both(env("APBASIL_CONFIG", dir.toString()), Basil.engine("1.3")), ErrorClass.TRANSIENT,
                "cannot read " + dir + ": Is a directory");
        assertFailure(both(env("APBASIL_AUTH", "kerberos"), Basil.engine("1.0")), ErrorClass.TRANSIENT,
                "auth=kerberos: expected munge or none");
        assertFailure(both(env("APBASIL_TIMEOUT", "soon"), Basil.engine("1.0")), ErrorClass.TRANSIENT,
                "timeout=soon: expected seconds from 0 to 86400");
        assertFailure(both(env("APBASIL_CONNECT_TIMEOUT", "NaN"), Basil.engine("1.0")), ErrorClass.TRANSIENT,
                "connect_timeout=NaN: expected seconds from 0 to 86400");
        assertFailure(both(env("APBASIL_TIMEOUT", "Infinity"), Basil.engine("1.0")), ErrorClass.TRANSIENT,
                "timeout=Infinity: expected seconds from 0 to 86400");
        assertFailure(both(env("APBASIL_RETRIES", "-Infinity"), Basil.engine("1.0")), ErrorClass.TRANSIENT,
                "retries=-Infinity: expected a whole number from 0 to 100");
        // After the timeout, before the rest: the same first bad setting named by both.
        assertFailure(both(env("APBASIL_TIMEOUT", "-1", "APBASIL_CONNECT_TIMEOUT", "-1"), Basil.engine("1.0")),
                ErrorClass.TRANSIENT, "timeout=-1: expected seconds from 0 to 86400");
        assertFailure(both(env("APBASIL_CONNECT_TIMEOUT", "soon", "APBASIL_AUTH", "kerberos", "APBASIL_RETRIES", "x",
                "APBASIL_TLS_CA", dir.resolve("missing-ca.pem").toString()), Basil.engine("1.0")), ErrorClass.TRANSIENT,
                "connect_timeout=soon: expected seconds from 0 to 86400");
        // The same list forms in the environment: the same words, without file and line.
        assertFailure(both(env("APBASIL_PROXY", " ,127.0.0.1:1"), Basil.engine("1.0")), ErrorClass.TRANSIENT,
                "proxy list ,127.0.0.1:1 has an empty entry (number 1); expected host:port or unix:/path, separated by "
                        + "commas");
        assertFailure(both(env("APBASIL_PROXY", "127.0.0.1:1,127.0.0.1:65536"), Basil.engine("1.0")),
                ErrorClass.TRANSIENT, "proxy address 127.0.0.1:65536 has port 65536 outside 0-65535");
        // The first bad setting is the one named, in both: the proxy list before the timeout.
        assertFailure(both(env("APBASIL_PROXY", "a:1,,b:2", "APBASIL_TIMEOUT", "soon"), Basil.engine("1.0")),
                ErrorClass.TRANSIENT, "proxy list a:1,,b:2 has an empty entry (number 2)");
    }

    // ---- MUNGE ----

    @Test
    void withMungeASignedCallPassesAndARefusedReplayedOrUnauthorisedOneReadsTheSame() throws Exception {
        try (MungeDaemon munged = MungeDaemon.start(); MungeDaemon otherKey = MungeDaemon.start()) {
            int uid = AuthenticationTest.uid();
            ProxyConfig config = ProxyConfig.defaults().with(Map.of("listen", "127.0.0.1:0", "auth", "munge",
                    "munge_socket", munged.socket().toString(), "allow_reserve", "4242", "allow_query", "root," + uid));
            try (ProxyDaemon daemon = ProxyDaemon.builder().config(config)
                    .backend(new EmulatorBackend("xc30:16", Emulator.create("xc30:16"))).start()) {
                Map<String, String> e = env("APBASIL_PROXY", daemon.address().text(), "APBASIL_MUNGE_SOCKET",
                        munged.socket().toString());
                Run ok = both(e, Basil.engine("1.3"));
                assertEquals(0, ok.status(), ok.stderr());
                assertTrue(Basil.success(ok.stdout()));
                // A uid the daemon does not allow to RELEASE: the daemon's answer, the same from both.
                Run wrongUid = both(e, Basil.release("1.3", 5));
                assertEquals(0, wrongUid.status());
                assertTrue(wrongUid.out().contains("may not send RELEASE (rule allow_reserve=4242)"), wrongUid.out());
                // A credential from a munged with another key: refused by the daemon.
                Run refused = both(env("APBASIL_PROXY", daemon.address().text(), "APBASIL_MUNGE_SOCKET",
                        otherKey.socket().toString()), Basil.engine("1.3"));
                assertTrue(refused.out().contains("status=\"FAILURE\"") && refused.out().contains("authentication failed"),
                        refused.out());
                // Each client's frame sent to the daemon twice by a man in the middle: the second is a replay of the
                // client's credential, and the daemon's refusal of it is what the client prints.
                String at = daemon.address().text();
                try (Stub replaying = new Stub((s, frame) -> {
                    relay(at, frame);
                    byte[] second = relay(at, frame);
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.writeInt(second.length);
                    out.write(second);
                    out.flush();
                })) {
                    Run replayed = both(env("APBASIL_PROXY", replaying.address(), "APBASIL_MUNGE_SOCKET",
                            munged.socket().toString()), Basil.engine("1.3"));
                    assertEquals(0, replayed.status(), replayed.stderr());
                    assertTrue(replayed.out().contains("status=\"FAILURE\"") && replayed.out().contains("eplayed"),
                            replayed.out());
                }
                // A standby in front that uses up the credential it was sent (relays it to the daemon, which records it
                // as used) and answers NOT_ACTIVE: the live proxy must get a credential of its own, or it would refuse
                // a replay.
                try (Stub consuming = new Stub((s, frame) -> {
                    relay(at, frame);
                    byte[] reply = org.alpsbridge.proxy.wire.Reply.notActive("standby (active: " + at + ")").encode();
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.writeInt(reply.length);
                    out.write(reply);
                    out.flush();
                })) {
                    Run failover = both(env("APBASIL_PROXY", consuming.address() + "," + at, "APBASIL_MUNGE_SOCKET",
                            munged.socket().toString(), "APBASIL_RETRIES", "0"), Basil.engine("1.3"));
                    assertEquals(0, failover.status(), failover.stderr());
                    assertTrue(Basil.success(failover.stdout()), failover.out());
                }
                // No munged at all: the munge error, and no lab hint since the daemon does want credentials.
                Run noMunged = both(env("APBASIL_PROXY", daemon.address().text(), "APBASIL_MUNGE_SOCKET",
                        dir.resolve("no-munged.sock").toString()), Basil.engine("1.3"));
                assertFailure(noMunged, ErrorClass.TRANSIENT, "no MUNGE credential for the request: munge failed: "
                        + "cannot connect to munged at " + dir.resolve("no-munged.sock") + " (No such file or directory); "
                        + "is munged running?");
            }
        }
    }

    @Test
    void aClientLeftOnMungeInFrontOfAnAuthNoneDaemonGetsTheLabHintAndWithoutADaemonTheMungeError() throws Exception {
        try (ProxyDaemon daemon = emulatorDaemon(Map.of())) {
            Run r = both(env("APBASIL_PROXY", daemon.address().text(), "APBASIL_MUNGE_SOCKET",
                    dir.resolve("none.sock").toString()), Basil.engine("1.3"));
            assertFailure(r, ErrorClass.PERMANENT, "APBASIL_AUTH is munge (the default) but the apbasil proxy at "
                    + daemon.address().text() + " runs with auth=none: set APBASIL_AUTH=none");
            assertFalse(r.stderr().contains("is munged running?"), r.stderr());
            // With a list, the proxies are asked in order and the hint names the one that answered.
            Run listed = both(env("APBASIL_PROXY", "127.0.0.1:" + closedPort() + "," + daemon.address().text(),
                    "APBASIL_MUNGE_SOCKET", dir.resolve("none.sock").toString()), Basil.engine("1.3"));
            assertFailure(listed, ErrorClass.PERMANENT, "but the apbasil proxy at " + daemon.address().text()
                    + " runs with auth=none");
        }
        // With no daemon either, the munge error stands: nothing says the daemon runs without authentication.
        Run noDaemon = both(env("APBASIL_PROXY", "127.0.0.1:" + closedPort(), "APBASIL_MUNGE_SOCKET",
                dir.resolve("none.sock").toString()), Basil.engine("1.3"));
        assertFailure(noDaemon, ErrorClass.TRANSIENT, "is munged running?");
    }

    // ---- TLS ----

    @Test
    void overTlsBothTrustOnlyTheConfiguredCaAndCheckTheHostName() throws Exception {
        Path keys = Files.createDirectories(dir.resolve("tls"));
        TlsTest.writeCertificates(keys);
        Path cert = keys.resolve("daemon.pem");
        Path elsewhere = keys.resolve("elsewhere.pem");
        // The TLS libraries word their refusals differently: everything after the address is masked.
        java.util.function.UnaryOperator<String> mask = t -> t.replaceAll("(cannot connect to the apbasil proxy at "
                + "[0-9.:]+: )[^<]*", "$1...");
        // A daemon whose certificate names another host, trusted as a CA: refused for its name.
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(ProxyDaemonTest.lab("127.0.0.1:0").with(Map.of(
                "tls_cert", elsewhere.toString(), "tls_key", keys.resolve("elsewhere.key").toString())))
                .backend(new ProxyDaemonTest.Canned()).start()) {
            Run wrongHost = both(env("APBASIL_PROXY", daemon.address().text(), "APBASIL_AUTH", "none",
                    "APBASIL_RETRIES", "0", "APBASIL_TLS_CA", elsewhere.toString()), Basil.engine("1.3"), mask);
            assertFailure(wrongHost, ErrorClass.TRANSIENT, "cannot connect to the apbasil proxy at "
                    + daemon.address().text());
        }
        ProxyConfig config = ProxyDaemonTest.lab("127.0.0.1:0").with(Map.of("tls_cert", cert.toString(),
                "tls_key", keys.resolve("daemon.key").toString()));
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(config)
                .backend(new EmulatorBackend("xc30:16", Emulator.create("xc30:16"))).start()) {
            String at = daemon.address().text();
            Run ok = both(env("APBASIL_PROXY", at, "APBASIL_AUTH", "none", "APBASIL_TLS_CA", cert.toString()),
                    Basil.engine("1.3"));
            assertEquals(0, ok.status(), ok.stderr());
            Run wrongCa = both(env("APBASIL_PROXY", at, "APBASIL_AUTH", "none", "APBASIL_RETRIES", "0",
                    "APBASIL_TLS_CA", elsewhere.toString()), Basil.engine("1.3"), mask);
            assertFailure(wrongCa, ErrorClass.TRANSIENT, "cannot connect to the apbasil proxy at " + at);
            // Plain TCP to a TLS listener: no answer, from either.
            Run plain = both(env("APBASIL_PROXY", at, "APBASIL_AUTH", "none", "APBASIL_RETRIES", "0",
                    "APBASIL_TIMEOUT", "3"), Basil.engine("1.3"), t -> t.replaceAll("(proxy at [0-9.:]+ failed: )[^<]*",
                    "$1..."));
            assertEquals(1, plain.status());
            Run noCa = both(env("APBASIL_PROXY", at, "APBASIL_AUTH", "none", "APBASIL_TLS_CA",
                    dir.resolve("missing-ca.pem").toString()), Basil.engine("1.3"));
            assertFailure(noCa, ErrorClass.PERMANENT, "cannot use tls_ca " + dir.resolve("missing-ca.pem")
                    + ": No such file or directory");
        }
    }

    /** Sends one exchange frame (as a client wrote it) to the daemon at {@code address}; its reply frame. */
    private static byte[] relay(String address, byte[] frame) throws IOException {
        int colon = address.lastIndexOf(':');
        try (Socket s = new Socket(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)))) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(frame.length);
            out.write(frame);
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] reply = new byte[in.readInt()];
            in.readFully(reply);
            return reply;
        }
    }

    private static int port(ProxyDaemon daemon) {
        String t = daemon.address().text();
        return Integer.parseInt(t.substring(t.lastIndexOf(':') + 1));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
