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
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * An OpenPBS complex with ALPS support as a Cray site ran it — pbs_comm, pbs_server (and its own PostgreSQL
 * datastore), pbs_sched and one pbs_mom whose {@code $alps_client} is the bridge's {@code apbasil} (or a client given) — in a private
 * network, mount and UTS namespace of its own.
 *
 * <p>Why a namespace: PBS refuses to run on loopback alone. TPP ({@code tpp_platform.c}) and the server's host
 * list ({@code hnls.c}) skip every 127/8 address of a host name, so the server's name must resolve to another
 * address, and the datastore listens on {@code '*'}. The namespace has its loopback and a veth pair holding
 * {@value #ADDRESS} (its host name {@value #HOST} in an {@code /etc/hosts} bind-mounted only there, and a private
 * {@code /run/postgresql}), so PBS keeps its default ports without colliding with anything and nothing is reachable
 * from outside the machine or changes on the host. The proxy runs in the namespace too (its clients reach it on
 * that loopback; its {@code qstat} reaches the server); MUNGE's socket is a file, shared as usual.
 *
 * <p>State, logs ({@code home/server_logs}, {@code mom_logs}, {@code sched_logs}) and {@code pbs.conf} are in the
 * bridge's directory; a fresh {@code PBS_HOME} per complex, since vnodes keep stale ncpus and mem across a change
 * of machine until deleted. Stopped by the init script, then by pid: every process left in the namespace is one
 * this complex started.
 */
final class PbsComplex implements AutoCloseable {

    static final String HOST = "pbshost";
    /** The complex's address, which exists only inside its namespace. */
    static final String ADDRESS = "10.254.0.1";

    /** Whether this run made {@code interop/target/pbs-home-template} (one from an earlier run may be stale). */
    private static boolean templateMade;

    private final Path prefix;
    private final Path dir;
    private final Path home;
    private final Bridge bridge;
    /** pbs_mom's {@code $alps_client}. */
    private final Path alpsClient;
    private final Process namespace;
    private final List<String> nsenter;

    private PbsComplex(Path prefix, Path dir, Bridge bridge, Path alpsClient, Process namespace) {
        this.prefix = prefix;
        this.dir = dir;
        this.home = dir.resolve("home");
        this.bridge = bridge;
        this.alpsClient = alpsClient;
        this.namespace = namespace;
        this.nsenter = List.of("nsenter", "--target", Long.toString(namespace.pid()), "--net", "--mount", "--uts", "--");
    }

    /**
     * Makes the namespace, starts the bridge's proxy in it, then PBS: {@code pbs_habitat} (PBS_HOME, datastore,
     * workq, the mom's node), the mom's config, the daemons by the init script; waits until every compute node of
     * the emulated machine is a free, licensed vnode.
     */
    static PbsComplex start(Path prefix, Bridge bridge) throws IOException {
        return start(prefix, bridge, c -> bridge.startProxy());
    }

    /** What starts the bridge's proxies once the complex's namespace is there, e.g. a pair with its {@code ha_db}. */
    @FunctionalInterface
    interface Proxies {
        void start(PbsComplex complex) throws IOException;
    }

    /** As {@link #start(Path, Bridge)}, the proxies started by {@code proxies} (inside the namespace). */
    static PbsComplex start(Path prefix, Bridge bridge, Proxies proxies) throws IOException {
        return start(prefix, bridge, proxies, bridge.apbasil());
    }

    /**
     * As {@link #start(Path, Bridge, Proxies)}, pbs_mom's {@code $alps_client} {@code alpsClient} instead of the
     * bridge's {@code apbasil}: e.g. {@link Bridge#alpsApbasil()} (on the Cray, straight to a resident ALPS that
     * {@code proxies} started in the namespace), or a {@link Bridge#timed} wrapper. It must be on a path pbs_mom
     * accepts (the bridge's directory is one).
     */
    static PbsComplex start(Path prefix, Bridge bridge, Proxies proxies, Path alpsClient) throws IOException {
        Path dir = bridge.dir().resolve("pbs");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("hosts"), "127.0.0.1 localhost\n" + ADDRESS + " " + HOST + "\n");
        Path ready = dir.resolve("namespace.ready");
        Path setup = Host.script(dir.resolve("namespace.sh"), String.join("\n",
                "#!/bin/sh",
                "# Inside the complex's own network, mount and UTS namespace (unshare): its network and names",
                "set -e",
                "ip link set lo up",
                "ip link add pbs0 type veth peer name pbs1",
                "ip addr add " + ADDRESS + "/24 dev pbs0",
                "ip link set pbs0 up",
                "ip link set pbs1 up",
                "mount --bind " + dir.resolve("hosts") + " /etc/hosts",
                "mkdir -p /run/postgresql",
                "mount -t tmpfs -o mode=2775,uid=$(id -u postgres),gid=$(id -g postgres) pbs-postgresql /run/postgresql",
                "hostname " + HOST,
                "touch " + ready,
                "exec sleep 2147483647", ""));
        ProcessBuilder pb = new ProcessBuilder("unshare", "--net", "--mount", "--uts", "--propagation", "private",
                setup.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("namespace.log").toFile()));
        pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        Process namespace = pb.start();
        if (!Host.await(Duration.ofSeconds(30), () -> Files.exists(ready) || !namespace.isAlive())
                || !namespace.isAlive()) {
            namespace.destroyForcibly();
            Host.skip("no private network namespace for PBS (unshare --net, veth): " + Files.readString(dir.resolve("namespace.log")));
        }
        PbsComplex c = new PbsComplex(prefix, dir, bridge, alpsClient, namespace);
        try {
            c.configure();
            bridge.within(c.nsenter);
            bridge.proxyEnvironment(c.env());
            proxies.start(c);
            c.startPbs();
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * Makes {@code 127.0.0.1:port} inside the namespace reach {@code unixSocket} (e.g. the test PostgreSQL's, whose
     * TCP port is on the host's loopback only): a {@code socat} in the namespace, stopped with it.
     */
    void forwardLoopback(int port, Path unixSocket) {
        List<String> argv = new ArrayList<>(nsenter);
        argv.addAll(List.of("socat", "TCP-LISTEN:" + port + ",bind=127.0.0.1,fork,reuseaddr", "UNIX-CONNECT:" + unixSocket));
        try {
            new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("forward-" + port + ".log").toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("socat into the PBS namespace", e);
        }
        if (!Host.await(Duration.ofSeconds(30), () -> inside(Map.of(), Duration.ofSeconds(10),
                List.of("bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + port)).exit() == 0)) {
            throw new IllegalStateException("socat does not listen on 127.0.0.1:" + port + " in the PBS namespace");
        }
    }

    private void configure() throws IOException {
        Files.writeString(conf(), String.join("\n",
                "# OpenPBS with ALPS against the alpsbridge proxy (written by the interop tests; PBS_CONF_FILE)",
                "PBS_EXEC=" + prefix,
                "PBS_HOME=" + home,
                "PBS_SERVER=" + HOST,
                "PBS_START_SERVER=1",
                "PBS_START_SCHED=1",
                "PBS_START_COMM=1",
                "PBS_START_MOM=1",
                "PBS_CORE_LIMIT=unlimited", ""));
    }

    private void startPbs() throws IOException {
        makeHome();
        Files.createDirectories(dir.resolve("jobdirs"));
        Host.run(Map.of(), Duration.ofSeconds(20), List.of("chmod", "1777", dir.resolve("jobdirs").toString())).ok();
        // what a Cray site sets in mom_priv/config: the ALPS client; output copied locally; the job's events logged
        Files.writeString(home.resolve("mom_priv/config"), String.join("\n",
                "$clienthost " + HOST,
                "$alps_client " + alpsClient,
                "$usecp *:/dev/null /dev/null",
                "# sandbox=PRIVATE jobs run here: the jobs' users (daemon, nobody, ...) have no usable home",
                "$jobdir_root " + dir.resolve("jobdirs"),
                "$logevent 0x7ff", ""));
        Host.Result start = inside(env(), Duration.ofMinutes(3), List.of(prefix.resolve("libexec/pbs_init.d").toString(), "start"));
        Files.writeString(dir.resolve("pbs_init.log"), start.out());
        start.ok();
        // the init script returns once pbs_server has forked; it answers only after reaching its datastore (seconds
        // on a loaded machine), and a qmgr before that is refused ("cannot connect to server")
        if (!Host.await(Duration.ofSeconds(120), () -> cmd("qstat", "-B").exit() == 0)) {
            List<String> log = serverLog().lines().toList();
            throw new IllegalStateException("pbs_server does not answer after pbs_init.d start; its log ends:\n"
                    + String.join("\n", log.subList(Math.max(0, log.size() - 40), log.size())));
        }
        // history keeps a finished job's state, exit status and comment for qstat -x
        qmgr("set server job_history_enable = True");
        // what pbs_habitat sets on a Cray (it looks for /proc/cray_xt): a suspended job's ncpus are released
        qmgr("set server restrict_res_to_release_on_suspend = ncpus");
        qmgr("set server scheduler_iteration = 10");
        licenseAllVnodes();
    }

    /**
     * A fresh PBS_HOME made by {@code pbs_habitat} (PBS_HOME, the datastore by initdb as postgres, workq, the mom's
     * node; a minute on a loaded machine), kept as a template in {@code interop/target/pbs-home-template} for the
     * next complexes of this run, which start from a copy of it: the same first state, not the same minute.
     */
    private void makeHome() throws IOException {
        Path template = Host.repository().resolve("interop/target/pbs-home-template");
        synchronized (PbsComplex.class) {
            if (!templateMade && Files.isDirectory(template)) {
                Host.run(Map.of(), Duration.ofMinutes(1), List.of("rm", "-rf", template.toString())).ok();
            }
            if (templateMade && Files.isDirectory(template)) {
                Host.run(Map.of(), Duration.ofMinutes(2), List.of("cp", "-a", template.toString(), home.toString())).ok();
                return;
            }
            Host.Result habitat = inside(env(), Duration.ofMinutes(5), List.of(prefix.resolve("libexec/pbs_habitat").toString()));
            Files.writeString(dir.resolve("pbs_habitat.log"), habitat.out());
            habitat.ok();
            // pbs_habitat stops the server and with it the datastore: a copy of a stopped cluster is a good one
            if (!Files.exists(home.resolve("datastore/postmaster.pid"))) {
                Host.run(Map.of(), Duration.ofMinutes(2), List.of("cp", "-a", home.toString(), template.toString())).ok();
                templateMade = true;
            }
        }
    }

    /**
     * Waits for the mom's vnodes. On the mom's first inventory the server licenses only the first compute vnode
     * (PBS's behaviour): a SIGHUP to pbs_mom makes it read the inventory again, and then every vnode is free.
     */
    private void licenseAllVnodes() throws IOException {
        int expected = computeNodes();
        if (!Host.await(Duration.ofSeconds(90), () -> vnodes().size() >= 1)) {
            throw new IllegalStateException("pbs_mom reported no compute vnode: " + cmd("pbsnodes", "-av").out() + momLog());
        }
        // a HUP that lands while the server is still sending pbs_mom its hooks (the same second as its first vnode,
        // with a fast ALPS) makes it read the inventory again and tell the server nothing: HUP again after a while
        for (int hup = 0; hup < 4 && !licensedSteadily(expected); hup++) {
            hupMom();
            Host.await(Duration.ofSeconds(30), () -> licensedVnodes() >= expected);
        }
        if (!licensedSteadily(expected)) {
            throw new IllegalStateException(expected + " free, licensed vnodes expected: " + cmd("pbsnodes", "-av").out());
        }
    }

    /**
     * Compute vnodes the server no longer licenses. pbs_mom whose INVENTORY fails (ALPS unreachable; alps.c
     * {@code inventory_to_vnodes}: "Wrong query type") reports no Cray vnodes; at its next good inventory the server
     * makes them again and, as at the first start, licenses only the first: PBS then schedules every other one never
     * ("Insufficient amount of resource: ncpus"). What a site's admin does about it is {@link #hupMom}.
     */
    long unlicensedVnodes() {
        return vnodes().values().stream().filter(b -> !b.contains("license = l")).count();
    }

    /** SIGHUP to pbs_mom: it reads the inventory again, and the server licenses every compute vnode it reports. */
    void hupMom() {
        inside(Map.of(), Duration.ofSeconds(20), List.of("kill", "-HUP", Long.toString(momPid()))).ok();
    }

    /**
     * BATCH, UP compute nodes of the emulated machine's inventory: the vnodes pbs_mom makes. Asked in BASIL 1.4, as
     * pbs_mom asks, so that a proxy caching per protocol caches nothing pbs_mom would not have made it cache.
     */
    private int computeNodes() throws IOException {
        String inventory = bridge.basil("<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.4\" method=\"QUERY\""
                + " type=\"INVENTORY\"/>\n");
        if (!inventory.contains("status=\"SUCCESS\"")) {
            inventory = bridge.inventory(); // an ALPS older than 1.4
        }
        Matcher m = Pattern.compile("<Node [^>]*role=\"BATCH\" state=\"UP\"").matcher(inventory);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** The compute vnodes ({@code <mpp_host>_<nid>}) and their attributes, from {@code pbsnodes -av}. */
    Map<String, String> vnodes() {
        Map<String, String> out = new HashMap<>();
        for (String block : cmd("pbsnodes", "-av").out().split("\n\\s*\n")) {
            String name = block.strip().lines().findFirst().orElse("").strip();
            if (block.contains("vntype = cray_compute")) {
                out.put(name, block);
            }
        }
        return out;
    }

    /**
     * Whether {@code expected} vnodes are licensed and still are a few seconds later. Right after the mom's first
     * inventory pbsnodes can list every compute vnode licensed for a moment before the server keeps only the first
     * (a CI run saw all 8, skipped the HUP, and then found 1): one look is not the server's settled answer.
     */
    private boolean licensedSteadily(int expected) {
        if (licensedVnodes() < expected) {
            return false;
        }
        try {
            Thread.sleep(3_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return licensedVnodes() >= expected;
    }

    /** Free vnodes the server has licensed ({@code license = l}): only those are scheduled. */
    private long licensedVnodes() {
        return vnodes().values().stream().filter(b -> b.contains("state = free") && b.contains("license = l")).count();
    }

    /** PBS_CONF_FILE and PBS's programs first on PATH. */
    Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("PBS_CONF_FILE", conf().toString());
        env.put("PATH", prefix.resolve("bin") + ":" + prefix.resolve("sbin") + ":/usr/sbin:/usr/bin:/sbin:/bin");
        return env;
    }

    private Host.Result inside(Map<String, String> env, Duration limit, List<String> command) {
        List<String> argv = new ArrayList<>(nsenter);
        argv.addAll(command);
        return Host.run(env, limit, argv);
    }

    /** One of PBS's commands ({@code qstat}, {@code qdel}, ...) as root, in the complex. */
    Host.Result cmd(String program, String... args) {
        List<String> argv = new ArrayList<>(List.of(prefix.resolve("bin").resolve(program).toString()));
        argv.addAll(List.of(args));
        return inside(env(), Duration.ofSeconds(120), argv);
    }

    /** One of PBS's commands as {@code user} (authenticated by the setuid pbs_iff, as on a site). */
    Host.Result as(String user, String program, String... args) {
        List<String> argv = new ArrayList<>(List.of("runuser", "-u", user, "--", prefix.resolve("bin").resolve(program).toString()));
        argv.addAll(List.of(args));
        return inside(env(), Duration.ofSeconds(120), argv);
    }

    void qmgr(String directive) {
        cmd("qmgr", "-c", directive).ok();
    }

    /**
     * Submits {@code count} jobs of a seeded mix: one of the five users, 1-4 whole vnodes, {@code sleep} 1 to
     * {@code longestSeconds} s; returns their ids ({@code N.pbshost}) in submission order.
     */
    List<String> submitMixed(int count, long seed, int longestSeconds) {
        Random random = new Random(seed);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String user = SlurmInteropTest.USERS.get(random.nextInt(SlurmInteropTest.USERS.size()));
            ids.add(submit(user, nodes(1 + random.nextInt(4)), 1 + random.nextInt(longestSeconds)));
        }
        return ids;
    }

    /**
     * Submits {@code /bin/sleep SECONDS} as {@code user} with {@code -l select=SELECT}, which names {@code arch=XT}
     * for compute vnodes (the mom's own vnode is {@code linux}); returns the job id.
     */
    String submit(String user, String select, int seconds, String... options) {
        List<String> args = new ArrayList<>(List.of("-o", "/dev/null", "-e", "/dev/null", "-W", "sandbox=PRIVATE",
                "-l", "select=" + select, "-l", "walltime=00:30:00"));
        args.addAll(List.of(options));
        args.addAll(List.of("--", "/bin/sleep", Integer.toString(seconds)));
        return as(user, "qsub", args.toArray(String[]::new)).ok().out().strip();
    }

    /** {@code select} for {@code chunks} whole XC30 compute vnodes. */
    static String nodes(int chunks) {
        return chunks + ":ncpus=16:arch=XT";
    }

    /** {@code qstat -xf} of a job: its attributes, history included. */
    String job(String id) {
        return cmd("qstat", "-xf", id).out();
    }

    /** One attribute of {@link #job}, or "" when it has none. */
    String attribute(String id, String name) {
        Matcher m = Pattern.compile("(?m)^\\s*" + Pattern.quote(name) + " = (.*(?:\\n\\t.*)*)$").matcher(job(id));
        return m.find() ? m.group(1).replace("\n\t", "").strip() : "";
    }

    /** The job's state letter: Q, R, S, E, F (finished, from history), H. */
    String state(String id) {
        return attribute(id, "job_state");
    }

    /** Jobs not yet finished. */
    List<String> queue() {
        return Host.lines(cmd("qselect", "-s", "QRSEHTW").out());
    }

    String momLog() {
        return logs("mom_logs");
    }

    String serverLog() {
        return logs("server_logs");
    }

    private String logs(String name) {
        Path logs = home.resolve(name);
        if (!Files.isDirectory(logs)) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        try (Stream<Path> files = Files.list(logs)) {
            for (Path f : files.sorted().toList()) {
                out.append(Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    Path conf() {
        return dir.resolve("pbs.conf");
    }

    Path home() {
        return home;
    }

    /** pbs_mom's pid, for signals. */
    long momPid() {
        return Host.pidFrom(home.resolve("mom_priv/mom.lock"));
    }

    /**
     * Stops PBS by its init script (mom, scheduler, server and its datastore, comm), then every process still in
     * the namespace by pid (jobs, a datastore the server left), then the namespace. The datastore's files go; the
     * logs stay.
     */
    @Override
    public void close() {
        if (Files.exists(conf()) && namespace.isAlive()) {
            try {
                Files.writeString(dir.resolve("pbs_stop.log"), inside(env(), Duration.ofMinutes(2),
                        List.of(prefix.resolve("libexec/pbs_init.d").toString(), "stop")).out());
            } catch (IOException | RuntimeException e) {
                System.out.println("pbs_init.d stop: " + e.getMessage());
            }
        }
        bridge.stopProxy();
        String ns = netns(namespace.pid());
        if (ns != null) {
            ProcessHandle.allProcesses().filter(p -> p.pid() != namespace.pid() && ns.equals(netns(p.pid())))
                    .forEach(p -> Host.stop(p.pid()));
        }
        Host.stop(namespace.pid());
        for (String bulky : List.of("datastore", "pgsql.forupgrade")) {
            Host.run(Map.of(), Duration.ofMinutes(1), List.of("rm", "-rf", home.resolve(bulky).toString()));
        }
    }

    private static String netns(long pid) {
        try {
            return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "net")).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }
}
