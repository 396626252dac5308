package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.alpsbridge.slurm.harness.Programs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent and its C client without a Slurm: what the agent answers on its socket (bad, oversized and
 * foreign callers), the spool that outlives it, the client's fallback to the JVM hook when no agent listens,
 * and its time limit when an agent listens but never answers. The service is unreachable (port 1): what
 * the agent does with a live service and a real slurmctld is {@link SlurmHookSlurmTest}'s.
 */
class HookAgentTest {

    @TempDir
    Path dir;

    private Map<String, String> env(String... extra) throws IOException {
        List<String> lines = new ArrayList<>(List.of("db=http://127.0.0.1:1", "timeout=1", "log_file=none",
                "agent_socket=" + dir.resolve("agent.sock"), "spool=" + dir.resolve("spool"), "agent_timeout=20",
                "slurm_conf=" + dir.resolve("no-slurm.conf"), "jvm_hook=" + dir.resolve("jvm-hook")));
        lines.addAll(List.of(extra));
        Files.write(dir.resolve("hook.conf"), lines);
        Map<String, String> env = new HashMap<>();
        env.put("ALPSBRIDGE_LEDGER_HOOK_CONFIG", dir.resolve("hook.conf").toString());
        env.put("ALPSBRIDGE_LEDGER_AUTH", "none");
        return env;
    }

    private static Map<String, String> job(String id) {
        return Map.of("SLURM_JOB_ID", id, "SLURM_JOB_ACCOUNT", "chem", "SLURM_JOB_UID", "1001",
                "SLURM_JOB_PARTITION", "debug", "SLURM_JOB_NUM_NODES", "1", "SLURM_JOB_CPUS_PER_NODE", "2",
                "SLURM_CLUSTER_NAME", "lab");
    }

    /** Sends raw bytes, reads the answer. */
    private static AgentReply send(Path socket, byte[] bytes) throws IOException {
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            c.write(ByteBuffer.wrap(bytes));
            return AgentCodec.reply(AgentCodec.readFrame(Channels.newInputStream(c)));
        }
    }

    /** The first submission is answered like the rest: the agent ran the path once before it was ready. */
    @Test
    void theSubmissionPathIsWarmBeforeTheAgentIsReady() throws Exception {
        ByteArrayOutputStream journal = new ByteArrayOutputStream();
        try (HookAgent agent = HookAgent.start(env(), new PrintStream(journal, true))) {
            String said = journal.toString(java.nio.charset.StandardCharsets.UTF_8);
            // this agent's service is unreachable: the quote's answer is "cannot say" (3), the path warm all the same
            assertTrue(said.contains("the submission path is warm (a quote of no project's job answered exit 3"), said);
        }
    }

    @Test
    void badAndOversizedRequestsAreAnsweredWithTheFaultNamed() throws Exception {
        ByteArrayOutputStream journal = new ByteArrayOutputStream();
        try (HookAgent agent = HookAgent.start(env(), new PrintStream(journal, true))) {
            AgentReply bad = send(agent.socket(), new byte[] {0, 0, 0, 6, 'v', '=', '9', 0, 'x', 0});
            assertEquals(SlurmHook.USAGE, bad.exit());
            assertTrue(bad.lines().get(0).contains("v=1"), bad.toString());
            AgentReply huge = send(agent.socket(), new byte[] {0, 0x10, 0, 0});
            assertEquals(SlurmHook.USAGE, huge.exit());
            assertTrue(huge.lines().get(0).contains("over the limit of 65536"), huge.toString());
            AgentReply noJob = send(agent.socket(), AgentCodec.frame(new AgentRequest(true, List.of(), Map.of(), null)));
            assertEquals(SlurmHook.NO_JOB, noJob.exit());
            assertTrue(noJob.lines().get(0).contains("SLURM_JOB_ID is not set"), noJob.toString());
            AgentReply option = send(agent.socket(), AgentCodec.frame(new AgentRequest(true, List.of("--colour"), job("7"), null)));
            assertEquals(SlurmHook.USAGE, option.exit());
            assertTrue(journal.toString().contains("bad request"), journal.toString());
        }
    }

    @Test
    void optionsWinOverTheFileAndABadSettingStopsTheStartNamingIt() throws Exception {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true);
        String m = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> HookAgent.start(env(), List.of("--db", "sqlite:/tmp/x.db"), quiet)).getMessage();
        assertTrue(m.contains("'sqlite:/tmp/x.db' is not a ledger service"), m);
        m = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> HookAgent.start(env("agent_workers=many"), quiet)).getMessage();
        assertTrue(m.contains("agent_workers takes a whole number, not 'many'"), m);
        assertTrue(!Files.exists(dir.resolve("agent.sock")), "nothing bound");
    }

    @Test
    void anEpilogIsSpooledByTheClientAndOutlivesTheAgent() throws Exception {
        Map<String, String> env = env();
        Path client = HookClient.build();
        try (HookAgent agent = HookAgent.start(env, new PrintStream(new ByteArrayOutputStream(), true))) {
            Programs.Result r = runClient(client, "epilog", env, job("4242"));
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.err().contains("ledger epilog: job 4242 run 1: spooled for settlement"), r.err());
            Path file = dir.resolve("spool/job-4242-run-1-lab.epilog");
            assertTrue(Files.exists(file), "on disk before the client exits");
            AgentRequest spooled = AgentCodec.request(AgentCodec.readFrame(Files.newInputStream(file)));
            assertEquals("4242", spooled.env().get("SLURM_JOB_ID"));
            assertTrue(spooled.at() != null && Math.abs(spooled.at().toEpochMilli() - System.currentTimeMillis()) < 60_000,
                    "stamped with the epilog's time: " + spooled.at());
            assertEquals(null, spooled.spooled(), "the file is the settlement itself");
            // the client told the agent and went: the agent queues it (the service at port 1 never answers)
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (agent.pendingSettlements() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, agent.pendingSettlements(), "queued on the client's notice");
        }
        assertTrue(Files.exists(dir.resolve("spool/job-4242-run-1-lab.epilog")), "kept when the agent stops");
        try (HookAgent again = HookAgent.start(env, new PrintStream(new ByteArrayOutputStream(), true))) {
            assertEquals(1, again.pendingSettlements(), "replayed at the next start");
        }
    }

    @Test
    void withoutAnAgentTheClientRunsTheJvmHookAndSaysWhy() throws Exception {
        Map<String, String> env = env();
        Files.writeString(dir.resolve("jvm-hook"), "#!/bin/sh\necho \"jvm hook: $* [$LEDGER_HOOK_FALLBACK]\" >&2\nexit 4\n");
        dir.resolve("jvm-hook").toFile().setExecutable(true);
        Path client = HookClient.build();
        Programs.Result r = runClient(client, "prolog", env, job("7"), "--when-unavailable", "allow");
        assertEquals(4, r.exit(), "the JVM hook's exit code: " + r.err());
        assertTrue(r.err().contains("jvm hook: prolog --when-unavailable allow [no hook agent answers on "
                + dir.resolve("agent.sock")), r.err());
        // a socket left by a killed agent refuses connections: the same fallback
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(dir.resolve("agent.sock")));
        }
        Programs.Result refused = runClient(client, "epilog", env, job("7"));
        assertEquals(4, refused.exit(), refused.err());
        assertTrue(refused.err().contains("Connection refused"), refused.err());
    }

    @Test
    void anAgentThatNeverAnswersIsUnavailableAfterTheTimeout() throws Exception {
        Map<String, String> env = env("agent_timeout=1");
        Path client = HookClient.build();
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(dir.resolve("agent.sock")));
            long t = System.nanoTime();
            Programs.Result r = runClient(client, "prolog", env, job("7"));
            assertEquals(SlurmHook.UNAVAILABLE, r.exit(), r.err());
            assertTrue(r.err().contains("did not answer within 1 s"), r.err());
            assertTrue(System.nanoTime() - t < 15e9, "gave up near its timeout");
        }
    }

    @Test
    void aSubmissionTheLedgerCannotAnswerIsAllowedUnlessTheSiteRefusesAndNeverStartsAJvm() throws Exception {
        Map<String, String> submission = Map.of("SLURM_JOB_ACCOUNT", "chem", "SLURM_JOB_USER", "alice",
                "SLURM_JOB_PARTITION", "debug", "SLURM_JOB_CPUS", "4", "SLURM_JOB_TIME_LIMIT", "60");
        Files.writeString(dir.resolve("jvm-hook"), "#!/bin/sh\necho jvm hook started >&2\nexit 1\n");
        dir.resolve("jvm-hook").toFile().setExecutable(true);
        Path client = HookClient.build();
        // no agent: accepted, saying why, no JVM
        Programs.Result noAgent = runClient(client, "submit", env(), submission);
        assertEquals(0, noAgent.exit(), noAgent.err());
        assertTrue(noAgent.err().contains("no hook agent answers on") && noAgent.err().contains(
                "the job is accepted (submit_when_unavailable=allow)"), noAgent.err());
        assertTrue(!noAgent.err().contains("jvm hook"), noAgent.err());
        // a site that prefers refusing: exit 3 with a sentence for the user
        Programs.Result refuse = runClient(client, "submit", env("submit_when_unavailable=refuse"), submission);
        assertEquals(SlurmHook.UNAVAILABLE, refuse.exit(), refuse.err());
        assertTrue(refuse.err().contains("try again later"), refuse.err());
        // a bad setting cannot be read as refuse: allowed
        Programs.Result bad = runClient(client, "submit", env("submit_timeout=soon"), submission);
        assertEquals(0, bad.exit(), bad.err());
        assertTrue(bad.err().contains("submit_timeout takes seconds"), bad.err());
        // an agent whose service is unreachable (port 1), or a job it cannot read: allowed, within submit_timeout
        Map<String, String> env = env("submit_timeout=0.5");
        try (HookAgent agent = HookAgent.start(env, new PrintStream(new ByteArrayOutputStream(), true))) {
            Programs.Result down = runClient(client, "submit", env, submission);
            assertEquals(0, down.exit(), down.err());
            assertTrue(down.err().contains("the ledger cannot answer"), down.err());
            Programs.Result noCpus = runClient(client, "submit", env, Map.of("SLURM_JOB_ACCOUNT", "chem"));
            assertEquals(0, noCpus.exit(), noCpus.err());
            assertTrue(noCpus.err().contains("SLURM_JOB_CPUS is not set"), noCpus.err());
            // no finite time limit: refused, as the prolog would deny it
            Map<String, String> unlimited = new HashMap<>(submission);
            unlimited.put("SLURM_JOB_TIME_LIMIT", "UNLIMITED");
            Programs.Result refused = runClient(client, "submit", env, unlimited);
            assertEquals(SlurmHook.DENIED, refused.exit(), refused.err());
            assertTrue(refused.err().contains("submit it with --time"), refused.err());
        }
        Files.deleteIfExists(dir.resolve("agent.sock"));
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(dir.resolve("agent.sock")));
            long t = System.nanoTime();
            Programs.Result hung = runClient(client, "submit", env, submission);
            assertEquals(0, hung.exit(), hung.err());
            assertTrue(hung.err().contains("did not answer within 500 ms (submit_timeout)"), hung.err());
            assertTrue(System.nanoTime() - t < 10e9, "gave up near its timeout");
        }
    }

    @Test
    void aCallerOfAnotherUserIsRefused() throws Exception {
        if (!"root".equals(System.getProperty("user.name")) || Programs.find("setpriv") == null) {
            Programs.unavailable("calling as another user needs root and setpriv (util-linux)");
        }
        ByteArrayOutputStream journal = new ByteArrayOutputStream();
        Map<String, String> env = env();
        Path client = HookClient.build();
        try (HookAgent agent = HookAgent.start(env, new PrintStream(journal, true))) {
            // open the way to the socket, so that only the agent's SO_PEERCRED check stands between
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(dir.resolve("hook.conf"), PosixFilePermissions.fromString("rw-r--r--"));
            Files.setPosixFilePermissions(agent.socket(), PosixFilePermissions.fromString("rw-rw-rw-"));
            List<String> argv = List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    client.toString(), "prolog");
            Programs.Result r = runClient(argv, env, job("7"));
            assertEquals(SlurmHook.UNAVAILABLE, r.exit(), r.err());
            assertTrue(r.err().contains("may not use this agent"), r.err());
            assertTrue(journal.toString().contains("refused a caller of user nobody"), journal.toString());
        }
    }

    private static Programs.Result runClient(Path client, String mode, Map<String, String> env, Map<String, String> job,
                                             String... options) throws Exception {
        List<String> argv = new ArrayList<>(List.of(client.toString(), mode));
        argv.addAll(List.of(options));
        return runClient(argv, env, job);
    }

    private static Programs.Result runClient(List<String> argv, Map<String, String> env, Map<String, String> job)
            throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().putAll(env);
        pb.environment().putAll(job);
        return Programs.run(pb, Duration.ofSeconds(30));
    }
}
