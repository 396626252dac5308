package org.alpsbridge.proxy.cli;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.server.Backends;
import org.alpsbridge.proxy.server.ProxyConfig;
import org.alpsbridge.proxy.server.ProxyDaemon;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code alpsbridge proxy bench}: what a scheduler pays per BASIL call through {@code bin/apbasil} and the
 * daemon, beside a bare JVM start and beside running the emulator itself as the drop-in program, all
 * interleaved in one run; then the daemon's throughput with many concurrent clients.
 */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Measures, interleaved run by run so that drift hits every row alike:",
            "  true         /bin/true: the floor of starting any process,",
            "  hello        a bare JVM running a hello-world class (java -cp DIR Hello, no options),",
            "  native       the native drop-in client (--native), one process per call, against a daemon in",
            "               this process with the emulator backend (--machine),",
            "  apbasil      bin/apbasil running the Java client (APBASIL_CLIENT=jvm), against the same daemon,",
            "  emulate      the emulator itself as the drop-in program (a JVM running 'basil emulate' on a",
            "               state directory), the way a site without the proxy would run it,",
            "for QUERY ENGINE, QUERY INVENTORY and a RESERVE, CONFIRM, RELEASE cycle (three processes).",
            "Times are wall clock from spawn to exit, JVM start included; each answer is then checked (untimed)",
            "to be a BASIL SUCCESS. Then --clients threads call the daemon in process (the client's own code path)",
            "for --seconds each with ENGINE (beside the same backend called directly) and with RESERVE+RELEASE",
            "pairs: requests per second and latency. --munge-socket adds apbasil rows with MUNGE on.",
            "Figures are for comparing rows of one run, not absolutes."},
        footer = {"", "Exit codes: 0 figures printed, 1 a measurement failed (reason on stderr), 2 usage error."})
public final class ProxyBenchCommand implements Callable<Integer> {

    private static final BasilCodec CODEC = BasilCodec.standard();
    private static final long PROCESS_LIMIT_SECONDS = 120;

    @Spec
    CommandSpec spec;

    @Option(names = "--machine", paramLabel = "SPEC", description = "Emulated machine (default: ${DEFAULT-VALUE}).")
    String machine = "xc30:2256";

    @Option(names = "--protocol", description = "BASIL version of the requests (default: ${DEFAULT-VALUE}).")
    String protocol = "1.3";

    @Option(names = "--runs", description = "Timed runs per row (default: ${DEFAULT-VALUE}).")
    int runs = 20;

    @Option(names = "--warmup", description = "Untimed runs per row first; the first apbasil one writes its CDS "
            + "archive (default: ${DEFAULT-VALUE}).")
    int warmup = 2;

    @Option(names = "--apbasil", paramLabel = "PATH",
            description = "The drop-in client (default: bin/apbasil under ALPSBRIDGE_HOME, else ./bin/apbasil).")
    Path apbasil;

    @Option(names = "--native", paramLabel = "PATH",
            description = "The native drop-in client (default: apbasil-proxy/target/c/apbasil under ALPSBRIDGE_HOME, "
                    + "else under ., else /usr/bin/apbasil when that is a native program; none found: no native rows).")
    Path nativeClient;

    @Option(names = "--emulate-jvm-options", split = " ", paramLabel = "OPTIONS",
            description = "JVM options of the 'emulate' processes, space-separated (default: none).")
    List<String> emulateJvmOptions = new ArrayList<>();

    @Option(names = "--munge-socket", paramLabel = "PATH",
            description = "Also measure with MUNGE on: a second daemon (auth=munge, this munged socket) and apbasil "
                    + "rows whose calls carry credentials (default: not measured).")
    Path mungeSocket;

    @Option(names = "--clients", description = "Concurrent clients of the throughput part (default: ${DEFAULT-VALUE}).")
    int clients = 64;

    @Option(names = "--seconds", description = "Length of each throughput part; 0 skips it (default: ${DEFAULT-VALUE}).")
    int seconds = 10;

    @Option(names = "--cached-inventory",
            description = "Instead of the rows above, the cached INVENTORY on --machine (e.g. knl:4392): the heap the "
                    + "policy's cache holds, the time to receive an INVENTORY answered from it and a reservations-only one "
                    + "(--runs), and RESERVE/RELEASE "
                    + "latency for --seconds each while nothing else runs, while clients ask INVENTORY back to back, and "
                    + "while one client stalls half-way through an INVENTORY answer; then from 4 clients at once (as pbs_mom's "
                    + "job starters reserve) with ALPS answering as the xc30-2256 latency model, alone and while the cache is "
                    + "fetched afresh.")
    boolean cachedInventory;

    @Option(names = "--fill", paramLabel = "PERCENT",
            description = "With --cached-inventory: reserve this share of the compute nodes whole first, 16 nodes a "
                    + "reservation, for a busy machine's larger inventory (default: ${DEFAULT-VALUE}).")
    int fillPercent = 0;

    /** One line of the report: wall times in milliseconds of one kind of run. */
    private record Row(String name, List<Double> millis) {
        double percentile(double p) {
            double[] sorted = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
        }
    }

    /** Wall time of the processes a step ran, spawn to exit: checking their answers is not counted. */
    private long processNanos;

    /** One timed thing to do, run once per round. */
    private interface Step {
        void run() throws Exception;
    }

    @Override
    public Integer call() throws Exception {
        if (runs < 1 || warmup < 0 || clients < 1 || seconds < 0 || fillPercent < 0 || fillPercent > 100) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--runs and --clients must be at least 1, --warmup and --seconds not negative, --fill 0 to 100");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (cachedInventory) {
            new CachedInventoryBench(machine, protocol, runs, seconds, fillPercent, out).run();
            return 0;
        }
        Path apbasilPath = apbasil != null ? apbasil : defaultApbasil();
        Path nativePath = nativeClient != null ? nativeClient : defaultNative();
        String jar = System.getProperty("java.class.path");
        Path work = Files.createTempDirectory("alpsbridge-proxy-bench-");
        String previousAuth = System.getProperty("apbasil.auth");
        System.setProperty("apbasil.auth", "none");
        ProxyConfig config = ProxyConfig.defaults().with(Map.of("listen", "127.0.0.1:0", "auth", "none",
                "backend", "emulator:" + machine));
        Backend backend = Backends.of(config.backend(), config);
        ProxyDaemon secured = null;
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(config).backend(backend).start()) {
            String address = daemon.address().text();
            Map<String, String> mungeEnv = new LinkedHashMap<>();
            if (mungeSocket != null) {
                ProxyConfig withMunge = config.with(Map.of("auth", "munge", "munge_socket", mungeSocket.toString(),
                        "allow_query", "*", "allow_reserve", "*"));
                secured = ProxyDaemon.builder().config(withMunge).backend(Backends.of(withMunge.backend(), withMunge))
                        .start();
                mungeEnv.put("APBASIL_PROXY", secured.address().text());
                mungeEnv.put("APBASIL_AUTH", "munge");
                mungeEnv.put("APBASIL_MUNGE_SOCKET", mungeSocket.toString());
            }
            List<String> jvm = List.of(javaBinary());
            List<String> hello = concat(jvm, List.of("-cp", compileHello(work).toString(), "Hello"));
            List<String> viaProxy = List.of(apbasilPath.toString());
            List<String> emulate = concat(jvm, emulateJvmOptions, List.of("-cp", jar,
                    "org.alpsbridge.emulator.cli.EmulateCommand", "--machine", machine, "--state",
                    work.resolve("alps-state").toString()));
            Map<String, String> env = new LinkedHashMap<>();
            env.put("APBASIL_PROXY", address);
            env.put("APBASIL_AUTH", "none");
            env.put("APBASIL_CONFIG", "/dev/null");
            // bin/apbasil runs the native client when it is built: the apbasil rows are the Java client's.
            env.put("APBASIL_CLIENT", "jvm");
            mungeEnv.put("APBASIL_CONFIG", "/dev/null");
            mungeEnv.put("APBASIL_CLIENT", "jvm");
            // Each kind of row gets its own class-data archive, written by its first (warm-up) call, as an
            // installation whose calls all take the same path would have.
            env.put("APBASIL_CDS_ARCHIVE", work.resolve("apbasil.jsa").toString());
            mungeEnv.put("APBASIL_CDS_ARCHIVE", work.resolve("apbasil-munge.jsa").toString());
            if (jar.endsWith(".jar") && !jar.contains(File.pathSeparator)) {
                String absolute = Path.of(jar).toAbsolutePath().toString();
                env.put("APBASIL_JAR", absolute);
                mungeEnv.put("APBASIL_JAR", absolute);
            }
            byte[] engine = CODEC.write(BasilRequest.query(protocol, "ENGINE"));
            byte[] inventory = CODEC.write(BasilRequest.query(protocol, "INVENTORY"));

            out.printf(Locale.ROOT, "proxy bench: machine %s, protocol %s, %d runs after %d warm-up, java %s, %d cpus%n",
                    machine, protocol, runs, warmup, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors());
            out.printf(Locale.ROOT, "  daemon %s (emulator backend, auth none, in this JVM); apbasil = %s (jvm); native = %s; "
                    + "emulate = %s%n", address, apbasilPath, nativePath == null ? "not found, no native rows" : nativePath,
                    String.join(" ", emulateJvmOptions));
            if (secured != null) {
                out.printf(Locale.ROOT, "  daemon %s with auth=munge (munged at %s) for the apbasil+munge rows%n",
                        secured.address().text(), mungeSocket);
            }
            out.flush();

            Map<String, Step> steps = new LinkedHashMap<>();
            steps.put("hello", () -> expect(run(hello, Map.of(), new byte[0]), "hello"));
            steps.put("true", () -> expect(run(List.of("/bin/true"), Map.of(), new byte[0]), ""));
            List<String> viaNative = nativePath == null ? null : List.of(nativePath.toString());
            if (viaNative != null) {
                steps.put("native ENGINE", () -> success(run(viaNative, env, engine)));
                steps.put("native INVENTORY", () -> success(run(viaNative, env, inventory)));
                steps.put("native RESERVE+CONFIRM+RELEASE", () -> cycle(viaNative, env, "bench-native"));
                if (secured != null) {
                    steps.put("native+munge ENGINE", () -> success(run(viaNative, mungeEnv, engine)));
                }
            }
            steps.put("apbasil ENGINE", () -> success(run(viaProxy, env, engine)));
            steps.put("emulate ENGINE", () -> success(run(emulate, Map.of(), engine)));
            steps.put("apbasil INVENTORY", () -> success(run(viaProxy, env, inventory)));
            steps.put("emulate INVENTORY", () -> success(run(emulate, Map.of(), inventory)));
            steps.put("apbasil RESERVE+CONFIRM+RELEASE", () -> cycle(viaProxy, env, "bench-apbasil"));
            steps.put("emulate RESERVE+CONFIRM+RELEASE", () -> cycle(emulate, Map.of(), "bench-emulate"));
            if (secured != null) {
                steps.put("apbasil+munge ENGINE", () -> success(run(viaProxy, mungeEnv, engine)));
                steps.put("apbasil+munge RESERVE+CONFIRM+RELEASE", () -> cycle(viaProxy, mungeEnv, "bench-munge"));
            }
            List<Row> rows = measure(steps);

            double base = rows.get(0).percentile(50);
            out.printf(Locale.ROOT, "%n%-34s %9s %9s %9s %9s %9s %12s%n", "per call (ms, wall)", "min", "p50", "p90",
                    "p99", "max", "p50/hello");
            for (Row r : rows) {
                out.printf(Locale.ROOT, "%-34s %9.2f %9.2f %9.2f %9.2f %9.2f %11.3fx%n", r.name(), r.percentile(0),
                        r.percentile(50), r.percentile(90), r.percentile(99), r.percentile(100), r.percentile(50) / base);
            }
            out.println();
            for (String what : List.of("ENGINE", "INVENTORY", "RESERVE+CONFIRM+RELEASE")) {
                Row proxied = find(rows, "apbasil " + what);
                Row direct = find(rows, "emulate " + what);
                out.printf(Locale.ROOT, "  %-24s apbasil/emulate p50 %.2fx%n", what,
                        proxied.percentile(50) / direct.percentile(50));
            }
            if (secured != null) {
                for (String what : List.of("ENGINE", "RESERVE+CONFIRM+RELEASE")) {
                    out.printf(Locale.ROOT, "  %-24s with MUNGE/without p50 %.2fx%n", what,
                            find(rows, "apbasil+munge " + what).percentile(50) / find(rows, "apbasil " + what).percentile(50));
                }
            }
            double goal = find(rows, "apbasil ENGINE").percentile(50) / base;
            out.printf(Locale.ROOT, "  goal: p50 of a small request (ENGINE) <= 1.5x hello: %.2fx, %s%n", goal,
                    goal <= 1.5 ? "met" : "NOT met");
            if (viaNative != null) {
                Row n = find(rows, "native ENGINE");
                Row floor = find(rows, "true");
                Row java = find(rows, "apbasil ENGINE");
                out.printf(Locale.ROOT, "  native ENGINE: p50 %.2f ms, p99 %.2f ms; p50 %.3fx hello, %.2fx /bin/true, "
                        + "%.3fx the Java client; p99 %.3fx hello's p99%n", n.percentile(50), n.percentile(99),
                        n.percentile(50) / base, n.percentile(50) / floor.percentile(50),
                        n.percentile(50) / java.percentile(50), n.percentile(99) / rows.get(0).percentile(99));
                double nativeGoal = n.percentile(50) / base;
                out.printf(Locale.ROOT, "  goal: native ENGINE p50 <= 0.15x hello: %.3fx, %s%n", nativeGoal,
                        nativeGoal <= 0.15 ? "met" : "NOT met");
            }
            out.flush();

            if (seconds > 0) {
                out.printf(Locale.ROOT, "%nthroughput: %d concurrent clients in this JVM for %d s each (Apbasil.call "
                        + "over loopback TCP, one connection per call)%n", clients, seconds);
                out.printf(Locale.ROOT, "%-24s %12s %9s %9s %9s   (latency per client call; a pair is one call)%n", "",
                        "requests/s", "p50 ms", "p99 ms", "max ms");
                Call direct = new Call(engine, protocol, "QUERY", "ENGINE", Caller.UNAUTHENTICATED, null);
                Throughput inProcess = throughput(out, "ENGINE, backend direct", 1, id -> backend.call(direct));
                Throughput proxied = throughput(out, "ENGINE through daemon", 1, id -> Apbasil.call(address, engine, timeout()));
                out.printf(Locale.ROOT, "  ENGINE requests per second through the daemon / calling the backend directly: %.2fx%n",
                        proxied.perSecond() / inProcess.perSecond());
                throughput(out, "RESERVE+RELEASE pairs", 2, id -> reserveRelease(address, "bench-" + id));
            }
            out.flush();
            return 0;
        } finally {
            if (secured != null) {
                secured.close();
            }
            if (previousAuth == null) {
                System.clearProperty("apbasil.auth");
            } else {
                System.setProperty("apbasil.auth", previousAuth);
            }
            deleteTree(work);
        }
    }

    /** Runs every step {@link #warmup} times untimed, then {@link #runs} rounds of all steps in turn. */
    private List<Row> measure(Map<String, Step> steps) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String name : steps.keySet()) {
            rows.add(new Row(name, new ArrayList<>()));
        }
        for (int round = -warmup; round < runs; round++) {
            int i = 0;
            for (Step step : steps.values()) {
                processNanos = 0;
                step.run();
                double ms = processNanos / 1e6;
                if (round >= 0) {
                    rows.get(i).millis().add(ms);
                }
                i++;
            }
        }
        return rows;
    }

    private interface Client {
        void call(long id) throws Exception;
    }

    /** Requests per second and latency of {@link #clients} threads calling for {@link #seconds}. */
    private record Throughput(double perSecond) {
    }

    private Throughput throughput(PrintWriter out, String name, int requestsPerCall, Client client)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<List<Double>>> results = new ArrayList<>();
        long start = System.nanoTime();
        try {
            for (int c = 0; c < clients; c++) {
                long first = (long) c << 32;
                results.add(pool.submit(() -> {
                    List<Double> ms = new ArrayList<>();
                    for (long n = first; System.nanoTime() < end; n++) {
                        long t0 = System.nanoTime();
                        client.call(n);
                        ms.add((System.nanoTime() - t0) / 1e6);
                    }
                    return ms;
                }));
            }
            List<Double> all = new ArrayList<>();
            for (Future<List<Double>> f : results) {
                all.addAll(f.get());
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            Row r = new Row(name, all);
            double perSecond = all.size() * requestsPerCall / elapsed;
            out.printf(Locale.ROOT, "%-24s %12.0f %9.2f %9.2f %9.2f%n", name, perSecond,
                    r.percentile(50), r.percentile(99), r.percentile(100));
            out.flush();
            return new Throughput(perSecond);
        } finally {
            pool.shutdownNow();
        }
    }

    private void cycle(List<String> command, Map<String, String> env, String batchId) throws Exception {
        long id = reservationId(success(run(command, env, reserveRequest(batchId))));
        success(run(command, env, CODEC.write(BasilRequest.confirm(protocol, id, 4242))));
        success(run(command, env, CODEC.write(BasilRequest.release(protocol, id))));
    }

    private void reserveRelease(String address, String batchId) throws Exception {
        long id = reservationId(success(Apbasil.call(address, reserveRequest(batchId), timeout())));
        success(Apbasil.call(address, CODEC.write(BasilRequest.release(protocol, id)), timeout()));
    }

    private byte[] reserveRequest(String batchId) throws BasilException {
        return CODEC.write(BasilRequest.reserve(protocol, "bench", batchId, null,
                List.of(ReserveParam.builder().width(1).build())));
    }

    private static Duration timeout() {
        return Duration.ofSeconds(PROCESS_LIMIT_SECONDS);
    }

    private static long reservationId(byte[] response) throws BasilException {
        return CODEC.readResponse(response).responseData().content(Reserved.class)
                .orElseThrow(() -> new IllegalStateException("no Reserved in the RESERVE answer")).reservationId();
    }

    private static byte[] success(byte[] response) throws BasilException {
        ResponseData d = CODEC.readResponse(response).responseData();
        if (!d.isSuccess()) {
            throw new IllegalStateException("a bench call failed: " + new String(response, StandardCharsets.UTF_8));
        }
        return response;
    }

    private static void expect(byte[] output, String text) {
        if (!new String(output, StandardCharsets.UTF_8).strip().equals(text)) {
            throw new IllegalStateException("expected '" + text + "', got '" + new String(output, StandardCharsets.UTF_8) + "'");
        }
    }

    /** Runs a program as slurmctld runs apbasil: request on stdin, stdin closed, stdout read to EOF. */
    private byte[] run(List<String> command, Map<String, String> env, byte[] stdin) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().putAll(env);
        long t0 = System.nanoTime();
        Process p = pb.start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin);
        }
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        try (InputStream o = p.getInputStream()) {
            o.transferTo(stdout);
        }
        if (!p.waitFor(PROCESS_LIMIT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(command.get(0) + " did not exit within " + PROCESS_LIMIT_SECONDS + " s");
        }
        processNanos += System.nanoTime() - t0;
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + p.exitValue() + ": "
                    + stdout.toString(StandardCharsets.UTF_8));
        }
        return stdout.toByteArray();
    }

    private static Path compileHello(Path work) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("the hello-world row needs a JDK (javax.tools finds no compiler in "
                    + System.getProperty("java.home") + ")");
        }
        Path dir = Files.createDirectories(work.resolve("hello"));
        Path source = Files.writeString(dir.resolve("Hello.java"),
                "public class Hello { public static void main(String[] a) { System.out.println(\"hello\"); } }\n");
        if (javac.run(null, null, null, "-d", dir.toString(), source.toString()) != 0) {
            throw new IllegalStateException("could not compile the hello-world class");
        }
        return dir;
    }

    private static Path defaultApbasil() {
        String home = System.getenv("ALPSBRIDGE_HOME");
        Path p = Path.of(home != null ? home : ".").resolve("bin").resolve("apbasil").toAbsolutePath();
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException(p + " is not an executable file; name the drop-in with --apbasil");
        }
        return p;
    }

    /** The native client of this checkout (or ALPSBRIDGE_HOME's), else an installed one; null when none. */
    private static Path defaultNative() throws IOException {
        String home = System.getenv("ALPSBRIDGE_HOME");
        for (Path p : List.of(Path.of(home != null ? home : "."), Path.of("."))) {
            Path built = p.resolve("apbasil-proxy/target/c/apbasil").toAbsolutePath();
            if (Files.isExecutable(built)) {
                return built;
            }
        }
        Path installed = Path.of("/usr/bin/apbasil");
        if (Files.isExecutable(installed)) {
            byte[] head = new byte[4];
            try (InputStream in = Files.newInputStream(installed)) {
                if (in.read(head) == 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F') {
                    return installed;
                }
            }
        }
        return null;
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static Row find(List<Row> rows, String name) {
        return rows.stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> p : parts) {
            all.addAll(p);
        }
        return all;
    }

    private static void deleteTree(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
