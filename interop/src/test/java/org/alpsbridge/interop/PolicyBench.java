package org.alpsbridge.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The scheduler-independent part of the policy benches (issue 34's "Done when"): {@code SlurmPolicyBench} and its
 * OpenPBS twin run one seeded workload on-system ({@code apbasil} → resident ALPS) and off-system ({@code apbasil} →
 * proxy → resident ALPS) on a {@link Bridge} made by {@link #bridge} and use this for the rest. Per side:
 * <ol>
 * <li>{@link #mark} before the workload (the calls so far are not the workload's);
 * <li>off-system, {@link #plant} during the workload: reservations made straight at the resident ALPS, behind
 *     the proxy's back, for a batch id no scheduler has;
 * <li>{@link #side} once the queue is empty: the workload's calls as the scheduler saw them (the {@link Bridge#timed}
 *     wrapper's {@code timings} and {@code failures}), what reached ALPS, and off-system the proxy's stats, refresh
 *     reasons and heap ({@link Heap}: after a full GC, with the cache full);
 * <li>{@link #orphansFound} off-system: whether the proxy's orphan watch found each planted reservation; it
 *     releases what is left of them;
 * </ol>
 * then {@link #table} and {@link #checks} (the failures, empty when every Done-when check holds) for both sides.
 * The machine is {@code -Dinterop.machine} (default {@value #DEFAULT_MACHINE}), the clients {@code -Dinterop.client}
 * ({@code native}, the default, or {@code jvm}: bin/apbasil's Java client on both sides).
 */
final class PolicyBench {

    static final String DEFAULT_MACHINE = "xc30:16";
    /**
     * The only latency model the emulator has ({@code LatencyProfile}): shaped for a 2,256-node XC30, its INVENTORY
     * and SUMMARY grow per compute node, so on knl:4392 it models a machine of that size, not KNL's own costs.
     */
    static final String LATENCY_MODEL = "xc30-2256";
    /** The batch ids of the planted reservations, this and a number after it: no scheduler's job. */
    static final String PLANTED_BATCH_ID = "99990";

    private PolicyBench() {
    }

    /** The emulated machine, {@code -Dinterop.machine}. */
    static String machine() {
        return System.getProperty("interop.machine", DEFAULT_MACHINE);
    }

    /** The clients' kind, {@code -Dinterop.client}: {@code native} or {@code jvm}. */
    static String client() {
        String c = System.getProperty("interop.client", "native");
        if (!c.equals("native") && !c.equals("jvm")) {
            throw new IllegalArgumentException("-Dinterop.client=" + c + ": expected native or jvm");
        }
        return c;
    }

    /**
     * A bridge for one side with its resident ALPS started (the latency model, seeded, slurmstepd's/pbs_mom's job
     * container a claim); the clients as {@link #client()} says. The proxy is not started.
     */
    static Bridge bridge(String name, List<String> proxyOptions) throws IOException, InterruptedException {
        Bridge bridge = bridgeWithoutAlps(name, proxyOptions);
        startResidentAlps(bridge);
        return bridge;
    }

    /**
     * As {@link #bridge}, the resident ALPS not started yet: OpenPBS's clients live in the complex's network
     * namespace, where {@link #startResidentAlps} must start it once the bridge runs there ({@link Bridge#within}).
     */
    static Bridge bridgeWithoutAlps(String name, List<String> proxyOptions) throws IOException, InterruptedException {
        Bridge bridge = new Bridge(name, machine(), proxyOptions);
        if (client().equals("jvm")) {
            bridge.useJavaClient();
        }
        return bridge;
    }

    /** The bench's resident ALPS: the latency model, seeded, the scheduler's job container a claim. */
    static void startResidentAlps(Bridge bridge) throws IOException {
        bridge.startResidentAlps(List.of("emulator_latency_profile=" + LATENCY_MODEL, "emulator_latency_seed=1",
                "emulator_paggs=host"));
    }

    /**
     * Where a side's workload starts: the wrapper's lines and ALPS's counts before it, and the proxy's reservations-only
     * INVENTORYs (0 without a proxy).
     */
    record Mark(int timings, int failures, Map<String, Integer> reachedAlps, long reservationChecks) {
    }

    /** The workload's jobs, {@code -Dinterop.jobs=N} (50): the same for both schedulers' benches. */
    static int jobs() {
        return Integer.getInteger("interop.jobs", 50);
    }

    /** The workload's seed, {@code -Dinterop.seed=S} (20261125). */
    static long seed() {
        return Long.getLong("interop.seed", 20261125L);
    }

    static Mark mark(Bridge bridge, boolean proxy) {
        return new Mark(lines(bridge, "timings").size(), lines(bridge, "failures").size(), reachedAlps(bridge),
                proxy ? reservationChecks(bridge) : 0);
    }

    /**
     * The proxy's reservations-only INVENTORYs so far ({@code policy_reservation_checks}, every outcome): ALPS counts
     * them as QUERY/INVENTORY; they carry no NodeArray (0.1 MB, not 82, at knl:4392).
     */
    static long reservationChecks(Bridge bridge) {
        return counter(bridge.stats("--json").ok().out(), "policy_reservation_checks").values().stream()
                .mapToLong(Long::longValue).sum();
    }

    /**
     * One side's figures.
     *
     * @param seen each method's call times (ns) as the scheduler saw them
     * @param failed each FAILURE answer the scheduler got: method, then ALPS's message
     * @param reachedAlps calls that reached the resident ALPS during the workload, by method
     * @param proxyStats {@code proxy stats} (off-system) and the resident ALPS's
     * @param refreshReasons the proxy's full inventories by reason ({@code policy_refreshes}); empty on-system
     * @param heap the proxy's memory and its INVENTORY answer; null on-system
     * @param planted the reservation ids {@link #plant}ed during the workload
     * @param reservationChecks of the QUERY/INVENTORYs that reached ALPS, those the proxy asked for the reservations alone
     */
    record Side(String name, Map<String, List<Long>> seen, List<String> failed, Map<String, Integer> reachedAlps,
                Duration makespan, String proxyStats, Map<String, Long> refreshReasons, Heap heap, List<String> planted,
                long reservationChecks) {

        int seenCount(String method) {
            return seen.getOrDefault(method, List.of()).size();
        }
    }

    /**
     * The proxy holding its cache, after the workload: heap used after a full GC and resident set (bytes), and one
     * QUERY(INVENTORY) as a client sees it, answered by the proxy (from its cache) and straight by the resident ALPS
     * (bytes of the answer, wall ms of each of {@value #PROBES} calls).
     */
    record Heap(long heapUsedAfterGc, long rss, long fromCacheBytes, List<Double> fromCacheMs, long fromAlpsBytes,
                List<Double> fromAlpsMs) {
    }

    static final int PROBES = 3;

    /**
     * The side's figures since {@code mark}; off-system ({@code proxy}) with the proxy's stats, refresh reasons and
     * {@link Heap}. Call it once the workload has ended, before anything else asks ALPS.
     */
    static Side side(Bridge bridge, String name, Mark mark, Duration makespan, boolean proxy, List<String> planted)
            throws IOException {
        Map<String, Integer> reached = reachedAlps(bridge);
        mark.reachedAlps().forEach((k, v) -> reached.merge(k, -v, Integer::sum));
        Map<String, List<Long>> seen = new TreeMap<>();
        List<String> timings = lines(bridge, "timings");
        for (String line : timings.subList(mark.timings(), timings.size())) {
            String[] f = line.strip().split(" ");
            if (f.length >= 2) {
                seen.computeIfAbsent(f[0], k -> new ArrayList<>()).add(Long.parseLong(f[1]));
            }
        }
        List<String> failures = lines(bridge, "failures");
        List<String> failed = List.copyOf(failures.subList(mark.failures(), failures.size()));
        String alps = "resident ALPS:\n" + bridge.alpsStats().out();
        if (!proxy) {
            return new Side(name, seen, failed, reached, makespan, alps, Map.of(), null, planted, 0);
        }
        String json = bridge.stats("--json").ok().out();
        long checks = reservationChecks(bridge) - mark.reservationChecks();
        return new Side(name, seen, failed, reached, makespan, "proxy:\n" + bridge.stats().out() + alps,
                counter(json, "policy_refreshes"), heap(bridge), planted, checks);
    }

    /** When each {@code method} call (e.g. {@code QUERY/INVENTORY}) since {@code mark} ended, epoch ms, in order. */
    static List<Long> ends(Bridge bridge, Mark mark, String method) {
        List<String> timings = lines(bridge, "timings");
        List<Long> ends = new ArrayList<>();
        for (String line : timings.subList(mark.timings(), timings.size())) {
            String[] f = line.strip().split(" ");
            if (f.length == 3 && f[0].equals(method)) {
                ends.add(Long.parseLong(f[2]) / 1_000_000);
            }
        }
        return ends;
    }

    /** Calls that reached ALPS, by method key: the resident ALPS daemon's requests, from its {@code stats --json}. */
    static Map<String, Integer> reachedAlps(Bridge bridge) {
        Map<String, Integer> n = new TreeMap<>();
        Matcher m = Pattern.compile("\"([A-Z]+(?:/[A-Z]+)?)\":\\{\"requests\":(\\d+)").matcher(bridge.alpsStats("--json").ok().out());
        while (m.find()) {
            n.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        return n;
    }

    /** A labelled counter of {@code proxy stats --json} ({@code "name":{"label":n,...}}), by label. */
    static Map<String, Long> counter(String json, String name) {
        Map<String, Long> values = new TreeMap<>();
        Matcher body = Pattern.compile("\"" + Pattern.quote(name) + "\":\\{([^}]*)}").matcher(json);
        if (body.find()) {
            Matcher v = Pattern.compile("\"([^\"]+)\":(\\d+)").matcher(body.group(1));
            while (v.find()) {
                values.put(v.group(1), Long.parseLong(v.group(2)));
            }
        }
        return values;
    }

    /** The proxy's {@link Heap}: {@code jcmd GC.run} then {@code GC.heap_info}, VmRSS, and the INVENTORY probes. */
    static Heap heap(Bridge bridge) throws IOException {
        long pid = bridge.proxyPid();
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Host.run(Map.of(), Duration.ofMinutes(3), List.of(jcmd, Long.toString(pid), "GC.run")).ok();
        String info = Host.run(Map.of(), Duration.ofMinutes(1), List.of(jcmd, Long.toString(pid), "GC.heap_info")).ok().out();
        Matcher used = Pattern.compile("total \\d+K, used (\\d+)K").matcher(info);
        if (!used.find()) {
            throw new IllegalStateException("no heap figure in jcmd GC.heap_info: " + info);
        }
        Matcher rss = Pattern.compile("VmRSS:\\s+(\\d+) kB").matcher(Files.readString(Path.of("/proc/" + pid + "/status")));
        long rssBytes = rss.find() ? Long.parseLong(rss.group(1)) * 1024 : -1;
        List<Double> cache = new ArrayList<>();
        List<Double> alps = new ArrayList<>();
        long cacheBytes = 0;
        long alpsBytes = 0;
        for (int i = 0; i < PROBES; i++) {
            cacheBytes = inventory(bridge, bridge.apbasil(), cache);
            alpsBytes = inventory(bridge, bridge.alpsApbasil(), alps);
        }
        return new Heap(Long.parseLong(used.group(1)) * 1024, rssBytes, cacheBytes, cache, alpsBytes, alps);
    }

    /** One QUERY(INVENTORY) through {@code apbasil}, its wall time added to {@code ms}; the answer's bytes. */
    private static long inventory(Bridge bridge, Path apbasil, List<Double> ms) throws IOException {
        Path request = bridge.dir().resolve("probe-request.xml");
        Path answer = bridge.dir().resolve("probe-answer.xml");
        Files.writeString(request, "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"INVENTORY\"/>\n");
        long t0 = System.nanoTime();
        bridge.run(Duration.ofMinutes(5), List.of("sh", "-c", apbasil + " < " + request + " > " + answer)).ok();
        ms.add((System.nanoTime() - t0) / 1e6);
        if (!Files.readString(answer).contains("status=\"SUCCESS\"")) {
            throw new IllegalStateException("the INVENTORY probe through " + apbasil + " failed: " + Files.readString(answer));
        }
        long bytes = Files.size(answer);
        Files.delete(answer);
        return bytes;
    }

    /**
     * Plants one reservation straight at the resident ALPS (its {@code apbasil}, behind the proxy's back): one node
     * of user {@code nobody} for batch {@value #PLANTED_BATCH_ID}{@code n} (each its own batch id: two of one batch
     * would make the older "superseded", which the watch releases itself), wherever ALPS finds a free node; tries
     * again every 2 s while ALPS has none (the workload holds the machine). Returns its reservation id.
     */
    static String plant(Bridge bridge, int n, Duration within) throws IOException {
        return plant(bridge, n, within, null);
    }

    /**
     * As {@link #plant(Bridge, int, Duration)}, on node {@code nid} (null: wherever ALPS finds one): OpenPBS places
     * jobs from its own vnode accounting, never from an inventory's reservations, so its planted reservations go on
     * vnodes it keeps offline.
     */
    static String plant(Bridge bridge, int n, Duration within, String nid) throws IOException {
        String batch = PLANTED_BATCH_ID + n;
        Path request = bridge.dir().resolve("plant-request.xml");
        Files.writeString(request, "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.3\" method=\"RESERVE\">\n"
                + " <ReserveParamArray user_name=\"nobody\" batch_id=\"" + batch + "\">\n"
                + "  <ReserveParam architecture=\"XT\" width=\"1\" depth=\"1\" nppn=\"1\""
                + (nid == null ? "/>\n" : "><NodeParamArray><NodeParam>" + nid + "</NodeParam></NodeParamArray></ReserveParam>\n")
                + " </ReserveParamArray>\n</BasilRequest>\n");
        Pattern reserved = Pattern.compile("<Reserved reservation_id=\"(\\d+)\"");
        String[] last = {""};
        String[] id = {null};
        boolean done = Host.await(within, () -> {
            last[0] = bridge.run(Duration.ofMinutes(2), List.of("sh", "-c", bridge.alpsApbasil() + " < " + request)).out();
            Matcher m = reserved.matcher(last[0]);
            if (m.find()) {
                id[0] = m.group(1);
                return true;
            }
            sleep(Duration.ofSeconds(2));
            return false;
        });
        if (!done) {
            throw new IllegalStateException("no reservation planted within " + within + ": " + last[0]);
        }
        System.out.println("planted reservation " + id[0] + " (batch " + batch + ") behind the proxy's back");
        return id[0];
    }

    /**
     * The planted reservations found through the proxy: listed by {@code proxy orphans --refresh} now, logged by its
     * orphan watch ("orphans: reservation N is an orphan") earlier, or in {@code byScheduler}, those the scheduler
     * found itself in an inventory the proxy served it (Slurm 18.08's basil_inventory releases a reservation no job
     * of its owns at once; the watch then does not judge it: it was released after the inventory's fetch began).
     * Prints who found each, and releases what is still listed, once ({@code proxy orphans --release}).
     */
    static List<String> orphansFound(Bridge bridge, List<String> planted, List<String> byScheduler) {
        String listed = bridge.orphans("--refresh").ok().out();
        System.out.println("proxy orphans --refresh after the workload:\n" + listed.strip());
        String log = bridge.log();
        List<String> found = new ArrayList<>();
        for (String id : planted) {
            boolean inList = listed.lines().anyMatch(l -> l.strip().startsWith(id + " "));
            Matcher logged = Pattern.compile("orphans: reservation " + id + " is an orphan \\(([^)]*)\\)").matcher(log);
            boolean inLog = logged.find();
            boolean bySched = byScheduler.contains(id);
            System.out.println("planted " + id + ": " + (inList ? "listed now" : "not listed now")
                    + (inLog ? ", found by the watch (" + logged.group(1) + ")" : ", not by the watch")
                    + (bySched ? ", found by the scheduler in a served inventory" : ", not by the scheduler"));
            if (inList || inLog || bySched) {
                found.add(id);
            }
        }
        if (planted.stream().anyMatch(id -> listed.lines().anyMatch(l -> l.strip().startsWith(id + " ")))) {
            System.out.println("released:\n" + bridge.orphans("--release").ok().out().strip());
        }
        return found;
    }

    /**
     * Issue 34's "Done when" checks of one on/off pair; each printed, the failed ones returned (empty: all hold).
     * {@code schedulerErrors}: the scheduler's {@code fatal} and BASIL error lines (but those about the planted
     * reservations); {@code plantedFound}: {@link #orphansFound}'s answer off-system.
     */
    static List<String> checks(Side on, Side off, List<String> plantedFound, List<String> schedulerErrors) {
        List<String> failed = new ArrayList<>();
        StringBuilder out = new StringBuilder("checks:\n");
        int scheduler = off.seenCount("QUERY/INVENTORY");
        int backend = off.reachedAlps().getOrDefault("QUERY/INVENTORY", 0);
        long full = backend - off.reservationChecks();
        // a scheduler that asks none during the workload (pbs_mom) may cost none: no full fetch for nobody
        boolean ratio = full * 10 <= scheduler;
        String ratioLine = String.format(Locale.ROOT, "full backend INVENTORYs %d per %d scheduler INVENTORYs (1 per %.1f; target"
                + " <= 1 per 10; besides them %d reservations-only INVENTORYs); refreshes %s", full, scheduler,
                full == 0 ? Double.POSITIVE_INFINITY : scheduler / (double) full, off.reservationChecks(), off.refreshReasons());
        verdict(out, failed, ratio, ratioLine);
        for (Side s : List.of(on, off)) {
            Map<String, Integer> classes = new TreeMap<>();
            for (String f : s.failed()) {
                if (f.startsWith("RESERVE ")) {
                    classes.merge(reserveFailure(f, s.planted()), 1, Integer::sum);
                }
            }
            out.append("  ").append(s.name()).append(" failed RESERVEs by class: ").append(classes).append('\n');
            Map<String, Integer> same = new TreeMap<>();
            s.failed().forEach(f -> same.merge(f, 1, Integer::sum));
            same.forEach((f, n) -> out.append("    ").append(n).append(" x ").append(f).append('\n'));
            if (s == off) {
                int stale = classes.getOrDefault("already reserved", 0);
                verdict(out, failed, stale == 0, "off-system RESERVEs refused 'already reserved' on nodes no planted"
                        + " reservation holds: " + stale);
            }
        }
        if (off.planted().isEmpty()) {
            out.append("  (not run) planted orphans: none planted\n");
        } else {
            verdict(out, failed, plantedFound.containsAll(off.planted()), "planted orphans found through the proxy: "
                    + plantedFound + " of " + off.planted());
        }
        verdict(out, failed, schedulerErrors.isEmpty(), "fatal or BASIL errors in the scheduler's logs: " + schedulerErrors.size()
                + (schedulerErrors.isEmpty() ? "" : "\n    " + String.join("\n    ", schedulerErrors)));
        double ratioOffOn = off.makespan().toMillis() / (double) on.makespan().toMillis();
        out.append(String.format(Locale.ROOT, "  (reported) makespan off/on %.2f (target <= 1.05)%n", ratioOffOn));
        System.out.print(out);
        return failed;
    }

    /** A failed RESERVE's class: "already reserved" (by a planted reservation or not), or "other". */
    static String reserveFailure(String line, List<String> planted) {
        Matcher m = Pattern.compile("is already reserved \\(resId (\\d+)\\)").matcher(line);
        if (!m.find()) {
            return "other";
        }
        return planted.contains(m.group(1)) ? "already reserved by a planted reservation" : "already reserved";
    }

    private static void verdict(StringBuilder out, List<String> failed, boolean ok, String what) {
        out.append("  ").append(ok ? "ok   " : "FAIL ").append(what).append('\n');
        if (!ok) {
            failed.add(what);
        }
    }

    /**
     * The table of one on/off pair: per method the calls the scheduler made, those that reached ALPS, and their
     * p50/p90/max as the scheduler saw them; the makespans; the refresh reasons and the proxy's {@link Heap}.
     */
    static String table(String title, int jobs, long seed, Side on, Side off) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT,
                "%s, %d jobs (seed %d), %s answering with the %s latency model, %s clients%n"
                        + "makespan: on-system %.0f s, off-system %.0f s (off/on %.2f)%n"
                        + "%-16s | %-36s | %-36s%n%-16s | %6s %6s %7s %7s %7s | %6s %6s %7s %7s %7s%n",
                title, jobs, seed, machine(), LATENCY_MODEL, client(), on.makespan().toMillis() / 1e3,
                off.makespan().toMillis() / 1e3, off.makespan().toMillis() / (double) on.makespan().toMillis(), "",
                "on-system (apbasil -> ALPS)", "off-system (apbasil -> proxy -> ALPS)", "method", "calls", "ALPS", "p50 ms",
                "p90 ms", "max ms", "calls", "ALPS", "p50 ms", "p90 ms", "max ms"));
        TreeSet<String> methods = new TreeSet<>(on.seen().keySet());
        methods.addAll(off.seen().keySet());
        methods.addAll(on.reachedAlps().keySet());
        methods.addAll(off.reachedAlps().keySet());
        for (String m : methods) {
            t.append(String.format(Locale.ROOT, "%-16s | %s | %s%n", m, row(on, m), row(off, m)));
        }
        t.append("refresh reasons (off-system): ").append(off.refreshReasons()).append('\n');
        Heap h = off.heap();
        if (h != null) {
            t.append(String.format(Locale.ROOT, "proxy heap after a full GC %.1f MB, RSS %.1f MB%n"
                            + "one INVENTORY as a client sees it: from the proxy's cache %.2f MB in %s ms; straight from"
                            + " the resident ALPS %.2f MB in %s ms%n",
                    h.heapUsedAfterGc() / 1e6, h.rss() / 1e6, h.fromCacheBytes() / 1e6, millis(h.fromCacheMs()),
                    h.fromAlpsBytes() / 1e6, millis(h.fromAlpsMs())));
        }
        return t.toString();
    }

    private static String millis(List<Double> ms) {
        return String.join(", ", ms.stream().map(x -> String.format(Locale.ROOT, "%.0f", x)).toList());
    }

    private static String row(Side s, String method) {
        List<Long> times = new ArrayList<>(s.seen().getOrDefault(method, List.of()));
        times.sort(null);
        int reached = s.reachedAlps().getOrDefault(method, 0);
        if (times.isEmpty()) {
            return String.format(Locale.ROOT, "%6d %6d %7s %7s %7s", 0, reached, "-", "-", "-");
        }
        return String.format(Locale.ROOT, "%6d %6d %7.0f %7.0f %7.0f", times.size(), reached, pct(times, 0.5), pct(times, 0.9),
                times.get(times.size() - 1) / 1e6);
    }

    private static double pct(List<Long> sorted, double q) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1)) / 1e6;
    }

    /** The 1-, 5- and 15-minute load averages, to print beside the figures (the machine is shared). */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static List<String> lines(Bridge bridge, String file) {
        Path p = bridge.dir().resolve(file);
        try {
            return Files.exists(p) ? Files.readAllLines(p) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
