package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the proxy's policy saves for a real Slurm 18.08: the same seeded workload (50 jobs, {@code -Dinterop.jobs=N})
 * scheduled twice in one run on the same emulated XC30 answering with the {@code xc30-2256} latency MODEL, first
 * on-system, then off-system. ALPS is resident in both runs ({@link Bridge#startResidentAlps}: a daemon, policy off,
 * in front of the in-process emulator with the model and the claims of slurmstepd's session), so each ALPS call costs
 * the model's latency and nothing else on either side: on-system cray.conf {@code apbasil=} is {@code bin/apbasil}
 * straight to it; off-system {@code bin/apbasil} → proxy → it (asked from the proxy's process). Both sides pay one
 * client start per Slurm call; off/on isolates what the bridge adds. A wrapper around each {@code apbasil} times every
 * call as Slurm saw it (slurmctld's and slurmstepd's); the resident ALPS's own stats count the calls that reached it.
 * Prints the table, the proxy's stats and ALPS's.
 * Opt-in ({@code long}): {@code mvn -B -ntp -Plong -pl interop -am verify -Dtest=SlurmPolicyBench
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("long")
@Order(4) // the class order: src/test/resources/junit-platform.properties
class SlurmPolicyBench {

    /** One side's figures: each method's call times (ns) as Slurm saw them, what reached ALPS, the proxy's stats. */
    private record Side(String name, Map<String, List<Long>> seen, Map<String, Integer> reachedAlps, Duration makespan,
                        String proxyStats) {
    }

    @Test
    void inventoryCallsAndLatencySlurmSawOnSystemAndOffSystem() throws Exception {
        int jobs = Integer.getInteger("interop.jobs", 50);
        long seed = Long.getLong("interop.seed", 20261125L);
        Side on = run("on-system", true, jobs, seed);
        Side off = run("off-system", false, jobs, seed);
        System.out.println(table(jobs, seed, on, off));
        System.out.println("stats (on-system):\n" + on.proxyStats());
        System.out.println("stats (off-system):\n" + off.proxyStats());
        int madeOff = off.seen().getOrDefault("QUERY/INVENTORY", List.of()).size();
        assertTrue(off.reachedAlps().getOrDefault("QUERY/INVENTORY", 0) < madeOff,
                "the policy answered some of Slurm's INVENTORY calls itself");
    }

    private static Side run(String name, boolean onSystem, int jobs, long seed) throws Exception {
        Path prefix = Clients.slurm();
        Bridge bridge = new Bridge("slurm-bench-" + name, "xc30:16", List.of());
        CraySlurm slurm = null;
        try {
            bridge.startResidentAlps(List.of("emulator_latency_profile=xc30-2256", "emulator_latency_seed=1", "emulator_paggs=host"));
            bridge.proxyEnvironment(CraySlurm.environment(prefix, bridge));
            bridge.startProxy();
            slurm = CraySlurm.start(prefix, bridge, bridge.timed(onSystem ? bridge.alpsApbasil() : bridge.apbasil()));
            if (onSystem) {
                bridge.stopProxy(); // it filled the SDB; its refreshes must not count as Slurm's calls
            }
            Path timings = bridge.dir().resolve("timings");
            int skipTimings = Files.exists(timings) ? Files.readAllLines(timings).size() : 0;
            Map<String, Integer> before = reachedAlps(bridge);
            long t0 = System.nanoTime();
            slurm.submitMixed(jobs, seed, SlurmInteropTest.USERS);
            CraySlurm s = slurm;
            assertTrue(Host.await(Duration.ofMinutes(40), () -> s.queue().isEmpty()), name + ": jobs left " + slurm.queue());
            Duration makespan = Duration.ofNanos(System.nanoTime() - t0);
            Map<String, Integer> reached = reachedAlps(bridge);
            before.forEach((k, v) -> reached.merge(k, -v, Integer::sum));
            Map<String, List<Long>> seen = new TreeMap<>();
            for (String line : Files.readAllLines(timings).subList(skipTimings, Files.readAllLines(timings).size())) {
                String[] f = line.strip().split(" ");
                if (f.length == 2) {
                    seen.computeIfAbsent(f[0], k -> new ArrayList<>()).add(Long.parseLong(f[1]));
                }
            }
            String stats = (onSystem ? "" : "proxy:\n" + bridge.stats().out()) + "resident ALPS:\n" + bridge.alpsStats().out();
            return new Side(name, seen, reached, makespan, stats);
        } finally {
            if (slurm != null) {
                slurm.close();
            }
            bridge.close();
        }
    }

    /** Calls that reached ALPS, by method key: the resident ALPS daemon's requests, from its {@code stats --json}. */
    private static Map<String, Integer> reachedAlps(Bridge bridge) {
        Map<String, Integer> n = new TreeMap<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"([A-Z]+(?:/[A-Z]+)?)\":\\{\"requests\":(\\d+)")
                .matcher(bridge.alpsStats("--json").ok().out());
        while (m.find()) {
            n.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        return n;
    }

    private static String table(int jobs, long seed, Side on, Side off) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT,
                "Slurm 18.08.9, %d jobs (seed %d), xc30:16 answering with the xc30-2256 latency model%n"
                        + "makespan: on-system %.0f s, off-system %.0f s%n"
                        + "%-16s | %-36s | %-36s%n%-16s | %6s %6s %7s %7s %7s | %6s %6s %7s %7s %7s%n",
                jobs, seed, on.makespan().toMillis() / 1e3, off.makespan().toMillis() / 1e3, "", "on-system (apbasil -> ALPS)",
                "off-system (apbasil -> proxy -> ALPS)", "method", "calls", "ALPS", "p50 ms", "p90 ms", "max ms", "calls", "ALPS",
                "p50 ms", "p90 ms", "max ms"));
        TreeSet<String> methods = new TreeSet<>(on.seen().keySet());
        methods.addAll(off.seen().keySet());
        methods.addAll(off.reachedAlps().keySet());
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
