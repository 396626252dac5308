package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.alpsbridge.munge.MungeDaemon;
import org.alpsbridge.slurm.harness.JobUser;
import org.alpsbridge.slurm.harness.NodeNamespaces;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.Sanitizers;
import org.alpsbridge.slurm.harness.SlurmCluster;
import org.alpsbridge.slurm.harness.SlurmInstallation;
import org.junit.jupiter.api.Assertions;

/**
 * A real Slurm (the harness's {@link SlurmCluster}: Debian's 22.05, or the prefix {@code -Dalpsbridge.slurm.prefix}
 * names) and a ledger service in a process of its own, on loopback, for the hooks' tests: a private munged shared
 * by both, everything in a temporary directory, stopped by pid. One node with {@code cpus} CPUs ({@code SlurmdParameters=config_overrides}: more than the
 * machine has, jobs here sleep), or several ({@link #startNodes}), in partitions {@code debug} (default) and {@code big}; the hooks as {@link Hooks}
 * says: the C client with the agent (as a site deploys them), the C client alone (its fallback to the JVM
 * hook), the JVM hook alone, or none. Skipped with the reason when Slurm, munged or root are missing, failing
 * under {@code ALPSBRIDGE_REQUIRE_SERVICES=1}.
 *
 * <p>Jobs are submitted as a site's users submit theirs: by the unprivileged {@link JobUser} ({@code sbatch},
 * {@code salloc}, {@code srun} through {@link #sbatch} and {@link #slurm}), from a directory it owns; what an
 * administrator does ({@code scontrol}, {@code scancel} of anyone's job, {@code squeue} of all) runs as root, the
 * lab's SlurmUser. The ledger's projects are keyed by the account a job names, so a project's Unix group does not
 * have to be the user's.
 */
final class SlurmLab implements AutoCloseable {

    /** Which hooks slurmctld runs. */
    enum Hooks {
        /** No PrologSlurmctld or EpilogSlurmctld. */
        NONE,
        /** {@code bin/ledger-prolog} and {@code bin/ledger-epilog}: a JVM per call. */
        JVM,
        /** The C client and the agent (a process of its own), as a site deploys them. */
        AGENT,
        /** The C client without an agent: it falls back to the JVM hook. */
        CLIENT_ONLY,
        /** The PrEp plugin {@code prep/ledger} inside slurmctld, with the agent: no PrologSlurmctld or EpilogSlurmctld. */
        PREP
    }

    final Path dir;
    final MungeDaemon munged;
    final String db;
    /** slurmctld's host name, the node's in a lab of one node. */
    String host;
    /** The nodes' names: {@link #host}, or n1, n2, ... each in a network namespace of its own ({@link #startNodes}). */
    List<String> nodes;
    private NodeNamespaces namespaces;
    private final int cpus;
    private int nodeCount = 1;
    private final Hooks hooks;
    private final int servicePort;
    private Process service;
    private Process agent;
    private Path hookJar;
    /** slurmctld runs the ledger's job_submit.lua ({@code JobSubmitPlugins=lua}). */
    private boolean jobSubmit;
    private SlurmCluster slurm;
    /** slurmctld runs ASan/UBSan-built plugins ({@link #startSanitized}). */
    private boolean sanitized;
    /** Who submits the jobs. */
    final JobUser user;
    /** The jobs' working directory, the user's. */
    private Path jobs;

    /** The commands a user runs to submit a job; the others are an administrator's. */
    private static final java.util.Set<String> SUBMISSIONS = java.util.Set.of("sbatch", "salloc", "srun");

    private SlurmLab(Path dir, MungeDaemon munged, String db, int cpus, Hooks hooks, JobUser user) throws IOException {
        this.dir = dir;
        this.user = user;
        this.munged = munged;
        this.db = db;
        this.cpus = cpus;
        this.hooks = hooks;
        this.servicePort = Programs.freePort();
    }

    /**
     * Starts munged, the service on {@code db} (null: a SQLite file here) and Slurm.
     *
     * @param serviceSettings extra lines of ledger-service.conf
     * @param hookSettings extra lines of ledger-hook.conf
     */
    static SlurmLab start(String db, int cpus, Hooks hooks, String serviceSettings, String hookSettings)
            throws Exception {
        return start(db, cpus, hooks, serviceSettings, hookSettings, null);
    }

    /**
     * @param hookJar run the hooks from this jar (the shaded alpsbridge.jar) with their CDS archive, as a site
     *     would; null: from the test class path without one
     */
    static SlurmLab start(String db, int cpus, Hooks hooks, String serviceSettings, String hookSettings,
                          Path hookJar) throws Exception {
        return start(db, cpus, hooks, serviceSettings, hookSettings, hookJar, false);
    }

    /**
     * @param jobSubmit slurmctld also runs the ledger's {@code src/main/lua/job_submit.lua} ({@code JobSubmitPlugins=lua},
     *     the file beside slurm.conf, its client {@code bin/ledger-submit}); needs {@link Hooks#AGENT}
     */
    static SlurmLab start(String db, int cpus, Hooks hooks, String serviceSettings, String hookSettings,
                          Path hookJar, boolean jobSubmit) throws Exception {
        return start(db, cpus, hooks, serviceSettings, hookSettings, hookJar, jobSubmit, false, 1);
    }

    /**
     * The PrEp plugin ({@link Hooks#PREP}) and the site factor plugin built with ASan and UBSan, run inside the real
     * slurmctld (and slurmd, which loads the PrEp plugins too): the runtime preloaded ({@code LD_PRELOAD} of gcc's
     * libasan, which an uninstrumented daemon needs first in its list), every report written under
     * {@link #sanitizerLogs()} ({@code asan.PID}, {@code ubsan.PID}), none wanted. Leak checking is off: slurmctld itself frees little at exit, which is not the plugins' to answer.
     */
    static SlurmLab startSanitized(String db, int cpus, String serviceSettings, String hookSettings) throws Exception {
        return start(db, cpus, Hooks.PREP, serviceSettings, hookSettings, null, false, true, 1);
    }

    /**
     * {@code nodes} nodes of {@code cpus} CPUs each (n1, n2, ...), no hooks, the ledger a SQLite file here: what a
     * node limit needs to bite (on one node it cannot: Slurm counts a node an account's jobs share once). Each
     * node's slurmd runs in a network namespace of its own ({@link NodeNamespaces}: slurmctld on a test bridge), as
     * on a host of its own, with any Slurm build (Debian's is not built for several slurmd on one host).
     */
    static SlurmLab startNodes(int nodes, int cpus) throws Exception {
        return start(null, cpus, Hooks.NONE, "", "", null, false, false, nodes);
    }

    private static SlurmLab start(String db, int cpus, Hooks hooks, String serviceSettings, String hookSettings,
                                  Path hookJar, boolean jobSubmit, boolean sanitized, int nodes) throws Exception {
        SlurmInstallation installation = SlurmInstallation.selected();
        installation.require("slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo");
        JobUser user = JobUser.ensure();
        MungeDaemon munged = MungeDaemon.start();
        Path dir = Files.createTempDirectory("alpsbridge-hooks-");
        // with the agent, slurmctld runs the client itself, as at a site, so it is built with this lab's settings
        Path client = hooks == Hooks.AGENT || hooks == Hooks.PREP
                ? HookClient.build(dir.resolve("client"), dir.resolve("ledger-hook.conf"))
                : hooks == Hooks.CLIENT_ONLY ? HookClient.build() : null;
        if (hooks == Hooks.PREP) {
            HookClient.buildPlugins(installation, dir.resolve("plugins"), dir.resolve("ledger-hook.conf"),
                    sanitized ? "address,undefined" : null);
        }
        SlurmLab lab = new SlurmLab(dir, munged, db != null ? db : "sqlite:" + dir.resolve("ledger.db"), cpus, hooks, user);
        lab.hookJar = hookJar;
        lab.jobSubmit = jobSubmit;
        lab.sanitized = sanitized;
        lab.nodeCount = nodes;
        try {
            Files.writeString(dir.resolve("ledger-service.conf"), String.join("\n",
                    "listen=127.0.0.1:" + lab.servicePort, "munge_socket=" + munged.socket(), serviceSettings, ""));
            Files.writeString(dir.resolve("ledger-hook.conf"), String.join("\n",
                    "db=" + lab.url(), "munge_socket=" + munged.socket(), "slurm_conf=" + dir.resolve("slurm.conf"),
                    "agent_socket=" + dir.resolve("agent/hook.sock"), "spool=" + lab.spool(), "agent_timeout=120",
                    "jvm_hook=" + HookClient.jvmHook(), hookSettings, ""));
            if (client != null) {
                Files.createDirectories(dir.resolve("bin"));
                for (String mode : List.of("prolog", "epilog", "submit")) {
                    Files.createSymbolicLink(dir.resolve("bin/ledger-" + mode), client);
                }
            }
            // the schema exists before the service and the test open it side by side
            org.alpsbridge.ledger.Ledger.open(lab.db).close();
            lab.startService();
            lab.startSlurm(installation);
            return lab;
        } catch (Exception | Error e) {
            lab.close();
            throw e;
        }
    }

    /** The Slurm this lab runs. */
    SlurmInstallation installation() {
        return slurm.installation();
    }

    String url() {
        return "http://127.0.0.1:" + servicePort;
    }

    /** Starts the service process and waits until it listens. */
    void startService() throws IOException, InterruptedException {
        service = startJava("the ledger service", dir.resolve("service.log"), Map.of(),
                "org.alpsbridge.ledger.service.server.ServiceProcess", db, dir.resolve("ledger-service.conf").toString());
    }

    /** Starts the hook agent in a process of its own, as root (the lab's SlurmUser), and waits until it listens. */
    void startAgent() throws IOException, InterruptedException {
        // the lab's Slurm's commands first on PATH: the agent runs squeue and scontrol by name (a 22.05 squeue
        // cannot talk to a 26.05 slurmctld)
        Map<String, String> env = new java.util.HashMap<>(slurm.environment());
        env.put("ALPSBRIDGE_LEDGER_HOOK_CONFIG", dir.resolve("ledger-hook.conf").toString());
        agent = startJava("the hook agent", dir.resolve("agent.log"), env, HookAgent.class.getName());
    }

    /** A JVM on the test class path, its output appended to {@code log}, once it has printed READY there. */
    private Process startJava(String what, Path log, Map<String, String> env, String... mainAndArgs)
            throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(javaBin(), "-cp", System.getProperty("java.class.path")));
        argv.addAll(List.of(mainAndArgs));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        int before = Files.exists(log) ? Files.readString(log).length() : 0;
        Process p = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.readString(log).indexOf("READY", before) >= 0) {
                return p;
            }
            if (!p.isAlive()) {
                throw new IOException(what + " stopped: " + Files.readString(log));
            }
            Thread.sleep(50);
        }
        throw new IOException(what + " did not start in 60 s: " + Files.readString(log));
    }

    /** kill -9 of the service (true) or a plain stop (false). */
    void stopService(boolean kill9) throws InterruptedException {
        stop(service, kill9);
        service = null;
    }

    /** The service stopped (SIGSTOP: it accepts connections and never answers, as a hung one) or resumed (SIGCONT). */
    void pauseService(boolean pause) throws IOException, InterruptedException {
        pause(service, pause);
    }

    /** The agent stopped (SIGSTOP: calls connect and wait, as to a hung agent) or resumed (SIGCONT). */
    void pauseAgent(boolean pause) throws IOException, InterruptedException {
        pause(agent, pause);
    }

    /** SIGSTOP ({@code pause}) or SIGCONT to {@code p}. */
    private static void pause(Process p, boolean pause) throws IOException, InterruptedException {
        Assertions.assertEquals(0, Programs.run(List.of("kill", pause ? "-STOP" : "-CONT", Long.toString(p.pid())),
                Map.of(), Duration.ofSeconds(10)).exit());
    }

    /** kill -9 of the agent (true) or a plain stop (false). */
    void stopAgent(boolean kill9) throws InterruptedException {
        stop(agent, kill9);
        agent = null;
    }

    private static void stop(Process p, boolean kill9) throws InterruptedException {
        if (p != null) {
            if (kill9) {
                p.destroyForcibly();
            } else {
                p.destroy();
            }
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The agent's spool of epilogs. */
    Path spool() {
        return dir.resolve("hook-spool");
    }

    /** The epilogs waiting in the agent's spool. */
    List<Path> spooled() throws IOException {
        if (!Files.isDirectory(spool())) {
            return List.of();
        }
        try (var files = Files.list(spool())) {
            return files.filter(f -> f.getFileName().toString().endsWith(".epilog")).toList();
        }
    }

    /** Waits until the agent has settled every epilog it spooled (a no-op for the other hooks). */
    void awaitSettled(Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (spooled().isEmpty()) {
                return;
            }
            Thread.sleep(100);
        }
        Assertions.fail("epilogs still spooled after " + limit.toSeconds() + " s: " + spooled() + "; " + tail("agent.log"));
    }

    /** Waits until no job is queued and every epilog is settled. */
    void awaitQuietAndSettled(Duration limit) throws IOException, InterruptedException {
        awaitQuiet(limit);
        awaitSettled(limit);
    }

    /** The lab's own slurm.conf lines on top of the harness's. */
    private void startSlurm(SlurmInstallation installation) throws IOException, InterruptedException {
        String hookBin = Path.of(System.getProperty("user.dir")).resolve("../bin").normalize().toString();
        for (String mode : List.of("prolog", "epilog")) {
            // the JVM hook (alone, or as the client's fallback) finds its classes and this lab's settings through
            // the environment, which slurmctld does not pass on: a wrapper gives it (its cost counts as the hook's)
            Path wrapper = dir.resolve(mode + ".sh");
            Files.writeString(wrapper, String.join("\n", "#!/bin/bash",
                    "export ALPSBRIDGE_LEDGER_HOOK_CONFIG=" + dir.resolve("ledger-hook.conf"),
                    hookJar == null ? "export LEDGER_HOOK_CLASSPATH='" + System.getProperty("java.class.path") + "'"
                            : "export LEDGER_HOOK_JAR=" + hookJar + " LEDGER_HOOK_CDS_ARCHIVE=" + dir.resolve("ledger-" + mode + ".jsa"),
                    "export JAVA=" + javaBin(),
                    "exec " + (hooks == Hooks.JVM ? hookBin : dir.resolve("bin").toString()) + "/ledger-" + mode + " \"$@\"",
                    ""));
            wrapper.toFile().setExecutable(true);
        }
        String prolog = hooks == Hooks.AGENT ? dir.resolve("bin/ledger-prolog").toString() : dir.resolve("prolog.sh").toString();
        String epilog = hooks == Hooks.AGENT ? dir.resolve("bin/ledger-epilog").toString() : dir.resolve("epilog.sh").toString();
        host = Programs.hostname();
        SlurmCluster.Spec spec = new SlurmCluster.Spec(installation, dir).clusterName("lab").munge(munged.socket())
                .set("SelectType", "select/cons_tres")
                .set("SelectTypeParameters", "CR_Core")
                .trustConfiguredCpus()
                // an admin's DOWN stays down (the node-failure scenario resumes it by hand)
                .set("ReturnToService", "1")
                .set("MinJobAge", "600")
                .set("MaxJobCount", "20000")
                .set("KillWait", "2")
                // sched_interval=2: what docs/admin-ledger.md tells a site running the hooks (a job whose
                // EpilogSlurmctld ends after slurmd's epilog frees its CPUs only at the next periodic pass);
                // in every lab alike, so the storm's two runs differ by the hooks alone
                // requeue_delay=5 (Slurm 26.05; 22.05 ignores it): a requeued job may run again after 5 s, not 121
                .set("SchedulerParameters", "default_queue_depth=1000,sched_min_interval=100000,sched_interval=2,requeue_delay=5")
                // slurmscriptd's lines of each PrologSlurmctld/EpilogSlurmctld it runs (at verbose): how long
                // slurmctld waited for each hook call, in its own words (hookCalls); in every lab alike
                .set("DebugFlags", "Script")
                .set("SlurmctldDebug", "verbose");
        if (hooks == Hooks.PREP) {
            spec.set("PrEpPlugins", "prep/ledger").set("PluginDir", HookClient.pluginDir(installation, dir.resolve("plugins")));
        } else if (hooks != Hooks.NONE) {
            spec.set("PrologSlurmctld", prolog).set("EpilogSlurmctld", epilog);
        }
        if (jobSubmit) {
            spec.set("JobSubmitPlugins", "lua");
        }
        if (sanitized) {
            Files.createDirectories(sanitizerLogs());
            // slurmd loads the PrEpPlugins too (they may serve its Prolog/Epilog): without the runtime first, the
            // ASan build aborts it at load, silently (daemonized)
            Map<String, String> env = Sanitizers.environment(sanitizerLogs());
            env.forEach(spec::controllerEnvironment);
            env.forEach(spec::slurmdEnvironment);
        }
        if (nodeCount == 1) {
            nodes = List.of(host);
            spec.line("NodeName=" + host + " NodeAddr=127.0.0.1 CPUs=" + cpus + " State=UNKNOWN");
        } else {
            namespaces = NodeNamespaces.create(nodeCount);
            int[] sizes = new int[nodeCount];
            Arrays.fill(sizes, cpus);
            nodes = namespaces.addTo(spec, sizes);
        }
        spec.line("PartitionName=debug Nodes=" + String.join(",", nodes) + " Default=YES MaxTime=INFINITE State=UP",
                "PartitionName=big Nodes=" + String.join(",", nodes) + " MaxTime=INFINITE State=UP");
        slurm = SlurmCluster.configure(spec);
        user.admit(slurm);
        jobs = user.ownedDirectory(dir.resolve("jobs"));
        if (jobSubmit) {
            jobSubmitScript(SubmitScript.LEDGER);
        }
        if (hooks == Hooks.AGENT || hooks == Hooks.PREP) {
            startAgent(); // before slurmctld's first prolog; after slurm.conf, where it finds slurmctld's log file
        }
        try {
            slurm.start();
        } catch (SlurmCluster.NotStarted e) {
            Programs.unavailable(e.getMessage());
        }
    }

    /** Where the sanitizers write their reports ({@link #startSanitized}). */
    Path sanitizerLogs() {
        return dir.resolve("sanitizer");
    }

    /** The sanitizers' reports written so far, by file name (none: an empty map). */
    Map<String, String> sanitizerReports() throws IOException {
        return Sanitizers.reports(sanitizerLogs());
    }

    /** Which {@code job_submit.lua} slurmctld runs ({@link #jobSubmitScript}). */
    enum SubmitScript {
        /** The ledger's, as shipped but for its client's path. */
        LEDGER,
        /** One that accepts every job and does nothing else. */
        ACCEPT,
        /** One that runs {@code /bin/true} as the ledger's runs its client (io.popen), then accepts. */
        FORK
    }

    /**
     * slurmctld's {@code job_submit.lua} beside slurm.conf (the plugin's cost is measured by switching it). slurmctld
     * loads the file again when its time stamp changes, so a switch waits past the second it was written in.
     */
    void jobSubmitScript(SubmitScript kind) throws IOException, InterruptedException {
        boolean ledger = kind == SubmitScript.LEDGER;
        String script = ledger ? Files.readString(Path.of(System.getProperty("user.dir")).resolve("src/main/lua/job_submit.lua"))
                .replace("local LEDGER_SUBMIT = \"/usr/bin/ledger-submit\"",
                        "local LEDGER_SUBMIT = \"" + dir.resolve("bin/ledger-submit") + "\"")
                : String.join("\n", "function slurm_job_submit(job_desc, part_list, submit_uid)",
                        kind == SubmitScript.FORK ? "    local p = io.popen(\"/bin/true 2>&1 </dev/null; echo exit=$?\")"
                                + " p:read(\"*a\") p:close()" : "",
                        "    return slurm.SUCCESS", "end",
                        "function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)",
                        "    return slurm.SUCCESS", "end", "return slurm.SUCCESS", "");
        if (ledger && !script.contains(dir.resolve("bin/ledger-submit").toString())) {
            throw new AssertionError("job_submit.lua no longer names its client as LEDGER_SUBMIT = \"/usr/bin/ledger-submit\"");
        }
        Files.writeString(dir.resolve("job_submit.lua"), script);
        Thread.sleep(1_100);
    }

    /** Lines added to slurm.conf; slurmctld reads them at its next start ({@link #restartSlurmctld}). */
    void appendSlurmConf(String lines) throws IOException {
        Files.writeString(dir.resolve("slurm.conf"), lines + "\n", java.nio.file.StandardOpenOption.APPEND);
    }

    /** Stops slurmctld (SIGTERM, it saves its state) and starts it again; running jobs carry on. */
    void restartSlurmctld() throws IOException, InterruptedException {
        slurm.stopController();
        slurm.startController();
    }

    void awaitIdle() throws IOException, InterruptedException {
        slurm.awaitIdle(Duration.ofSeconds(60));
    }

    /** The jobs' working directory, which their user owns. */
    Path jobsDir() {
        return jobs;
    }

    /** Submits a batch job as the lab's {@link #user}, which must be accepted; its id. */
    String sbatch(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("--parsable", "-o", "/dev/null", "-D", jobs.toString()));
        argv.addAll(List.of(args));
        Programs.Result r = user.run(slurm, Map.of(), "sbatch", argv.toArray(String[]::new));
        Assertions.assertEquals(0, r.exit(), () -> "sbatch " + String.join(" ", args) + " as " + user.name() + ": " + r.err());
        return r.out().strip().lines().reduce((a, b) -> b).orElseThrow().split(";")[0];
    }

    /** {@code scontrol show job -o ID} as KEY=VALUE (free-text fields with spaces are cut at the space). */
    Map<String, String> job(String id) throws IOException, InterruptedException {
        return slurm.job(id);
    }

    /** Waits until no job is pending, running or completing. */
    void awaitQuiet(Duration limit) throws IOException, InterruptedException {
        slurm.awaitNoJobs(limit, Duration.ofMillis(250));
    }

    /** Waits until a job is in a state. */
    void awaitState(String id, String state, Duration limit) throws IOException, InterruptedException {
        slurm.awaitState(id, state, limit);
    }

    /**
     * A Slurm command ({@code argv[0]}: sbatch, squeue, scontrol, scancel, salloc) against the lab: a submission
     * (sbatch, salloc, srun) as the lab's {@link #user} from its home, anything else as root, the administrator.
     */
    Programs.Result slurm(String... argv) throws IOException, InterruptedException {
        String[] args = java.util.Arrays.copyOfRange(argv, 1, argv.length);
        return SUBMISSIONS.contains(argv[0]) ? user.run(slurm, Map.of(), argv[0], args) : slurm.run(argv[0], args);
    }

    /**
     * An sbatch by the job user, timed by the user's own shell around sbatch alone (what a user at the prompt waits
     * for; runuser's and the shell's start left out): the result, with the wall time in µs as {@code err}'s last line.
     */
    Programs.Result sbatchTimed(String... args) throws IOException, InterruptedException {
        String sbatch = slurm.installation().program("sbatch").toString();
        String[] argv = new String[args.length + 3];
        argv[0] = "-c";
        argv[1] = "s=$(date +%s%N); \"$0\" \"$@\"; rc=$?; e=$(date +%s%N); echo $(( (e - s) / 1000 )) >&2; exit $rc";
        argv[2] = sbatch;
        System.arraycopy(args, 0, argv, 3, args.length);
        return user.run(slurm, Map.of(), "/bin/sh", argv);
    }

    /** A Slurm command as root, even a submission: for what a test about root's own jobs does. */
    Programs.Result slurmAsRoot(String... argv) throws IOException, InterruptedException {
        return slurm.run(argv[0], java.util.Arrays.copyOfRange(argv, 1, argv.length));
    }

    /**
     * One PrologSlurmctld or EpilogSlurmctld call as slurmctld tells it: started, waited for, its exit status; with
     * the PrEp plugin also what slurmctld's own thread spent on it ({@code threadMicros}; -1 for the scripts).
     */
    record HookCall(String jobId, java.time.LocalDateTime started, long micros, int exit, long threadMicros) {
    }

    /** 22.05 says "(PrologSlurmctld) for JobId=N", 26.05 "(name=PrologSlurmctld, JobId=N, ...)". */
    private static final Pattern SCRIPT_LINE = Pattern.compile("^\\[([0-9T:.-]+)\\] (?:slurmscriptd: )?(?:error: )?"
            + "(?:SCRIPT: Handling SLURMSCRIPTD_REQUEST_(RUN_SCRIPT|SCRIPT_COMPLETE) \\((?:name=)?(\\w+)Slurmctld(?:\\) for|,) JobId=([0-9]+)"
            + "|_run_script: JobId=([0-9]+) (\\w+)Slurmctld (?:exit status ([0-9]+):([0-9]+)|killed by signal ([0-9]+)))");

    /** The PrEp plugin's line of each call it completed: the whole wait, from slurmctld's call to the callback. */
    private static final Pattern PREP_LINE = Pattern.compile("^\\[([0-9T:.-]+)\\] (?:verbose: )?prep/ledger: (\\w+) "
            + "JobId=([0-9]+) exit ([0-9]+) after ([0-9]+) us \\(([0-9]+) us on slurmctld's thread\\)");

    /**
     * The calls of the prolog or the epilog ({@code mode}) that slurmctld has seen end, in order, from
     * slurmscriptd's lines in slurmctld's log ({@code DebugFlags=Script}): from slurmscriptd taking the call to
     * slurmctld handling its end, i.e. what slurmctld waited for (a process started, the hook, its exit); with the
     * PrEp plugin ({@link Hooks#PREP}), from its own line of each call.
     */
    List<HookCall> hookCalls(String mode) throws IOException {
        if (hooks == Hooks.PREP) {
            List<HookCall> calls = new ArrayList<>();
            for (String line : Files.readAllLines(dir.resolve("slurmctld.log"), StandardCharsets.UTF_8)) {
                Matcher m = PREP_LINE.matcher(line);
                if (m.find() && m.group(2).equals(mode)) {
                    long micros = Long.parseLong(m.group(5));
                    calls.add(new HookCall(m.group(3), java.time.LocalDateTime.parse(m.group(1)).minusNanos(micros * 1000),
                            micros, Integer.parseInt(m.group(4)), Long.parseLong(m.group(6))));
                }
            }
            return calls;
        }
        String script = mode.equals("prolog") ? "Prolog" : "Epilog";
        Map<String, java.util.ArrayDeque<java.time.LocalDateTime>> started = new java.util.HashMap<>();
        Map<String, Integer> failed = new java.util.HashMap<>();
        List<HookCall> calls = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("slurmctld.log"), StandardCharsets.UTF_8)) {
            Matcher m = SCRIPT_LINE.matcher(line);
            if (!m.find()) {
                continue;
            }
            java.time.LocalDateTime at = java.time.LocalDateTime.parse(m.group(1));
            if (m.group(2) != null) {
                if (!m.group(3).equals(script)) {
                    continue;
                }
                String job = m.group(4);
                if (m.group(2).equals("RUN_SCRIPT")) {
                    started.computeIfAbsent(job, j -> new java.util.ArrayDeque<>()).add(at);
                } else {
                    java.util.ArrayDeque<java.time.LocalDateTime> q = started.get(job);
                    java.time.LocalDateTime from = q == null || q.isEmpty() ? at : q.poll();
                    Integer exit = failed.remove(job);
                    calls.add(new HookCall(job, from, java.time.Duration.between(from, at).toNanos() / 1000,
                            exit == null ? 0 : exit, -1));
                }
            } else if (m.group(6).equals(script)) {
                failed.put(m.group(5), m.group(7) != null ? Integer.parseInt(m.group(7)) : 128 + Integer.parseInt(m.group(9)));
            }
        }
        return calls;
    }

    String tail(String log) {
        return slurm.tail(log);
    }

    /** The harness's cluster under the lab (its installation, slurm.conf, munged), for what a suite adds to it. */
    SlurmCluster cluster() {
        return slurm;
    }

    @Override
    public void close() throws Exception {
        if (slurm != null) {
            slurm.close();
        }
        if (namespaces != null) {
            namespaces.close();
        }
        stopAgent(false);
        stopService(false);
        munged.close();
        if (!"1".equals(System.getenv("ALPSBRIDGE_KEEP_LAB"))) {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        } else {
            System.out.println("SlurmLab: kept " + dir);
        }
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
