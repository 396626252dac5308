package org.alpsbridge.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.SlurmCluster;
import org.alpsbridge.slurm.harness.SlurmInstallation;

/**
 * Slurm 18.08.9 with select/alps as Cray sites ran it, on this host (the harness's {@link SlurmCluster}, the
 * prefix {@code .ci/build-clients} built): slurmctld and one front-end slurmd ({@code FrontendName} this host on
 * 127.0.0.1), the nodes of the bridge's ALPS inventory, {@code cray.conf} naming the bridge's {@code apbasil} and
 * {@code apkill} and the private SDB. The commands run with {@code SLURM_CONF} and full paths.
 */
final class CraySlurm implements AutoCloseable {

    private final SlurmCluster slurm;
    private final Sdb sdb;
    private final List<String> nodes;

    private CraySlurm(SlurmCluster slurm, Sdb sdb, List<String> nodes) {
        this.slurm = slurm;
        this.sdb = sdb;
        this.nodes = nodes;
    }

    /** Starts the bridge's proxy with Slurm's environment for its commands, then Slurm against it. */
    static CraySlurm startBehind(Bridge bridge) throws IOException {
        Path prefix = Clients.slurm();
        bridge.proxyEnvironment(environment(prefix, bridge));
        bridge.startProxy();
        return start(prefix, bridge);
    }

    /** Stops Slurm, prints the proxy's stats and stops the bridge; either may be null (a set-up that failed). */
    static void stop(CraySlurm slurm, Bridge bridge) throws IOException {
        if (slurm != null) {
            slurm.close();
        }
        if (bridge != null) {
            System.out.println("proxy stats:\n" + bridge.stats().out());
            bridge.close();
        }
    }

    /** Configures and starts Slurm against {@code bridge}. */
    static CraySlurm start(Path prefix, Bridge bridge) throws IOException {
        return start(prefix, bridge, bridge.apbasil());
    }

    /** As {@link #start(Path, Bridge)}, with {@code apbasil} as cray.conf's {@code apbasil=}. */
    static CraySlurm start(Path prefix, Bridge bridge, Path apbasil) throws IOException {
        return start(prefix, bridge, apbasil, 0);
    }

    /** The backup controller's name ({@link #startWithBackup}): its SlurmctldHost, on {@value #BACKUP_ADDRESS}. */
    static final String BACKUP = "ctld-b";
    static final String BACKUP_ADDRESS = "127.0.0.2";

    /**
     * As {@link #start(Path, Bridge)}, with a backup controller ({@value #BACKUP} on {@value #BACKUP_ADDRESS}, the
     * second {@code SlurmctldHost}; the same slurm.conf, cray.conf and StateSaveLocation) that takes over
     * {@code slurmctldTimeout} seconds after the primary stops answering (slurm.conf's {@code SlurmctldTimeout}).
     */
    static CraySlurm startWithBackup(Path prefix, Bridge bridge, int slurmctldTimeout) throws IOException {
        CraySlurm slurm = start(prefix, bridge, bridge.apbasil(), slurmctldTimeout);
        try {
            slurm.slurm.startBackupController();
            return slurm;
        } catch (IOException | RuntimeException e) {
            slurm.close();
            throw e;
        } catch (InterruptedException e) {
            slurm.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static CraySlurm start(Path prefix, Bridge bridge, Path apbasil, int backupTimeout) throws IOException {
        Path dir = bridge.dir().resolve("slurm");
        String inventory = bridge.inventory();
        List<String> nodes = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<Node node_id=\"(\\d+)\"[^>]* role=\"BATCH\"")
                .matcher(inventory);
        while (m.find()) {
            nodes.add(String.format("nid%05d", Integer.parseInt(m.group(1))));
        }
        Sdb sdb = Sdb.start(dir, inventory);
        SlurmCluster slurm = null;
        try {
            String host = Programs.hostname();
            // in hostlist form, nid[00000-04391]: at 4,392 nodes a comma list is a 40 kB slurm.conf line
            String nodeList = org.alpsbridge.basil.nodes.Hostlist.of(nodes).toString();
            SlurmCluster.Spec spec = new SlurmCluster.Spec(SlurmInstallation.at(prefix), dir);
            if (backupTimeout > 0) {
                // each controller binds its host name's address (NoCtldInAddrAny): the primary this host's
                String primary = java.net.InetAddress.getByName(host).getHostAddress();
                if (primary.equals(BACKUP_ADDRESS)) {
                    throw new IllegalStateException("this host's name " + host + " resolves to the backup's address");
                }
                spec.controllerAddress(primary).backupController(BACKUP, BACKUP_ADDRESS)
                        .set("SlurmctldTimeout", Integer.toString(backupTimeout))
                        .set("CommunicationParameters", "NoCtldInAddrAny");
            }
            slurm = SlurmCluster.configure(spec
                    .clusterName("interop")
                    .munge(bridge.mungeSocket())
                    .set("SlurmctldDebug", "debug")
                    .set("SlurmdDebug", "debug")
                    .set("ProctrackType", "proctrack/pgid")
                    .set("SwitchType", "switch/none")
                    .set("SelectType", "select/alps")
                    .trustConfiguredCpus()
                    .set("SchedulerType", "sched/backfill")
                    .set("MailProg", "/bin/true")
                    .set("EnforcePartLimits", "ALL")
                    .set("MessageTimeout", "100") // slurmctld answers nothing while it waits for apbasil, holding its locks
                    .set("ReturnToService", "1") // select/alps refuses 2
                    .set("MinJobAge", "300")
                    .set("KillWait", "5")
                    .line("FrontendName=" + host + " FrontendAddr=127.0.0.1",
                            "NodeName=" + nodeList + " " + topology(inventory) + " RealMemory=64000 State=UNKNOWN",
                            "PartitionName=batch Nodes=" + nodeList + " Default=YES MaxTime=INFINITE State=UP")
                    .readyWhenAnyNodeIdle(Duration.ofSeconds(120)));
            // select/alps reads cray.conf beside slurm.conf
            Files.writeString(slurm.file("cray.conf"), String.join("\n",
                    "apbasil=" + apbasil,
                    "apkill=" + bridge.apkill(),
                    "SDBhost=127.0.0.1",
                    "SDBport=" + sdb.port(),
                    "SDBuser=root",
                    "SDBpass=interop", // any: the private server skips grant tables
                    "SDBdb=XTAdmin",
                    ""));
            slurm.start();
            return new CraySlurm(slurm, sdb, nodes);
        } catch (IOException | RuntimeException e) {
            if (slurm != null) {
                slurm.close(); // what did start is stopped by its pid
            }
            sdb.close();
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
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

    void stopController() {
        slurm.stopController();
    }

    /**
     * {@code kill -9} of the primary slurmctld: no state saved, no reply to anyone. Waits until it is gone or a zombie,
     * not for its exit: in a PID namespace (CI) the daemon's reaper is the namespace's first process, the build's JVM,
     * which reaps nobody, so a killed daemon stays a zombie and its exit is never seen.
     */
    void killController() {
        long pid = controllerPid();
        ProcessHandle p = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no slurmctld " + pid));
        p.destroyForcibly();
        Path stat = Path.of("/proc/" + pid + "/stat");
        if (!Host.await(Duration.ofSeconds(30), () -> {
            try {
                String s = Files.readString(stat);
                return s.substring(s.lastIndexOf(')') + 2).startsWith("Z");
            } catch (IOException e) {
                return true; // gone
            }
        })) {
            throw new IllegalStateException("slurmctld " + pid + " lives on after SIGKILL");
        }
    }

    String backupLog() {
        return slurm.read(slurm.backupLog());
    }

    void startController() throws IOException {
        try {
            slurm.startController();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The environment of this cluster's commands, known before it starts (the proxy runs squeue and scontrol). */
    static Map<String, String> environment(Path prefix, Bridge bridge) {
        return SlurmInstallation.at(prefix).environment(bridge.dir().resolve("slurm/slurm.conf"));
    }

    /** Runs one of Slurm's commands ({@code sbatch}, {@code squeue}, ...) with this cluster's config. */
    Host.Result cmd(String program, String... args) {
        List<String> argv = new ArrayList<>();
        argv.add(slurm.installation().program(program).toString());
        argv.addAll(List.of(args));
        return Host.run(slurm.environment(), Duration.ofSeconds(240), argv);
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
        return submitMixed(count, seed, users, null);
    }

    /**
     * As {@link #submitMixed(int, long, List)}, every job running {@code script} instead (null: the drawn sleep), with
     * 30 minutes' wall time: a script that waits for a gate must not end by its drawn limit first.
     */
    List<String> submitMixed(int count, long seed, List<String> users, String script) {
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
            if (script != null) {
                options.add("--time=30"); // the last --time counts; the draw above keeps the seed's sequence
            }
            String sleep = "sleep " + (1 + random.nextInt(3));
            jobs.add(submit(user, script == null ? sleep : script, options.toArray(String[]::new)));
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
        return Host.pidFrom(slurm.file("slurmctld.pid"));
    }

    String ctldLog() {
        return slurm.read("slurmctld.log");
    }

    String slurmdLog() {
        return slurm.read("slurmd.log");
    }

    List<String> nodes() {
        return nodes;
    }

    @Override
    public void close() {
        slurm.close();
        sdb.close();
    }
}
