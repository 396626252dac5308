package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.alpsbridge.munge.MungeDaemon;
import org.junit.jupiter.api.Assertions;

/**
 * A real Slurm for a test, on loopback: slurmctld and slurmd of one {@link SlurmInstallation} with a generated
 * slurm.conf, state, spool, pid and log files in one directory, on ports chosen free at start (other builds run
 * Slurms of their own at the same time), authenticated by a private munged (the suite's, or one of its own).
 * Everything it starts it stops by pid in {@link #close()}.
 *
 * <p>{@link #configure} writes slurm.conf: the lines every suite needs, then the suite's own ({@link Spec#set},
 * {@link Spec#line}); the suite writes the files it keeps beside it (cray.conf, plugstack.conf, cgroup.conf) and
 * starts what Slurm calls (a hook agent, an SDB); {@link #start} then starts the daemons and waits for the nodes.
 */
public final class SlurmCluster implements AutoCloseable {

    /** The daemons did not start, or the nodes did not come up: the reason with the log's last lines. */
    public static final class NotStarted extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        NotStarted(String reason) {
            super(reason);
        }
    }

    /** What to start: the installation, the directory, and what the suite adds to the common slurm.conf. */
    public static final class Spec {
        private final SlurmInstallation slurm;
        private final Path dir;
        private final boolean ownDir;
        private String name = "alpsbridge";
        private Path mungeSocket;
        private String controllerAddress = "127.0.0.1";
        private String backupName;
        private String backupAddress;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private final List<String> lines = new ArrayList<>();
        private final Map<String, List<String>> namedSlurmds = new LinkedHashMap<>();
        private final Map<String, String> controllerEnv = new LinkedHashMap<>();
        private final Map<String, String> slurmdEnv = new LinkedHashMap<>();
        private boolean anyNodeIdle;
        private Duration readyLimit = Duration.ofSeconds(60);

        /** Slurm in {@code dir} (the caller's: it is left in place on close). */
        public Spec(SlurmInstallation slurm, Path dir) {
            this(slurm, dir, false);
        }

        private Spec(SlurmInstallation slurm, Path dir, boolean ownDir) {
            this.slurm = slurm;
            this.dir = dir;
            this.ownDir = ownDir;
        }

        /** Slurm in a temporary directory of its own, removed on close. */
        public static Spec inTemporaryDirectory(SlurmInstallation slurm, String prefix) throws IOException {
            return new Spec(slurm, Files.createTempDirectory(prefix), true);
        }

        /** Where slurm.conf and the daemons' files will be; the suite's files for slurm.conf go here too. */
        public Path dir() {
            return dir;
        }

        public Spec clusterName(String clusterName) {
            this.name = clusterName;
            return this;
        }

        /** Authenticate through this munged (shared with the suite's other services); else one of the cluster's own. */
        public Spec munge(Path socket) {
            this.mungeSocket = socket;
            return this;
        }

        /** slurmctld's address (default 127.0.0.1), e.g. a bridge that slurmd in network namespaces reach. */
        public Spec controllerAddress(String address) {
            this.controllerAddress = address;
            return this;
        }

        /**
         * A backup controller: a second {@code SlurmctldHost=NAME(ADDRESS)}, started by {@link
         * #startBackupController()} as on a host of its own (its own host name, its own pid and log file; the same
         * slurm.conf, munged and StateSaveLocation). {@code address} another loopback address than the primary's
         * (127.0.0.2): both listen on SlurmctldPort, so each must bind its own address, not the wildcard: {@code
         * CommunicationParameters=NoCtldInAddrAny}, with which slurmctld binds the address of its host name (Slurm
         * 18.08 ignores the SlurmctldHost address there), so the primary's {@link #controllerAddress} must be the
         * address this host's name resolves to.
         */
        public Spec backupController(String name, String address) {
            this.backupName = name;
            this.backupAddress = address;
            return this;
        }

        /**
         * A single-valued key: replaces the common line of that key (e.g. {@code TaskPlugin}, {@code ProctrackType}),
         * or is added after them.
         */
        public Spec set(String key, String value) {
            settings.put(key, value);
            return this;
        }

        /** Lines as they are, after the single-valued keys: NodeName, PartitionName, FrontendName. */
        public Spec line(String... more) {
            lines.addAll(List.of(more));
            return this;
        }

        /**
         * Nodes keep the CPUs slurm.conf gives them, more than the machine has: {@code FastSchedule=2} before Slurm
         * 19.05, {@code SlurmdParameters=config_overrides} since.
         */
        public Spec trustConfiguredCpus() {
            return slurm.atLeast(19, 5) ? set("SlurmdParameters", "config_overrides") : set("FastSchedule", "2");
        }

        /**
         * A slurmd for each named node ({@code slurmd -N NODE}), started through {@code launcher} (e.g. nsenter into
         * its network namespace); their spool, pid and log files are named by node ({@code slurmd-NODE.log}).
         * Without any, one slurmd for the host ({@code slurmd.log}).
         */
        public Spec slurmd(String node, List<String> launcher) {
            namedSlurmds.put(node, List.copyOf(launcher));
            return this;
        }

        /**
         * An environment variable for slurmctld alone (on top of {@link SlurmCluster#environment()}, at every start of the
         * primary controller), e.g. {@code LD_PRELOAD} of a sanitizer's runtime and its options, to run plugins built
         * with ASan/UBSan inside the real daemon. slurmctld passes it on to what it starts (slurmscriptd, scripts);
         * the nodes and the commands do not get it.
         */
        public Spec controllerEnvironment(String key, String value) {
            controllerEnv.put(key, value);
            return this;
        }

        /**
         * An environment variable for every slurmd alone (as {@link #controllerEnvironment}): slurmd passes it on to
         * the slurmstepd it starts, so a SPANK plugin built with ASan/UBSan runs inside the real slurmstepd with the
         * runtime preloaded. The controller and the commands do not get it.
         */
        public Spec slurmdEnvironment(String key, String value) {
            slurmdEnv.put(key, value);
            return this;
        }

        /**
         * Up when {@code sinfo} shows any node idle, waiting at most {@code limit} (select/alps: the nodes come from
         * ALPS' inventory); by default every node must be idle within 60 s.
         */
        public Spec readyWhenAnyNodeIdle(Duration limit) {
            this.anyNodeIdle = true;
            this.readyLimit = limit;
            return this;
        }
    }

    private static final Duration STOP_LIMIT = Duration.ofSeconds(20);
    private static final Duration COMMAND_LIMIT = Duration.ofSeconds(120);

    private final Spec spec;
    private final Path dir;
    private final String host;
    private final MungeDaemon ownMunge;
    private final List<Long> slurmds = new ArrayList<>();

    private SlurmCluster(Spec spec, String host, MungeDaemon ownMunge) {
        this.spec = spec;
        this.dir = spec.dir;
        this.host = host;
        this.ownMunge = ownMunge;
    }

    /**
     * Writes slurm.conf (and starts a munged of the cluster's own unless the spec names one). The calling test is
     * skipped (failed, required) when the daemons or slurmd's root are missing.
     */
    public static SlurmCluster configure(Spec spec) throws IOException, InterruptedException {
        spec.slurm.require("slurmctld", "slurmd", "sinfo", "squeue", "scontrol", "sbatch");
        if (!"root".equals(System.getProperty("user.name"))) {
            Programs.unavailable("slurmd must run as root to launch jobs (SlurmdUser=root); this test runs as "
                    + System.getProperty("user.name"));
        }
        String host = Programs.hostname();
        MungeDaemon munge = spec.mungeSocket == null ? MungeDaemon.start() : null;
        SlurmCluster c = new SlurmCluster(spec, host, munge);
        try {
            Files.createDirectories(c.dir.resolve("state"));
            Files.createDirectories(c.dir.resolve("spool"));
            Files.writeString(c.conf(), c.confText());
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private String confText() throws IOException {
        int ctld = Programs.freePort();
        int slurmd = Programs.freePort();
        while (slurmd == ctld) {
            slurmd = Programs.freePort();
        }
        boolean named = !spec.namedSlurmds.isEmpty();
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("ClusterName", spec.name);
        conf.put("SlurmctldHost", host + "(" + spec.controllerAddress + ")");
        conf.put("SlurmctldPort", Integer.toString(ctld));
        conf.put("SlurmdPort", Integer.toString(slurmd));
        conf.put("SlurmUser", "root");
        conf.put("SlurmdUser", "root");
        conf.put("AuthType", "auth/munge");
        conf.put("AuthInfo", "socket=" + munge());
        // the job credentials' signer: renamed in Slurm 20.02
        conf.put(spec.slurm.atLeast(20, 2) ? "CredType" : "CryptoType", spec.slurm.atLeast(20, 2) ? "cred/munge" : "crypto/munge");
        conf.put("StateSaveLocation", dir.resolve("state").toString());
        conf.put("SlurmdSpoolDir", dir.resolve(named ? "spool-%n" : "spool").toString());
        conf.put("SlurmctldPidFile", dir.resolve("slurmctld.pid").toString());
        conf.put("SlurmdPidFile", dir.resolve(named ? "slurmd-%n.pid" : "slurmd.pid").toString());
        conf.put("SlurmctldLogFile", dir.resolve("slurmctld.log").toString());
        conf.put("SlurmdLogFile", dir.resolve(named ? "slurmd-%n.log" : "slurmd.log").toString());
        conf.put("ProctrackType", "proctrack/linuxproc");
        conf.put("TaskPlugin", "task/none");
        conf.put("MpiDefault", "none");
        conf.put("JobCompType", "jobcomp/none");
        conf.put("AccountingStorageType", "accounting_storage/none");
        if (spec.slurm.pluginDir() != null) {
            conf.put("PluginDir", spec.slurm.pluginDir().toString());
        }
        conf.putAll(spec.settings);
        List<String> text = new ArrayList<>(List.of("# Written by the Slurm test harness for " + spec.slurm));
        conf.forEach((k, v) -> text.add(k + "=" + v));
        if (spec.backupName != null) {
            text.add(text.indexOf("SlurmctldHost=" + conf.get("SlurmctldHost")) + 1,
                    "SlurmctldHost=" + spec.backupName + "(" + spec.backupAddress + ")");
        }
        text.addAll(spec.lines);
        text.add("");
        return String.join("\n", text);
    }

    /** Starts slurmctld and the slurmd(s), and waits until the nodes are up. */
    public void start() throws IOException, InterruptedException {
        startController();
        if (spec.namedSlurmds.isEmpty()) {
            slurmds.add(startDaemon(List.of(program("slurmd"), "-f", conf().toString()), spec.slurmdEnv, "slurmd.pid", "slurmd.log"));
        }
        for (Map.Entry<String, List<String>> node : spec.namedSlurmds.entrySet()) {
            List<String> argv = new ArrayList<>(node.getValue());
            argv.addAll(List.of(program("slurmd"), "-f", conf().toString(), "-N", node.getKey()));
            slurmds.add(startDaemon(argv, spec.slurmdEnv, "slurmd-" + node.getKey() + ".pid", "slurmd-" + node.getKey() + ".log"));
        }
        if (spec.anyNodeIdle) {
            awaitAnyIdle(spec.readyLimit);
        } else {
            awaitIdle(spec.readyLimit);
        }
    }

    /** Starts slurmctld (again) and waits until it answers squeue. */
    public void startController() throws IOException, InterruptedException {
        startDaemon(List.of(program("slurmctld"), "-f", conf().toString()), spec.controllerEnv, "slurmctld.pid", "slurmctld.log");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (run("squeue", "-h").exit() != 0) {
            if (System.nanoTime() > deadline) {
                throw new NotStarted("slurmctld does not answer squeue after 60 s; " + tail("slurmctld.log"));
            }
            Thread.sleep(100);
        }
    }

    /**
     * Starts the backup controller of {@link Spec#backupController} and waits for its pid file. It runs as on a host
     * of its own: in a UTS and mount namespace of its own ({@code unshare}), with its name as host name (slurmctld
     * finds its SlurmctldHost line by it), an /etc/hosts that names its address (its standby listener binds the
     * name's address) and the host-local files slurm.conf names, the pid and log file, its own: {@code
     * slurmctld-NAME.pid} and {@code slurmctld-NAME.log} bound over the primary's paths (slurmctld kills the process
     * its pid file names at start).
     */
    public void startBackupController() throws IOException, InterruptedException {
        String name = spec.backupName;
        if (name == null) {
            throw new IllegalStateException("no backup controller in this cluster's Spec");
        }
        Path hosts = dir.resolve("hosts-" + name);
        Files.writeString(hosts, Files.readString(Path.of("/etc/hosts")) + spec.backupAddress + " " + name + "\n");
        Path pid = dir.resolve(backupPidFile());
        Path log = dir.resolve(backupLog());
        for (Path own : List.of(pid, log, dir.resolve("slurmctld.pid"), dir.resolve("slurmctld.log"))) {
            if (!Files.exists(own)) {
                Files.createFile(own); // a bind mount's source and target must exist
            }
        }
        Files.writeString(pid, "0\n"); // no pid yet: slurmctld kills the one its pid file names
        List<String> argv = List.of("unshare", "--uts", "--mount", "--propagation", "private", "sh", "-c",
                "hostname \"$1\" && mount --bind \"$2\" /etc/hosts && mount --bind \"$3\" \"$4\""
                        + " && mount --bind \"$5\" \"$6\" && exec \"$7\" -f \"$8\"",
                "sh", name, hosts.toString(), pid.toString(), dir.resolve("slurmctld.pid").toString(), log.toString(),
                dir.resolve("slurmctld.log").toString(), program("slurmctld"), conf().toString());
        Programs.Result r = Programs.run(argv, environment(), Duration.ofSeconds(60));
        if (r.exit() != 0) {
            throw new NotStarted("the backup slurmctld did not start (exit " + r.exit() + "): " + r.out().strip() + " "
                    + r.err().strip() + " " + tail(backupLog()));
        }
        // up once it answers a ping in standby (its listener bound): scontrol ping names each controller UP or DOWN
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!run("scontrol", "ping").out().contains("at " + name + " is UP")) {
            if (System.nanoTime() > deadline || !ProcessHandle.of(pidFrom(pid)).map(ProcessHandle::isAlive).orElse(true)) {
                throw new NotStarted("the backup slurmctld does not answer scontrol ping; " + tail(backupLog()));
            }
            Thread.sleep(200);
        }
    }

    /** The backup controller's pid file and log, in this directory: {@code slurmctld-NAME.pid}, {@code .log}. */
    public String backupPidFile() {
        return "slurmctld-" + spec.backupName + ".pid";
    }

    public String backupLog() {
        return "slurmctld-" + spec.backupName + ".log";
    }

    /** Stops the backup controller (SIGTERM), if it runs. */
    public void stopBackupController() {
        long pid = spec.backupName == null ? -1 : pidFrom(dir.resolve(backupPidFile()));
        if (pid > 0) {
            Programs.stop(pid, STOP_LIMIT);
        }
    }

    /** Stops slurmctld (SIGTERM: it saves its state; running jobs carry on). */
    public void stopController() {
        long pid = pidFrom(dir.resolve("slurmctld.pid"));
        if (pid > 0) {
            Programs.stop(pid, STOP_LIMIT);
        }
    }

    private long startDaemon(List<String> argv, Map<String, String> env, String pidFile, String log)
            throws IOException, InterruptedException {
        Path pid = dir.resolve(pidFile);
        Files.deleteIfExists(pid);
        Map<String, String> all = new HashMap<>(environment());
        all.putAll(env);
        Programs.Result r = Programs.run(argv, all, Duration.ofSeconds(60));
        if (r.exit() != 0) {
            throw new NotStarted(String.join(" ", argv) + " did not start (exit " + r.exit() + "): " + r.out().strip()
                    + " " + r.err().strip() + " " + tail(log));
        }
        for (int i = 0; i < 500; i++) {
            long p = pidFrom(pid);
            if (p > 0) {
                return p;
            }
            Thread.sleep(20);
        }
        throw new NotStarted(argv.get(0) + " wrote no pid file " + pid + "; " + tail(log));
    }

    private static long pidFrom(Path pidFile) {
        try {
            return Long.parseLong(Files.readString(pidFile).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** Waits until {@code sinfo} shows every node idle (a line per node and partition). */
    public void awaitIdle(Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        String state = "";
        while (System.nanoTime() < deadline) {
            Programs.Result r = run("sinfo", "-h", "-N", "-o", "%t");
            state = r.out().strip();
            if (r.exit() == 0 && !state.isEmpty() && state.lines().allMatch("idle"::equals)) {
                return;
            }
            Thread.sleep(200);
        }
        String slurmd = spec.namedSlurmds.isEmpty() ? "slurmd.log"
                : "slurmd-" + List.copyOf(spec.namedSlurmds.keySet()).get(spec.namedSlurmds.size() - 1) + ".log";
        throw new NotStarted("the Slurm nodes did not become idle within " + limit.toSeconds() + " s (states '"
                + state.replace("\n", " ") + "'); " + tail(slurmd));
    }

    private void awaitAnyIdle(Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            Programs.Result r = run("sinfo", "-h", "-o", "%T");
            if (r.exit() == 0 && r.out().contains("idle")) {
                return;
            }
            Thread.sleep(250);
        }
        throw new NotStarted("Slurm did not come up in " + limit.toSeconds() + " s: " + run("sinfo").out() + "\n"
                + read("slurmctld.log"));
    }

    /** This cluster's slurm.conf. */
    public Path conf() {
        return dir.resolve("slurm.conf");
    }

    /** slurm.conf's ClusterName (what slurmdbd knows the cluster by). */
    public String name() {
        return spec.name;
    }

    /**
     * Sets a single-valued key in the written slurm.conf, replacing its line (or adding one): the commands read it
     * at once, slurmctld at its next start ({@link #stopController}, {@link #startController}).
     */
    public void setConf(String key, String value) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(conf(), StandardCharsets.UTF_8));
        String line = key + "=" + value;
        int at = -1;
        for (int i = 0; i < lines.size() && at < 0; i++) {
            if (lines.get(i).regionMatches(true, 0, key + "=", 0, key.length() + 1)) {
                at = i;
            }
        }
        if (at >= 0) {
            lines.set(at, line);
        } else {
            lines.add(line);
        }
        Files.write(conf(), lines, StandardCharsets.UTF_8);
    }

    /** Where slurm.conf, the state, spool, pid and log files are; the suite's own files go here too. */
    public Path dir() {
        return dir;
    }

    /** {@code hostname -s}: slurmctld's host name (and the node's, on one node). */
    public String host() {
        return host;
    }

    public SlurmInstallation installation() {
        return spec.slurm;
    }

    /** The munged the cluster authenticates through. */
    public Path munge() {
        return ownMunge != null ? ownMunge.socket() : spec.mungeSocket;
    }

    /** What this cluster's commands need: SLURM_CONF, and a prefix's programs first on PATH. */
    public Map<String, String> environment() {
        return spec.slurm.environment(conf());
    }

    private String program(String name) {
        Path p = spec.slurm.program(name);
        return p != null ? p.toString() : name;
    }

    /** One of Slurm's commands (srun, sbatch, scontrol, squeue, scancel, ...) against this cluster. */
    public Programs.Result run(String command, String... args) throws IOException, InterruptedException {
        return run(Map.of(), command, args);
    }

    /** As {@link #run(String, String...)}, with more environment (limit: two minutes). */
    public Programs.Result run(Map<String, String> env, String command, String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(program(command)));
        argv.addAll(List.of(args));
        Map<String, String> all = new HashMap<>(environment());
        all.putAll(env);
        return Programs.run(argv, all, COMMAND_LIMIT);
    }

    /** {@code sbatch --parsable ARGS}, which must be accepted; the job's id. */
    public String submit(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("--parsable"));
        argv.addAll(List.of(args));
        Programs.Result r = run("sbatch", argv.toArray(String[]::new));
        Assertions.assertEquals(0, r.exit(), () -> "sbatch " + String.join(" ", args) + ": " + r.err());
        return r.out().strip().lines().reduce((a, b) -> b).orElseThrow().split(";")[0];
    }

    private static final Pattern FIELD = Pattern.compile("(?:^| )([A-Za-z/:_]+)=(\\S*)");

    /**
     * {@code scontrol show job -o ID} as KEY=VALUE (free-text fields with spaces are cut at the space; the first of
     * a repeated key wins), and the whole line as {@code _raw}.
     */
    public Map<String, String> job(String id) throws IOException, InterruptedException {
        Programs.Result r = run("scontrol", "show", "job", "-o", id);
        Map<String, String> out = new HashMap<>();
        Matcher m = FIELD.matcher(r.out().strip());
        while (m.find()) {
            out.putIfAbsent(m.group(1), m.group(2));
        }
        out.put("_raw", r.out().strip());
        return out;
    }

    /** Waits until a job is in a state (as scontrol shows it). */
    public void awaitState(String id, String state, Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        String now = "";
        while (System.nanoTime() < deadline) {
            now = job(id).getOrDefault("JobState", "");
            if (now.equals(state)) {
                return;
            }
            Thread.sleep(100);
        }
        Assertions.fail("job " + id + " is " + now + ", not " + state + " after " + limit.toSeconds() + " s");
    }

    /** Waits until no job is pending, running or completing, polling squeue every {@code poll}. */
    public void awaitNoJobs(Duration limit, Duration poll) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        String left = "";
        while (System.nanoTime() < deadline) {
            Programs.Result q = run("squeue", "-h", "-o", "%i %T");
            left = q.out().strip();
            if (q.exit() == 0 && left.isEmpty()) {
                return;
            }
            Thread.sleep(poll.toMillis());
        }
        Assertions.fail("jobs still queued after " + limit.toSeconds() + " s: " + left.replace('\n', ';'));
    }

    /** A file of the cluster's directory (a log: slurmctld.log, slurmd.log, slurmd-NODE.log). */
    public Path file(String name) {
        return dir.resolve(name);
    }

    /** A log's whole text; "" when there is none yet. */
    public String read(String log) {
        try {
            return Files.exists(dir.resolve(log)) ? Files.readString(dir.resolve(log)) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A log's last lines, for a failure's message. */
    public String tail(String log) {
        try {
            List<String> lines = Files.readAllLines(dir.resolve(log), StandardCharsets.UTF_8);
            return log + ": " + String.join(" | ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
        } catch (IOException e) {
            return "(no " + log + ")";
        }
    }

    /** Stops the slurmd(s), slurmctld and an own munged by pid, newest first; removes an own directory. */
    @Override
    public void close() {
        for (int i = slurmds.size() - 1; i >= 0; i--) {
            Programs.stop(slurmds.get(i), STOP_LIMIT);
        }
        slurmds.clear();
        // both pids first: a backup that exits unlinks the pid file its slurm.conf names, which is the primary's once
        // a restart of the primary replaced the file its mount covered
        long primary = pidFrom(dir.resolve("slurmctld.pid"));
        stopBackupController();
        if (primary > 0) {
            Programs.stop(primary, STOP_LIMIT);
        }
        try {
            if (ownMunge != null) {
                ownMunge.close();
            }
            if (spec.ownDir) {
                try (var files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        } catch (IOException e) {
            System.out.println("SlurmCluster: " + e);
        }
    }
}
