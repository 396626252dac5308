package org.alpsbridge.affinity.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.policy.Policy;
import org.alpsbridge.affinity.policy.Request;
import org.alpsbridge.affinity.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wrapper on this machine's real topology. The unit half drives {@link RaaExec#run} with a recording kernel;
 * the other half starts the real wrapper (JNA, sched_setaffinity, execvp) and reads the mask back in the exec'd
 * program from /proc/self/status.
 */
class RaaExecTest {

    /** Records what the wrapper asked of the OS. */
    static final class FakeKernel implements Kernel {
        final BitSet affinity;
        BitSet set;
        String[] execd;

        FakeKernel(BitSet affinity) {
            this.affinity = affinity;
        }

        @Override
        public BitSet getAffinity() {
            return (BitSet) affinity.clone();
        }

        @Override
        public void setAffinity(BitSet cpus) {
            set = (BitSet) cpus.clone();
        }

        @Override
        public void exec(String[] argv) {
            execd = argv;
        }
    }

    private static BitSet myCpus() throws Exception {
        return new LibC().getAffinity();
    }

    private static Map<String, String> env(String... kv) {
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            env.put(kv[i], kv[i + 1]);
        }
        return env;
    }

    @Test
    void setsTheTasksMaskThenExecsTheProgram() throws Exception {
        BitSet mine = myCpus();
        assumeTrue(Topology.sysfs().coreCount(mine) >= 2, "needs CPUs of 2 cores, this process has " + CpuLists.linux(mine));
        BitSet expected = Policy.REDUCED.place(Topology.sysfs(), Request.of(2, 1).withAllowed(mine)).mask(1);
        FakeKernel k = new FakeKernel(mine);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = RaaExec.run(new String[] {"-v", "--", "prog", "-x"},
                env("SLURM_LOCALID", "1", "SLURM_NTASKS_PER_NODE", "2"), k, new PrintStream(err, true));
        assertEquals(0, exit, err.toString());
        assertEquals(expected, k.set);
        assertEquals(List.of("prog", "-x"), List.of(k.execd));
        assertEquals("reduced-auto-affinity: local task 1: CPUs: " + CpuLists.cstr(expected) + "\n", err.toString());
    }

    @Test
    void rejectionNeverSetsAMaskNorExecs() {
        BitSet one = new BitSet();
        one.set(0);
        FakeKernel k = new FakeKernel(one);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = RaaExec.run(new String[] {"prog"}, env("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "2"), k,
                new PrintStream(err, true));
        assertEquals(1, exit);
        assertNull(k.set);
        assertNull(k.execd);
        assertTrue(err.toString().startsWith("raa-exec: local task 0 of 2: rejected: 2 tasks of 1 core do not fit"),
                err.toString());
    }

    @Test
    void usageAndEnvironmentErrorsExitTwoWithoutExec() {
        String[][] argvs = {{}, {"--bogus", "prog"}, {"-c"}, {"-c", "x", "prog"}, {"--policy", "nope", "prog"}};
        for (String[] argv : argvs) {
            FakeKernel k = new FakeKernel(new BitSet());
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(2, RaaExec.run(argv, env("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "1"), k,
                    new PrintStream(err, true)), String.join(" ", argv));
            assertNull(k.execd);
            assertTrue(err.toString().contains("raa-exec --help"), err.toString());
        }
        FakeKernel k = new FakeKernel(new BitSet());
        assertEquals(2, RaaExec.run(new String[] {"prog"}, env(), k, new PrintStream(new ByteArrayOutputStream())));
        assertNull(k.execd);
    }

    @Test
    void allowedOverrideAndPolicyComeFromTheEnvironment() {
        BitSet all = new BitSet();
        all.set(0, 64);
        FakeKernel k = new FakeKernel(all);
        int exit = RaaExec.run(new String[] {"prog"}, env("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "1",
                "RAA_ALLOWED", "1", "RAA_POLICY", "llnl"), k, new PrintStream(new ByteArrayOutputStream()));
        assertEquals(0, exit);
        assertEquals(CpuLists.parse("1"), k.set);
    }

    // ---- the real wrapper, in a child JVM ----

    record Result(int exit, String out, String err) {
    }

    private static Result launch(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(RaaExec.class.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(name -> name.startsWith("SLURM_") || name.startsWith("RAA_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "wrapper did not finish");
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    @Test
    void theExecdProgramRunsInsideTheComputedMask() throws Exception {
        BitSet mine = myCpus();
        assumeTrue(Topology.sysfs().coreCount(mine) >= 2, "needs CPUs of 2 cores, this process has " + CpuLists.linux(mine));
        Topology node = Topology.sysfs();
        int tasks = 2;
        for (int local = 0; local < tasks; local++) {
            BitSet expected = Policy.REDUCED.place(node, Request.of(tasks, 1).withAllowed(mine)).mask(local);
            Result r = launch(env("SLURM_LOCALID", Integer.toString(local), "SLURM_STEP_TASKS_PER_NODE",
                    Integer.toString(tasks), "RAA_VERBOSE", "1"),
                    "--", "sh", "-c", "grep Cpus_allowed_list /proc/self/status; echo pid $$");
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().startsWith("Cpus_allowed_list:\t" + CpuLists.linux(expected) + "\n"), r.out());
            assertEquals("reduced-auto-affinity: local task " + local + ": CPUs: " + CpuLists.cstr(expected) + "\n",
                    r.err());
        }
    }

    @Test
    void aWholeNodeTaskGetsEveryCoreOnce() throws Exception {
        BitSet mine = myCpus();
        Topology node = Topology.sysfs();
        assumeTrue(node.sockets().size() == 1 && mine.equals(node.cpus()),
                "needs a one-socket node whose CPUs this process may all use");
        BitSet expected = Policy.REDUCED.place(node, Request.of(1, node.coreCount()).withAllowed(mine)).mask(0);
        Result r = launch(env("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "1",
                "SLURM_CPUS_PER_TASK", Integer.toString(node.coreCount())), "cat", "/proc/self/status");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("Cpus_allowed_list:\t" + CpuLists.linux(expected) + "\n"), r.out());
    }

    @Test
    void aRejectedTaskNeverStartsTheProgram(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve("started");
        int tooMany = myCpus().cardinality() + 1;
        Result r = launch(env("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", Integer.toString(tooMany)),
                "--", "touch", marker.toString());
        assertEquals(1, r.exit());
        assertFalse(Files.exists(marker), "the program ran");
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("rejected: " + tooMany + " tasks of 1 core do not fit"), r.err());
    }

    @Test
    void aMissingProgramExits127() throws Exception {
        Result r = launch(env("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "1"), "no-such-program-raa");
        assertEquals(127, r.exit(), r.err());
        assertTrue(r.err().contains("cannot execute no-such-program-raa: no such file"), r.err());
    }
}
