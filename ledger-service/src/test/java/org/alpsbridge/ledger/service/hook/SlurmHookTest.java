package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.service.client.FlatJson;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.service.api.ApiJson;
import org.alpsbridge.ledger.service.api.Requests;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hooks without a Slurm: what they read from slurmctld's environment, the JSON they speak, their options. */
class SlurmHookTest {

    /** The service's own reading of a request: strict, so a misspelt or extra field fails here. */
    private static final ObjectMapper SERVICE = ApiJson.mapper(true);

    private static Map<String, String> env(String cpus, String nodes) {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_JOB_ID", "4242");
        env.put("SLURM_JOB_ACCOUNT", "chem");
        env.put("SLURM_JOB_UID", "1001");
        env.put("SLURM_JOB_USER", "alice \"the\" chemist");
        env.put("SLURM_JOB_PARTITION", "big");
        env.put("SLURM_JOB_NUM_NODES", nodes);
        env.put("SLURM_JOB_CPUS_PER_NODE", cpus);
        env.put("SLURM_JOB_RESTART_COUNT", "2");
        env.put("SLURM_CLUSTER_NAME", "darwin");
        return env;
    }

    @Test
    void aRunIsTheJobAtItsRestartCountAndItsNodesAsSlurmCountsThem() {
        SlurmJob job = SlurmJob.fromEnvironment(env("32(x2)", "2"));
        assertEquals(3, job.resId(), "restart count 2 is the third run");
        assertEquals(2, job.nodes());
        assertEquals(32, job.cpusPerNode());
        assertEquals("alice \"the\" chemist", job.user());
        assertArrayEquals(new int[] {1, 10}, SlurmJob.shape("4(x2),2", 3), "uneven nodes: one node of all the CPUs");
        assertArrayEquals(new int[] {3, 4}, SlurmJob.shape("4,4(x2)", 3));
        assertThrows(IllegalArgumentException.class, () -> SlurmJob.shape("4(x2)", 3), "node count disagrees");
        assertThrows(IllegalArgumentException.class, () -> SlurmJob.shape("four", 1));
        Map<String, String> noUser = env("1", "1");
        noUser.remove("SLURM_JOB_USER");
        assertEquals("1001", SlurmJob.fromEnvironment(noUser).user());
        assertEquals(job.jobId(), job.queueKey(), "a job of no array waits under its id");
        Map<String, String> task = env("1", "1");
        task.put("SLURM_ARRAY_JOB_ID", "40");
        task.put("SLURM_ARRAY_TASK_ID", "7");
        assertEquals("40_7", SlurmJob.fromEnvironment(task).queueKey(), "an array's task waits as squeue -r names it");
        Map<String, String> noAccount = env("1", "1");
        noAccount.remove("SLURM_JOB_ACCOUNT");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlurmJob.fromEnvironment(noAccount));
        assertTrue(e.getMessage().contains("SLURM_JOB_ACCOUNT"), e.getMessage());
    }

    @Test
    void theRequestsAreTheServicesOwnRecords() throws Exception {
        SlurmJob job = SlurmJob.fromEnvironment(env("32(x2)", "2"));
        Instant at = Instant.parse("2026-03-01T10:00:00.123456Z");
        ReserveRequest expected = new ReserveRequest("darwin", "4242", 3, null, "chem", "alice \"the\" chemist", "big",
                Resource.CPU, 2, NodeShape.cores(32), 7200, at);
        assertEquals(expected, SERVICE.readValue(EventJson.reserve(job, 7200, at), ReserveRequest.class));
        Lookup lookup = new Lookup("darwin", 3, "4242");
        assertEquals(new Requests.Confirm(lookup, at, null),
                SERVICE.readValue(EventJson.confirm(job, at), Requests.Confirm.class));
        assertEquals(new ReleaseRequest(lookup, 4990, true, false, at, expected),
                SERVICE.readValue(EventJson.release(job, 4990, true, 7200, at), ReleaseRequest.class));
        assertEquals(new ReleaseRequest(lookup, ReleaseRequest.BY_CLOCK, false, false, at, null),
                SERVICE.readValue(EventJson.release(job, ReleaseRequest.BY_CLOCK, false, 0, at), ReleaseRequest.class));
        assertEquals("cluster=darwin&res_id=3&batch_id=4242", EventJson.lookupQuery(job));
    }

    @Test
    void theAnswersAreReadAsTheServiceWritesThem() throws Exception {
        Outcome o = new Outcome(Outcome.Decision.DENIED, "darwin/4242/3", "chem", State.DENIED, 7680, 0, -5,
                "INSUFFICIENT_BALANCE", "project chem: needs 7680 \"core-minutes\",\n has 12\u00e9", false, true);
        Map<String, String> f = FlatJson.fields(ApiJson.mapper(false).writeValueAsString(o));
        assertEquals("DENIED", f.get("decision"));
        assertEquals("7680", f.get("hold"));
        assertEquals("-5", f.get("available"));
        assertEquals(o.message(), f.get("message"));
        assertEquals("true", f.get("replayed"));
        Map<String, String> nested = FlatJson.fields("{\"a\":{\"b\":[1,{\"c\":\"}\"}],\"d\":null},\"state\":\"HELD\",\"e\":null}");
        assertEquals("HELD", nested.get("state"));
        assertNull(nested.get("e"));
        assertThrows(IllegalArgumentException.class, () -> FlatJson.fields("<html>503</html>"));
        assertThrows(IllegalArgumentException.class, () -> FlatJson.fields("{\"a\":1} trailing"));
    }

    /** Seeded random strings survive the trip through the hooks' writer and the service's reader. */
    @Test
    void anyUserNameSurvivesTheHandWrittenJson() throws Exception {
        long seed = Long.getLong("seed", System.nanoTime());
        System.out.println("SlurmHookTest seed " + seed + " (-Dseed=" + seed + " repeats it)");
        Random random = new Random(seed);
        for (int i = 0; i < 500; i++) {
            StringBuilder b = new StringBuilder();
            for (int n = 1 + random.nextInt(20); n > 0; n--) {
                b.append((char) (random.nextBoolean() ? random.nextInt(0x80) : 1 + random.nextInt(0xd7ff)));
            }
            Map<String, String> env = env("1", "1");
            env.put("SLURM_JOB_USER", "u" + b);
            env.put("SLURM_JOB_ACCOUNT", "a" + b);
            SlurmJob job = SlurmJob.fromEnvironment(env);
            ReserveRequest r = SERVICE.readValue(EventJson.reserve(job, 60, Instant.EPOCH.plusSeconds(1)), ReserveRequest.class);
            assertEquals(job.user(), r.owner(), "seed " + seed);
            assertEquals(job.account(), r.project(), "seed " + seed);
        }
    }

    @Test
    void optionsAndExitCodes(@TempDir Path dir) throws Exception {
        Map<String, String> env = env("1", "1");
        env.put("ALPSBRIDGE_LEDGER_HOOK_CONFIG", dir.resolve("none.conf").toString());
        assertEquals(SlurmHook.USAGE, call(List.of("prolog"), env).exit, "a named config file that is missing");
        Files.writeString(dir.resolve("hook.conf"), "# the site's\ndb=http://127.0.0.1:1\nwhen_unavailable=maybe\n");
        env.put("ALPSBRIDGE_LEDGER_HOOK_CONFIG", dir.resolve("hook.conf").toString());
        Call bad = call(List.of("prolog"), env);
        assertEquals(SlurmHook.USAGE, bad.exit);
        assertTrue(bad.err.contains("refuse or allow"), bad.err);
        Files.writeString(dir.resolve("hook.conf"), "db=http://127.0.0.1:1\ncolour=blue\n");
        assertTrue(call(List.of("epilog"), env).err.contains("unknown key 'colour'"));
        Files.writeString(dir.resolve("hook.conf"), "db=http://127.0.0.1:1\n");
        Call help = call(List.of("prolog", "--help"), env);
        assertEquals(SlurmHook.OK, help.exit);
        assertTrue(help.out.contains("PrologSlurmctld") && help.out.contains("Exit codes"), help.out);
        assertEquals(SlurmHook.USAGE, call(List.of("prolog", "--db", "sqlite:/tmp/x.db"), env).exit, "not a service");
        assertEquals(SlurmHook.USAGE, call(List.of("settle"), env).exit);
        assertEquals(SlurmHook.USAGE, call(List.of("epilog", "--retry-for", "soon"), env).exit);
        Map<String, String> noJob = new HashMap<>(env);
        noJob.remove("SLURM_JOB_ID");
        Call missing = call(List.of("prolog"), noJob);
        assertEquals(SlurmHook.NO_JOB, missing.exit);
        assertTrue(missing.err.contains("SLURM_JOB_ID is not set"), missing.err);
    }

    @Test
    void theHooksLinesGoToSlurmctldsLogFile(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("slurm.conf");
        Files.writeString(conf, "ClusterName=x\n  slurmctldlogfile=" + dir.resolve("ctld.log") + "  # the log\n");
        assertEquals(dir.resolve("ctld.log"), HookLog.resolve("slurmctld", conf.toString(), null));
        assertEquals(dir.resolve("ctld.log"), HookLog.resolve(null, null, conf.toString()), "SLURM_CONF");
        assertNull(HookLog.resolve("none", conf.toString(), null));
        assertEquals(Path.of("/var/log/x.log"), HookLog.resolve("/var/log/x.log", conf.toString(), null));
        Files.writeString(conf, "ClusterName=x\n");
        assertNull(HookLog.resolve("slurmctld", conf.toString(), null), "slurmctld logs to syslog");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        new HookLog(new PrintStream(err, true, StandardCharsets.UTF_8), dir.resolve("ctld.log")).say("ledger prolog: a\nb");
        String line = Files.readString(dir.resolve("ctld.log"));
        assertTrue(line.matches("\\[\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}] ledger prolog: a b\n"), line);
        assertEquals("ledger prolog: a\nb\n", err.toString(StandardCharsets.UTF_8));
    }

    private record Call(int exit, String out, String err) {
    }

    private static Call call(List<String> args, Map<String, String> env) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = SlurmHook.run(args.toArray(String[]::new), env, new PrintStream(err, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        return new Call(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
