package org.alpsbridge.affinity.spank;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.slurm.SlurmPrefix;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A real one-node Slurm on loopback for tests: a private {@code munged}, {@code slurmctld} and {@code slurmd}
 * with a generated {@code slurm.conf} and {@code plugstack.conf} in a temporary directory, on a free block of
 * ports in 19400-19499.
 * Everything it starts it stops by pid in {@link #close()}. Where the programs are missing or slurmd cannot
 * run (not root), the calling test is skipped with the reason printed, or fails when
 * {@code ALPSBRIDGE_REQUIRE_SERVICES=1}.
 */
final class SlurmCluster implements AutoCloseable {

    /**
     * Port blocks of 25 in this project's range 19400-19499 for the affinity tests: slurmctld on the first port,
     * slurmd on the next, srun on the last 20. A block another cluster holds (a second build on the same machine)
     * is passed over.
     */
    private static final int[] PORT_BLOCKS = {19400, 19425, 19450, 19475};

    private final Path dir;
    private final String host;
    private final int ports;
    private final String taskPlugin;
    /** CPUs= of each node n1, n2, ... in its own network namespace; null for one node on loopback. */
    private final int[] nodeCpus;
    private final List<Long> pids = new ArrayList<>();
    private final List<List<String>> teardown = new ArrayList<>();

    private SlurmCluster(Path dir, String host, int ports, String taskPlugin, int[] nodeCpus) {
        this.dir = dir;
        this.host = host;
        this.ports = ports;
        this.taskPlugin = taskPlugin;
        this.nodeCpus = nodeCpus;
    }

    /** What srun, scontrol and sinfo need to reach this cluster. */
    Map<String, String> environment() {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_CONF", dir.resolve("slurm.conf").toString());
        env.putAll(SlurmPrefix.environment());
        return env;
    }

    Path dir() {
        return dir;
    }

    /** Skips (or, under ALPSBRIDGE_REQUIRE_SERVICES=1, fails) the calling test with the reason. */
    static void unavailable(String reason) {
        if ("1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
            Assertions.fail(reason + ", but ALPSBRIDGE_REQUIRE_SERVICES=1");
        }
        System.out.println("SKIP: " + reason);
        Assumptions.abort(reason);
    }

    /** The selected Slurm's program ({@link SlurmPrefix}), else one on PATH or in the system's directories. */
    static Path program(String name) {
        Path own = SlurmPrefix.program(name);
        if (own != null) {
            return own;
        }
        for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/bin:/sbin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                return Path.of(d, name);
            }
        }
        return null;
    }

    /** {@link #start(String)} with {@code TaskPlugin=task/none}. */
    static SlurmCluster start() throws IOException, InterruptedException {
        return start("task/none");
    }

    /**
     * Starts munged, slurmctld and slurmd with this {@code TaskPlugin} (and a cgroup.conf with
     * {@code ConstrainCores=yes} for task/cgroup) and waits until the node is idle; the plugstack starts empty.
     */
    static SlurmCluster start(String taskPlugin) throws IOException, InterruptedException {
        return start(taskPlugin, null);
    }

    /**
     * Several nodes on this machine: slurmd for node n1, n2, ... (slurm.conf {@code CPUs=} from {@code nodeCpus})
     * each in a network namespace of its own, joined by veth pairs to a bridge that holds slurmctld's address, in
     * a test subnet 10.250.B.0/24 (B from the port block) that exists only inside these namespaces and the bridge.
     * The nodes share this machine's CPUs and sysfs; a node configured with fewer CPUs gets fewer cores from Slurm.
     */
    static SlurmCluster startNodes(String taskPlugin, int... nodeCpus) throws IOException, InterruptedException {
        for (String p : List.of("ip", "nsenter")) {
            if (program(p) == null) {
                unavailable(p + " is not installed (Debian packages iproute2, util-linux)");
            }
        }
        return start(taskPlugin, nodeCpus);
    }

    private static SlurmCluster start(String taskPlugin, int[] nodeCpus) throws IOException, InterruptedException {
        for (String p : List.of("munged", "slurmctld", "slurmd", "srun", "sinfo", "scontrol")) {
            if (program(p) == null) {
                unavailable(p + " is not installed (Debian packages munge, slurmctld, slurmd, slurm-client; see .ci/install-deps)");
            }
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            unavailable("slurmd must run as root to launch steps (SlurmdUser=root); this test runs as " + System.getProperty("user.name"));
        }
        if (taskPlugin.contains("task/cgroup")) {
            String why = cpusetUnusable();
            // A property of this kernel and its mounts, not a package CI could install: skipped even when required.
            Assumptions.assumeTrue(why == null, () -> {
                System.out.println("SKIP: " + taskPlugin + ": " + why);
                return why;
            });
        }
        String host = run(List.of("hostname", "-s"), Map.of(), Duration.ofSeconds(10)).out.strip();
        String busy = "";
        for (int block : PORT_BLOCKS) {
            if (!free(block) || !free(block + 1)) {
                busy += " " + block + ": in use;";
                continue;
            }
            SlurmCluster c = new SlurmCluster(Files.createTempDirectory("alpsbridge-slurm-"), host, block, taskPlugin, nodeCpus);
            try {
                c.startMunge();
                c.writeConfig();
                if (nodeCpus != null) {
                    c.createNamespaces();
                }
                c.startDaemon("slurmctld", "slurmctld.pid");
                if (nodeCpus == null) {
                    c.startDaemon("slurmd", "slurmd.pid");
                } else {
                    for (String node : c.nodes()) {
                        c.startDaemon(List.of(program("nsenter").toString(), "--net=/run/netns/" + c.netns(node), program("slurmd").toString(),
                                "-f", c.dir.resolve("slurm.conf").toString(), "-N", node), "slurmd-" + node + ".pid", "slurmd-" + node + ".log");
                    }
                }
                c.awaitIdle();
                System.out.println("SlurmCluster: " + SlurmPrefix.describe() + ", " + taskPlugin + ", cgroup " + cgroupVersion() + ", up on ports " + block + "-" + (block + 24) + " in " + c.dir + (busy.isEmpty() ? "" : "; passed over" + busy));
                return c;
            } catch (IOException e) {
                c.close();
                if (!String.valueOf(e.getMessage()).contains("Address already in use")) {
                    throw e;
                }
                busy += " " + block + ": taken while starting;"; // by a cluster that started between probe and bind
            } catch (RuntimeException | Error e) {
                c.close();
                throw e;
            }
        }
        unavailable("no free port block for slurmctld and slurmd in 19400-19499 (" + busy.strip() + ")");
        throw new IllegalStateException("unreachable");
    }

    /**
     * Whether nothing listens on the port. SO_REUSEADDR as slurmctld and slurmd use it: connections of a cluster
     * that stopped a moment ago (TIME_WAIT) do not keep the next one, with another task plugin, off the block.
     */
    private static boolean free(int port) {
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void startMunge() throws IOException, InterruptedException {
        byte[] key = new byte[1024];
        new java.security.SecureRandom().nextBytes(key);
        Path keyFile = dir.resolve("munge.key");
        Files.write(keyFile, key);
        Files.setPosixFilePermissions(keyFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Result r = run(List.of(program("munged").toString(), "--socket=" + dir.resolve("munge.sock"), "--key-file=" + keyFile,
                "--pid-file=" + dir.resolve("munged.pid"), "--log-file=" + dir.resolve("munged.log"),
                "--seed-file=" + dir.resolve("munged.seed"), "--force"), Map.of(), Duration.ofSeconds(20));
        if (r.exit != 0) {
            unavailable("munged did not start: " + r.err.strip());
        }
        pids.add(awaitPid(dir.resolve("munged.pid"), "munged"));
    }

    /** Node names: the host on loopback, or n1, n2, ... in namespaces. */
    List<String> nodes() {
        List<String> names = new ArrayList<>();
        if (nodeCpus == null) {
            names.add(host);
        }
        for (int i = 0; nodeCpus != null && i < nodeCpus.length; i++) {
            names.add("n" + (i + 1));
        }
        return names;
    }

    private String netns(String node) {
        return "ab" + ports + node;
    }

    /** 10.250.B.HOST, B = the port block's offset in 19400-19499: distinct for clusters that run at once. */
    private String address(int hostPart) {
        return "10.250." + (ports - PORT_BLOCKS[0]) + "." + hostPart;
    }

    /** The bridge with slurmctld's address, and per node a namespace with a veth pair into the bridge. */
    private void createNamespaces() throws IOException, InterruptedException {
        String bridge = "ab" + ports + "br";
        ip("link", "add", bridge, "type", "bridge");
        teardown.add(List.of("link", "del", bridge));
        ip("addr", "add", address(1) + "/24", "dev", bridge);
        ip("link", "set", bridge, "up");
        List<String> nodes = nodes();
        for (int i = 0; i < nodes.size(); i++) {
            String ns = netns(nodes.get(i));
            String hostEnd = "ab" + ports + "h" + (i + 1);
            ip("netns", "add", ns);
            teardown.add(0, List.of("netns", "del", ns)); // deleting the namespace deletes its veth pair too
            ip("link", "add", hostEnd, "type", "veth", "peer", "name", "eth0", "netns", ns);
            ip("link", "set", hostEnd, "master", bridge, "up");
            ip("-n", ns, "addr", "add", address(i + 2) + "/24", "dev", "eth0");
            ip("-n", ns, "link", "set", "eth0", "up");
            ip("-n", ns, "link", "set", "lo", "up");
        }
    }

    private static void ip(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(program("ip").toString()));
        argv.addAll(List.of(args));
        Result r = run(argv, Map.of(), Duration.ofSeconds(20));
        if (r.exit != 0) {
            throw new IOException(String.join(" ", argv) + " failed: " + r.err.strip());
        }
    }

    private void writeConfig() throws IOException, InterruptedException {
        int cpus = detectedCpus();
        List<String> nodeLines = new ArrayList<>();
        if (nodeCpus == null) {
            nodeLines.add("NodeName=" + host + " NodeAddr=127.0.0.1 CPUs=" + cpus + " State=UNKNOWN");
        }
        for (int i = 0; nodeCpus != null && i < nodeCpus.length; i++) {
            nodeLines.add("NodeName=n" + (i + 1) + " NodeAddr=" + address(i + 2) + " CPUs=" + nodeCpus[i] + " State=UNKNOWN");
        }
        boolean several = nodeCpus != null;
        String conf = String.join("\n",
                "# Generated by SlurmCluster for one test run.",
                "ClusterName=alpsbridge",
                "SlurmctldHost=" + host + "(" + (several ? address(1) : "127.0.0.1") + ")",
                "SlurmctldPort=" + ports,
                "SlurmdPort=" + (ports + 1),
                "SrunPortRange=" + (ports + 5) + "-" + (ports + 24),
                "SlurmUser=root",
                "SlurmdUser=root",
                "AuthType=auth/munge",
                "AuthInfo=socket=" + dir.resolve("munge.sock"),
                "CredType=cred/munge",
                "StateSaveLocation=" + dir.resolve("state"),
                "SlurmdSpoolDir=" + dir.resolve(several ? "spool-%n" : "spool"),
                "SlurmctldPidFile=" + dir.resolve("slurmctld.pid"),
                "SlurmdPidFile=" + dir.resolve(several ? "slurmd-%n.pid" : "slurmd.pid"),
                "SlurmctldLogFile=" + dir.resolve("slurmctld.log"),
                "SlurmdLogFile=" + dir.resolve(several ? "slurmd-%n.log" : "slurmd.log"),
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=" + taskPlugin,
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_Core",
                "ReturnToService=2",
                "MpiDefault=none",
                "JobCompType=jobcomp/none",
                "AccountingStorageType=accounting_storage/none",
                "PlugStackConfig=" + dir.resolve("plugstack.conf"),
                String.join("\n", nodeLines),
                "PartitionName=debug Nodes=" + String.join(",", nodes()) + " Default=YES MaxTime=INFINITE State=UP",
                "");
        Files.createDirectories(dir.resolve("state"));
        Files.createDirectories(dir.resolve("spool"));
        Files.writeString(dir.resolve("slurm.conf"), conf);
        // Read by task/cgroup only, from slurm.conf's directory. IgnoreSystemd: no systemd to ask for a scope
        // here (cgroup/v2 only; cgroup/v1 makes its own hierarchy anyway).
        Files.writeString(dir.resolve("cgroup.conf"), String.join("\n",
                "CgroupPlugin=autodetect",
                "ConstrainCores=yes",
                "IgnoreSystemd=yes",
                ""));
        plugstack("");
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

    /** Replaces plugstack.conf; srun and each new step read it afresh, so no reconfigure is needed. */
    void plugstack(String content) throws IOException {
        Files.writeString(dir.resolve("plugstack.conf"), content);
    }

    /**
     * The CPU count slurmd itself detects ({@code slurmd -C}): a node line promising more (say sysfs's online CPUs
     * inside a container limited by a cpuset) would leave the node invalid instead of idle.
     */
    private static int detectedCpus() throws IOException, InterruptedException {
        Result r = run(List.of(program("slurmd").toString(), "-C"), Map.of(), Duration.ofSeconds(30));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\bCPUs=(\\d+)").matcher(r.out);
        if (r.exit != 0 || !m.find()) {
            unavailable("slurmd -C did not report this node's CPUs (exit " + r.exit + "): " + r.out.strip() + " " + r.err.strip());
        }
        return Integer.parseInt(m.group(1));
    }

    private void startDaemon(String name, String pidFile) throws IOException, InterruptedException {
        startDaemon(List.of(program(name).toString(), "-f", dir.resolve("slurm.conf").toString()), pidFile, name + ".log");
    }

    private void startDaemon(List<String> argv, String pidFile, String log) throws IOException, InterruptedException {
        Result r = run(argv, environment(), Duration.ofSeconds(30));
        if (r.exit != 0) {
            unavailable(String.join(" ", argv) + " did not start (exit " + r.exit + "): " + r.err.strip() + " " + tail(log));
        }
        pids.add(awaitPid(dir.resolve(pidFile), argv.get(0)));
    }

    private long awaitPid(Path pidFile, String name) throws IOException, InterruptedException {
        for (int i = 0; i < 300; i++) {
            if (Files.exists(pidFile)) {
                String s = Files.readString(pidFile).strip();
                if (!s.isEmpty()) {
                    return Long.parseLong(s);
                }
            }
            Thread.sleep(20);
        }
        throw new IOException(name + " wrote no pid file " + pidFile + "; " + tail(name + ".log"));
    }

    private void awaitIdle() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String state = "";
        while (System.nanoTime() < deadline) {
            Result r = run(List.of("sinfo", "-h", "-N", "-o", "%t"), environment(), Duration.ofSeconds(20));
            state = r.out.strip();
            if (r.exit == 0 && state.equals(String.join("\n", java.util.Collections.nCopies(nodes().size(), "idle")))) {
                return;
            }
            Thread.sleep(250);
        }
        String log = nodeCpus == null ? "slurmd.log" : "slurmd-" + nodes().get(nodes().size() - 1) + ".log";
        unavailable("the Slurm nodes did not become idle within 60 s (states '" + state.replace("\n", " ") + "'); " + tail(log));
    }

    String tail(String log) {
        try {
            List<String> lines = Files.readAllLines(dir.resolve(log), StandardCharsets.UTF_8);
            return log + ": " + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no " + log + ")";
        }
    }

    /** Stops what was started, newest first, by pid; waits for each to exit. */
    @Override
    public void close() {
        for (int i = pids.size() - 1; i >= 0; i--) {
            ProcessHandle.of(pids.get(i)).ifPresent(p -> {
                p.destroy();
                try {
                    p.onExit().get(15, TimeUnit.SECONDS);
                } catch (Exception e) {
                    p.destroyForcibly();
                }
            });
        }
        pids.clear();
        for (List<String> args : teardown) {
            try {
                ip(args.toArray(String[]::new));
            } catch (IOException | InterruptedException e) {
                System.out.println("SlurmCluster: " + e.getMessage());
            }
        }
        teardown.clear();
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            System.out.println("SlurmCluster: could not remove " + dir + ": " + e);
        }
    }

    record Result(int exit, String out, String err) {
    }

    /** Runs a program with extra environment, collecting both streams; kills it when it outlives the limit. */
    static Result run(List<String> argv, Map<String, String> env, Duration limit) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(SlurmPrefix.resolve(argv));
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            throw new IOException(String.join(" ", argv) + " did not finish within " + limit.toSeconds() + " s");
        }
        return new Result(p.exitValue(), out.join(), err.join());
    }

    private static String drain(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
