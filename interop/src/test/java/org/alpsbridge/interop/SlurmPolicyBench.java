package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the proxy's policy saves for a real Slurm 18.08 (issue 34's "Done when"): the same seeded workload (50 jobs,
 * {@code -Dinterop.jobs=N}) scheduled twice in one run on the same emulated machine ({@code -Dinterop.machine},
 * default xc30:16; knl:4392 is Theta's size) answering with the {@code xc30-2256} latency MODEL, first on-system, then
 * off-system. ALPS is resident in both runs ({@link Bridge#startResidentAlps}: a daemon, policy off, in front of the
 * in-process emulator with the model and the claims of slurmstepd's session), so each ALPS call costs the model's
 * latency and nothing else on either side: on-system cray.conf {@code apbasil=} is {@code bin/apbasil} straight to
 * it; off-system {@code apbasil} → proxy → it. Both sides run the same client ({@code -Dinterop.client=native}, the
 * default, or {@code jvm}); off/on isolates what the bridge adds. A wrapper around each {@code apbasil} times every
 * call as Slurm saw it; the resident ALPS's own stats count the calls that reached it. On both sides two reservations
 * are planted straight at ALPS during the workload (off-system behind the proxy's back; the proxy must find them).
 * Prints the table ({@link PolicyBench}), the stats and the checks, and fails when a check fails.
 * Opt-in ({@code long}): {@code mvn -B -ntp -Plong -pl interop -am verify -Dtest=SlurmPolicyBench
 * -Dsurefire.failIfNoSpecifiedTests=false [-Dinterop.machine=knl:4392] [-Dinterop.client=jvm]}.
 */
@Tag("long")
@Order(4) // the class order: src/test/resources/junit-platform.properties
class SlurmPolicyBench {

    /** Reservations planted per side, {@code -Dinterop.plant=N} (2; 0 measures the makespans without them). */
    private static final int PLANTED = Integer.getInteger("interop.plant", 2);

    @Test
    void inventoryCallsAndLatencySlurmSawOnSystemAndOffSystem() throws Exception {
        int jobs = PolicyBench.jobs();
        long seed = PolicyBench.seed();
        Side on = run("on-system", true, jobs, seed);
        Side off = run("off-system", false, jobs, seed);
        System.out.println(PolicyBench.table("Slurm 18.08.9", jobs, seed, on.figures(), off.figures()));
        System.out.println("stats (on-system):\n" + on.figures().proxyStats());
        System.out.println("stats (off-system):\n" + off.figures().proxyStats());
        System.out.println("slurmctld (on-system): " + on.ctldNotes());
        System.out.println("slurmctld (off-system): " + off.ctldNotes());
        System.out.println("load average at the end: " + PolicyBench.loadAverage());
        List<String> failed = PolicyBench.checks(on.figures(), off.figures(), off.plantedFound(), concat(on.errors(), off.errors()));
        assertEquals(List.of(), failed, "issue 34's Done-when checks");
    }

    /** One side: {@link PolicyBench}'s figures, slurmctld's own notes, its errors and the planted orphans found. */
    private record Side(PolicyBench.Side figures, String ctldNotes, List<String> errors, List<String> plantedFound) {
    }

    private static Side run(String name, boolean onSystem, int jobs, long seed) throws Exception {
        Path prefix = Clients.slurm();
        Bridge bridge = PolicyBench.bridge("slurm-bench-" + name, List.of("--orphan-jobs", "squeue -h -o %A"));
        CraySlurm slurm = null;
        try {
            bridge.proxyEnvironment(CraySlurm.environment(prefix, bridge));
            bridge.startProxy();
            slurm = CraySlurm.start(prefix, bridge, bridge.timed(onSystem ? bridge.alpsApbasil() : bridge.apbasil()));
            if (onSystem) {
                bridge.stopProxy(); // it filled the SDB; its refreshes must not count as Slurm's calls
            }
            PolicyBench.Mark mark = PolicyBench.mark(bridge, !onSystem);
            System.out.println(name + ": load average at the start " + PolicyBench.loadAverage());
            long t0 = System.nanoTime();
            slurm.submitMixed(jobs, seed, SlurmInteropTest.USERS);
            double submitted = (System.nanoTime() - t0) / 1e9;
            CraySlurm s = slurm;
            List<String> planted = new ArrayList<>();
            Duration limit = Duration.ofMinutes(Integer.getInteger("interop.sideMinutes", 40));
            // the first at the workload's start, the next as jobs leave (with 2: when half have gone); off-system
            // behind the proxy's back; on both sides, so that each makespan pays for them (Slurm releases them itself)
            for (int n = 1; n <= PLANTED; n++) {
                int left = jobs - jobs * (n - 1) / PLANTED;
                assertTrue(Host.await(limit, () -> s.queue().size() <= left), name + ": jobs left " + slurm.queue());
                planted.add(PolicyBench.plant(bridge, n, Duration.ofMinutes(5)));
            }
            assertTrue(Host.await(limit, () -> s.queue().isEmpty()), name + ": jobs left " + slurm.queue());
            Duration makespan = Duration.ofNanos(System.nanoTime() - t0);
            System.out.println(name + ": makespan " + makespan.toSeconds() + " s, load average at the end "
                    + PolicyBench.loadAverage());
            PolicyBench.Side figures = PolicyBench.side(bridge, name, mark, makespan, !onSystem, planted);
            String ctld = slurm.ctldLog();
            List<String> bySlurm = planted.stream().filter(id -> ctld.contains("orphaned ALPS reservation " + id + ",")).toList();
            List<String> found = onSystem ? List.of() : PolicyBench.orphansFound(bridge, planted, bySlurm);
            // Slurm's finding them, and its RESERVEs refused on their nodes (classified by the checks)
            String[] expected = planted.stream().flatMap(id -> java.util.stream.Stream.of("orphaned ALPS reservation " + id + ",",
                    "already reserved (resId " + id + ")")).toArray(String[]::new);
            String notes = String.format(java.util.Locale.ROOT, "%d sbatch in %.1f s; ", jobs, submitted)
                    + ctldNotes(slurm, PolicyBench.ends(bridge, mark, "QUERY/INVENTORY"));
            return new Side(figures, notes, slurm.basilErrors(expected), found);
        } finally {
            if (slurm != null) {
                slurm.close();
            }
            bridge.close();
        }
    }

    private static final java.util.regex.Pattern INVENTORY_LINE = java.util.regex.Pattern.compile(
            "^\\[([0-9T:.-]+)\\] debug:  BASIL [0-9.]+ INVENTORY: ");
    private static final java.util.regex.Pattern SLOW = java.util.regex.Pattern.compile(
            "very large processing time from (\\w+): usec=(\\d+)");

    /**
     * What slurmctld's log says about its ALPS inventories: how often it found nodes ALPS still held or an orphan, how
     * long it took from the end of each INVENTORY call ({@code inventoryEnds}, the wrapper's) to its "BASIL INVENTORY:
     * n/m batch nodes available" (the parse of the answer and the update of its node table), which of its passes
     * started the jobs (the main scheduler reads the inventory inside its {@code max_sched_time}), and its "very large
     * processing time" warnings.
     */
    private static String ctldNotes(CraySlurm slurm, List<Long> inventoryEnds) {
        String log = slurm.ctldLog();
        long held = log.lines().filter(l -> l.contains("still held")).count();
        long orphaned = log.lines().filter(l -> l.contains("orphaned ALPS reservation")).count();
        long main = log.lines().filter(l -> l.contains("sched: Allocate")).count();
        long backfill = log.lines().filter(l -> l.contains("backfill: Started")).count();
        List<Long> parse = new ArrayList<>();
        java.util.Map<String, Long> slow = new java.util.TreeMap<>();
        java.util.Map<String, Integer> slowCount = new java.util.TreeMap<>();
        int next = 0;
        for (String line : log.lines().toList()) {
            java.util.regex.Matcher m = INVENTORY_LINE.matcher(line);
            if (m.find()) {
                long at = java.time.LocalDateTime.parse(m.group(1)).atZone(java.time.ZoneId.systemDefault()).toInstant().toEpochMilli();
                Long end = null;
                while (next < inventoryEnds.size() && inventoryEnds.get(next) <= at) {
                    end = inventoryEnds.get(next++);
                }
                if (end != null) {
                    parse.add(at - end);
                }
            }
            java.util.regex.Matcher w = SLOW.matcher(line);
            if (w.find()) {
                slow.merge(w.group(1), Long.parseLong(w.group(2)) / 1000, Math::max);
                slowCount.merge(w.group(1), 1, Integer::sum);
            }
        }
        parse.sort(null);
        String parsed = parse.isEmpty() ? "no INVENTORY matched to its log line" : String.format(java.util.Locale.ROOT,
                "INVENTORY answer to its log line (parse, node table) p50 %d ms, max %d ms (%d)", parse.get(parse.size() / 2),
                parse.get(parse.size() - 1), parse.size());
        StringBuilder warnings = new StringBuilder();
        slow.forEach((f, ms) -> warnings.append(warnings.length() == 0 ? "" : ", ").append(f).append(" x").append(slowCount.get(f))
                .append(" max ").append(ms).append(" ms"));
        return parsed + "; 'still held' " + held + ", orphaned reservations " + orphaned + "; jobs started by the main"
                + " scheduler " + main + ", by backfill " + backfill + "; 'very large processing time': "
                + (warnings.length() == 0 ? "none" : warnings);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
