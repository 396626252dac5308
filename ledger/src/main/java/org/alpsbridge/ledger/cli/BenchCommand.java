package org.alpsbridge.ledger.cli;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ledger bench}: durable charge events per second (each RESERVE and each RELEASE is one
 * acknowledged, committed event) with N clients, on SQLite and optionally PostgreSQL, with pgbench's
 * simple-update TPS ({@code pgbench -n -N}) on the same server in the same run for scale.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure durable charge events per second (RESERVE + RELEASE, each committed before it is",
                "acknowledged) with --clients threads: each client charges its own project ('spread'), then all",
                "charge one allocation ('hot'), with the events each SQLite commit carried; then an fsync probe",
                "(the disk's flush rate, which bounds SQLite's group commits). With --postgresql, the same on",
                "PostgreSQL, with pgbench -n -N (simple update) with the same clients on the same server run before",
                "and after them: each ratio divides by the mean of the two pgbench runs around it, so that a server",
                "whose speed drifts during the bench (a shared machine) skews it less. --rounds repeats the runs,",
                "each round followed by pgbench again, and prints each round's ratio and their median.",
                "--clients 16,64 repeats all of it for each number of clients and prints the ratios of each.",
                "The PostgreSQL database must be a scratch one: the bench adds projects and pgbench tables.",
                "Its ledger takes pg_pool= and the other store settings of the ledger settings file, as every",
                "ledger command does (env ALPSBRIDGE_LEDGER_CONFIG names a file of the settings to try)."})
final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--sqlite", paramLabel = "FILE", description = "SQLite file to bench in (default: a temp file, removed after).")
    Path sqlite;
    @Option(names = "--postgresql", paramLabel = "URL", description = "Scratch PostgreSQL database, jdbc:postgresql://HOST:PORT/DB?user=U.")
    String postgresql;
    @Option(names = "--clients", defaultValue = "16", split = ",", paramLabel = "N[,N...]",
            description = "Concurrent clients; a list runs each in turn (default ${DEFAULT-VALUE}).")
    List<Integer> clientCounts;
    @Option(names = "--postgresql-only", description = "With --postgresql: skip the SQLite runs and the fsync probe.")
    boolean postgresqlOnly;
    @Option(names = "--shapes", defaultValue = "spread,hot", split = ",", paramLabel = "SHAPE[,SHAPE]",
            description = "Which runs: spread (each client its own project), hot (all one allocation); default ${DEFAULT-VALUE}.")
    List<Shape> shapes;

    enum Shape { spread, hot }
    /** The clients of the run in progress. */
    private int clients;
    @Option(names = "--seconds", defaultValue = "20", description = "Measured seconds per run (default ${DEFAULT-VALUE}).")
    int seconds;
    @Option(names = "--warmup", defaultValue = "5", description = {"Unmeasured seconds first (default ${DEFAULT-VALUE}),",
            "then on until the JIT compiler has settled (3 s in a row each under 50 ms of compiling; at most 60 s more)."})
    int warmup;
    @Option(names = "--pgbench", paramLabel = "PATH", description = "pgbench binary (default: found under /usr/lib/postgresql or PATH).")
    Path pgbench;
    @Option(names = "--pgbench-scale", defaultValue = "10", description = "pgbench -i -s (default ${DEFAULT-VALUE}).")
    int scale;
    @Option(names = "--rounds", defaultValue = "1", description = {"Rounds of runs per number of clients, each"
            + " followed by pgbench (default ${DEFAULT-VALUE}); with several, the median ratio is printed too."})
    int rounds;
    /** pgbench's tables are initialised (-i) once, before its first run. */
    private boolean pgbenchReady;

    static final Instant T = Instant.parse("2026-03-01T00:00:00Z");

    @Override
    public Integer call() throws Exception {
        var out = spec.commandLine().getOut();
        if (clientCounts.stream().anyMatch(n -> n < 1) || seconds < 1 || warmup < 0 || rounds < 1) {
            throw new LedgerException("--clients, --seconds and --rounds must be positive");
        }
        if (postgresqlOnly && postgresql == null) {
            throw new LedgerException("--postgresql-only needs --postgresql URL");
        }
        Map<String, Double> figures = new java.util.LinkedHashMap<>();
        /* each ratio of PostgreSQL to pgbench, by "clients shape", one per round */
        Map<String, List<Double>> ratios = new java.util.LinkedHashMap<>();
        Path temp = null;
        String sqliteUrl;
        if (sqlite == null) {
            temp = Files.createTempDirectory("alpsbridge-bench");
            sqliteUrl = "sqlite:" + temp.resolve("bench.db");
        } else {
            sqliteUrl = "sqlite:" + sqlite;
        }
        Path sqliteDir = (sqlite == null ? temp.resolve("bench.db") : sqlite).toAbsolutePath().getParent();
        try {
            for (int n : clientCounts) {
                clients = n;
                double pgbenchBefore = Double.NaN;
                if (postgresql != null) {
                    pgbenchBefore = pgbench(postgresql);
                    figures.put(n + " pgbench -N tps" + (rounds > 1 ? " 0" : " before"), pgbenchBefore);
                }
                for (int round = 1; round <= rounds; round++) {
                    String suffix = rounds > 1 ? " " + round : "";
                    Map<Shape, Double> rates = new java.util.EnumMap<>(Shape.class);
                    for (Shape shape : shapes) {
                        if (!postgresqlOnly) {
                            figures.put(n + " sqlite " + shape + suffix, run(sqliteUrl, shape == Shape.hot));
                        }
                        if (postgresql != null) {
                            rates.put(shape, run(postgresql, shape == Shape.hot));
                            figures.put(n + " postgresql " + shape + suffix, rates.get(shape));
                        }
                    }
                    if (postgresql != null) {
                        double pgbenchAfter = pgbench(postgresql);
                        figures.put(n + " pgbench -N tps" + (rounds > 1 ? suffix : " after"), pgbenchAfter);
                        double around = (pgbenchBefore + pgbenchAfter) / 2;
                        rates.forEach((shape, rate) -> ratios.computeIfAbsent(n + " " + shape, k -> new ArrayList<>())
                                .add(rate / around));
                        pgbenchBefore = pgbenchAfter;
                    }
                }
            }
            if (!postgresqlOnly) {
                figures.put("fsync probe", fsyncsPerSecond(sqliteDir, Math.min(seconds, 5)));
            }
        } finally {
            if (temp != null) {
                try (Stream<Path> files = Files.list(temp)) {
                    for (Path f : files.toList()) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(temp);
            }
        }
        out.printf("%n%d s measured after at least %d s warm-up (each run's line says how long); the number first is the clients%n", seconds, warmup);
        figures.forEach((k, v) -> out.printf("%-24s %10.0f /s%n", k, v));
        for (int n : clientCounts) {
            Double fsync = figures.get("fsync probe");
            if (fsync != null) {
                out.printf("SQLite commits once per group of waiting events: with %d clients its ceiling is about %d x"
                        + " the fsync probe = %.0f /s%n", n, n, n * fsync);
            }
            if (postgresql != null) {
                StringBuilder line = new StringBuilder();
                for (Shape shape : shapes) {
                    List<Double> each = ratios.get(n + " " + shape);
                    line.append(line.isEmpty() ? "" : ", ").append(String.format("%s / pgbench = %.2f", shape,
                            median(each)));
                    if (each.size() > 1) {
                        line.append(each.stream().map(r -> String.format("%.2f", r))
                                .collect(java.util.stream.Collectors.joining(" ", " (median of ", ")")));
                    }
                }
                out.printf("%d clients: ratio postgresql %s; pgbench as the mean of its runs before and after%n", n,
                        line);
            }
        }
        out.flush();
        return 0;
    }

    /** Events per second: each client loops RESERVE then RELEASE on fresh reservation ids. */
    private double run(String url, boolean hot) throws Exception {
        var out = spec.commandLine().getOut();
        String tag = Long.toString(System.nanoTime(), 36);
        try (Ledger ledger = LedgerCommand.open(url, true)) {
            int projects = hot ? 1 : clients;
            for (int p = 0; p < projects; p++) {
                String name = "bench-" + tag + "-" + p;
                ledger.addProject(name, Math.abs((tag + p).hashCode() % 1_000_000_000), null);
                ledger.grant(name, Resource.CPU, Ledger.MAX_MINUTES, T.minusSeconds(86_400), T.plusSeconds(86_400L * 365),
                        "bench", null);
            }
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong events = new AtomicLong();
            AtomicLong failures = new AtomicLong();
            CountDownLatch done = new CountDownLatch(clients);
            for (int c = 0; c < clients; c++) {
                int client = c;
                String project = "bench-" + tag + "-" + (hot ? 0 : c);
                Thread t = new Thread(() -> {
                    long id = (long) client << 40;
                    try {
                        while (!stop.get()) {
                            id++;
                            Outcome r = ledger.reserve(new ReserveRequest(tag, "b" + id, id, null, project, "u", null,
                                    Resource.CPU, 2, org.alpsbridge.ledger.NodeShape.cores(32), 3_600, T));
                            Outcome l = ledger.release(ReleaseRequest.of(id, 600, T.plusSeconds(600)).withCluster(tag));
                            if (!r.ok() || !l.ok()) {
                                failures.incrementAndGet();
                            }
                            if (measuring.get()) {
                                events.addAndGet(2);
                            }
                        }
                    } catch (RuntimeException e) {
                        failures.incrementAndGet();
                        spec.commandLine().getErr().println("bench client " + client + ": " + e.getMessage());
                    } finally {
                        done.countDown();
                    }
                }, "bench-" + c);
                t.setDaemon(true);
                t.start();
            }
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
            double warmed = warmup + jitSettled();
            long jitStart = jitMillis();
            measuring.set(true);
            long start = System.nanoTime();
            long cpuStart = processCpuNanos();
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
            measuring.set(false);
            double elapsed = (System.nanoTime() - start) / 1e9;
            double cpuPerEvent = (processCpuNanos() - cpuStart) / 1e3 / Math.max(1, events.get());
            long jitDuring = jitMillis() - jitStart;
            stop.set(true);
            done.await(2, TimeUnit.MINUTES);
            double rate = events.get() / elapsed;
            double perCommit = ledger instanceof org.alpsbridge.ledger.store.JdbcLedger j ? j.eventsPerCommit()
                    : Double.NaN;
            out.printf("%-11s %-6s %3d clients %8.0f events/s (%d events, %d failures%s; this JVM's CPU %.0f us per"
                    + " event, warmed up %.0f s, JIT compiling %d ms while measured)%n",
                    url.startsWith("sqlite") ? "sqlite" : "postgresql", hot ? "hot" : "spread", clients, rate,
                    events.get(), failures.get(), Double.isNaN(perCommit) ? ""
                    : String.format(", %.1f events per commit", perCommit), cpuPerEvent, warmed, jitDuring);
            out.flush();
            if (failures.get() > 0) {
                throw new LedgerException(failures.get() + " bench events failed");
            }
            return rate;
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int m = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(m) : (sorted.get(m - 1) + sorted.get(m)) / 2;
    }

    /**
     * Waits, after the warm-up seconds, until the JIT compiler has settled: {@link #JIT_QUIET_S} seconds in a
     * row each with less than {@link #JIT_SETTLED_MS_PER_S} of compiling, at most {@link #JIT_WAIT_S} s. A
     * cold JVM compiles on the same 2 cores the database server needs, which a long-running daemon does only
     * once; the figures are of the steady state. Returns the seconds waited.
     */
    private static int jitSettled() throws InterruptedException {
        int waited = 0;
        int quiet = 0;
        for (long before = jitMillis(); waited < JIT_WAIT_S && quiet < JIT_QUIET_S; waited++) {
            Thread.sleep(1_000);
            long now = jitMillis();
            quiet = now - before < JIT_SETTLED_MS_PER_S ? quiet + 1 : 0;
            before = now;
        }
        return waited;
    }

    /** Compiling in one second below which it counts as quiet, in ms (elapsed, summed over compiler threads). */
    static final long JIT_SETTLED_MS_PER_S = 50;
    /** Quiet seconds in a row that count as settled. */
    static final int JIT_QUIET_S = 3;
    /** Longest wait for the JIT to settle after the warm-up, in s. */
    static final int JIT_WAIT_S = 60;

    private static long jitMillis() {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /** CPU time of this whole JVM (the clients and the ledger), to tell it from the database server's share. */
    private static long processCpuNanos() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : 0;
    }

    /**
     * Durable 4 KiB appends per second (write, then fdatasync) in {@code dir}, one thread: the disk's
     * flush rate, which bounds the group commits of SQLite's single writer.
     */
    private double fsyncsPerSecond(Path dir, int seconds) throws IOException {
        Path probe = Files.createTempFile(dir, "fsync", ".probe");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(probe,
                java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer block = java.nio.ByteBuffer.allocate(4096);
            long n = 0;
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < end) {
                block.clear();
                ch.write(block);
                ch.force(false);
                n++;
            }
            double rate = n / ((System.nanoTime() - start) / 1e9);
            spec.commandLine().getOut().printf("%-18s %8.0f flushes/s (4 KiB append + fdatasync, 1 thread, %s)%n",
                    "fsync probe", rate, dir);
            return rate;
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    /** pgbench's simple-update TPS on the same server: -i -s SCALE, then -n -N -c CLIENTS -j 2 -T SECONDS. */
    private double pgbench(String url) throws IOException, InterruptedException {
        URI uri = URI.create(url.replaceFirst("^jdbc:", ""));
        Map<String, String> q = new HashMap<>();
        if (uri.getQuery() != null) {
            for (String kv : uri.getQuery().split("&")) {
                String[] p = kv.split("=", 2);
                q.put(p[0], p.length > 1 ? p[1] : "");
            }
        }
        String db = uri.getPath().substring(1);
        List<String> conn = new ArrayList<>(List.of("-h", uri.getHost(), "-p", Integer.toString(uri.getPort() < 0 ? 5432
                : uri.getPort())));
        if (q.containsKey("user")) {
            conn.addAll(List.of("-U", q.get("user")));
        }
        Map<String, String> env = new HashMap<>();
        if (q.containsKey("password")) {
            env.put("PGPASSWORD", q.get("password"));
        }
        String bin = pgbench != null ? pgbench.toString() : findPgbench();
        if (!pgbenchReady) {
            List<String> init = new ArrayList<>(List.of(bin, "-q", "-i", "-s", Integer.toString(scale)));
            init.addAll(conn);
            init.add(db);
            exec(init, env);
            pgbenchReady = true;
        }
        List<String> run = new ArrayList<>(List.of(bin, "-n", "-N", "-c", Integer.toString(clients), "-j", "2", "-T",
                Integer.toString(seconds)));
        run.addAll(conn);
        run.add(db);
        String output = exec(run, env);
        Matcher m = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)").matcher(output);
        if (!m.find()) {
            throw new LedgerException("cannot read pgbench's tps from: " + output);
        }
        double tps = Double.parseDouble(m.group(1));
        spec.commandLine().getOut().printf("%-18s %8.0f tps (pgbench -n -N -c %d -j 2 -T %d, scale %d)%n", "pgbench",
                tps, clients, seconds, scale);
        return tps;
    }

    private static String findPgbench() throws IOException {
        Path lib = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(lib)) {
            try (Stream<Path> versions = Files.list(lib)) {
                var found = versions.map(v -> v.resolve("bin/pgbench")).filter(Files::isExecutable).sorted().toList();
                if (!found.isEmpty()) {
                    return found.get(found.size() - 1).toString();
                }
            }
        }
        return "pgbench";
    }

    private static String exec(List<String> cmd, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new LedgerException(String.join(" ", cmd) + " failed: " + out.strip());
        }
        return out;
    }
}
