package org.alpsbridge.affinity.spank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.alpsbridge.affinity.agent.AffinityAgent;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.topology.Topology;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.Programs.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The reduced-auto-affinity plugin under each task plugin Debian's Slurm 22.05 offers, with
 * {@code ConstrainCores=yes} in cgroup.conf, on whichever cgroup version this machine's /sys/fs/cgroup is: the
 * program runs with exactly the mask the plugin printed, computed inside the CPUs the step may use (also in a
 * node shared with another job), hwloc sees each mask as one PU per core on adjacent cores of one socket, and a
 * binding the user asked srun for is never silently replaced. One Slurm per task plugin, restarted only between
 * the nested classes.
 */
class TaskPluginsSlurmIT {

    @Nested
    class TaskNone extends Scenarios {
        TaskNone() {
            super("task/none");
        }
    }

    @Nested
    class TaskAffinity extends Scenarios {
        TaskAffinity() {
            super("task/affinity");
        }
    }

    @Nested
    class TaskCgroup extends Scenarios {
        TaskCgroup() {
            super("task/cgroup");
        }
    }

    @Nested
    class TaskAffinityAndCgroup extends Scenarios {
        TaskAffinityAndCgroup() {
            super("task/affinity,task/cgroup");
        }
    }

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class Scenarios {

        private final String taskPlugin;
        private PluginCluster cluster;
        private BitSet allCpus;
        private Topology node;
        private int cores;

        Scenarios(String taskPlugin) {
            this.taskPlugin = taskPlugin;
        }

        @BeforeAll
        void startCluster() throws Exception {
            HwlocView.required();
            cluster = PluginCluster.start(taskPlugin);
            cluster.plugstackWithGenerator("");
            allCpus = PluginCluster.ownCpus();
            node = Topology.sysfs();
            cores = node.coreCount(allCpus);
        }

        @AfterAll
        void stopCluster() {
            if (cluster != null) {
                cluster.close();
            }
        }

        private boolean slurmBinds() {
            return taskPlugin.contains("task/affinity");
        }

        @Test
        void eachTaskRunsWithExactlyTheMaskThePluginPrinted() throws Exception {
            cluster.plugstackWithGenerator("");
            int n = cores; // one task per core: the step holds the whole node under every task plugin
            Result r = cluster.srun("-l", "-N1", "-n" + n, "-c1", "--reduced-auto-affinity=on,v", "grep", "Cpus_allowed_list", "/proc/self/status");
            assertEquals(0, r.exit(), r.err());
            Map<Integer, BitSet> ran = PluginCluster.reported(r.out());
            assertEquals(PluginCluster.expected(n, 1, allCpus), ran, r.out() + r.err());
            for (Map.Entry<Integer, BitSet> e : ran.entrySet()) {
                String line = PluginCluster.verboseLine(e.getKey(), e.getValue());
                assertTrue(r.err().contains(line), "the program ran with " + CpuLists.linux(e.getValue()) + " but '" + line + "' is not in " + r.err());
            }
            HwlocView.seesReducedMasks(ran);
        }

        @Test
        void withTheAgentEachTaskRunsWithTheMaskTheAgentComputed() throws Exception {
            Path socket = cluster.socket("agent.sock");
            // no generator could answer: the masks are the agent's
            cluster.plugstack("generator=" + cluster.socket("no-such-generator") + " agent=" + socket + " timeout=60");
            try (AffinityAgent agent = cluster.startAgent(socket)) {
                int n = cores;
                Result r = cluster.srun("-l", "-N1", "-n" + n, "-c1", "--reduced-auto-affinity=on,v", "grep", "Cpus_allowed_list", "/proc/self/status");
                assertEquals(0, r.exit(), r.err());
                Map<Integer, BitSet> ran = PluginCluster.reported(r.out());
                assertEquals(PluginCluster.expected(n, 1, allCpus), ran, r.out() + r.err());
                assertEquals(1, agent.answered());
                HwlocView.seesReducedMasks(ran);
            }
        }

        @Test
        void inANodeSharedWithAnotherJobTheTasksStayOnTheStepsOwnCores() throws Exception {
            Assumptions.assumeTrue(cores >= 2, "sharing the node needs two cores; this machine's CPUs " + CpuLists.linux(allCpus) + " have " + cores);
            cluster.plugstackWithGenerator("");
            Result held = cluster.run("sbatch", "--parsable", "--output=/dev/null", "-N1", "-n1", "-c1", "--wrap", "sleep 600");
            assertEquals(0, held.exit(), held.err());
            String holder = held.out().strip().split(";")[0];
            try {
                BitSet taken = cpusOf(holder);
                Result r = cluster.srun("-l", "-N1", "-n1", "-c1", "--reduced-auto-affinity=on,v", "grep", "Cpus_allowed_list", "/proc/self/status");
                assertEquals(0, r.exit(), r.err());
                BitSet ran = task0(r);
                assertFalse(ran.intersects(taken), "the task ran on " + CpuLists.linux(ran) + ", the other job holds " + CpuLists.linux(taken));
                assertEquals(1, node.coreCount(ran), CpuLists.linux(ran));
                assertTrue(r.err().contains(PluginCluster.verboseLine(0, ran)), r.err());
                HwlocView.seesReducedMasks(Map.of(0, ran));
            } finally {
                cluster.run("scancel", holder);
            }
        }

        private static BitSet task0(Result r) {
            BitSet ran = PluginCluster.reported(r.out()).get(0);
            assertTrue(ran != null, "task 0 printed no Cpus_allowed_list: " + r.out() + r.err());
            return ran;
        }

        /** The CPUs of a running job, from Slurm's CPU_IDs (its core numbering: socket by socket, core by core). */
        private BitSet cpusOf(String job) throws Exception {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                Result show = cluster.run("scontrol", "show", "job", "-d", job);
                Matcher m = Pattern.compile("CPU_IDs=([0-9,-]+)").matcher(show.out());
                if (show.out().contains("JobState=RUNNING") && m.find()) {
                    BitSet slurmCores = CpuLists.parse(m.group(1));
                    BitSet cpus = new BitSet();
                    int index = 0;
                    for (Topology.Socket s : node.sockets()) {
                        for (Topology.Core c : s.cores()) {
                            if (slurmCores.get(index++)) {
                                c.pus().forEach(cpus::set);
                            }
                        }
                    }
                    return cpus;
                }
                Thread.sleep(200);
            }
            throw new AssertionError("job " + job + " did not start within 60 s; " + cluster.slurm.tail("slurmctld.log"));
        }

        @Test
        void aBindingAskedOfSrunTooIsRefusedBeforeTheProgramRuns() throws Exception {
            cluster.plugstackWithGenerator("");
            Result r = cluster.srun("-N1", "-n1", "--cpu-bind=cores", "--reduced-auto-affinity=on", "sh", "-c", "echo PROGRAM-RAN");
            assertNotEquals(0, r.exit());
            assertFalse(r.out().contains("PROGRAM-RAN"), r.out());
            assertTrue(r.err().contains("reduced-auto-affinity: srun --cpu-bind=cores and --reduced-auto-affinity both bind the tasks"), r.err());
            Result none = cluster.srun("-l", "-N1", "-n1", "--cpu-bind=none", "--reduced-auto-affinity=on,v", "grep", "Cpus_allowed_list", "/proc/self/status");
            assertEquals(0, none.exit(), none.err());
            BitSet ran = task0(none);
            assertTrue(none.err().contains(PluginCluster.verboseLine(0, ran)), "--cpu-bind=none leaves the binding to the plugin: " + none.err());
        }

        @Test
        void theSiteDefaultStandsBackForABindingTheUserAskedSrunFor() throws Exception {
            cluster.plugstackWithGenerator("default=on verbose");
            int last = allCpus.length() - 1;
            String[] step = {"-l", "-N1", "-n1", "-c" + cores, "--cpu-bind=map_cpu:" + last};
            Result r = cluster.srun(concat(step, "grep", "Cpus_allowed_list", "/proc/self/status"));
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.err().contains("reduced-auto-affinity: not binding: srun --cpu-bind=map_cpu:" + last + " binds the tasks"), r.err());
            assertFalse(r.err().contains("reduced-auto-affinity: local task"), r.err());
            Result off = cluster.srun(concat(step, "--reduced-auto-affinity=off", "grep", "Cpus_allowed_list", "/proc/self/status"));
            assertEquals(PluginCluster.reported(off.out()), PluginCluster.reported(r.out()), "the step runs as it does without the plugin");
            BitSet slurms = slurmBinds() ? CpuLists.parse(String.valueOf(last)) : allCpus;
            assertEquals(Map.of(0, slurms), PluginCluster.reported(r.out()), taskPlugin + (slurmBinds() ? " binds" : " does not bind") + " to map_cpu");
        }

        /**
         * Not a check but a benchmark, run only with {@code -Daffinity.bench.steps=N} (affinity/bench/spank-step-cost.sh):
         * the median wall time of N steps {@code srun -n1 true}, {@code srun -n1 --reduced-auto-affinity=on true}
         * with the plugin asking a running affinity agent, and the same with the plugin starting the generator
         * (bin/raa-exec where 'package' has made its jars, else the test class path's JVM; agent=none), under this
         * task plugin, in interleaved rounds so that the machine's load drifts over all alike; ratios to
         * {@code srun true}. Each step starts once slurmctld holds no job (a job waiting for the previous one's
         * cores costs srun seconds of polling, which drowned the figures). The agent is the resident one of this
         * test's JVM (as the unit's would be: warm).
         */
        @Test
        void stepCost() throws Exception {
            String steps = System.getProperty("affinity.bench.steps");
            Assumptions.assumeTrue(steps != null, "a benchmark; -Daffinity.bench.steps=N runs it");
            Path root = Path.of("").toAbsolutePath().getParent();
            boolean jars = java.nio.file.Files.exists(root.resolve("affinity/target/lib/jna.jar"));
            String generator = jars ? root.resolve("bin/raa-exec").toString() : cluster.generator.toString();
            if (jars) { // its class archive made once, as a site's install does: the plugin runs it as the job's user
                Result prepared = Programs.run(List.of(generator, "affinity", "--topology", "sysfs", "-n", "1"), Map.of(),
                        Duration.ofMinutes(2));
                assertEquals(0, prepared.exit(), prepared.err());
            }
            boolean asRoot = Boolean.getBoolean("affinity.bench.root");
            String who = asRoot ? "root" : cluster.user.name();
            Path socket = cluster.socket("bench.sock");
            String viaAgent = "generator=" + generator + " timeout=60 agent=" + socket;
            String viaGenerator = "generator=" + generator + " timeout=60 agent=none";
            List<Long> plain = new java.util.ArrayList<>();
            List<Long> agentSteps = new java.util.ArrayList<>();
            List<Long> generatorSteps = new java.util.ArrayList<>();
            try (AffinityAgent agent = cluster.startAgent(socket)) {
                for (int round = -1; round < Integer.parseInt(steps); round++) { // round -1 warms up
                    cluster.plugstack(viaAgent);
                    long plainMs = timedStep(asRoot, "true");
                    long agentMs = timedStep(asRoot, "--reduced-auto-affinity=on", "true");
                    cluster.plugstack(viaGenerator);
                    long generatorMs = timedStep(asRoot, "--reduced-auto-affinity=on", "true");
                    if (round >= 0) {
                        plain.add(plainMs);
                        agentSteps.add(agentMs);
                        generatorSteps.add(generatorMs);
                    }
                }
                assertEquals(Integer.parseInt(steps) + 1, agent.answered(), "every agent step was the agent's");
            }
            long base = median(plain);
            long baseMin = min(plain);
            System.out.printf("step cost %-27s user %s, cgroup %s, %s steps each, load %s:  srun true median %d ms (min %d);"
                    + "  --reduced-auto-affinity=on with the agent median %d ms (x %.2f; min %d, x %.2f);"
                    + "  with generator %s (agent=none) median %d ms (x %.2f; min %d, x %.2f)%n", taskPlugin,
                    who, PluginCluster.cgroupVersion(), steps, java.nio.file.Files.readString(Path.of("/proc/loadavg")).strip(), base,
                    baseMin, median(agentSteps), (double) median(agentSteps) / base, min(agentSteps),
                    (double) min(agentSteps) / baseMin, jars ? "bin/raa-exec" : "test JVM", median(generatorSteps),
                    (double) median(generatorSteps) / base, min(generatorSteps), (double) min(generatorSteps) / baseMin);
        }

        /**
         * Wall time of {@code srun -N1 -n1 ARGS}, run by the job's user (or root), once no job is left in slurmctld
         * (the wait is not timed). The step must print nothing on stderr: no error, no fallback notice.
         */
        private long timedStep(boolean asRoot, String... args) throws Exception {
            cluster.awaitNoJobs();
            String[] argv = concat(new String[] {"-N1", "-n1"}, args);
            long start = System.nanoTime();
            Result r = asRoot ? cluster.srunAsRoot(argv) : cluster.srun(argv);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(0, r.exit(), String.join(" ", args) + ": " + r.err());
            assertEquals("", r.err(), String.join(" ", args));
            return ms;
        }

        /** The least disturbed step: on a machine shared with other work, the plainest view of what a step costs. */
        private static long min(List<Long> values) {
            return values.stream().min(Long::compare).orElseThrow();
        }

        private static long median(List<Long> values) {
            List<Long> sorted = values.stream().sorted().toList();
            return sorted.get(sorted.size() / 2);
        }

        private static String[] concat(String[] head, String... tail) {
            String[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
            System.arraycopy(tail, 0, all, head.length, tail.length);
            return all;
        }
    }
}
