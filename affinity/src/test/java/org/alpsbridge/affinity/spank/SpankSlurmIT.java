package org.alpsbridge.affinity.spank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.alpsbridge.affinity.agent.AffinityAgent;
import org.alpsbridge.affinity.topology.Topology;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.Programs.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reduced-auto-affinity SPANK plugin ({@code affinity/spank}) and the {@code bin/raa-exec} wrapper under a
 * real one-node Slurm 22.05: each task's real affinity (read by the task itself from /proc/self/status) equals
 * the mask generator's answer for this machine, the verbose lines appear, and an impossible request or a broken
 * generator fails the step before the program runs.
 *
 * <p>Runs in the {@code integration-test} phase (after {@code package}, so raa-exec's jars exist). Skipped with a
 * printed reason where Slurm is not installed or slurmd cannot run; fails instead under
 * ALPSBRIDGE_REQUIRE_SERVICES=1.
 */
class SpankSlurmIT {

    private static PluginCluster cluster;
    private static Path generator;
    private static BitSet allCpus;
    /** Tasks of one CPU each that the reduced policy can place here: one per allowed core, at most two. */
    private static int placeable;
    private static int cores;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = PluginCluster.start("task/none");
        generator = cluster.generator;
        allCpus = PluginCluster.ownCpus();
        cores = Topology.sysfs().coreCount(allCpus);
        placeable = Math.min(2, cores);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Path script(String name, String body) throws IOException {
        return cluster.script(name, body);
    }

    private static void plugstack(String args) throws IOException {
        cluster.plugstack(args);
    }

    private static Result srun(String... args) throws IOException, InterruptedException {
        return cluster.srun(args);
    }

    private static Map<Integer, BitSet> expected(int ntasks, int cpusPerTask) {
        return PluginCluster.expected(ntasks, cpusPerTask, allCpus);
    }

    private static Map<Integer, BitSet> reported(String stdout) {
        return PluginCluster.reported(stdout);
    }

    private static String verboseLine(int task, BitSet cpus) {
        return PluginCluster.verboseLine(task, cpus);
    }

    @Test
    void thePluginBindsEachTaskToTheGeneratorsAnswerAndSaysSo() throws Exception {
        plugstack("generator=" + generator + " timeout=60");
        eachTaskRunsWithTheGeneratorsMaskAndSaysSo();
    }

    /** A step of {@link #placeable} tasks with --reduced-auto-affinity=on,v under the plugstack as it is. */
    private static void eachTaskRunsWithTheGeneratorsMaskAndSaysSo() throws Exception {
        int n = placeable;
        Result r = srun("-l", "-N1", "-n" + n, "-c1", "--reduced-auto-affinity=on,v", "grep", "Cpus_allowed_list", "/proc/self/status");
        assertEquals(0, r.exit(), r.err());
        Map<Integer, BitSet> want = expected(n, 1);
        assertEquals(want, reported(r.out()), r.out() + r.err());
        for (Map.Entry<Integer, BitSet> e : want.entrySet()) {
            assertTrue(r.err().contains(verboseLine(e.getKey(), e.getValue())), "missing '" + verboseLine(e.getKey(), e.getValue()) + "' in " + r.err());
        }
    }

    /** One task more than there are cores: the reduced policy must refuse it, before the program runs. */
    private static void anImpossibleStepIsRefusedBeforeItsProgramRuns() throws Exception {
        Result r = srun("-N1", "-n" + (cores + 1), "--overcommit", "--reduced-auto-affinity=on", "sh", "-c", "echo PROGRAM-RAN");
        assertNotEquals(0, r.exit());
        assertFalse(r.out().contains("PROGRAM-RAN"), r.out());
        assertTrue(r.err().contains("reduced-auto-affinity: rejected: "), r.err());
    }

    @Test
    void withoutTheOptionTasksKeepEveryCpuAndNothingIsPrinted() throws Exception {
        plugstack("generator=" + generator + " timeout=60");
        Result r = srun("-l", "-N1", "-n1", "grep", "Cpus_allowed_list", "/proc/self/status");
        assertEquals(0, r.exit(), r.err());
        assertEquals(Map.of(0, allCpus), reported(r.out()));
        assertFalse(r.err().contains("reduced-auto-affinity"), r.err());
    }

    @Test
    void theSiteDefaultAppliesUntilTheUserSaysOff() throws Exception {
        plugstack("default=on verbose generator=" + generator + " timeout=60");
        Result on = srun("-l", "-N1", "-n1", "grep", "Cpus_allowed_list", "/proc/self/status");
        assertEquals(0, on.exit(), on.err());
        assertEquals(expected(1, 1), reported(on.out()));
        assertTrue(on.err().contains("reduced-auto-affinity: local task 0: CPUs: "), on.err());
        Result off = srun("-l", "-N1", "-n1", "--reduced-auto-affinity=off", "grep", "Cpus_allowed_list", "/proc/self/status");
        assertEquals(Map.of(0, allCpus), reported(off.out()), off.err());
    }

    /** bin/raa-exec, once 'package' has made its jars (this class runs after it in 'verify'). */
    private static String raaExec() {
        Path root = Path.of("").toAbsolutePath().getParent();
        Path jar = root.resolve("affinity/target/affinity-0.1.0-SNAPSHOT.jar");
        Path jna = root.resolve("affinity/target/lib/jna.jar");
        Assumptions.assumeTrue(Files.exists(jar) && Files.exists(jna),
                "bin/raa-exec needs " + jar + " and " + jna + ", made by 'package'; this test runs after it in 'verify'");
        Path raaExec = root.resolve("bin/raa-exec");
        // its class archive made once, as a site's install does: the plugin runs it as the job's user, in a clean
        // environment (no RAA_CACHE), where it may only read the archive
        try {
            Result prepared = Programs.run(List.of(raaExec.toString(), "affinity", "--topology", "sysfs", "-n", "1"),
                    Map.of(), Duration.ofMinutes(2));
            assertEquals(0, prepared.exit(), prepared.err());
        } catch (IOException | InterruptedException e) {
            throw new AssertionError("bin/raa-exec affinity -n1: " + e, e);
        }
        return raaExec.toString();
    }

    @Test
    void theWrapperRouteBindsEachTaskTheSameWay() throws Exception {
        String wrapper = raaExec();
        plugstack("generator=" + generator + " timeout=60");
        int n = placeable;
        Result r = srun("-l", "-N1", "-n" + n, "--cpu-bind=none", wrapper, "-v", "--",
                "grep", "Cpus_allowed_list", "/proc/self/status");
        assertEquals(0, r.exit(), r.err());
        assertEquals(expected(n, 1), reported(r.out()), r.out() + r.err());
    }

    @Test
    void theWrapperServesThePluginAsItsFastGenerator() throws Exception {
        plugstack("generator=" + raaExec() + " timeout=60");
        eachTaskRunsWithTheGeneratorsMaskAndSaysSo();
        anImpossibleStepIsRefusedBeforeItsProgramRuns();
    }

    @Test
    void anImpossibleRequestIsRefusedBeforeTheProgramRuns() throws Exception {
        plugstack("generator=" + generator + " timeout=60");
        anImpossibleStepIsRefusedBeforeItsProgramRuns();
    }

    @Test
    void aMistypedWordIsRefusedBySrun() throws Exception {
        plugstack("generator=" + generator + " timeout=60");
        Result r = srun("-N1", "-n1", "--reduced-auto-affinity=on,verbos", "sh", "-c", "echo PROGRAM-RAN");
        assertNotEquals(0, r.exit());
        assertFalse(r.out().contains("PROGRAM-RAN"), r.out());
        assertTrue(r.err().contains("invalid word 'verbos'"), r.err());
    }

    @Test
    void aBrokenGeneratorFailsTheStepWithAClearErrorAndNeverHangsIt() throws Exception {
        Path missing = cluster.slurm.dir().resolve("no-such-generator");
        Path hangs = script("hangs.sh", "sleep 600");
        Path babbles = script("babbles.sh", "echo '0 0'; echo 'not a task line'");
        Map<Path, String> cases = Map.of(
                missing, "cannot be run: No such file or directory",
                hangs, "gave no answer within 2 s and was killed",
                babbles, "printed 'not a task line' on line 2");
        for (Map.Entry<Path, String> c : cases.entrySet()) {
            plugstack("generator=" + c.getKey() + " timeout=2");
            long start = System.nanoTime();
            Result r = srun("-N1", "-n1", "--reduced-auto-affinity=on", "sh", "-c", "echo PROGRAM-RAN");
            assertNotEquals(0, r.exit(), c.getKey().toString());
            assertFalse(r.out().contains("PROGRAM-RAN"), r.out());
            assertTrue(r.err().contains(c.getValue()), r.err());
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(60).toNanos(), "the step took too long");
        }
    }

    @Test
    void withAnAgentRunningThePluginAsksItAndStartsNoGenerator() throws Exception {
        Path socket = cluster.socket("agent.sock");
        // no generator could answer: each mask and rejection below is the agent's
        plugstack("generator=" + cluster.slurm.dir().resolve("no-such-generator") + " agent=" + socket + " timeout=60");
        try (AffinityAgent agent = cluster.startAgent(socket)) {
            eachTaskRunsWithTheGeneratorsMaskAndSaysSo();
            anImpossibleStepIsRefusedBeforeItsProgramRuns();
            assertEquals(2, agent.answered());
            assertEquals(0, agent.unserved(), "the agent served the user's steps");
            assertEquals(0, cluster.slurmdLogLines(socket.toString()), "no fallback was logged for " + socket);
        }
    }

    /**
     * The user's step with the agent running prints only the verbose lines: no error about the agent, no fallback
     * (before, the plugin asked the agent as the job's user, was refused, and said so on every step).
     */
    @Test
    void theUsersStepWithAnAgentPrintsOnlyTheVerboseLines() throws Exception {
        Path socket = cluster.socket("quiet.sock");
        cluster.forgetsMarkerOf(socket);
        plugstack("generator=" + generator + " agent=" + socket + " timeout=60");
        try (AffinityAgent agent = cluster.startAgent(socket)) {
            for (int step = 0; step < 2; step++) {
                Result r = srun("-N1", "-n" + placeable, "-c1", "--reduced-auto-affinity=on,v", "true");
                assertEquals(0, r.exit(), r.err());
                List<String> lines = r.err().lines().sorted().toList();
                List<String> want = expected(placeable, 1).entrySet().stream().map(e -> verboseLine(e.getKey(), e.getValue())).sorted().toList();
                assertEquals(want, lines, "stderr of " + cluster.user.name() + "'s step");
            }
            assertEquals(2, agent.answered());
        }
        assertEquals(0, cluster.slurmdLogLines("quiet.sock"), "no fallback was logged");
    }

    /**
     * With no agent the plugin starts the generator as the job's user (real, effective and saved uid; no
     * capabilities), in /, with nothing but PATH in its environment: never as root, never in a directory the user
     * controls, never with the job's environment.
     */
    @Test
    void theGeneratorRunsAsTheJobsUserInTheRootDirectoryWithACleanEnvironment() throws Exception {
        Result r = probedStep(false);
        assertEquals(0, r.exit(), r.err());
        Map<String, String> seen = probe();
        String uid = String.valueOf(cluster.user.uid());
        assertEquals(uid + " " + uid + " " + uid + " " + uid, seen.get("uids"), "real, effective, saved, filesystem uid: " + seen);
        assertEquals(String.valueOf(cluster.user.gid()), seen.get("gid"), seen.toString());
        assertEquals("0000000000000000", seen.get("CapPrm"), "no capabilities: " + seen);
        assertEquals("0000000000000000", seen.get("CapEff"), "no capabilities: " + seen);
        assertEquals("/", seen.get("cwd"));
        assertEquals("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", seen.get("env"), "the environment: " + seen);
    }

    /** Root's own steps: the generator runs as nobody, not as root. */
    @Test
    void forRootsOwnStepsTheGeneratorRunsAsNobody() throws Exception {
        Result r = probedStep(true);
        assertEquals(0, r.exit(), r.err());
        Map<String, String> seen = probe();
        assertEquals("65534 65534 65534 65534", seen.get("uids"), seen.toString());
        assertEquals("0000000000000000", seen.get("CapPrm"), seen.toString());
        assertEquals("/", seen.get("cwd"));
    }

    /** A step of one task whose generator first writes who, where and with what environment it runs. */
    private static Result probedStep(boolean asRoot) throws Exception {
        Path dir = cluster.slurm.dir().resolve("probe");
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.deleteIfExists(dir.resolve("seen"));
        // env first, before the shell adds anything of its own (dash exports PWD)
        Path probe = script("probe.sh", "e=$(env -0 | tr '\\0' '\\n' | grep -v '^PWD=' | sort | tr '\\n' ' ')\n"
                + "{ echo \"env=${e% }\"; echo \"cwd=$(pwd -P)\"; echo \"gid=$(id -g)\";"
                + " echo \"uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' /proc/self/status)\";"
                + " grep -E '^Cap(Prm|Eff):' /proc/self/status | tr -d '\\t' ; } > " + dir.resolve("seen") + "\n"
                + "exec " + generator + " \"$@\"");
        plugstack("generator=" + probe + " timeout=60");
        String[] args = {"-N1", "-n1", "--reduced-auto-affinity=on", "true"};
        return asRoot ? cluster.srunAsRoot(args) : srun(args);
    }

    private static Map<String, String> probe() throws IOException {
        Map<String, String> seen = new TreeMap<>();
        for (String line : Files.readAllLines(cluster.slurm.dir().resolve("probe/seen"))) {
            int at = line.indexOf(line.startsWith("Cap") ? ':' : '=');
            seen.put(line.substring(0, at), line.substring(at + 1).strip());
        }
        return seen;
    }

    @Test
    void withoutAnAgentThePluginStartsTheGeneratorAndSaysSoOnceUntilAnAgentAnswers() throws Exception {
        Path socket = cluster.socket("absent.sock");
        cluster.forgetsMarkerOf(socket);
        plugstack("generator=" + generator + " agent=" + socket + " timeout=60");
        String said = "no affinity agent answers on " + socket + " (No such file or directory); steps start mask generator " + generator;
        for (int step = 0; step < 3; step++) {
            Result r = srun("-l", "-N1", "-n1", "--reduced-auto-affinity=on", "grep", "Cpus_allowed_list", "/proc/self/status");
            assertEquals(0, r.exit(), r.err());
            assertEquals(expected(1, 1), reported(r.out()), r.err());
            assertFalse(r.err().contains("agent"), "a missing agent is no news for the user: " + r.err());
        }
        assertEquals(1, cluster.slurmdLogLines(said), "said once in slurmd's log: " + cluster.slurm.tail("slurmd.log"));
        try (AffinityAgent agent = cluster.startAgent(socket)) {
            Result r = srun("-l", "-N1", "-n1", "--reduced-auto-affinity=on", "grep", "Cpus_allowed_list", "/proc/self/status");
            assertEquals(expected(1, 1), reported(r.out()), r.err());
            assertEquals(1, agent.answered());
            Path marker = PluginCluster.marker(socket);
            assertTrue(!Files.exists(marker) || Files.size(marker) == 0, "an answer makes the next fallback news again");
        }
        Result again = srun("-l", "-N1", "-n1", "--reduced-auto-affinity=on", "grep", "Cpus_allowed_list", "/proc/self/status");
        assertEquals(expected(1, 1), reported(again.out()), again.err());
        assertEquals(2, cluster.slurmdLogLines(said), "said again after the agent went away");
    }

    @Test
    void anAgentThatAnswersWronglyIsReportedOnceAndTheGeneratorAnswers() throws Exception {
        Path socket = cluster.socket("wrong.sock");
        cluster.forgetsMarkerOf(socket);
        plugstack("generator=" + generator + " agent=" + socket + " timeout=60");
        try (ServerSocketChannel wrong = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            wrong.bind(UnixDomainSocketAddress.of(socket));
            Thread answers = new Thread(() -> {
                while (wrong.isOpen()) {
                    try (SocketChannel c = wrong.accept()) {
                        c.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 7, 'e', 'x', 'i', 't', '=', '0', 0}));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            answers.setDaemon(true);
            answers.start();
            String said = "the affinity agent on " + socket + " answered something else than exit=N out= err= or unserved=";
            Result first = srun("-l", "-N1", "-n1", "--reduced-auto-affinity=on", "grep", "Cpus_allowed_list", "/proc/self/status");
            assertEquals(0, first.exit(), first.err());
            assertEquals(expected(1, 1), reported(first.out()), first.err());
            assertTrue(first.err().contains("reduced-auto-affinity: " + said), "an error, on the user's terminal too: " + first.err());
            Result second = srun("-l", "-N1", "-n1", "--reduced-auto-affinity=on", "grep", "Cpus_allowed_list", "/proc/self/status");
            assertEquals(expected(1, 1), reported(second.out()), second.err());
            assertFalse(second.err().contains(said), "once: " + second.err());
            assertEquals(1, cluster.slurmdLogLines(said), cluster.slurm.tail("slurmd.log"));
        }
    }

    @Test
    void aMistypedPlugstackArgumentStopsThePluginLoudly() throws Exception {
        plugstack("generator=" + generator + " defualt=on");
        Result r = srun("-N1", "-n1", "sh", "-c", "echo PROGRAM-RAN");
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("unknown plugstack argument 'defualt=on'"), r.err());
        plugstack("generator=" + generator + " agent=run/agent.sock");
        Result relative = srun("-N1", "-n1", "sh", "-c", "echo PROGRAM-RAN");
        assertNotEquals(0, relative.exit());
        assertTrue(relative.err().contains("plugstack argument 'agent=run/agent.sock': the agent's socket must be an absolute path"),
                relative.err());
    }

    /**
     * Not a check but a benchmark, run only with {@code -Daffinity.bench.steps=N}: the wall time of a step of (up
     * to) two tasks without binding, with the plugin (one generator per node and step: a JVM running the picocli
     * command from the test class path, or bin/raa-exec's fast path), and through the wrapper (one JVM per task),
     * in interleaved rounds so that the machine's load drifts over all of them alike; medians, minima (the least
     * disturbed run) and their ratios to the step without binding.
     */
    @Test
    void stepCostSideBySide() throws Exception {
        String steps = System.getProperty("affinity.bench.steps");
        Assumptions.assumeTrue(steps != null, "a benchmark; -Daffinity.bench.steps=N runs it");
        String wrapper = raaExec();
        String tasks = "-n" + placeable;
        record Way(String plugstack, List<String> srun) {
        }
        Map<String, Way> ways = new LinkedHashMap<>();
        String viaJvm = "generator=" + generator + " timeout=60";
        String viaWrapper = "generator=" + wrapper + " timeout=60";
        ways.put("srun true (no binding)", new Way(viaJvm, List.of("-N1", tasks, "true")));
        ways.put("plugin, generator: test-classpath JVM", new Way(viaJvm, List.of("-N1", tasks, "--reduced-auto-affinity=on", "true")));
        ways.put("plugin, generator: bin/raa-exec", new Way(viaWrapper, List.of("-N1", tasks, "--reduced-auto-affinity=on", "true")));
        Path socket = cluster.socket("bench.sock");
        ways.put("plugin, affinity agent", new Way(viaWrapper + " agent=" + socket, List.of("-N1", tasks, "--reduced-auto-affinity=on", "true")));
        ways.put("srun --cpu-bind=none bin/raa-exec -- true", new Way(viaJvm, List.of("-N1", tasks, "--cpu-bind=none", wrapper, "--", "true")));
        Map<String, List<Long>> millis = new LinkedHashMap<>();
        try (AffinityAgent agent = cluster.startAgent(socket)) {
            for (int round = -1; round < Integer.parseInt(steps); round++) { // round -1 warms up (raa-exec's archive)
                for (Map.Entry<String, Way> way : ways.entrySet()) {
                    plugstack(way.getValue().plugstack());
                    cluster.awaitNoJobs();
                    long start = System.nanoTime();
                    Result r = srun(way.getValue().srun().toArray(String[]::new));
                    long ms = (System.nanoTime() - start) / 1_000_000;
                    assertEquals(0, r.exit(), way.getKey() + ": " + r.err());
                    if (round >= 0) {
                        millis.computeIfAbsent(way.getKey(), k -> new ArrayList<>()).add(ms);
                    }
                }
            }
        }
        List<Long> first = millis.values().iterator().next();
        long base = median(first);
        long baseMin = first.stream().min(Long::compare).orElseThrow();
        System.out.printf("step cost, %d tasks of 1 CPU, %s rounds, %d CPUs, load %s%n", placeable, steps,
                Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).strip());
        for (Map.Entry<String, List<Long>> e : millis.entrySet()) {
            long m = median(e.getValue());
            long min = e.getValue().stream().min(Long::compare).orElseThrow();
            System.out.printf("  %-45s median %6d ms  x %.2f   min %6d ms  x %.2f%n", e.getKey(), m, (double) m / base, min,
                    (double) min / baseMin);
        }
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
