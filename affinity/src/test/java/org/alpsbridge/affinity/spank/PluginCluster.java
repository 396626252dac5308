package org.alpsbridge.affinity.spank;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.alpsbridge.affinity.agent.AffinityAgent;
import org.alpsbridge.affinity.cli.AffinityCommand;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.spank.SlurmCluster.Result;
import org.alpsbridge.slurm.SlurmPrefix;
import picocli.CommandLine;

/**
 * A {@link SlurmCluster} with the reduced-auto-affinity plugin built from {@code affinity/spank} and a mask
 * generator that runs the module's own {@link AffinityCommand}: what the plugin's integration tests share.
 */
final class PluginCluster implements AutoCloseable {

    private static final Duration STEP_LIMIT = Duration.ofSeconds(120);

    final SlurmCluster slurm;
    final Path plugin;
    final Path generator;
    private final List<Path> markers = new ArrayList<>();

    private PluginCluster(SlurmCluster slurm, Path plugin, Path generator) {
        this.slurm = slurm;
        this.plugin = plugin;
        this.generator = generator;
    }

    /** Starts Slurm with this task plugin, builds the SPANK plugin into its directory, writes the generator. */
    static PluginCluster start(String taskPlugin) throws IOException, InterruptedException {
        return start(taskPlugin, null);
    }

    /** As {@link #start(String)} on several nodes: {@link SlurmCluster#startNodes}. */
    static PluginCluster startNodes(String taskPlugin, int... nodeCpus) throws IOException, InterruptedException {
        return start(taskPlugin, nodeCpus);
    }

    private static PluginCluster start(String taskPlugin, int[] nodeCpus) throws IOException, InterruptedException {
        Path module = Path.of("").toAbsolutePath();
        Path spankH = SlurmPrefix.includeDir().resolve("slurm/spank.h");
        if (!Files.exists(spankH) || SlurmCluster.program("make") == null) {
            SlurmCluster.unavailable("no " + spankH + " or make (Debian packages libslurm-dev, make) to build the SPANK plugin");
        }
        SlurmCluster slurm = nodeCpus == null ? SlurmCluster.start(taskPlugin) : SlurmCluster.startNodes(taskPlugin, nodeCpus);
        try {
            Path out = slurm.dir().resolve("spank");
            // against the headers of the Slurm that runs it: one source for 22.05 and 26.05
            Result built = SlurmCluster.run(List.of("make", "-C", module.resolve("spank").toString(), "OUT=" + out,
                    "SPANK_H=" + spankH, "CPPFLAGS=-I" + SlurmPrefix.includeDir()), Map.of(), Duration.ofMinutes(2));
            assertEquals(0, built.exit(), "building the plugin failed: " + built.out() + built.err());
            Path generator = script(slurm, "generator.sh", "exec '" + Path.of(System.getProperty("java.home"), "bin", "java")
                    + "' -XX:TieredStopAtLevel=1 -cp '" + System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
                    + "' " + AffinityGenerator.class.getName() + " \"$@\"");
            return new PluginCluster(slurm, out.resolve("reduced_auto_affinity.so"), generator);
        } catch (IOException | RuntimeException | Error e) {
            slurm.close();
            throw e;
        }
    }

    static Path script(SlurmCluster slurm, String name, String body) throws IOException {
        Path p = slurm.dir().resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    Path script(String name, String body) throws IOException {
        return script(slurm, name, body);
    }

    /**
     * plugstack.conf loads the plugin with these arguments; without an {@code agent=} among them, with
     * {@code agent=none} too, so that the generator answers as the test says (and no test asks, or leaves a marker
     * for, an agent on the machine's default socket).
     */
    void plugstack(String args) throws IOException {
        slurm.plugstack("required " + plugin + " " + args + (args.contains("agent=") ? "" : " agent=none") + "\n");
    }

    /** plugstack.conf loads the plugin with the test's generator and these further arguments. */
    void plugstackWithGenerator(String args) throws IOException {
        plugstack("generator=" + generator + " timeout=60 " + args);
    }

    /** A socket path in this cluster's directory (an agent may listen there, or not). */
    Path socket(String name) {
        return slurm.dir().resolve(name);
    }

    /**
     * An affinity agent on {@code socket} answering from this machine's sysfs, in the test's JVM (a resident agent,
     * as the systemd unit's is); the test closes it. The plugin's "no agent" marker of that socket is removed when
     * the cluster closes.
     */
    AffinityAgent startAgent(Path socket) throws IOException {
        markers.add(marker(socket));
        return AffinityAgent.start(socket, Path.of("/sys/devices/system"), 4, System.out);
    }

    /** Where the plugin remembers that it said "no agent on SOCKET" (reduced_auto_affinity.c, marker_path). */
    static Path marker(Path socket) {
        return Path.of("/run/reduced-auto-affinity.fallback." + socket.toString().replace('/', '_'));
    }

    /** Sockets whose markers the plugin may have left in /run. */
    void forgetsMarkerOf(Path socket) {
        markers.add(marker(socket));
    }

    /**
     * Waits (untimed, for benchmarks) until slurmctld holds no job, completing ones included: a step whose job must
     * wait for the previous job's cores is polled for by srun at growing intervals, seconds that are not the
     * step's cost.
     */
    void awaitNoJobs() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Result q = run("squeue", "-h", "-o", "%i"); // pending, running and completing jobs (not completed ones)
            if (q.exit() == 0 && q.out().isBlank()) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("jobs still in slurmctld after 60 s: " + run("squeue").out());
    }

    /** The lines of slurmd's log (slurmstepd writes there too) holding this text. */
    long slurmdLogLines(String text) throws IOException {
        try (var lines = Files.lines(slurm.dir().resolve("slurmd.log"))) {
            return lines.filter(l -> l.contains(text)).count();
        }
    }

    Result srun(String... args) throws IOException, InterruptedException {
        return run("srun", args);
    }

    /** A Slurm client command (srun, sbatch, scontrol, scancel, ...) against this cluster. */
    Result run(String command, String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(command));
        argv.addAll(List.of(args));
        Map<String, String> env = new TreeMap<>(slurm.environment());
        env.put("RAA_CACHE", slurm.dir().resolve("raa-cache").toString());
        return SlurmCluster.run(argv, env, STEP_LIMIT);
    }

    @Override
    public void close() {
        slurm.close();
        for (Path m : markers) {
            try {
                Files.deleteIfExists(m);
            } catch (IOException e) {
                System.out.println("PluginCluster: could not remove " + m + ": " + e);
            }
        }
    }

    /** This process's CPUs (the daemons, and so every step, inherit them; maybe fewer than the node's). */
    static BitSet ownCpus() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return CpuLists.parse(line.substring(line.indexOf(':') + 1).strip());
            }
        }
        throw new IOException("no Cpus_allowed_list in /proc/self/status");
    }

    /** The generator's own answer on this machine inside {@code allowed}: local task id → CPUs. */
    static Map<Integer, BitSet> expected(int ntasks, int cpusPerTask, BitSet allowed) {
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(new AffinityCommand());
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(new StringWriter(), true));
        int exit = cmd.execute("--topology", "sysfs", "--ntasks", String.valueOf(ntasks), "--cpus-per-task", String.valueOf(cpusPerTask),
                "--allowed", CpuLists.linux(allowed), "--format", "tasks");
        assertEquals(0, exit, "the generator rejects " + ntasks + " x " + cpusPerTask + " inside CPUs " + CpuLists.linux(allowed));
        Map<Integer, BitSet> masks = new TreeMap<>();
        for (String line : out.toString().split("\n")) {
            String[] f = line.strip().split(" ");
            masks.put(Integer.parseInt(f[0]), CpuLists.parse(f[1]));
        }
        return masks;
    }

    /** Lines "N: Cpus_allowed_list:\tLIST" from srun --label: task id → CPUs. */
    static Map<Integer, BitSet> reported(String stdout) {
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

    static String verboseLine(int task, BitSet cpus) {
        return "reduced-auto-affinity: local task " + task + ": CPUs: " + CpuLists.cstr(cpus);
    }
}
