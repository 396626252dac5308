package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.munge.MungeDaemon;

/**
 * The bridge the real clients call, as a site runs it: a private {@code munged}; the ALPS emulator as a drop-in
 * program ({@code basil emulate --state DIR}, so the tests change its state behind everyone's back with
 * {@code basil emulate control}); {@code alpsbridge proxy serve} in its own JVM with {@code auth=munge} and the
 * emulator as its {@code exec:} backend; and the {@code apbasil} the clients run: a wrapper that sets the drop-in
 * client's settings and runs the native client ({@code apbasil-proxy/target/c/apbasil}, built here with make).
 * Everything is on loopback in a directory under {@code interop/target/}, or, when the checkout lies under a directory that is writable by others or not root's
 * (a clone in /tmp), under {@value #SECURE_BASE} with a link to it in {@code interop/target/}: pbs_mom refuses a
 * PBS_HOME or an {@code $alps_client} whose real path passes such a directory ("Security violation ... resolves
 * to /tmp", and exits 3).
 * The proxy starts with {@link #startProxy()}, once the scheduler's environment for its commands is known.
 */
final class Bridge implements AutoCloseable {

    private final Path dir;
    private final Path jar;
    private final MungeDaemon munge;
    private final String machine;
    private final int port;
    /** The second proxy of a pair ({@link #startProxyPair}): its port and process; 0 and null without one. */
    private int pairPort;
    private Process pairProxy;
    /** The {@code ha_db}/{@code ha_lease} flags of a pair's proxies; empty for a single proxy. */
    private final List<String> pairOptions = new ArrayList<>();
    /** Where operator commands ({@code stats}, {@code orphans}) go: the proxy's port, or the pair's active one. */
    private int adminPort;
    private final List<String> proxyOptions = new ArrayList<>();
    private final Map<String, String> proxyEnvironment = new HashMap<>();
    private final List<String> within = new ArrayList<>();
    private Process proxy;
    /** The daemon in front of a resident ALPS ({@link #startResidentAlps}), and its port; null and 0 without one. */
    private Process alps;
    private int alpsPort;
    /** The clients run bin/apbasil's Java client ({@link #useJavaClient()}), not the native one. */
    private boolean javaClient;

    /**
     * @param machine the emulator's machine spec, e.g. {@code xc30:16,engine=5.2.44}
     * @param proxyOptions extra {@code proxy serve} flags (ledger, orphan job source, ...)
     */
    Bridge(String name, String machine, List<String> proxyOptions) throws IOException, InterruptedException {
        this(name, machine, proxyOptions, "");
    }

    /** @param emulatorFlags more flags of the drop-in emulator, e.g. {@code --latency-profile xc30-2256} */
    Bridge(String name, String machine, List<String> proxyOptions, String emulatorFlags) throws IOException, InterruptedException {
        Path repo = Host.repository();
        this.jar = repo.resolve("cli/target/alpsbridge.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: run the tests with mvn verify (cli is packaged first)");
        }
        Path target = repo.resolve("interop/target");
        Files.createDirectories(target);
        if (securePath(target.toRealPath())) {
            this.dir = Files.createTempDirectory(target, name + "-");
        } else {
            Path base = Files.createDirectories(Path.of(SECURE_BASE));
            Files.setPosixFilePermissions(base, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            this.dir = Files.createTempDirectory(base, name + "-");
            Files.createSymbolicLink(target.resolve(dir.getFileName()), dir); // where the logs are looked for
        }
        // the jobs' users read their scripts below it (Slurm's spool) and pbs_mom checks its $alps_client's path
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        this.munge = MungeDaemon.start();
        this.machine = machine;
        this.port = Host.freePort();
        this.adminPort = port;
        this.proxyOptions.addAll(proxyOptions);
        Files.createDirectories(dir.resolve("alps"));
        Files.createDirectories(dir.resolve("capture"));
        // The drop-in's own main (no launcher) with a class-data archive: a JVM per ALPS call, kept short
        String emulate = java() + " -XX:TieredStopAtLevel=1 -Xshare:auto -cp " + jar
                + " org.alpsbridge.emulator.cli.EmulateCommand --machine " + machine + " --state " + dir.resolve("alps")
                // a confirmed job's container (Slurm's proctrack/pgid pgid) is a claim while it lives, as ALPS kept a
                // reservation until the batch job's pagg ended: the stepd's RELEASE after scancel then succeeds
                + " --paggs host"
                // users' ids from the host's password database, as ALPS takes them and as the proxy looks them up
                // (--user-ids nss): a user's first RESERVE is patched into its cache, not fetched
                + " --users host " + emulatorFlags;
        Path jsa = dir.resolve("emulator.jsa");
        Host.run(Map.of(), Duration.ofMinutes(2), List.of("sh", "-c", "echo '<BasilRequest protocol=\"1.0\" method=\"QUERY\""
                + " type=\"ENGINE\"/>' | " + emulate.replace(" -Xshare:auto", " -XX:ArchiveClassesAtExit=" + jsa) + " >/dev/null"));
        Host.script(dir.resolve("emulator"), "#!/bin/sh\n"
                + "# ALPS for the proxy: the emulator's drop-in; 'down' in its directory plays an ALPS that answers nothing\n"
                + "[ -e " + dir.resolve("alps/down") + " ] && exit 1\n"
                + "# each exchange kept in capture/ (the clients' exact requests and the answers they accepted)\n"
                + "n=" + dir.resolve("capture") + "/$(date +%s%N)-$$\n"
                + "tee $n-request.xml | " + emulate.replace(" -Xshare:auto", " -Xshare:auto -XX:SharedArchiveFile=" + jsa)
                + " | tee $n-response.xml\n");
        Host.script(dir.resolve("apkill"), "#!/bin/sh\n"
                + "# apkill -SIGNAL APID: ends the application in the emulator\n"
                + "for a; do case $a in -*) ;; *) apid=$a;; esac; done\n"
                + "exec " + java() + " -jar " + jar + " basil emulate control --state " + dir.resolve("alps") + " kill:$apid\n");
        // The native drop-in client, as a site installs it (/usr/bin/apbasil of alpsbridge-apbasil); make rebuilds it
        // only when its sources changed.
        Host.run(Map.of(), Duration.ofMinutes(5), List.of("make", "-s", "-C",
                repo.resolve("apbasil-proxy/src/main/c").toString())).ok();
        writeApbasil("127.0.0.1:" + port);
    }

    /** The clients' apbasil: the native client to {@code proxies} ({@code APBASIL_PROXY}), with MUNGE. */
    private void writeApbasil(String proxies) {
        Host.script(dir.resolve("apbasil"), "#!/bin/sh\n"
                + "# The scheduler's apbasil: the native client to the proxy, with MUNGE and the shipped retries, timeouts\n"
                + "# and backoff (a site's settings: only where the daemons are and how to sign are set here)\n"
                + "export APBASIL_PROXY=" + proxies + " APBASIL_AUTH=munge APBASIL_MUNGE_SOCKET="
                + munge.socket() + " APBASIL_CONFIG=/dev/null\n"
                + (javaClient ? "export APBASIL_CLIENT=jvm JAVA=" + java() + " APBASIL_JAR=" + jar + "\nexec "
                        + Host.repository().resolve("bin/apbasil") : "exec " + Host.repository().resolve("apbasil-proxy/target/c/apbasil"))
                + "\n");
    }

    /**
     * bin/apbasil's Java client ({@code APBASIL_CLIENT=jvm}) instead of the native one for the clients' apbasil and,
     * if started after this, the resident ALPS's ({@link #alpsApbasil()}): the policy bench's {@code -Dinterop.client=jvm}.
     */
    void useJavaClient() {
        javaClient = true;
        writeApbasil("127.0.0.1:" + port);
    }

    /**
     * A wrapper around {@code program} (the {@code emulator} for ALPS on-system, {@code apbasil} off-system) that
     * appends each call's method, query type, wall time in nanoseconds and end (epoch ns) to {@code timings}, as its
     * caller saw it, and each FAILURE answer's method and first message to {@code failures}.
     */
    Path timed(Path program) {
        Path timings = dir.resolve("timings");
        Path failures = dir.resolve("failures");
        return Host.script(dir.resolve("timed-" + program.getFileName()), "#!/bin/bash\n"
                + "# " + program.getFileName() + ", each call's method and wall time appended to " + timings + "\n"
                + "req=$(mktemp) out=$(mktemp)\n"
                + "t0=$(date +%s%N)\n"
                + "tee $req | " + program + " > $out\n"
                + "rc=$?\n"
                + "t1=$(date +%s%N)\n"
                + "m=$(grep -o 'method=\"[A-Z]*\"' $req | head -1 | cut -d'\"' -f2)\n"
                + "t=; [ \"$m\" = QUERY ] && t=$(grep -o 'type=\"[A-Z]*\"' $req | head -1 | cut -d'\"' -f2)\n"
                + "echo \"$m${t:+/$t} $((t1 - t0)) $t1\" >> " + timings + "\n"
                // the status is in the answer's first lines; an INVENTORY's 100 MB are not searched
                + "if head -c 4096 $out | grep -q 'status=\"FAILURE\"'; then\n"
                + "  echo \"$m${t:+/$t} $(head -c 4096 $out | tr -d '\\n' | grep -o '<Message[^>]*>[^<]*' | head -1 | sed 's/.*>//')\" >> "
                + failures + "\n"
                + "fi\n"
                + "cat $out; rm -f $req $out\n"
                + "exit $rc\n");
    }

    Path emulator() {
        return dir.resolve("emulator");
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Runs the proxy and every command that talks to it through this prefix from now on, e.g. {@code nsenter} into
     * the private network namespace of a PBS complex (whose clients reach the proxy on that namespace's loopback).
     */
    void within(List<String> prefix) {
        within.clear();
        within.addAll(prefix);
    }

    private List<String> inside(List<String> argv) {
        List<String> all = new ArrayList<>(within);
        all.addAll(argv);
        return all;
    }

    /** The pid of the (first) proxy's JVM, for jcmd and /proc; -1 when it is not running. */
    long proxyPid() {
        return proxy == null ? -1 : proxy.pid();
    }

    /** Starts (or restarts) the proxy daemon and waits until it answers. */
    void startProxy() throws IOException {
        proxy = launch(port, "proxy.log");
    }

    private Process launch(int at, String log) throws IOException {
        String backend = alps == null ? "exec:" + dir.resolve("emulator") : "proxy:127.0.0.1:" + alpsPort;
        List<String> argv = new ArrayList<>(List.of(java(), "-jar", jar.toString(), "proxy", "serve",
                "--listen", "127.0.0.1:" + at, "--backend", backend, "--auth", "munge",
                "--set", "munge_socket=" + munge.socket(), "--set", "allow_reserve=root",
                "--apkill", dir.resolve("apkill").toString()));
        if (pairOptions.isEmpty()) {
            argv.addAll(List.of("--set", "exchange_journal=" + dir.resolve("exchanges.journal")));
        } else {
            argv.addAll(pairOptions); // the pair's exchange memory is in ha_db
        }
        argv.addAll(proxyOptions);
        ProcessBuilder pb = new ProcessBuilder(inside(argv)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(log).toFile()));
        pb.environment().put("ALPSBRIDGE_LOG_LEVEL", "INFO");
        pb.environment().putAll(proxyEnvironment);
        Process started = pb.start();
        if (!Host.await(Duration.ofSeconds(60), () -> operator(at, "stats").exit() == 0)) {
            throw new IllegalStateException("the proxy on port " + at + " did not start: " + log(log));
        }
        return started;
    }

    /**
     * Starts two proxies instead of one (issue 37), both in front of the same emulator, sharing {@code haDb} (lease
     * and exchange memory) with {@code ha_lease=lease}; the first is the active one. The clients' {@code apbasil}
     * lists both ({@code APBASIL_PROXY=A,B}). Logs: {@code proxy.log} and {@code proxy-b.log}.
     */
    void startProxyPair(String haDb, int lease) throws IOException {
        pairPort = Host.freePort();
        pairOptions.addAll(List.of("--set", "ha_db=" + haDb, "--set", "ha_lease=" + lease));
        writeApbasil("127.0.0.1:" + port + ",127.0.0.1:" + pairPort);
        proxy = launch(port, "proxy.log");
        if (!Host.await(Duration.ofSeconds(60), () -> activePort() == port)) {
            throw new IllegalStateException("the first proxy did not take the lease: " + log());
        }
        pairProxy = launch(pairPort, "proxy-b.log");
    }

    /** The pair's ports, first proxy first. */
    List<Integer> proxyPorts() {
        return List.of(port, pairPort);
    }

    /** The port of the proxy that says it is active in {@code proxy stats}, or 0 when none does. */
    int activePort() {
        for (int p : pairPort == 0 ? List.of(port) : proxyPorts()) {
            Host.Result r = operator(p, "stats");
            if (r.exit() == 0 && r.out().startsWith("availability: active")) {
                return p;
            }
        }
        return 0;
    }

    /** {@code kill -9} of the pair's proxy on {@code at}: no clean stop, its lease neither renewed nor released. */
    void killProxy(int at) {
        Process p = at == port ? proxy : pairProxy;
        p.destroyForcibly(); // SIGKILL
        try {
            p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts the pair's proxy on {@code at} again (it joins as the standby) and waits until it answers. */
    void restartProxy(int at) throws IOException {
        if (at == port) {
            proxy = launch(port, "proxy.log");
        } else {
            pairProxy = launch(pairPort, "proxy-b.log");
        }
    }

    /**
     * One BASIL request ({@code request}, a file) straight to the proxy on {@code at} with the native client, no
     * retries and no other proxy, where the clients run (inside the bridge's namespace, if any).
     */
    Host.Result directly(int at, Path request) {
        String env = "APBASIL_PROXY=127.0.0.1:" + at + " APBASIL_AUTH=munge APBASIL_MUNGE_SOCKET=" + munge.socket()
                + " APBASIL_RETRIES=0 APBASIL_CONFIG=/dev/null ";
        return Host.run(Map.of(), Duration.ofSeconds(30), inside(List.of("sh", "-c", env + "exec "
                + Host.repository().resolve("apbasil-proxy/target/c/apbasil") + " < " + request)));
    }

    /** Sends the operator commands ({@link #stats}, {@link #orphans}, ...) to the proxy on {@code at} from now on. */
    void operateOn(int at) {
        adminPort = at;
    }

    /**
     * Starts a resident ALPS before the proxy: a second daemon, policy off, in front of the in-process emulator of
     * this machine with {@code settings} ({@code emulator_latency_profile=xc30-2256}, {@code emulator_paggs=host},
     * ...). The proxy then asks it from its own process ({@code proxy:} backend), and {@link #alpsApbasil()} is the
     * apbasil a scheduler on the Cray itself runs against it: each ALPS call costs the same on- and off-system (the
     * model's latency, no process start of its own), so the two sides differ by what the bridge adds. The drop-in's
     * state directory (control, capture) is not this ALPS's.
     */
    void startResidentAlps(List<String> settings) throws IOException {
        alpsPort = Host.freePort();
        List<String> argv = new ArrayList<>(List.of(java(), "-jar", jar.toString(), "proxy", "serve",
                "--listen", "127.0.0.1:" + alpsPort, "--backend", "emulator:" + machine, "--auth", "munge", "--policy", "off",
                "--set", "munge_socket=" + munge.socket(), "--set", "allow_reserve=root", "--set", "emulator_users=host"));
        for (String kv : settings) {
            argv.addAll(List.of("--set", kv));
        }
        alps = new ProcessBuilder(inside(argv)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("alps.log").toFile())).start();
        proxyEnvironment.putAll(Map.of("APBASIL_AUTH", "munge", "APBASIL_MUNGE_SOCKET", munge.socket().toString()));
        Host.script(dir.resolve("apbasil-alps"), "#!/bin/sh\n"
                + "# The apbasil of a scheduler on the Cray: bin/apbasil straight to the resident ALPS\n"
                + "export APBASIL_PROXY=127.0.0.1:" + alpsPort + " APBASIL_AUTH=munge APBASIL_MUNGE_SOCKET="
                + munge.socket() + " JAVA=" + java() + " APBASIL_JAR=" + jar + (javaClient ? " APBASIL_CLIENT=jvm" : "") + "\n"
                + "exec " + Host.repository().resolve("bin/apbasil") + "\n");
        if (!Host.await(Duration.ofSeconds(60), () -> alpsStats().exit() == 0)) {
            throw new IllegalStateException("the resident ALPS did not start: " + dir.resolve("alps.log"));
        }
    }

    Path alpsApbasil() {
        return dir.resolve("apbasil-alps");
    }

    /** {@code proxy stats} of the resident ALPS: its requests are the calls that reached ALPS. */
    Host.Result alpsStats(String... args) {
        List<String> argv = new ArrayList<>(List.of(java(), "-jar", jar.toString(), "proxy", "stats",
                "--connect", "127.0.0.1:" + alpsPort, "--timeout", "120"));
        argv.addAll(List.of(args));
        return Host.run(clientEnvironment(), Duration.ofSeconds(180), inside(argv));
    }

    /** More {@code proxy serve} flags, for the next start. */
    void proxyOptions(List<String> more) {
        proxyOptions.addAll(more);
    }

    /** Environment for the proxy's own commands (squeue/qstat of the orphan watch and the ledger); before the start. */
    void proxyEnvironment(Map<String, String> env) {
        proxyEnvironment.putAll(env);
    }

    void stopProxy() {
        if (proxy != null) {
            Host.stop(proxy.pid());
            proxy = null;
        }
        if (pairProxy != null) {
            Host.stop(pairProxy.pid());
            pairProxy = null;
        }
    }

    /** {@code alpsbridge proxy stats [args]} against the daemon, with MUNGE. */
    Host.Result stats(String... args) {
        return operator("stats", args);
    }

    /** {@code alpsbridge proxy orphans [args]} against the daemon, with MUNGE. */
    Host.Result orphans(String... args) {
        return operator("orphans", args);
    }

    /** {@code alpsbridge proxy interrupted [args]}: the exchanges the pair found interrupted. */
    Host.Result interrupted(String... args) {
        return operator("interrupted", args);
    }

    private Host.Result operator(String command, String... args) {
        return operator(adminPort, command, args);
    }

    private Host.Result operator(int at, String command, String... args) {
        // orphans --refresh fetches a full inventory: a drop-in JVM or two, slow on a loaded machine
        List<String> argv = new ArrayList<>(List.of(java(), "-jar", jar.toString(), "proxy", command,
                "--connect", "127.0.0.1:" + at, "--timeout", "120"));
        argv.addAll(List.of(args));
        return Host.run(clientEnvironment(), Duration.ofSeconds(180), inside(argv));
    }

    /** How many calls of a method ({@code RESERVE}, {@code CONFIRM}, ...) clients made, from {@code proxy stats --json}. */
    long requests(String method) {
        String json = stats("--json").ok().out();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + java.util.regex.Pattern.quote(method)
                + "\"\\s*:\\s*\\{[^}]*?\"requests\"\\s*:\\s*(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** {@code alpsbridge ARGS} (e.g. ledger commands), with the drop-in client's settings. */
    Host.Result alpsbridge(String... args) {
        List<String> argv = new ArrayList<>(List.of(java(), "-jar", jar.toString()));
        argv.addAll(List.of(args));
        return Host.run(clientEnvironment(), Duration.ofSeconds(120), argv);
    }

    /** {@code basil emulate control} actions on the emulator's state; returns what they print. */
    String control(String... actions) {
        List<String> argv = new ArrayList<>(List.of(java(), "-jar", jar.toString(), "basil", "emulate", "control",
                "--machine", machine, "--state", dir.resolve("alps").toString()));
        argv.addAll(List.of(actions));
        return Host.run(Map.of(), Duration.ofSeconds(60), argv).ok().out();
    }

    /** One BASIL request through the clients' {@code apbasil} (proxy, MUNGE, emulator); the answer's text. */
    String basil(String request) throws IOException {
        return basil(apbasil(), request);
    }

    /** One BASIL request through {@code client} (e.g. {@link #alpsApbasil()}, past the proxy), where the clients run. */
    String basil(Path client, String request) throws IOException {
        Path file = Files.createTempFile(dir, "request", ".xml");
        Files.writeString(file, request);
        return run(Duration.ofSeconds(120), List.of("sh", "-c", client + " < " + file)).ok().out();
    }

    /** A command where the clients run (inside the bridge's namespace, if any), e.g. an {@code apbasil}. */
    Host.Result run(Duration limit, List<String> command) {
        return Host.run(Map.of(), limit, inside(command));
    }

    /** The emulated machine's inventory in BASIL 1.3, or 1.2 from an ALPS of engine 5.0 (which knows no 1.3). */
    String inventory() throws IOException {
        String answer = "";
        for (String protocol : List.of("1.3", "1.2")) {
            answer = basil("<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"" + protocol
                    + "\" method=\"QUERY\" type=\"INVENTORY\"/>\n");
            if (answer.contains("status=\"SUCCESS\"")) {
                return answer;
            }
        }
        return answer;
    }

    /**
     * The exchanges of one method that reached the emulator, oldest first: each the request, a blank line and the
     * answer, from {@code capture/}.
     */
    List<String> captured(String method) {
        try (java.util.stream.Stream<Path> files = Files.list(dir.resolve("capture"))) {
            List<String> out = new ArrayList<>();
            for (Path request : files.filter(f -> f.toString().endsWith("-request.xml")).sorted().toList()) {
                String text = Files.readString(request);
                if (text.contains("method=\"" + method + "\"")) {
                    Path response = Path.of(request.toString().replace("-request.xml", "-response.xml"));
                    out.add(text + "\n" + (Files.exists(response) ? Files.readString(response) : ""));
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The reservation ids ALPS holds now, from the emulator's state ("" when none). */
    String alpsReservations() {
        return control("show").lines().filter(l -> l.startsWith("reservations"))
                .map(l -> l.substring("reservations".length()).strip()).findFirst().orElse("");
    }

    /** The successful RESERVE exchange of a Slurm job (its batch_id), request and answer. */
    String reserveOf(String job) {
        return captured("RESERVE").stream().filter(x -> x.contains("batch_id=\"" + job + "\"")
                && x.contains("status=\"SUCCESS\"")).findFirst().orElse("no RESERVE of job " + job);
    }

    /** The ALPS reservation id of a job, from its RESERVE answer. */
    String reservationOf(String job) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<Reserved reservation_id=\"(\\d+)\"").matcher(reserveOf(job));
        if (!m.find()) {
            throw new AssertionError("no reservation for job " + job);
        }
        return m.group(1);
    }

    /** The RELEASE exchanges of one reservation that reached ALPS. */
    List<String> releasesOf(String resId) {
        return captured("RELEASE").stream().filter(x -> x.contains("reservation_id=\"" + resId + "\"")).toList();
    }

    /** Makes ALPS answer nothing (the emulator's program fails) until {@link #alpsUp()}. */
    void alpsDown() throws IOException {
        Files.writeString(dir.resolve("alps/down"), "down\n");
    }

    void alpsUp() throws IOException {
        Files.deleteIfExists(dir.resolve("alps/down"));
    }

    Map<String, String> clientEnvironment() {
        return Map.of("APBASIL_AUTH", "munge", "APBASIL_MUNGE_SOCKET", munge.socket().toString(),
                "APBASIL_PROXY", "127.0.0.1:" + port);
    }

    Path apbasil() {
        return dir.resolve("apbasil");
    }

    Path apkill() {
        return dir.resolve("apkill");
    }

    /** Where the scenarios' directories go when the checkout's own path is one pbs_mom would refuse. */
    static final String SECURE_BASE = "/var/lib/alpsbridge-interop";

    /** Whether {@code dir} and every directory above it are root's and writable by no one else (pbs_mom's rule). */
    static boolean securePath(Path dir) throws IOException {
        for (Path d = dir; d != null; d = d.getParent()) {
            java.nio.file.attribute.PosixFileAttributes a = Files.readAttributes(d,
                    java.nio.file.attribute.PosixFileAttributes.class);
            java.util.Set<java.nio.file.attribute.PosixFilePermission> p = a.permissions();
            if (!a.owner().getName().equals("root")
                    || p.contains(java.nio.file.attribute.PosixFilePermission.GROUP_WRITE)
                    || p.contains(java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE)) {
                return false;
            }
        }
        return true;
    }

    Path dir() {
        return dir;
    }

    Path mungeSocket() {
        return munge.socket();
    }

    String machine() {
        return machine;
    }

    /**
     * The proxy's ledger ({@code ledger}, a --db URL) charged project {@code ops} twice and settled both at RELEASE:
     * job {@code byAccount} to the account the scheduler knows ({@code accountSource}: squeue or qstat), job
     * {@code byGroup} to the project of user daemon's group 1. Prints the balance.
     */
    void assertOpsChargedAndSettled(String ledger, String byAccount, String byGroup, String accountSource) {
        String balance = alpsbridge("ledger", "--db", ledger, "balance", "ops").ok().out();
        System.out.println("ledger balance after the jobs:\n" + balance);
        String holds = alpsbridge("ledger", "--db", ledger, "holds").ok().out();
        assertTrue(Host.lines(holds).stream().noneMatch(l -> l.contains("ops")),
                "settled at RELEASE: " + holds);
        assertTrue(log().contains("job " + byAccount
                + " names no account_name: charged to ops, its account in " + accountSource), log());
        assertTrue(log().contains("job " + byGroup
                + " names no account_name: charged to project ops of user daemon's group 1"), log());
    }

    String log() {
        return log("proxy.log");
    }

    String log(String name) {
        try {
            return Files.readString(dir.resolve(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        stopProxy();
        if (alps != null) {
            Host.stop(alps.pid());
            alps = null;
        }
        munge.close();
    }
}
