package org.alpsbridge.basil.cli;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.SyntheticInventory;
import org.alpsbridge.measure.HeapProbe;
import org.alpsbridge.measure.ProcessCpu;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code alpsbridge basil bench}: decoding speed and heap of a large QUERY(INVENTORY) response, three ways in
 * this JVM and once with expat's {@code xmlwf}, and the speed of writing it back from its views (the proxy's cached
 * answer), side by side in one run, with the ratios the issue sets as goals.
 */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Decodes INVENTORY responses from files and prints, per pass, bytes, time per document (median, minimum",
            "and the first read in this JVM), MB/s (10^6 bytes) and heap, then the streaming view's speed relative to",
            "raw woodstox round by round, then speed ratios against expat's xmlwf:",
            "  full model      BasilCodec.readResponse: the whole JAXB document tree",
            "  streaming view  InventoryReader: one version-neutral NodeView / ReservationView at a time",
            "  raw woodstox    the codec's hardened StAX reader pulling every event and attribute value (the floor)",
            "  cached encoder  the proxy's cached answer: the document's views (read once) written back by InventoryWriter",
            "                  (its MB/s count the file's bytes; the written document has the same elements)",
            "  xmlwf           expat's well-formedness checker on the same file (a process: start-up included)",
            "Documents are generated (never committed) or given with --file. Rounds are interleaved (one sample of each",
            "pass per round, in reverse order every other round) so machine noise spreads evenly, each sample after a",
            "full collection so no pass pays for another's garbage. A sample in this JVM repeats the document until it",
            "takes about --batch-ms of CPU (a 48-KB capture reads in well under a millisecond), in slices of about",
            "20 ms that alternate with the other passes' slices; times are per document read.",
            "CPU time is the whole process's (collector and compiler threads too; xmlwf's from bash's time).",
            "The streaming view's speed relative to raw woodstox is taken in each round (the two samples ran moments",
            "apart, so a busy machine slows both), by the reading thread's CPU time, and its median over the rounds",
            "is judged against the goal; the process's CPU time and wall-clock time are printed beside it.",
            "'alloc MB' = bytes allocated per read; 'reads' = reads per sample; 'live MB' = peak live heap, from an",
            "extra read of each pass: the most heap in use after any collection, the result still held (a streaming",
            "pass holds one node).",
            "The passes in this JVM must agree on nodes, processors and reservations, or the bench fails."},
        footer = {"", "Example: alpsbridge basil bench --documents xc30:2256:300,knl:9688 --runs 5",
                "", "Exit codes: 0 figures printed, 1 a pass failed or passes disagree, 2 usage error."})
public final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--documents", split = ",", paramLabel = "KIND:NODES[:RESERVATIONS]",
            description = "Generated inventories: xc30 (2 x 8 x 2) or knl (1 x 68 x 4), e.g. xc30:2256:300;"
                    + " 'none' for only --file (default: ${DEFAULT-VALUE}).")
    List<String> documents = List.of("xc30:2256:300", "knl:9688");

    @Option(names = "--file", paramLabel = "FILE", description = "An inventory response file to measure as well (repeatable).")
    List<Path> files = new ArrayList<>();

    @Option(names = "--protocol", description = "BASIL version of the generated documents (default: ${DEFAULT-VALUE}).")
    String protocol = "1.3";

    @Option(names = "--warmup", description = "Untimed rounds of one read per pass first (default: ${DEFAULT-VALUE}).")
    int warmup = 2;

    @Option(names = "--warmup-mb", paramLabel = "MB",
            description = "Then untimed samples until each pass has read this many MB, so the compiler has settled on"
                    + " small documents too (default: ${DEFAULT-VALUE}).")
    int warmupMb = 100;

    @Option(names = "--runs", description = "Timed rounds, one sample of each pass per round (default: ${DEFAULT-VALUE}).")
    int runs = 7;

    @Option(names = "--batch-ms", paramLabel = "MS",
            description = "A timed sample in this JVM repeats the document until it takes about this much CPU time,"
                    + " so small documents are timed over many reads (default: ${DEFAULT-VALUE}).")
    int batchMs = 100;

    @Option(names = "--xmlwf", paramLabel = "PROGRAM",
            description = "expat's xmlwf; when it cannot be found its figures are left out (default: ${DEFAULT-VALUE}).")
    String xmlwf = "xmlwf";

    @Option(names = "--dir", paramLabel = "DIR",
            description = "Keep the generated documents here (default: a temporary directory, deleted afterwards).")
    Path dir;

    private static final double MB = 1e6;

    /** A sample of many reads is taken in up to this many slices, interleaved with the other passes' slices. */
    private static final int SLICES = 5;

    /** Warm-up samples per pass at most, whatever --warmup-mb asks. */
    private static final int MAX_WARMUP_SAMPLES = 200;

    /** Width of the document column: the longest document name. */
    private int nameWidth = 16;

    private static final String XMLWF = "xmlwf";
    private static final String ENCODER = "cached encoder";

    /**
     * A sample of a pass: wall-clock and CPU milliseconds, the reading thread's own CPU milliseconds (0 for xmlwf) and
     * bytes allocated in this JVM, each per document read, and what the last read saw (null for xmlwf).
     */
    private record Sample(double wallMs, double cpuMs, double threadCpuMs, long allocated, DecodePasses.Counts counts) {
    }

    /** Reads a file {@code times} times in a row (xmlwf: once, whatever asked) and says how long each took. */
    private interface Timed {
        Sample run(Path file, int times) throws Exception;
    }

    /** A named way of reading a file; {@code inJvm} ones can repeat a document within one sample. */
    private record Pass(String name, boolean inJvm, Timed run) {
    }

    /**
     * The figures of one pass over one document; times are medians unless named otherwise, and the {@code ...ByRound}
     * arrays the timed rounds' samples in order (wall-clock, process CPU, the reading thread's CPU).
     */
    private record Row(String document, String pass, long bytes, double wallMs, double minWallMs, double firstWallMs,
                       double cpuMs, Long allocated, Long peakLive, int repeats, double[] wallByRound, double[] cpuByRound,
                       double[] threadCpuByRound) {
        String mbPerSecond(double ms) {
            return number(bytes / MB / (ms / 1000), "%.1f");
        }
    }

    @Override
    public Integer call() throws Exception {
        if (warmup < 0 || warmupMb < 0 || runs < 1 || batchMs < 0) {
            throw new ParameterException(spec.commandLine(),
                    "--warmup, --warmup-mb and --batch-ms must not be negative and --runs must be at least 1");
        }
        Map<String, SyntheticInventory> generated = parseDocuments();
        PrintWriter out = spec.commandLine().getOut();
        String expat = findXmlwf();
        List<Pass> passes = new ArrayList<>(List.of(
                inJvm("full model", DecodePasses::fullModel),
                inJvm("streaming view", DecodePasses::streamingView),
                inJvm("raw woodstox", DecodePasses::rawWoodstox),
                inJvm(ENCODER, DecodePasses::cachedEncoder)));
        if (expat != null) {
            passes.add(new Pass(XMLWF, false, (file, times) -> runXmlwf(expat, file)));
        }
        out.printf(Locale.ROOT, "decode bench: at least %d warm-up rounds or %d MB per pass, then %d timed rounds of samples"
                        + " of at least %d ms, java %s, %d cpus, max heap %d MB, MB = 10^6 bytes%n", warmup, warmupMb, runs,
                batchMs, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20);
        if (expat == null) {
            out.println("xmlwf: '" + xmlwf + "' not found (Debian package expat); its figures and the ratios are left out");
        } else {
            out.printf(Locale.ROOT, "xmlwf: %s, run under bash's time; start-up (bash + xmlwf on a 4-byte document) %.1f ms wall, included below%n",
                    expat, startupMs(expat));
        }
        nameWidth = Math.max(16, Math.max(generated.keySet().stream().mapToInt(String::length).max().orElse(0),
                files.stream().mapToInt(f -> f.getFileName().toString().length()).max().orElse(0)));
        out.printf(Locale.ROOT, "%-" + nameWidth + "s %-15s %13s %9s %9s %9s %9s %8s %8s %9s %9s %7s%n", "document", "pass", "bytes",
                "wall ms", "min ms", "first ms", "cpu ms", "MB/s", "MB/s cpu", "alloc MB", "live MB", "reads");
        out.flush();
        boolean temporary = dir == null;
        Path where = temporary ? Files.createTempDirectory("alpsbridge-bench-") : Files.createDirectories(dir);
        List<Row> rows = new ArrayList<>();
        try {
            Map<String, Path> targets = new LinkedHashMap<>();
            for (var e : generated.entrySet()) {
                Path file = where.resolve(e.getKey().replace(':', '-') + "-" + protocol + ".xml");
                try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
                    e.getValue().write(o, protocol);
                }
                targets.put(e.getKey(), file);
            }
            for (Path f : files) {
                targets.put(f.getFileName().toString(), f);
            }
            for (var t : targets.entrySet()) {
                List<Row> measured = measure(t.getKey(), t.getValue(), passes);
                for (Row r : measured) {
                    out.printf(Locale.ROOT, "%-" + nameWidth + "s %-15s %,13d %9s %9s %9s %9s %8s %8s %9s %9s %7d%n", r.document(),
                            r.pass(), r.bytes(), ms(r.wallMs()), ms(r.minWallMs()), ms(r.firstWallMs()), ms(r.cpuMs()),
                            r.mbPerSecond(r.wallMs()), r.mbPerSecond(r.cpuMs()), mb(r.allocated()), mb(r.peakLive()), r.repeats());
                }
                out.flush();
                rows.addAll(measured);
            }
        } finally {
            if (temporary) {
                deleteTree(where);
            }
        }
        printStreamingAgainstRaw(out, rows);
        if (expat != null) {
            printRatios(out, rows);
        }
        out.flush();
        return 0;
    }

    private Map<String, SyntheticInventory> parseDocuments() {
        Map<String, SyntheticInventory> result = new LinkedHashMap<>();
        if (documents.size() == 1 && documents.get(0).equals("none")) {
            return result;
        }
        for (String d : documents) {
            String[] parts = d.split(":");
            try {
                if (parts.length < 2 || parts.length > 3) {
                    throw new NumberFormatException();
                }
                int nodes = Integer.parseInt(parts[1]);
                int reservations = parts.length == 3 ? Integer.parseInt(parts[2]) : 0;
                if (nodes < 1 || reservations < 0) {
                    throw new NumberFormatException();
                }
                SyntheticInventory inventory = switch (parts[0]) {
                    case "xc30" -> SyntheticInventory.xc30(nodes, reservations);
                    case "knl" -> {
                        if (reservations != 0) {
                            throw new ParameterException(spec.commandLine(), "the knl document has no reservations: " + d);
                        }
                        yield SyntheticInventory.knl(nodes);
                    }
                    default -> throw new ParameterException(spec.commandLine(), "unknown machine kind in '" + d + "' (xc30 or knl)");
                };
                result.put(d, inventory);
            } catch (NumberFormatException e) {
                throw new ParameterException(spec.commandLine(),
                        "--documents wants KIND:NODES[:RESERVATIONS] with NODES >= 1, e.g. xc30:2256:300; got '" + d + "'");
            }
        }
        return result;
    }

    /**
     * Warm-up rounds of one read per pass, then warm-up rounds of samples until every pass has read --warmup-mb, then
     * timed rounds of one sample per pass, interleaved and in reverse order every other round; then one heap-measured
     * read per pass (xmlwf's heap is not ours).
     */
    private List<Row> measure(String document, Path file, List<Pass> passes) throws Exception {
        long bytes = Files.size(file);
        int n = passes.size();
        double[][] wall = new double[n][runs];
        double[][] cpu = new double[n][runs];
        double[][] threadCpu = new double[n][runs];
        long[] allocated = new long[n];
        double[] first = new double[n];
        double[] quickestRead = new double[n];   // the reading thread's CPU time: what other processes do not inflate
        Arrays.fill(quickestRead, Double.POSITIVE_INFINITY);
        DecodePasses.Counts[] counts = new DecodePasses.Counts[n];
        int singleRounds = Math.max(1, warmup);   // with no warm-up, one untimed read still says what a read costs
        for (int round = 0; round < singleRounds; round++) {
            for (int p = 0; p < n; p++) {
                System.gc();   // so no pass pays for the garbage of the one before it
                Sample s = passes.get(p).run().run(file, 1);
                if (round == 0) {
                    first[p] = s.wallMs();
                    counts[p] = s.counts();
                    agree(document, passes, counts, p);
                }
                quickestRead[p] = Math.min(quickestRead[p], s.threadCpuMs());
            }
        }
        int repeats = repeats(passes, quickestRead);
        // The compiler settles only after many reads: a 48-KB capture needs thousands, which one read a round would
        // take minutes of collections to give. Samples of many reads, re-judged as the reads get quicker.
        double warmBytes = (double) singleRounds * bytes;
        for (int round = 0; round < MAX_WARMUP_SAMPLES && warmBytes < warmupMb * MB; round++) {
            for (int p = 0; p < n; p++) {
                Pass pass = passes.get(p);
                if (pass.inJvm()) {
                    System.gc();
                    quickestRead[p] = Math.min(quickestRead[p], pass.run().run(file, repeats).threadCpuMs());
                }
            }
            warmBytes += (double) repeats * bytes;
            repeats = repeats(passes, quickestRead);
        }
        // A sample of many reads is taken in slices of about 20 ms, the passes' slices alternating, so that a burst of
        // load on this shared machine falls on every pass of the round alike rather than on whichever pass ran then.
        int slices = Math.max(1, Math.min(Math.min(SLICES, batchMs / 20), repeats));
        for (int round = 0; round < runs; round++) {
            for (int slice = 0; slice < slices; slice++) {
                int reads = repeats / slices + (slice < repeats % slices ? 1 : 0);
                for (int i = 0; i < n; i++) {
                    int p = (round + slice) % 2 == 0 ? i : n - 1 - i;
                    Pass pass = passes.get(p);
                    if (!pass.inJvm() && slice > 0) {
                        continue;   // a process: one run per round
                    }
                    System.gc();   // so no pass pays for the garbage of the one before it
                    Sample s = pass.run().run(file, pass.inJvm() ? reads : 1);
                    int weight = pass.inJvm() ? reads : 1;
                    wall[p][round] += s.wallMs() * weight;
                    cpu[p][round] += s.cpuMs() * weight;
                    threadCpu[p][round] += s.threadCpuMs() * weight;
                    allocated[p] = s.allocated();
                }
            }
            for (int p = 0; p < n; p++) {
                int reads = passes.get(p).inJvm() ? repeats : 1;
                wall[p][round] /= reads;
                cpu[p][round] /= reads;
                threadCpu[p][round] /= reads;
            }
        }
        List<Row> rows = new ArrayList<>();
        HeapProbe probe = new HeapProbe();
        for (int p = 0; p < n; p++) {
            Pass pass = passes.get(p);
            Long live = pass.inJvm() ? Long.valueOf(probe.peakLive(() -> pass.run().run(file, 1).counts().kept())) : null;
            rows.add(new Row(document, pass.name(), bytes, median(wall[p]), Arrays.stream(wall[p]).min().orElseThrow(), first[p],
                    median(cpu[p]), pass.inJvm() ? Long.valueOf(allocated[p]) : null, live, pass.inJvm() ? repeats : 1,
                    wall[p], cpu[p], threadCpu[p]));
        }
        return rows;
    }

    /**
     * Reads per sample in this JVM, the same for all passes: enough for a sample of the quickest pass to last
     * --batch-ms, judged by the CPU time of its quickest warm-up read (which other processes do not inflate).
     */
    private int repeats(List<Pass> passes, double[] msPerRead) {
        double quickest = Double.POSITIVE_INFINITY;
        for (int p = 0; p < passes.size(); p++) {
            if (passes.get(p).inJvm()) {
                quickest = Math.min(quickest, msPerRead[p]);
            }
        }
        if (!(quickest > 0) || Double.isInfinite(quickest)) {
            return 1;
        }
        return (int) Math.max(1, Math.min(1_000_000, Math.ceil(batchMs / quickest)));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /**
     * A pass in this JVM, timed on the wall clock and in CPU time of the whole process (GC and JIT threads too) over
     * {@code times} reads in a row, each figure divided by {@code times}.
     */
    private static Pass inJvm(String name, DecodePasses.Pass pass) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return new Pass(name, true, (file, times) -> {
            long a0 = threads.getCurrentThreadAllocatedBytes();
            long c0 = ProcessCpu.nanos();
            long own0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            DecodePasses.Counts counts = null;
            for (int i = 0; i < times; i++) {
                counts = pass.run(file);
            }
            long t1 = System.nanoTime();
            long own1 = threads.getCurrentThreadCpuTime();
            long c1 = ProcessCpu.nanos();
            return new Sample((t1 - t0) / 1e6 / times, (c1 - c0) / 1e6 / times, (own1 - own0) / 1e6 / times,
                    (threads.getCurrentThreadAllocatedBytes() - a0) / times, counts);
        });
    }

    /** The in-JVM passes must have seen the same inventory; xmlwf counts nothing. */
    private static void agree(String document, List<Pass> passes, DecodePasses.Counts[] counts, int p) throws BasilException {
        if (counts[p] == null || p == 0) {
            return;
        }
        if (!counts[p].sameAs(counts[0])) {
            throw new BasilException(document + ": the passes disagree: " + passes.get(0).name() + " saw " + counts[0]
                    + ", " + passes.get(p).name() + " saw " + counts[p]);
        }
    }

    /**
     * The goal for the streaming view, round by round: raw woodstox's time over the streaming view's in the
     * same round, and the median of those. Judged by the reading thread's own CPU time, which is exact: the process's
     * adds the other threads' time from schedstat, which lags by up to a scheduler tick (4 ms) while a thread runs, so
     * in 20-ms slices a compiler or collector thread at work moves a round's ratio by tenths (printed beside it). The
     * thread's time leaves out the collector's threads, which flatters the pass that allocates more: raw woodstox
     * (the streaming view allocates less on every document; the table's 'alloc MB').
     */
    private void printStreamingAgainstRaw(PrintWriter out, List<Row> rows) {
        out.println();
        out.println("streaming view's speed relative to raw woodstox = raw woodstox time / streaming view time in the same"
                + " round, by the reading thread's CPU time (by the process's CPU time); goal: median >= 0.9");
        for (String d : rows.stream().map(Row::document).distinct().toList()) {
            Row stream = find(rows, d, "streaming view");
            Row raw = find(rows, d, "raw woodstox");
            Row encoder = find(rows, d, ENCODER);
            double[] own = new double[runs];
            double[] cpu = new double[runs];
            double[] wall = new double[runs];
            StringBuilder rounds = new StringBuilder();
            for (int i = 0; i < runs; i++) {
                own[i] = raw.threadCpuByRound()[i] / stream.threadCpuByRound()[i];
                cpu[i] = raw.cpuByRound()[i] / stream.cpuByRound()[i];
                wall[i] = raw.wallByRound()[i] / stream.wallByRound()[i];
                rounds.append(' ').append(number(own[i], "%.2f")).append(" (").append(number(cpu[i], "%.2f")).append(')');
            }
            double median = median(own);
            out.printf(Locale.ROOT, "  %-" + nameWidth + "s median %s (%s; wall-clock %s) %s; by round%s;"
                            + " cached encoder %s MB/s (%s MB/s cpu)%n",
                    d, number(median, "%.2f"), number(median(cpu), "%.2f"), number(median(wall), "%.2f"),
                    verdict(median, 0.9), rounds, encoder.mbPerSecond(encoder.wallMs()), encoder.mbPerSecond(encoder.cpuMs()));
        }
    }

    private void printRatios(PrintWriter out, List<Row> rows) {
        out.println();
        out.println("speed relative to xmlwf = xmlwf time / pass time (medians), by CPU time (by wall-clock time);"
                + " goals: streaming view >= 1.0, full model >= 0.5");
        for (String d : rows.stream().map(Row::document).distinct().toList()) {
            Row expat = find(rows, d, XMLWF);
            Row full = find(rows, d, "full model");
            Row stream = find(rows, d, "streaming view");
            Row raw = find(rows, d, "raw woodstox");
            Row encoder = find(rows, d, ENCODER);
            out.printf(Locale.ROOT, "  %-" + nameWidth + "s streaming view %s %s, full model %s %s, raw woodstox %s,"
                            + " cached encoder %s (%s of the streaming view's speed); full model live heap %s the document%n",
                    d, ratio(expat, stream), verdict(expat.cpuMs() / stream.cpuMs(), 1.0), ratio(expat, full),
                    verdict(expat.cpuMs() / full.cpuMs(), 0.5), ratio(expat, raw), ratio(expat, encoder),
                    number(stream.cpuMs() / encoder.cpuMs(), "%.2f"), number((double) full.peakLive() / full.bytes(), "%.1fx"));
        }
    }

    private static String ratio(Row expat, Row pass) {
        return number(expat.cpuMs() / pass.cpuMs(), "%.2fx") + " (" + number(expat.wallMs() / pass.wallMs(), "%.2fx") + ")";
    }

    /** A figure, or "-" when a time too short to measure made it meaningless. */
    private static String number(double value, String format) {
        return Double.isFinite(value) && value > 0 ? String.format(Locale.ROOT, format, value) : "-";
    }

    private static String verdict(double ratio, double goal) {
        if (!Double.isFinite(ratio)) {
            return "(too short to judge)";
        }
        return ratio >= goal ? "(goal met)" : "(goal " + goal + " missed)";
    }

    private static Row find(List<Row> rows, String document, String pass) {
        return rows.stream().filter(r -> r.document().equals(document) && r.pass().equals(pass)).findFirst().orElseThrow();
    }

    /** Milliseconds to a tenth, or to a thousandth below 10 ms (a small capture reads in a fraction of one). */
    private static String ms(double value) {
        return String.format(Locale.ROOT, value < 10 ? "%.3f" : "%.1f", value);
    }

    private static String mb(Long bytes) {
        return bytes == null ? "-" : String.format(Locale.ROOT, "%.1f", bytes / (double) (1 << 20));
    }

    /** The xmlwf program to run, or null: a path is taken as is, a bare name is looked up on PATH. */
    private String findXmlwf() {
        if (xmlwf.contains(File.separator)) {
            return Files.isExecutable(Path.of(xmlwf)) ? xmlwf : null;
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String d : path.split(File.pathSeparator)) {
            Path candidate = Path.of(d.isEmpty() ? "." : d, xmlwf);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }

    /** Median wall-clock time of bash + xmlwf on a 4-byte document: the process start-up in xmlwf's times. */
    private static double startupMs(String expat) throws IOException, BasilException {
        Path tiny = Files.createTempFile("alpsbridge-bench-", ".xml");
        try {
            Files.writeString(tiny, "<a/>", StandardCharsets.US_ASCII);
            double[] times = new double[5];
            for (int i = 0; i < times.length; i++) {
                times[i] = runXmlwf(expat, tiny).wallMs();
            }
            return median(times);
        } finally {
            Files.deleteIfExists(tiny);
        }
    }

    /**
     * Runs xmlwf under bash's {@code time}, which reports the child's CPU time from getrusage (dash's {@code times}
     * counts in 10 ms ticks). xmlwf prints nothing for a well-formed file; anything else it prints is a failure.
     */
    private static Sample runXmlwf(String expat, Path file) throws IOException, BasilException {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("bash", "-c", "TIMEFORMAT='%3U %3S'; time \"$0\" \"$1\"", expat, file.toString())
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        String said;
        try (InputStream stdout = p.getInputStream()) {
            said = new String(stdout.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
        try {
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new BasilException("xmlwf did not finish on " + file + " within 10 minutes");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new BasilException("interrupted while xmlwf ran");
        }
        double wallMs = (System.nanoTime() - t0) / 1e6;
        String[] times = said.split("\\s+");
        if (p.exitValue() != 0 || times.length != 2) {
            throw new BasilException("xmlwf failed on " + file + " (exit " + p.exitValue() + "): " + said);
        }
        try {
            return new Sample(wallMs, (Double.parseDouble(times[0]) + Double.parseDouble(times[1])) * 1000, 0, 0, null);
        } catch (NumberFormatException e) {
            throw new BasilException("xmlwf failed on " + file + ": " + said);
        }
    }

    private static void deleteTree(Path where) throws IOException {
        try (var listing = Files.list(where)) {
            for (Path p : listing.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(where);
    }
}
