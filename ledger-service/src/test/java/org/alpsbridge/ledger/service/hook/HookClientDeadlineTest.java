package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.alpsbridge.slurm.harness.Programs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The C client (ledger-submit, ledger-prolog; hook-core.c, which slurmctld's PrEp plugin shares) against agents that
 * misbehave: one that never accepts, its backlog full (a stopped agent), costs a submission submit_timeout and a
 * prolog agent_timeout, never more; an answer that is not exactly "exit=N" with N from 0 to 255 is a protocol error
 * (exit 3), never the JVM hook's fallback and never read as another exit code; an answer cut short past the deadline
 * leaks nothing (the client built under AddressSanitizer, its leak checker on); a settings line over 8,191 bytes
 * is refused, never read as two.
 */
class HookClientDeadlineTest {

    /** What the client may take past its timeout: a process start and the JVM's own scheduling on a loaded machine. */
    private static final long SLACK_MS = 1500;

    @TempDir
    Path dir;

    @Test
    void aSubmissionToAnAgentThatNeverAcceptsReturnsWithinSubmitTimeout() throws Exception {
        Path client = HookClient.build();
        try (Stalled agent = new Stalled(dir.resolve("agent.sock"))) {
            Path config = config(agent.path, "submit_timeout=0.5\n");
            long start = System.nanoTime();
            Programs.Result r = run(client, config, "submit");
            long took = (System.nanoTime() - start) / 1_000_000;
            assertEquals(0, r.exit(), "allowed: the ledger cannot say\n" + r.err());
            assertTrue(r.err().contains("did not accept the call within 500 ms (submit_timeout)"), r.err());
            assertTrue(took < 500 + SLACK_MS, "returned after " + took + " ms");
        }
    }

    @Test
    void aPrologToAnAgentThatNeverAcceptsReturnsWithinAgentTimeout() throws Exception {
        Path client = HookClient.build();
        try (Stalled agent = new Stalled(dir.resolve("agent.sock"))) {
            Path config = config(agent.path, "agent_timeout=2\n");
            long start = System.nanoTime();
            Programs.Result r = run(client, config, "prolog");
            long took = (System.nanoTime() - start) / 1_000_000;
            assertEquals(3, r.exit(), r.err());
            assertTrue(r.err().contains("did not accept the call within 2 s (agent_timeout)"), r.err());
            assertTrue(took < 2000 + SLACK_MS, "returned after " + took + " ms");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exit=-1", "exit=256", "exit=+0", "exit= 1", "exit=1x", "exit=01", "garbage", "exit="})
    void anAnswerWithoutAPlainExitCodeIsAProtocolErrorNeverTheJvmHook(String answer) throws Exception {
        Path client = HookClient.build();
        Path marker = dir.resolve("jvm-hook-ran");
        Path jvmHook = dir.resolve("jvm-hook");
        Files.writeString(jvmHook, "#!/bin/sh\ntouch '" + marker + "'\nexit 0\n");
        jvmHook.toFile().setExecutable(true);
        Path socket = dir.resolve("agent.sock");
        try (Answering agent = new Answering(socket, frame(answer + "\0say=a line from the agent\0"))) {
            Programs.Result r = run(client, config(socket, "jvm_hook=" + jvmHook + "\n"), "prolog");
            assertEquals(3, r.exit(), answer + ": " + r.err());
            assertTrue(r.err().contains("a protocol error"), r.err());
            assertFalse(Files.exists(marker), answer + " ran the JVM hook");
        }
    }

    @Test
    void aPlainExitCodeIsTheClientsOwn() throws Exception {
        Path client = HookClient.build();
        Path socket = dir.resolve("agent.sock");
        try (Answering agent = new Answering(socket, frame("exit=4\0say=no job record\0"))) {
            Programs.Result r = run(client, config(socket, ""), "prolog");
            assertEquals(4, r.exit(), r.err());
            assertTrue(r.err().contains("no job record"), r.err());
        }
    }

    @Test
    void anAnswerCutShortPastTheDeadlineLeaksNothing() throws Exception {
        Path client = HookClient.build(Path.of(System.getProperty("user.dir")).resolve("target/c/client-asan"), null,
                "address,undefined");
        Path socket = dir.resolve("agent.sock");
        // a header announcing 100 bytes, then 10 of them, then nothing until the client gives up
        byte[] cut = new byte[14];
        cut[3] = 100;
        System.arraycopy("exit=0\0say".getBytes(StandardCharsets.US_ASCII), 0, cut, 4, 10);
        try (Answering agent = new Answering(socket, cut)) {
            Programs.Result r = Programs.run(List.of(client.toString(), "prolog"), Map.of(
                    "ALPSBRIDGE_LEDGER_HOOK_CONFIG", config(socket, "agent_timeout=1\n").toString(),
                    "ASAN_OPTIONS", "detect_leaks=1"), Duration.ofSeconds(30));
            assertFalse(r.err().contains("Sanitizer"), r.err());
            assertEquals(3, r.exit(), r.err());
            assertTrue(r.err().contains("did not answer within 1 s"), r.err());
        }
    }

    @Test
    void aSettingsLineOver8191BytesIsRefusedNotReadAsTwo() throws Exception {
        Path client = HookClient.build();
        // read in two parts, the second would set agent_timeout
        String comment = "# " + "x".repeat(8189);
        Path config = config(dir.resolve("agent.sock"), comment + "agent_timeout=0\n");
        Programs.Result r = run(client, config, "prolog");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains(config + ":6: the line is longer than 8191 bytes"), r.err());
        config = config(dir.resolve("agent.sock"), comment.substring(0, 8191) + "\nagent_timeout=5\n");
        // read whole: no agent listens, so the JVM hook (/bin/false) runs
        assertEquals(1, run(client, config, "prolog").exit(), "a line of 8,191 bytes is read");
    }

    private Path config(Path socket, String more) throws IOException {
        Path spool = Files.createDirectories(dir.resolve("spool"));
        Path config = dir.resolve("ledger-hook.conf");
        Files.writeString(config, "agent_socket=" + socket + "\nspool=" + spool + "\njvm_hook=/bin/false\n"
                + "submit_when_unavailable=allow\nagent_timeout=5\n" + more);
        return config;
    }

    private static Programs.Result run(Path client, Path config, String mode) throws Exception {
        return Programs.run(List.of(client.toString(), mode), Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", config.toString(),
                "SLURM_JOB_ID", "42"), Duration.ofSeconds(20));
    }

    private static byte[] frame(String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + b.length).putInt(b.length).put(b).array();
    }

    /** An agent that listens and never accepts, its backlog filled (a stopped agent with callers queued). */
    private static final class Stalled implements AutoCloseable {
        final Path path;
        private final ServerSocketChannel server;
        private final FullBacklog queued;

        Stalled(Path path) throws IOException {
            this.path = path;
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path), 1);
            queued = new FullBacklog(path);
        }

        @Override
        public void close() throws IOException {
            queued.close();
            server.close();
        }
    }

    /** An agent that reads each call whole and answers it with the same bytes, then keeps the connection a while. */
    private static final class Answering implements AutoCloseable {
        private final ServerSocketChannel server;
        private final Thread thread;

        Answering(Path path, byte[] answer) throws IOException {
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path));
            thread = new Thread(() -> {
                try {
                    for (;;) {
                        try (SocketChannel c = server.accept()) {
                            ByteBuffer in = ByteBuffer.allocate(70_000);
                            while (c.read(in) > 0) {
                                in.clear();
                            }
                            c.write(ByteBuffer.wrap(answer));
                            Thread.sleep(3000); // an answer cut short stays cut short past the client's deadline
                        }
                    }
                } catch (IOException | InterruptedException closed) {
                    // the test is over
                }
            }, "answering agent");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws IOException {
            server.close();
            thread.interrupt();
        }
    }
}
