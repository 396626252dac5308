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
import org.alpsbridge.slurm.harness.JobUser;
import org.alpsbridge.slurm.harness.NodeNamespaces;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.Sanitizers;
import org.alpsbridge.slurm.harness.SlurmCluster;
import org.alpsbridge.slurm.harness.SlurmInstallation;
import org.junit.jupiter.api.Assumptions;
import picocli.CommandLine;

/**
 * A real Slurm (the harness's {@link SlurmCluster}: Debian's 22.05, or the prefix {@code -Dalpsbridge.slurm.prefix}
 * names) with the reduced-auto-affinity plugin built from {@code affinity/spank}, a {@code plugstack.conf} the tests
 * rewrite, the task plugin under test (and a cgroup.conf with {@code ConstrainCores=yes} for task/cgroup), and a
 * mask generator that runs the module's own {@link AffinityCommand}: what the plugin's integration tests share.
 * Steps are run by the harness's unprivileged {@link JobUser} ({@link #srun}); {@link #srunAsRoot} where a test is
 * about root's own steps.
 */
final class PluginCluster implements AutoCloseable {

    final SlurmCluster slurm;
    final JobUser user;
    final Path plugin;
    final Path generator;
    /** null: one node on loopback. */
    private final NodeNamespaces namespaces;
    private final List<Path> markers = new ArrayList<>();
    /** What srun gets besides RAA_CACHE: the sanitizers' runtime and options ({@link #startSanitized}), or nothing. */
    private final Map<String, String> clientEnv;

    private PluginCluster(SlurmCluster slurm, JobUser user, NodeNamespaces namespaces, Path plugin, Path generator,
                          Map<String, String> clientEnv) {
        this.clientEnv = clientEnv;
        this.slurm = slurm;
        this.user = user;
        this.namespaces = namespaces;
        this.plugin = plugin;
        this.generator = generator;
    }

    /**
     * Starts Slurm with this {@code TaskPlugin} on one node of the CPUs slurmd detects, builds the SPANK plugin into
     * its directory, writes the generator; the plugstack starts empty.
     */
    static PluginCluster start(String taskPlugin) throws IOException, InterruptedException {
        return start(taskPlugin, null, false);
    }

    /**
     * As {@link #start(String)} with the plugin built with ASan and UBSan ({@code make asan}) and run inside the real
     * slurmstepd and srun: gcc's shared ASan runtime preloaded into slurmd (which passes it on to slurmstepd) and
     * into srun, every report written under {@link #sanitizerLogs()} (a directory anyone may write in, private to the cluster: srun and
     * the job's part of slurmstepd run as the job's user), none wanted. Leak checking is off: the hosts' own
     * allocations at exit are not the plugin's to answer for.
     */
    static PluginCluster startSanitized(String taskPlugin) throws IOException, InterruptedException {
        return start(taskPlugin, null, true);
    }

    /** Where the sanitizers write their reports ({@link #startSanitized}). */
    Path sanitizerLogs() {
        return slurm.dir().resolve("sanitizer");
    }

    /** The sanitizers' reports written so far, by file name (none: an empty map). */
    Map<String, String> sanitizerReports() throws IOException {
        return Sanitizers.reports(sanitizerLogs());
    }

    /**
     * As {@link #start(String)} on several nodes: slurmd for node n1, n2, ... (slurm.conf {@code CPUs=} from
     * {@code nodeCpus}) each in a network namespace of its own ({@link NodeNamespaces}). The nodes share this
     * machine's CPUs and sysfs; a node configured with fewer CPUs gets fewer cores from Slurm.
     */
    static PluginCluster startNodes(String taskPlugin, int... nodeCpus) throws IOException, InterruptedException {
        return start(taskPlugin, nodeCpus, false);
    }

    private static PluginCluster start(String taskPlugin, int[] nodeCpus, boolean sanitized) throws IOException, InterruptedException {
        Path module = Path.of("").toAbsolutePath();
        SlurmInstallation installation = SlurmInstallation.selected();
        installation.require("srun", "sinfo", "scontrol");
        Path spankH = installation.includeDir().resolve("slurm/spank.h");
        if (!Files.exists(spankH) || Programs.find("make") == null) {
            Programs.unavailable("no " + spankH + " or make to build the SPANK plugin" + (installation.prefix() == null
                    ? " (Debian packages libslurm-dev, make)" : " (a Slurm installed with its headers)"));
        }
        if (taskPlugin.contains("task/cgroup")) {
            String why = cpusetUnusable();
            // A property of this kernel and its mounts, not a package CI could install: skipped even when required.
            Assumptions.assumeTrue(why == null, () -> {
                System.out.println("SKIP: " + taskPlugin + ": " + why);
                return why;
            });
        }
        SlurmCluster.Spec spec = SlurmCluster.Spec.inTemporaryDirectory(installation, "alpsbridge-slurm-")
                .clusterName("alpsbridge")
                .set("TaskPlugin", taskPlugin)
                .set("SelectType", "select/cons_tres")
                .set("SelectTypeParameters", "CR_Core")
                .set("ReturnToService", "2");
        spec.set("PlugStackConfig", spec.dir().resolve("plugstack.conf").toString());
        Map<String, String> sanitizers = sanitized ? Sanitizers.environment(spec.dir().resolve("sanitizer")) : Map.of();
        sanitizers.forEach(spec::slurmdEnvironment);
        NodeNamespaces namespaces = null;
        SlurmCluster slurm = null;
        JobUser user = JobUser.ensure();
        try {
            List<String> nodes = new ArrayList<>();
            if (nodeCpus == null) {
                String host = Programs.hostname();
                nodes.add(host);
                spec.line("NodeName=" + host + " NodeAddr=127.0.0.1 CPUs=" + detectedCpus(installation) + " State=UNKNOWN");
            } else {
                namespaces = NodeNamespaces.create(nodeCpus.length);
                nodes.addAll(namespaces.addTo(spec, nodeCpus));
            }
            spec.line("PartitionName=debug Nodes=" + String.join(",", nodes) + " Default=YES MaxTime=INFINITE State=UP");
            slurm = SlurmCluster.configure(spec);
            // Read by task/cgroup only, from slurm.conf's directory. IgnoreSystemd: no systemd to ask for a scope
            // here (cgroup/v2 only; cgroup/v1 makes its own hierarchy anyway).
            Files.writeString(slurm.file("cgroup.conf"), String.join("\n",
                    "CgroupPlugin=autodetect",
                    "ConstrainCores=yes",
                    "IgnoreSystemd=yes",
                    ""));
            Files.writeString(slurm.file("plugstack.conf"), "");
            user.admit(slurm);
            user.ownedDirectory(slurm.dir().resolve("raa-cache"));
            if (sanitized) {
                Files.createDirectories(slurm.dir().resolve("sanitizer"));
                Files.setPosixFilePermissions(slurm.dir().resolve("sanitizer"), PosixFilePermissions.fromString("rwxrwxrwx"));
            }
            try {
                slurm.start();
            } catch (SlurmCluster.NotStarted e) {
                Programs.unavailable(e.getMessage());
            }
            System.out.println("PluginCluster: " + taskPlugin + ", cgroup " + cgroupVersion() + ", " + installation + ", up in " + slurm.dir());
            Path out = slurm.dir().resolve("spank");
            List<String> make = new ArrayList<>(List.of("make", "-C", module.resolve("spank").toString(), "OUT=" + out));
            if (installation.prefix() != null) { // against that Slurm's headers
                make.addAll(List.of("SPANK_H=" + spankH, "CPPFLAGS=-I" + installation.includeDir()));
            }
            if (sanitized) {
                make.add("asan");
            }
            Programs.Result built = Programs.run(make, Map.of(), Duration.ofMinutes(2));
            assertEquals(0, built.exit(), "building the plugin failed: " + built.out() + built.err());
            Path generator = script(slurm, "generator.sh", "exec '" + Path.of(System.getProperty("java.home"), "bin", "java")
                    + "' -XX:TieredStopAtLevel=1 -cp '" + readableClassPath(slurm) + "' " + AffinityGenerator.class.getName() + " \"$@\"");
            return new PluginCluster(slurm, user, namespaces,
                    out.resolve(sanitized ? "asan/reduced_auto_affinity.so" : "reduced_auto_affinity.so"), generator, sanitizers);
        } catch (IOException | RuntimeException | Error e) {
            if (slurm != null) {
                slurm.close();
            }
            if (namespaces != null) {
                namespaces.close();
            }
            throw e;
        }
    }

    /**
     * The test class path as the job's user (the plugin runs the generator as that user) can read it: the jars
     * (in root's Maven repository, closed to others) copied into the cluster's directory; the module's class
     * directories as they are.
     */
    private static String readableClassPath(SlurmCluster slurm) throws IOException {
        Path jars = Files.createDirectories(slurm.dir().resolve("classpath"));
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String e : System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")).split(java.io.File.pathSeparator)) {
            Path p = Path.of(e);
            if (e.endsWith(".jar") && Files.isRegularFile(p)) {
                Path copy = jars.resolve((n++) + "-" + p.getFileName());
                Files.copy(p, copy);
                Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
                entries.add(copy.toString());
            } else if (!e.isEmpty()) {
                entries.add(e);
            }
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    private static Path script(SlurmCluster slurm, String name, String body) throws IOException {
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
        // srun and each new step read plugstack.conf afresh: no reconfigure is needed
        Files.writeString(slurm.file("plugstack.conf"), "required " + plugin + " " + args + (args.contains("agent=") ? "" : " agent=none") + "\n");
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
        slurm.awaitNoJobs(Duration.ofSeconds(60), Duration.ofMillis(20));
    }

    /** The lines of slurmd's log (slurmstepd writes there too) holding this text. */
    long slurmdLogLines(String text) throws IOException {
        try (var lines = Files.lines(slurm.dir().resolve("slurmd.log"))) {
            return lines.filter(l -> l.contains(text)).count();
        }
    }

    /** srun ARGS, run by the job's user. */
    Programs.Result srun(String... args) throws IOException, InterruptedException {
        return run("srun", args);
    }

    /** srun ARGS, run by root: only for what is about root's own steps. */
    Programs.Result srunAsRoot(String... args) throws IOException, InterruptedException {
        Map<String, String> env = new java.util.HashMap<>(clientEnv);
        env.put("RAA_CACHE", slurm.dir().resolve("raa-cache").toString());
        return slurm.run(env, "srun", args);
    }

    /** A Slurm client command (srun, sbatch, scontrol, scancel, ...) against this cluster, run by the job's user. */
    Programs.Result run(String command, String... args) throws IOException, InterruptedException {
        Map<String, String> env = new java.util.HashMap<>(clientEnv);
        env.put("RAA_CACHE", slurm.dir().resolve("raa-cache").toString());
        return user.run(slurm, env, command, args);
    }

    @Override
    public void close() {
        slurm.close();
        if (namespaces != null) {
            namespaces.close();
        }
        for (Path m : markers) {
            try {
                Files.deleteIfExists(m);
            } catch (IOException e) {
                System.out.println("PluginCluster: could not remove " + m + ": " + e);
            }
        }
    }

    /**
     * "v2" where /sys/fs/cgroup is the unified hierarchy, "v1" where it holds the legacy hierarchies (a tmpfs with
     * cpuset, memory, ...): what Slurm's CgroupPlugin=autodetect chooses between.
     */
    static String cgroupVersion() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
            String[] f = line.split(" ");
            if (f.length > 2 && f[1].equals("/sys/fs/cgroup")) {
                return f[2].equals("cgroup2") ? "v2" : "v1";
            }
        }
        return "none";
    }

    /**
     * Why Slurm 22.05's task/cgroup cannot confine cores here, or null: cgroup/v1 needs the cpuset hierarchy at
     * /sys/fs/cgroup/cpuset; cgroup/v2 needs the cpuset controller in the unified root and no v1 hierarchy
     * mounted beside it (slurmd stops with "Hybrid mode is not supported").
     */
    static String cpusetUnusable() throws IOException {
        String version = cgroupVersion();
        if (version.equals("v1")) {
            return Files.exists(Path.of("/sys/fs/cgroup/cpuset/cpuset.cpus")) ? null : "cgroup v1 without a cpuset hierarchy at /sys/fs/cgroup/cpuset";
        }
        if (version.equals("v2")) {
            String controllers = Files.readString(Path.of("/sys/fs/cgroup/cgroup.controllers"));
            return List.of(controllers.strip().split(" ")).contains("cpuset") ? null : "cgroup v2 without the cpuset controller (" + controllers.strip() + ")";
        }
        return "no cgroup file system at /sys/fs/cgroup";
    }

    /**
     * The CPU count slurmd itself detects ({@code slurmd -C}): a node line promising more (say sysfs's online CPUs
     * inside a container limited by a cpuset) would leave the node invalid instead of idle.
     */
    private static int detectedCpus(SlurmInstallation slurm) throws IOException, InterruptedException {
        Programs.Result r = Programs.run(List.of(slurm.program("slurmd").toString(), "-C"), Map.of(), Duration.ofSeconds(30));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\bCPUs=(\\d+)").matcher(r.out());
        if (r.exit() != 0 || !m.find()) {
            Programs.unavailable("slurmd -C did not report this node's CPUs (exit " + r.exit() + "): " + r.out().strip() + " " + r.err().strip());
        }
        return Integer.parseInt(m.group(1));
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
