package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the proxy's policy saves, and costs, for a real OpenPBS: {@link SlurmPolicyBench}'s comparison with pbs_mom
 * as the client. The same seeded workload (50 jobs, {@code -Dinterop.jobs=N}: 1–4 whole vnodes, 1–3 s, five users)
 * scheduled twice in one run on the same emulated machine ({@code -Dinterop.machine=}, default {@code xc30:16}; e.g.
 * {@code knl:4392}) answering with the {@code xc30-2256} latency model, first on-system, then off-system. ALPS is
 * resident on both sides ({@link Bridge#startResidentAlps}: policy off, in front of the in-process emulator, each job's
 * session a claim), started with the proxy inside the complex's network namespace, where pbs_mom reaches both:
 * on-system {@code $alps_client} is {@code bin/apbasil} straight to it, off-system {@code bin/apbasil} → proxy → it.
 * A wrapper around each times every call as pbs_mom saw it; the resident ALPS's stats count what reached it.
 *
 * <p>Beside the table: two reservations planted straight at ALPS during the run (batch ids no PBS job has, on two
 * vnodes both sides keep offline, so PBS never places a job on them) must be listed by {@code proxy orphans}
 * off-system, then released by {@code proxy orphans --release}; every failed RESERVE in pbs_mom's log is classified
 * (none may be "already reserved" by anything but a planted reservation); pbs_mom's log holds no BASIL error
 * ({@link PbsInteropTest#MOM_ERRORS}); pbs_mom's RELEASE repeats (every 0.4 s while claims remain) are counted.
 * Opt-in ({@code long}): {@code mvn -B -ntp -Plong -pl interop -am verify -Dtest=PbsPolicyBench
 * -Dsurefire.failIfNoSpecifiedTests=false [-Dinterop.machine=knl:4392]}.
 */
@Tag("long")
@Order(9) // the class order: src/test/resources/junit-platform.properties
class PbsPolicyBench {

    /** The resident ALPS on both sides: the model's latency, each confirmed job's session a claim while it lives. */
    private static final List<String> ALPS = List.of("emulator_latency_profile=xc30-2256", "emulator_latency_seed=1",
            "emulator_paggs=host");
    private static final Pattern ALREADY_RESERVED = Pattern.compile("node (\\d+) is already reserved \\(resId (\\d+)\\)");

    /**
     * One side's figures: each method's call times (ns) as pbs_mom saw them during the workload, and at its start
     * (start-up and the licensing HUP); what reached ALPS during the workload; the daemons' stats; pbs_mom's log.
     */
    private record Side(String name, Map<String, List<Long>> seen, Map<String, List<Long>> atStart,
                        Map<String, Integer> reachedAlps, Duration makespan, String stats, Mom mom, Planted planted,
                        List<String> notExitedZero) {
    }

    /** What pbs_mom's log tells: BASIL errors, failed RESERVEs by cause, RELEASE repeats. */
    private record Mom(List<String> errors, Map<String, Integer> failedReserves, int releases, int claimsAnswers,
                       int maxTries) {
    }

    /** The planted reservations: ids, seconds until {@code proxy orphans} listed both (-1: never), what released them. */
    private record Planted(List<String> ids, double foundAfter, String release) {
    }

    @Test
    void callsLatencyAndWhatReachedAlpsAsPbsMomSawThemOnSystemAndOffSystem() throws Exception {
        int jobs = Integer.getInteger("interop.jobs", 50);
        long seed = Long.getLong("interop.seed", 20261125L);
        String machine = System.getProperty("interop.machine", "xc30:16");
        Side on = run("on-system", true, machine, jobs, seed);
        Side off = run("off-system", false, machine, jobs, seed);
        System.out.println(table(machine, jobs, seed, on, off));
        for (Side s : List.of(on, off)) {
            System.out.println(s.name() + ": pbs_mom at its start (start-up, licensing HUP): " + counts(s.atStart())
                    + "; RELEASE calls " + s.mom().releases() + ", of them answered claims > 0 " + s.mom().claimsAnswers()
                    + " (most tries for one reservation " + s.mom().maxTries() + "); failed RESERVEs " + s.mom().failedReserves()
                    + "; BASIL errors " + s.mom().errors().size() + "; jobs not exited 0 " + s.notExitedZero()
                    + "; planted " + s.planted().ids() + (s.name().equals("off-system") ? " listed by proxy orphans after "
                    + s.planted().foundAfter() + " s" : "") + ", released: " + s.planted().release());
            System.out.println("stats (" + s.name() + "):\n" + s.stats());
        }
        for (Side s : List.of(on, off)) {
            assertEquals(List.of(), s.mom().errors(), s.name() + ": BASIL errors in pbs_mom's log");
            assertEquals(0, s.mom().failedReserves().entrySet().stream().filter(e -> !e.getKey().equals("planted"))
                    .mapToInt(Map.Entry::getValue).sum(), s.name() + ": RESERVEs refused on nodes PBS was told were free");
            assertEquals(List.of(), s.notExitedZero(), s.name() + ": jobs that did not exit 0");
        }
        assertTrue(off.planted().foundAfter() >= 0, "every planted reservation listed by proxy orphans: " + off.stats());
        int momInventories = off.seen().getOrDefault("QUERY/INVENTORY", List.of()).size()
                + off.atStart().getOrDefault("QUERY/INVENTORY", List.of()).size();
        int backendInventories = off.reachedAlps().getOrDefault("QUERY/INVENTORY", 0);
        System.out.printf(Locale.ROOT, "off-system: backend INVENTORYs during the workload %d; pbs_mom's INVENTORYs %d"
                + " (workload and start); makespan off/on %.2f%n", backendInventories, momInventories,
                off.makespan().toMillis() / (double) on.makespan().toMillis());
        assertTrue(backendInventories * 10 <= momInventories, "backend INVENTORYs <= 1 per 10 of pbs_mom's");
    }

    private static Side run(String name, boolean onSystem, String machine, int jobs, long seed) throws Exception {
        Path prefix = Clients.openpbs();
        Bridge bridge = new Bridge("pbs-bench-" + name, machine, List.of("--orphan-jobs", prefix.resolve("bin/qselect").toString()));
        PbsComplex pbs = null;
        try {
            Path client = bridge.timed(onSystem ? bridge.alpsApbasil() : bridge.apbasil());
            pbs = PbsComplex.start(prefix, bridge, c -> {
                bridge.startResidentAlps(ALPS);
                bridge.startProxy();
            }, client);
            if (onSystem) {
                bridge.stopProxy(); // it answered the complex's start; its refreshes must not count as pbs_mom's calls
            }
            List<String> offline = offlineTwoVnodes(pbs);
            Path timings = bridge.dir().resolve("timings");
            List<String> startLines = Files.readAllLines(timings);
            Map<String, Integer> before = reachedAlps(bridge);
            long t0 = System.nanoTime();
            List<String> submitted = submit(pbs, jobs, seed);
            PbsComplex p = pbs;
            Planting planting = new Planting(bridge, onSystem, offline);
            long deadline = System.nanoTime() + Duration.ofMinutes(40).toNanos();
            List<String> queue = pbs.queue();
            while (!queue.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(1000);
                queue = pbs.queue();
                if (queue.size() <= jobs * 2 / 3) {
                    planting.step(t0);
                }
            }
            assertTrue(queue.isEmpty(), name + ": jobs left " + queue);
            Duration makespan = Duration.ofNanos(System.nanoTime() - t0);
            Map<String, Integer> reached = reachedAlps(bridge);
            before.forEach((k, v) -> reached.merge(k, -v, Integer::sum));
            // the planted reservations' finding and release may outlast the workload (the watch looks at its next
            // full inventory), which is no longer timed
            assertTrue(Host.await(Duration.ofMinutes(5), () -> planting.step(t0)), name + ": planted " + planting.ids);
            List<String> all = Files.readAllLines(timings);
            List<String> notZero = submitted.stream().filter(j -> !p.attribute(j, "Exit_status").equals("0"))
                    .map(j -> j + " " + p.state(j) + " exit " + p.attribute(j, "Exit_status") + ": " + p.attribute(j, "comment")).toList();
            String stats = (onSystem ? "" : "proxy:\n" + bridge.stats().out() + "proxy orphans:\n" + bridge.orphans().out())
                    + "resident ALPS:\n" + bridge.alpsStats().out();
            return new Side(name, byMethod(all.subList(startLines.size(), all.size())), byMethod(startLines), reached,
                    makespan, stats, mom(pbs.momLog(), planting.ids),
                    new Planted(planting.ids, planting.foundAfter, planting.release), notZero);
        } finally {
            if (pbs != null) {
                pbs.close();
            }
            bridge.close();
        }
    }

    /** The seeded workload: 1–4 whole vnodes, 1–3 s, five users; ids in submission order. */
    private static List<String> submit(PbsComplex pbs, int count, long seed) {
        Random random = new Random(seed);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String user = SlurmInteropTest.USERS.get(random.nextInt(SlurmInteropTest.USERS.size()));
            ids.add(pbs.submit(user, PbsComplex.nodes(1 + random.nextInt(4)), 1 + random.nextInt(3)));
        }
        return ids;
    }

    /** Takes the two highest-numbered compute vnodes offline for the run (the planted reservations' nodes); their nids. */
    private static List<String> offlineTwoVnodes(PbsComplex pbs) {
        List<String> names = pbs.vnodes().keySet().stream()
                .sorted(Comparator.comparingLong(v -> Long.parseLong(v.substring(v.lastIndexOf('_') + 1)))).toList();
        List<String> two = names.subList(names.size() - 2, names.size());
        two.forEach(v -> pbs.qmgr("set node " + v + " state = offline")); // pbsnodes -o knows hosts, not vnodes
        return two.stream().map(v -> v.substring(v.lastIndexOf('_') + 1)).toList();
    }

    /**
     * Two reservations made straight at the resident ALPS on the offline vnodes, behind the proxy's back; off-system
     * listed by {@code proxy orphans} (the watch judges the daemon's next full inventory) and then released by
     * {@code proxy orphans --release}, on-system released straight.
     */
    private static final class Planting {
        private final Bridge bridge;
        private final boolean onSystem;
        private final List<String> nids;
        private final List<String> ids = new ArrayList<>();
        private double foundAfter = -1;
        private String release = "not yet";
        private long plantedAt;

        Planting(Bridge bridge, boolean onSystem, List<String> nids) {
            this.bridge = bridge;
            this.onSystem = onSystem;
            this.nids = nids;
        }

        /** One step: plant, or look for them, or release; true once released. */
        boolean step(long t0) {
            try {
                if (ids.isEmpty()) {
                    plantedAt = System.nanoTime();
                    for (int i = 0; i < nids.size(); i++) {
                        String answer = bridge.basil(bridge.alpsApbasil(), "<?xml version=\"1.0\"?>\n"
                                + "<BasilRequest protocol=\"1.4\" method=\"RESERVE\"><ReserveParamArray user_name=\"daemon\""
                                + " batch_id=\"planted-" + (i + 1) + "\"><ReserveParam architecture=\"XT\" width=\"1\""
                                + " depth=\"1\" nppn=\"1\"><NodeParamArray><NodeParam>" + nids.get(i)
                                + "</NodeParam></NodeParamArray></ReserveParam></ReserveParamArray></BasilRequest>\n");
                        Matcher m = Pattern.compile("reservation_id=\"(\\d+)\"").matcher(answer);
                        assertTrue(m.find(), "planted RESERVE: " + answer);
                        ids.add(m.group(1));
                    }
                    System.out.printf(Locale.ROOT, "planted reservations %s on nids %s at %.0f s%n", ids, nids,
                            (plantedAt - t0) / 1e9);
                    return false;
                }
                if (!release.equals("not yet")) {
                    return true;
                }
                if (onSystem) {
                    List<String> answers = new ArrayList<>();
                    for (String id : ids) {
                        answers.add(bridge.basil(bridge.alpsApbasil(), "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.4\""
                                + " method=\"RELEASE\" reservation_id=\"" + id + "\"/>\n").contains("status=\"SUCCESS\"") ? "ok" : "failed");
                    }
                    release = "straight at ALPS " + answers;
                    return true;
                }
                String listed = bridge.orphans().out();
                if (ids.stream().allMatch(id -> Pattern.compile("(?m)^\\s*" + id + "\\s").matcher(listed).find())) {
                    foundAfter = Math.round((System.nanoTime() - plantedAt) / 1e8) / 10.0;
                    release = "proxy orphans --release: " + bridge.orphans("--release").ok().out().strip().replace('\n', ';');
                    return true;
                }
                return false;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /**
     * pbs_mom's log: its BASIL errors; each "already reserved" refusal by whose reservation held the node (a planted
     * one, one PBS had released and ALPS still held, or another: PBS placed a job on a node ALPS held for a job it
     * knew of, which a served inventory could only have caused); its RELEASEs (alps.c logs each with its PAGG), those
     * answered claims > 0, and the most tries one reservation took.
     */
    private static Mom mom(String log, List<String> planted) {
        Map<String, Integer> failed = new TreeMap<>();
        Set<String> released = new TreeSet<>();
        Matcher cancel = Pattern.compile("Canceling ALPS reservation (\\d+) with PAGG").matcher(log);
        int releases = 0;
        while (cancel.find()) {
            releases++;
            released.add(cancel.group(1));
        }
        for (String line : log.lines().filter(l -> l.contains("BASIL error")).toList()) {
            Matcher m = ALREADY_RESERVED.matcher(line);
            String cause = !m.find() ? "other" : planted.contains(m.group(2)) ? "planted"
                    : released.contains(m.group(2)) ? "released-draining" : "held-for-a-pbs-job";
            failed.merge(cause, 1, Integer::sum);
        }
        int claims = (int) log.lines().filter(l -> l.matches(".*ALPS reservation \\d+ has \\d+ claims against it.*")).count();
        int maxTries = 1;
        Matcher tries = Pattern.compile("Cancelled ALPS reservation \\d+ after a total of (\\d+) tries").matcher(log);
        while (tries.find()) {
            maxTries = Math.max(maxTries, Integer.parseInt(tries.group(1)));
        }
        return new Mom(log.lines().filter(l -> PbsInteropTest.MOM_ERRORS.matcher(l).find()).toList(), failed, releases, claims,
                maxTries);
    }

    private static Map<String, List<Long>> byMethod(List<String> timings) {
        Map<String, List<Long>> seen = new TreeMap<>();
        for (String line : timings) {
            String[] f = line.strip().split(" ");
            if (f.length == 2) {
                seen.computeIfAbsent(f[0], k -> new ArrayList<>()).add(Long.parseLong(f[1]));
            }
        }
        return seen;
    }

    private static String counts(Map<String, List<Long>> seen) {
        Map<String, Integer> n = new LinkedHashMap<>();
        seen.forEach((k, v) -> n.put(k, v.size()));
        return n.toString();
    }

    /** Calls that reached ALPS, by method key: the resident ALPS daemon's requests, from its {@code stats --json}. */
    private static Map<String, Integer> reachedAlps(Bridge bridge) {
        Map<String, Integer> n = new TreeMap<>();
        Matcher m = Pattern.compile("\"([A-Z]+(?:/[A-Z]+)?)\":\\{\"requests\":(\\d+)").matcher(bridge.alpsStats("--json").ok().out());
        while (m.find()) {
            n.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        return n;
    }

    private static String table(String machine, int jobs, long seed, Side on, Side off) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT,
                "OpenPBS (pbs_mom), %d jobs (seed %d), %s answering with the xc30-2256 latency model%n"
                        + "makespan: on-system %.0f s, off-system %.0f s%n"
                        + "%-16s | %-36s | %-36s%n%-16s | %6s %6s %7s %7s %7s | %6s %6s %7s %7s %7s%n",
                jobs, seed, machine, on.makespan().toMillis() / 1e3, off.makespan().toMillis() / 1e3, "",
                "on-system (apbasil -> ALPS)", "off-system (apbasil -> proxy -> ALPS)", "method", "calls", "ALPS", "p50 ms",
                "p90 ms", "max ms", "calls", "ALPS", "p50 ms", "p90 ms", "max ms"));
        TreeSet<String> methods = new TreeSet<>(on.seen().keySet());
        methods.addAll(off.seen().keySet());
        methods.addAll(on.reachedAlps().keySet());
        methods.addAll(off.reachedAlps().keySet());
        methods.removeIf(m -> on.reachedAlps().getOrDefault(m, 0) == 0 && off.reachedAlps().getOrDefault(m, 0) == 0
                && !on.seen().containsKey(m) && !off.seen().containsKey(m));
        for (String m : methods) {
            t.append(String.format(Locale.ROOT, "%-16s | %s | %s%n", m, row(on, m), row(off, m)));
        }
        return t.toString();
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
}
