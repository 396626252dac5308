package org.alpsbridge.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Slurm 18.08.9 with select/alps as Cray sites ran it, on this host: slurmctld and one front-end slurmd
 * ({@code FrontendName} this host on 127.0.0.1), ports chosen free (never Debian's Slurm 22.05 defaults), state,
 * logs and pid files in the bridge's directory, {@code cray.conf} naming the bridge's {@code apbasil} and
 * {@code apkill} and the private SDB. The commands run with {@code SLURM_CONF} and full paths. Stopped by pid.
 */
final class SlurmCluster implements AutoCloseable {

    private final Path prefix;
    private final Path dir;
    private final Path conf;
    private final Bridge bridge;
    private final Sdb sdb;
    private final List<String> nodes;

    private SlurmCluster(Path prefix, Path dir, Bridge bridge, Sdb sdb, List<String> nodes) {
        this.prefix = prefix;
        this.dir = dir;
        this.conf = dir.resolve("etc/slurm.conf");
        this.bridge = bridge;
        this.sdb = sdb;
        this.nodes = nodes;
    }

    /** Starts the bridge's proxy with Slurm's environment for its commands, then Slurm against it. */
    static SlurmCluster startBehind(Bridge bridge) throws IOException {
        Path prefix = Clients.slurm();
        bridge.proxyEnvironment(environment(prefix, bridge));
        bridge.startProxy();
        return start(prefix, bridge);
    }

    /** Stops Slurm, prints the proxy's stats and stops the bridge; either may be null (a set-up that failed). */
    static void stop(SlurmCluster slurm, Bridge bridge) throws IOException {
        if (slurm != null) {
            slurm.close();
        }
        if (bridge != null) {
            System.out.println("proxy stats:\n" + bridge.stats().out());
            bridge.close();
        }
    }

    /** Configures and starts Slurm against {@code bridge}; {@code extra} lines are appended to slurm.conf. */
    static SlurmCluster start(Path prefix, Bridge bridge, String... extra) throws IOException {
        return start(prefix, bridge, bridge.apbasil(), extra);
    }

    /** As {@link #start(Path, Bridge, String...)}, with {@code apbasil} as cray.conf's {@code apbasil=}. */
    static SlurmCluster start(Path prefix, Bridge bridge, Path apbasil, String... extra) throws IOException {
        Path dir = bridge.dir().resolve("slurm");
        Files.createDirectories(dir.resolve("etc"));
        Files.createDirectories(dir.resolve("state"));
        Files.createDirectories(dir.resolve("spool"));
        String inventory = bridge.inventory();
        List<String> nodes = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<Node node_id=\"(\\d+)\"[^>]* role=\"BATCH\"")
                .matcher(inventory);
        while (m.find()) {
            nodes.add(String.format("nid%05d", Integer.parseInt(m.group(1))));
        }
        Sdb sdb = Sdb.start(dir, inventory);
        String host = Host.hostname();
        int ctldPort = Host.freePort();
        int slurmdPort = Host.freePort();
        String nodeList = String.join(",", nodes);
        Files.writeString(dir.resolve("etc/slurm.conf"), String.join("\n",
                "# Slurm 18.08.9 select/alps against the alpsbridge proxy (written by the interop tests)",
                "ClusterName=interop",
                "SlurmctldHost=" + host + "(127.0.0.1)",
                "SlurmctldPort=" + ctldPort,
                "SlurmdPort=" + slurmdPort,
                "SlurmUser=root",
                "SlurmdUser=root",
                "AuthType=auth/munge",
                "AuthInfo=socket=" + bridge.mungeSocket(),
                "CryptoType=crypto/munge",
                "StateSaveLocation=" + dir.resolve("state"),
                "SlurmdSpoolDir=" + dir.resolve("spool"),
                "SlurmctldPidFile=" + dir.resolve("slurmctld.pid"),
                "SlurmdPidFile=" + dir.resolve("slurmd.pid"),
                "SlurmctldLogFile=" + dir.resolve("slurmctld.log"),
                "SlurmdLogFile=" + dir.resolve("slurmd.log"),
                "SlurmctldDebug=debug",
                "SlurmdDebug=debug",
                "ProctrackType=proctrack/pgid",
                "TaskPlugin=task/none",
                "SwitchType=switch/none",
                "MpiDefault=none",
                "SelectType=select/alps",
                "FastSchedule=2",
                "SchedulerType=sched/backfill",
                "MailProg=/bin/true",
                "EnforcePartLimits=ALL",
                "MessageTimeout=100", // slurmctld answers nothing while it waits for apbasil, holding its locks
                "ReturnToService=1", // select/alps refuses 2
                "MinJobAge=300",
                "KillWait=5",
                "JobCompType=jobcomp/none",
                "AccountingStorageType=accounting_storage/none",
                "PluginDir=" + prefix.resolve("lib/slurm"),
                "FrontendName=" + host + " FrontendAddr=127.0.0.1",
                "NodeName=" + nodeList + " " + topology(inventory) + " RealMemory=64000 State=UNKNOWN",
                "PartitionName=batch Nodes=" + nodeList + " Default=YES MaxTime=INFINITE State=UP",
                String.join("\n", extra), ""));
        Files.writeString(dir.resolve("etc/cray.conf"), String.join("\n",
                "apbasil=" + apbasil,
                "apkill=" + bridge.apkill(),
                "SDBhost=127.0.0.1",
                "SDBport=" + sdb.port(),
                "SDBuser=root",
                "SDBpass=interop", // any: the private server skips grant tables
                "SDBdb=XTAdmin",
                ""));
        SlurmCluster c = new SlurmCluster(prefix, dir, bridge, sdb, nodes);
        try {
            c.startDaemons();
        } catch (RuntimeException e) {
            c.close(); // what did start is stopped by its pid file
            throw e;
        }
        return c;
    }

    /**
     * The first node's CPUs, sockets, cores and threads, as slurm.conf describes them: Slurm turns
     * {@code --ntasks-per-core=1} into the RESERVE's width only knowing the threads per core (with {@code CPUs=32}
     * alone an XC30 node's 32 hyperthreads look like 32 cores, and ALPS refuses nppn 32 at nppcu 1).
     */
    static String topology(String inventory) {
        int from = inventory.indexOf("<Node ");
        String node = inventory.substring(from, inventory.indexOf("</Node>", from));
        int sockets = count(node, "<Socket ");
        int cores = count(node, "<ComputeUnit ");
        int threads = count(node, "<Processor ");
        if (cores == 0 || sockets == 0) {
            return "CPUs=" + threads; // BASIL 1.2 and older show no ComputeUnit
        }
        return "CPUs=" + threads + " Sockets=" + sockets + " CoresPerSocket=" + cores / sockets + " ThreadsPerCore="
                + threads / cores;
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    void startDaemons() {
        Host.run(env(), Duration.ofSeconds(60), List.of(prefix.resolve("sbin/slurmctld").toString(), "-f", conf.toString())).ok();
        Host.run(env(), Duration.ofSeconds(60), List.of(prefix.resolve("sbin/slurmd").toString(), "-f", conf.toString())).ok();
        if (!Host.await(Duration.ofSeconds(120), () -> {
            Host.Result r = cmd("sinfo", "-h", "-o", "%T");
            return r.exit() == 0 && r.out().contains("idle");
        })) {
            throw new IllegalStateException("Slurm did not come up: " + cmd("sinfo").out() + "\n" + ctldLog());
        }
    }

    void stopController() {
        Host.stop(controllerPid());
    }

    void startController() {
        Host.run(env(), Duration.ofSeconds(60), List.of(prefix.resolve("sbin/slurmctld").toString(), "-f", conf.toString())).ok();
        if (!Host.await(Duration.ofSeconds(60), () -> cmd("squeue").exit() == 0)) {
            throw new IllegalStateException("slurmctld did not come back: " + ctldLog());
        }
    }

    /** SLURM_CONF and Slurm 18.08's own programs first on PATH (never Debian's 22.05). */
    Map<String, String> env() {
        return environment(prefix, bridge);
    }

    /** The environment of this cluster's commands, known before it starts (the proxy runs squeue and scontrol). */
    static Map<String, String> environment(Path prefix, Bridge bridge) {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_CONF", bridge.dir().resolve("slurm/etc/slurm.conf").toString());
        env.put("PATH", prefix.resolve("bin") + ":" + prefix.resolve("sbin") + ":" + System.getenv("PATH"));
        return env;
    }

    /** Runs one of Slurm's commands ({@code sbatch}, {@code squeue}, ...) with this cluster's config. */
    Host.Result cmd(String program, String... args) {
        List<String> argv = new ArrayList<>();
        argv.add(prefix.resolve("bin").resolve(program).toString());
        argv.addAll(List.of(args));
        return Host.run(env(), Duration.ofSeconds(240), argv);
    }

    /** Submits a batch script as {@code user}; returns the job id. */
    String submit(String user, String script, String... options) {
        List<String> args = new ArrayList<>(List.of("--parsable", "--uid=" + user, "--chdir=/tmp",
                "--output=/dev/null", "--error=/dev/null"));
        args.addAll(List.of(options));
        args.add("--wrap=" + script);
        String out = cmd("sbatch", args.toArray(String[]::new)).ok().out().strip();
        return out.lines().reduce((a, b) -> b).orElseThrow().split(";")[0];
    }

    /**
     * Submits a mixed batch workload, seeded: {@code -N1}..{@code -N4}, {@code -n5}, {@code --ntasks-per-node=4 -c2},
     * {@code --mem}, wall times 1–30 min, scripts sleeping 1–3 s, the users of {@code users}; returns the job ids.
     */
    List<String> submitMixed(int count, long seed, List<String> users) {
        java.util.Random random = new java.util.Random(seed);
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String user = users.get(random.nextInt(users.size()));
            List<String> shape = switch (random.nextInt(5)) {
                case 0 -> List.of("-N1");
                case 1 -> List.of("-N2", "--ntasks-per-node=4", "-c2");
                case 2 -> List.of("-n5");
                case 3 -> List.of("-N4");
                default -> List.of("-N1", "--mem=2000");
            };
            List<String> options = new ArrayList<>(shape);
            options.add("--time=" + (1 + random.nextInt(30)));
            jobs.add(submit(user, "sleep " + (1 + random.nextInt(3)), options.toArray(String[]::new)));
        }
        return jobs;
    }

    /** The state of a job from squeue, or "GONE" once it has left the queue. */
    String state(String job) {
        Host.Result r = cmd("squeue", "-h", "-j", job, "-o", "%T");
        return r.exit() == 0 && !r.out().isBlank() ? r.out().strip() : "GONE";
    }

    List<String> queue() {
        return Host.lines(cmd("squeue", "-h", "-o", "%i %T %r").out());
    }

    /**
     * The lines of slurmctld's and slurmd's logs with a {@code fatal} or a BASIL error, but for those containing one
     * of {@code expected}. "can not read resId for JobId" is Slurm's own line for a cancelled job that never had a
     * reservation (select_p_job_fini before any RESERVE): no BASIL call is made.
     */
    List<String> basilErrors(String... expected) {
        List<String> bad = new ArrayList<>();
        for (String log : List.of(ctldLog(), slurmdLog())) {
            log.lines().filter(l -> l.contains("fatal") || (l.contains("error:") && !l.contains("can not read resId for JobId")
                    && (l.contains("BASIL") || l.contains("basil") || l.contains("ALPS") || l.contains("resId"))))
                    .filter(l -> java.util.Arrays.stream(expected).noneMatch(l::contains)).forEach(bad::add);
        }
        return bad;
    }

    long controllerPid() {
        return Host.pidFrom(dir.resolve("slurmctld.pid"));
    }

    String ctldLog() {
        return read(dir.resolve("slurmctld.log"));
    }

    String slurmdLog() {
        return read(dir.resolve("slurmd.log"));
    }

    List<String> nodes() {
        return nodes;
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        Host.stop(Host.pidFrom(dir.resolve("slurmd.pid")));
        stopController();
        sdb.close();
    }
}
