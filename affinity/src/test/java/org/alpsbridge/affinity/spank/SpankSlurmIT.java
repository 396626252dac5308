package org.alpsbridge.affinity.spank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
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
import org.alpsbridge.affinity.cli.AffinityCommand;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.spank.SlurmCluster.Result;
import org.alpsbridge.affinity.topology.Topology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

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

    private static final Duration STEP_LIMIT = Duration.ofSeconds(120);

    private static SlurmCluster cluster;
    private static Path plugin;
    private static Path generator;
    private static BitSet allCpus;
    /** Tasks of one CPU each that the reduced policy can place here: one per allowed core, at most two. */
    private static int placeable;
    private static int cores;

    @BeforeAll
    static void startCluster() throws Exception {
        Path module = Path.of("").toAbsolutePath();
        if (!Files.exists(Path.of("/usr/include/slurm/spank.h")) || SlurmCluster.program("make") == null) {
            SlurmCluster.unavailable("no <slurm/spank.h> or make (Debian packages libslurm-dev, make) to build the SPANK plugin");
        }
        cluster = SlurmCluster.start();
        Path out = cluster.dir().resolve("spank");
        Result built = SlurmCluster.run(List.of("make", "-C", module.resolve("spank").toString(), "OUT=" + out), Map.of(), Duration.ofMinutes(2));
        assertEquals(0, built.exit(), "building the plugin failed: " + built.out() + built.err());
        plugin = out.resolve("reduced_auto_affinity.so");
        generator = script("generator.sh", "exec '" + Path.of(System.getProperty("java.home"), "bin", "java") + "' -XX:TieredStopAtLevel=1 -cp '"
                + System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")) + "' "
                + AffinityGenerator.class.getName() + " \"$@\"");
        // The daemons, and so every step, inherit this JVM's CPUs, which may be fewer than the node's (a cpuset).
        allCpus = ownCpus();
        cores = Topology.sysfs().coreCount(allCpus);
        placeable = Math.min(2, cores);
    }

    private static BitSet ownCpus() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return CpuLists.parse(line.substring(line.indexOf(':') + 1).strip());
            }
        }
        throw new IOException("no Cpus_allowed_list in /proc/self/status");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Path script(String name, String body) throws IOException {
        Path p = cluster.dir().resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    private static void plugstack(String args) throws IOException {
        cluster.plugstack("required " + plugin + " " + args + "\n");
    }

    private static Result srun(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("srun"));
        argv.addAll(List.of(args));
        Map<String, String> env = new TreeMap<>(cluster.environment());
        env.put("RAA_CACHE", cluster.dir().resolve("raa-cache").toString());
        return SlurmCluster.run(argv, env, STEP_LIMIT);
    }

    /** The generator's own answer on this machine: local task id → CPUs. */
    private static Map<Integer, BitSet> expected(int ntasks, int cpusPerTask) {
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(new AffinityCommand());
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(new StringWriter(), true));
        int exit = cmd.execute("--topology", "sysfs", "--ntasks", String.valueOf(ntasks), "--cpus-per-task", String.valueOf(cpusPerTask),
                "--allowed", CpuLists.linux(allCpus), "--format", "tasks");
        assertEquals(0, exit, "the generator rejects " + ntasks + " x " + cpusPerTask + " on this machine");
        Map<Integer, BitSet> masks = new TreeMap<>();
        for (String line : out.toString().split("\n")) {
            String[] f = line.strip().split(" ");
            masks.put(Integer.parseInt(f[0]), CpuLists.parse(f[1]));
        }
        return masks;
    }

    /** Lines "N: Cpus_allowed_list:\tLIST" from srun --label (one node: global id = local id). */
    private static Map<Integer, BitSet> reported(String stdout) {
        Map<Integer, BitSet> masks = new TreeMap<>();
        for (String line : stdout.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.contains("Cpus_allowed_list:")) {
                masks.put(Integer.parseInt(line.substring(0, colon).strip()),
                        CpuLists.parse(line.substring(line.lastIndexOf(':') + 1).strip()));
            }
        }
        return masks;
    }

    private static String verboseLine(int task, BitSet cpus) {
        return "reduced-auto-affinity: local task " + task + ": CPUs: " + CpuLists.cstr(cpus);
    }

    @Test
    void thePluginBindsEachTaskToTheGeneratorsAnswerAndSaysSo() throws Exception {
        plugstack("generator=" + generator + " timeout=60");
        int n = placeable;
        Result r = srun("-l", "-N1", "-n" + n, "-c1", "--reduced-auto-affinity=on,v", "grep", "Cpus_allowed_list", "/proc/self/status");
        assertEquals(0, r.exit(), r.err());
        Map<Integer, BitSet> want = expected(n, 1);
        assertEquals(want, reported(r.out()), r.out() + r.err());
        for (Map.Entry<Integer, BitSet> e : want.entrySet()) {
            assertTrue(r.err().contains(verboseLine(e.getKey(), e.getValue())), "missing '" + verboseLine(e.getKey(), e.getValue()) + "' in " + r.err());
        }
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
        return root.resolve("bin/raa-exec").toString();
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
        int n = placeable;
        Result r = srun("-l", "-N1", "-n" + n, "-c1", "--reduced-auto-affinity=on,v", "grep", "Cpus_allowed_list", "/proc/self/status");
        assertEquals(0, r.exit(), r.err());
        assertEquals(expected(n, 1), reported(r.out()), r.out() + r.err());
        Result refused = srun("-N1", "-n" + (cores + 1), "--overcommit", "--reduced-auto-affinity=on", "sh", "-c", "echo PROGRAM-RAN");
        assertNotEquals(0, refused.exit());
        assertFalse(refused.out().contains("PROGRAM-RAN"), refused.out());
        assertTrue(refused.err().contains("reduced-auto-affinity: rejected: "), refused.err());
    }

    @Test
    void anImpossibleRequestIsRefusedBeforeTheProgramRuns() throws Exception {
        plugstack("generator=" + generator + " timeout=60");
        int tooMany = cores + 1; // one allowed core per task at least, so the reduced policy must refuse
        Result r = srun("-N1", "-n" + tooMany, "--overcommit", "--reduced-auto-affinity=on", "sh", "-c", "echo PROGRAM-RAN");
        assertNotEquals(0, r.exit());
        assertFalse(r.out().contains("PROGRAM-RAN"), r.out());
        assertTrue(r.err().contains("reduced-auto-affinity: rejected: "), r.err());
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
        Path missing = cluster.dir().resolve("no-such-generator");
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
    void aMistypedPlugstackArgumentStopsThePluginLoudly() throws Exception {
        plugstack("generator=" + generator + " defualt=on");
        Result r = srun("-N1", "-n1", "sh", "-c", "echo PROGRAM-RAN");
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("unknown plugstack argument 'defualt=on'"), r.err());
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
        ways.put("srun --cpu-bind=none bin/raa-exec -- true", new Way(viaJvm, List.of("-N1", tasks, "--cpu-bind=none", wrapper, "--", "true")));
        Map<String, List<Long>> millis = new LinkedHashMap<>();
        for (int round = -1; round < Integer.parseInt(steps); round++) { // round -1 warms up (raa-exec's archive)
            for (Map.Entry<String, Way> way : ways.entrySet()) {
                plugstack(way.getValue().plugstack());
                long start = System.nanoTime();
                Result r = srun(way.getValue().srun().toArray(String[]::new));
                long ms = (System.nanoTime() - start) / 1_000_000;
                assertEquals(0, r.exit(), way.getKey() + ": " + r.err());
                if (round >= 0) {
                    millis.computeIfAbsent(way.getKey(), k -> new ArrayList<>()).add(ms);
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
