package org.alpsbridge.emulator.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.NodeGroup;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.SystemInventory;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.emulator.StateDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code alpsbridge basil emulate bench}: how long the emulator takes to produce INVENTORY and SUMMARY
 * answers, and how large they are, in process and as the drop-in program, side by side in one run.
 */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Measures QUERY INVENTORY and QUERY SUMMARY of the emulator: bytes, time (median and minimum of the",
            "runs after one warm-up) and, in process, bytes allocated per call. Each machine is first made busy",
            "with whole-node reservations of 64 nodes. In process = Emulator.handle streaming to a byte counter",
            "(and the byte[] form); drop-in = a fresh JVM running 'basil emulate' on a state directory, timed",
            "from spawn to the last byte read, JVM start included. No latency model is on."},
        footer = {"", "Exit codes: 0 figures printed, 1 a measurement failed, 2 usage error."})
public final class EmulateBenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--machines", split = ";", paramLabel = "SPEC",
            description = "Machines to measure, separated by ';' (default: ${DEFAULT-VALUE}).")
    List<String> machines = List.of("xc30:2256", "knl:9688", "xc30:100000");

    @Option(names = "--protocol", description = "BASIL version of the queries (default: ${DEFAULT-VALUE}).")
    String protocol = "1.3";

    @Option(names = "--busy", description = "Percent of nodes held by reservations (default: ${DEFAULT-VALUE}).")
    int busy = 50;

    @Option(names = "--runs", description = "Timed in-process runs per query, after one warm-up (default: ${DEFAULT-VALUE}).")
    int runs = 5;

    @Option(names = "--drop-in-runs", description = "Timed drop-in runs per query; 0 skips the drop-in (default: ${DEFAULT-VALUE}).")
    int dropInRuns = 3;

    @Option(names = "--drop-in-jvm-options", split = " ", paramLabel = "OPTIONS",
            description = "JVM options of the drop-in processes, space-separated (default: ${DEFAULT-VALUE}).")
    List<String> dropInJvmOptions = List.of("-XX:TieredStopAtLevel=1"); // as bin/apbasil: C1 only; not SerialGC, which costs JDK 17 its archived heap

    private static final BasilCodec CODEC = BasilCodec.standard();

    /** Figures of one query in one mode. */
    private record Figures(String machine, String query, String mode, long bytes, double medianMs, double minMs, double allocatedMb) {
    }

    @Override
    public Integer call() throws Exception {
        if (busy < 0 || busy > 100 || runs < 1 || dropInRuns < 0) {
            throw new IllegalArgumentException("--busy must be 0..100, --runs at least 1, --drop-in-runs not negative");
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "emulator bench: protocol %s, %d%% of nodes reserved, %d in-process runs, %d drop-in runs (JVM options %s),"
                + " java %s, %d cpus%n", protocol, busy, runs, dropInRuns, String.join(" ", dropInJvmOptions),
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        out.printf(Locale.ROOT, "%-14s %-10s %-17s %14s %11s %11s %11s%n", "machine", "query", "mode", "bytes", "median ms", "min ms", "alloc MB");
        out.flush();
        List<Figures> all = new ArrayList<>();
        for (String machine : machines) {
            List<Figures> figures = measure(machine);
            for (Figures f : figures) {
                out.printf(Locale.ROOT, "%-14s %-10s %-17s %,14d %11.2f %11.2f %11s%n", f.machine(), f.query(), f.mode(), f.bytes(),
                        f.medianMs(), f.minMs(), Double.isNaN(f.allocatedMb()) ? "-" : String.format(Locale.ROOT, "%.1f", f.allocatedMb()));
            }
            out.flush();
            all.addAll(figures);
        }
        out.println();
        out.println("ratios (medians of this run):");
        for (String machine : machines) {
            Figures inv = find(all, machine, "INVENTORY", "in-process");
            Figures sum = find(all, machine, "SUMMARY", "in-process");
            out.printf(Locale.ROOT, "  %-14s INVENTORY/SUMMARY in process: time %.0fx, bytes %.0fx", machine,
                    inv.medianMs() / sum.medianMs(), (double) inv.bytes() / sum.bytes());
            Figures invDrop = find(all, machine, "INVENTORY", "drop-in");
            Figures sumDrop = find(all, machine, "SUMMARY", "drop-in");
            if (invDrop != null && sumDrop != null) {
                out.printf(Locale.ROOT, "; drop-in/in-process: INVENTORY %.1fx, SUMMARY %.0fx", invDrop.medianMs() / inv.medianMs(),
                        sumDrop.medianMs() / sum.medianMs());
            }
            out.println();
        }
        Figures small = find(all, machines.get(0), "INVENTORY", "in-process");
        Figures large = find(all, machines.get(machines.size() - 1), "INVENTORY", "in-process");
        out.printf(Locale.ROOT, "  INVENTORY %s vs %s in process: time %.1fx, bytes %.1fx%n", machines.get(machines.size() - 1),
                machines.get(0), large.medianMs() / small.medianMs(), (double) large.bytes() / small.bytes());
        out.flush();
        return 0;
    }

    private static Figures find(List<Figures> all, String machine, String query, String mode) {
        return all.stream().filter(f -> f.machine().equals(machine) && f.query().equals(query) && f.mode().equals(mode))
                .findFirst().orElse(null);
    }

    private List<Figures> measure(String machine) throws Exception {
        List<Figures> figures = new ArrayList<>();
        Emulator e = Emulator.create(machine);
        fill(e);
        byte[] inventory = CODEC.write(BasilRequest.query(protocol, "INVENTORY"));
        byte[] summary = CODEC.write(BasilRequest.query(protocol, "SUMMARY"));
        figures.add(inProcess(machine, "INVENTORY", "in-process", runs, e, inventory, true));
        figures.add(inProcess(machine, "INVENTORY", "in-process byte[]", Math.min(runs, 3), e, inventory, false));
        figures.add(inProcess(machine, "SUMMARY", "in-process", Math.max(runs, 50), e, summary, true));
        if (dropInRuns > 0) {
            Path dir = Files.createTempDirectory("alpsbridge-bench-");
            try {
                new StateDirectory(dir).update(machine, stored -> {
                    fill(stored);
                    return null;
                });
                figures.add(dropIn(machine, "INVENTORY", dir, inventory));
                figures.add(dropIn(machine, "SUMMARY", dir, summary));
            } finally {
                try (var files = Files.list(dir)) {
                    for (Path p : files.toList()) {
                        Files.deleteIfExists(p);
                    }
                }
                Files.deleteIfExists(dir);
            }
        }
        return figures;
    }

    /** Holds {@link #busy}% of the batch nodes with whole-node reservations of 64 nodes (fewer for the last one). */
    private void fill(Emulator e) {
        try {
            SystemInventory system = CODEC.readResponse(e.handle(CODEC.write(BasilRequest.query("1.7", "SYSTEM"))))
                    .responseData().content(SystemInventory.class).orElseThrow();
            NodeGroup batch = system.groups().stream().filter(g -> g.role().equals("batch")).findFirst().orElseThrow();
            long cpus = batch.computeUnits().orElseThrow() * batch.cpusPerCu().orElseThrow();
            long target = (long) e.computeNodes() * busy / 100;
            for (long held = 0; held < target; ) {
                long nodes = Math.min(64, target - held);
                byte[] answer = e.handle(CODEC.write(BasilRequest.reserve("1.3", "bench", Long.toString(held), null,
                        List.of(ReserveParam.builder().width(nodes * cpus).nppn(cpus).build()))));
                if (!CODEC.readResponse(answer).responseData().isSuccess()) {
                    break;
                }
                held += nodes;
            }
        } catch (BasilException ex) {
            throw new IllegalStateException("cannot make the machine busy: " + ex.getMessage(), ex);
        }
    }

    private static Figures inProcess(String machine, String query, String mode, int n, Emulator e, byte[] request,
                                     boolean stream) throws IOException {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        Counter sink = new Counter();
        long bytes = 0;
        double[] ms = new double[n];
        long allocated = 0;
        for (int i = -1; i < n; i++) {
            sink.count = 0;
            long alloc0 = threads.getThreadAllocatedBytes(tid);
            long t0 = System.nanoTime();
            if (stream) {
                e.handle(request, sink);
                bytes = sink.count;
            } else {
                bytes = e.handle(request).length;
            }
            long t1 = System.nanoTime();
            if (i >= 0) {
                ms[i] = (t1 - t0) / 1e6;
                allocated += threads.getThreadAllocatedBytes(tid) - alloc0;
            }
        }
        return figures(machine, query, mode, bytes, ms, allocated / (double) n / (1 << 20));
    }

    private Figures dropIn(String machine, String query, Path dir, byte[] request) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(dropInJvmOptions.stream().filter(o -> !o.isBlank()).toList());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), EmulateCommand.class.getName(),
                "--machine", machine, "--state", dir.toString()));
        double[] ms = new double[dropInRuns];
        long bytes = 0;
        for (int i = -1; i < dropInRuns; i++) {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try (OutputStream stdin = p.getOutputStream()) {
                stdin.write(request);
            }
            long count = 0;
            try (InputStream stdout = p.getInputStream()) {
                byte[] buffer = new byte[1 << 16];
                for (int r; (r = stdout.read(buffer)) > 0; ) {
                    count += r;
                }
            }
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("the drop-in for " + machine + " " + query + " failed (exit "
                        + (p.isAlive() ? "none" : p.exitValue()) + ")");
            }
            long t1 = System.nanoTime();
            bytes = count;
            if (i >= 0) {
                ms[i] = (t1 - t0) / 1e6;
            }
        }
        return figures(machine, query, "drop-in", bytes, ms, Double.NaN);
    }

    private static Figures figures(String machine, String query, String mode, long bytes, double[] ms, double allocatedMb) {
        double[] sorted = ms.clone();
        Arrays.sort(sorted);
        double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        return new Figures(machine, query, mode, bytes, median, sorted[0], allocatedMb);
    }

    /** Counts what is written and keeps nothing. */
    private static final class Counter extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
