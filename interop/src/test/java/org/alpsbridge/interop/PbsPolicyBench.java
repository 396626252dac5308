package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link SlurmPolicyBench} with OpenPBS as the client (issue 34 item 5): the same seeded workload (50 jobs,
 * {@code -Dinterop.jobs=N}: 1–4 whole vnodes, 1–3 s, five users) scheduled twice in one run on the same emulated
 * machine ({@code -Dinterop.machine}, default xc30:16; knl:4392 is Theta's size) answering with the {@code xc30-2256}
 * latency model, first on-system, then off-system. The resident ALPS and the proxy run in the complex's network
 * namespace, where pbs_mom reaches them: on-system its {@code $alps_client} is {@code bin/apbasil} straight to the
 * resident ALPS, off-system {@code apbasil} → proxy → it; a wrapper around either times every call as pbs_mom saw it
 * ({@link PolicyBench} does the rest).
 *
 * <p>What differs from Slurm: pbs_mom asks INVENTORY (and SYSTEM) only at its start and on SIGHUP (alps.c
 * {@code alps_inventory} from {@code dep_topology}; the complex's licensing HUP; a job start that got no reservation
 * HUPs it too), never per scheduling pass, and its scheduler places jobs from the server's own vnode accounting, not
 * from an inventory's reservations. So the two reservations planted straight at ALPS during the workload (on both
 * sides, off-system behind the proxy's back) go on two vnodes both sides keep offline: elsewhere every RESERVE PBS
 * placed on their node would be refused. pbs_mom repeats a RELEASE every 0.4 s while ALPS answers claims > 0
 * ({@code catch_child.c}); its log counts them. Checks: {@link PolicyBench#checks}, with pbs_mom's BASIL errors
 * ({@link PbsInteropTest#MOM_ERRORS}); every job exited 0.
 * Opt-in ({@code long}): {@code mvn -B -ntp -Plong -pl interop -am verify -Dtest=PbsPolicyBench
 * -Dsurefire.failIfNoSpecifiedTests=false [-Dinterop.machine=knl:4392] [-Dinterop.client=jvm]}; {@code
 * -Dinterop.proxyFlags='--policy off'} adds {@code proxy serve} flags (e.g. to see what the policy itself costs).
 */
@Tag("long")
@Order(9) // the class order: src/test/resources/junit-platform.properties
class PbsPolicyBench {

    private static final int PLANTED = 2;

    @Test
    void callsLatencyAndWhatReachedAlpsAsPbsMomSawThemOnSystemAndOffSystem() throws Exception {
        int jobs = PolicyBench.jobs();
        long seed = PolicyBench.seed();
        Side on = run("on-system", true, jobs, seed);
        Side off = run("off-system", false, jobs, seed);
        System.out.println(PolicyBench.table("OpenPBS (pbs_mom)", jobs, seed, on.figures(), off.figures()));
        for (Side s : List.of(on, off)) {
            System.out.println("stats (" + s.figures().name() + "):\n" + s.figures().proxyStats());
            System.out.println("pbs_mom (" + s.figures().name() + "): " + s.mom());
        }
        System.out.println("load average at the end: " + PolicyBench.loadAverage());
        List<String> errors = new ArrayList<>(on.mom().errors());
        errors.addAll(off.mom().errors());
        List<String> failed = new ArrayList<>(PolicyBench.checks(on.figures(), off.figures(), off.plantedFound(), errors));
        for (Side s : List.of(on, off)) {
            if (!s.notExitedZero().isEmpty()) {
                failed.add(s.figures().name() + ": jobs that did not exit 0: " + s.notExitedZero());
            }
        }
        assertEquals(List.of(), failed, "issue 34's Done-when checks");
    }

    /** One side: {@link PolicyBench}'s figures, pbs_mom's log, the planted orphans found, jobs that did not exit 0. */
    private record Side(PolicyBench.Side figures, Mom mom, List<String> plantedFound, List<String> notExitedZero) {
    }

    /**
     * pbs_mom's whole log (start included): its inventory reads (each a "Node;inventory" line), its RELEASEs (one
     * "Canceling ALPS reservation" per call), those answered claims > 0 and the most calls one reservation took, its
     * BASIL errors by class ({@link PolicyBench#reserveFailure}: "already reserved" by a planted reservation or not)
     * and the lines of {@link PbsInteropTest#MOM_ERRORS}.
     */
    private record Mom(int inventories, int releases, int releasesAnsweredClaims, int mostCallsForOne,
                       Map<String, Integer> basilErrorClasses, List<String> errors) {
    }

    private static Side run(String name, boolean onSystem, int jobs, long seed) throws Exception {
        Path prefix = Clients.openpbs();
        List<String> proxyOptions = new ArrayList<>(List.of("--orphan-jobs", prefix.resolve("bin/qselect").toString()));
        String flags = System.getProperty("interop.proxyFlags", "").strip();
        if (!flags.isEmpty()) {
            proxyOptions.addAll(List.of(flags.split("\\s+")));
        }
        Bridge bridge = PolicyBench.bridgeWithoutAlps("pbs-bench-" + name, proxyOptions);
        PbsComplex pbs = null;
        try {
            Path client = bridge.timed(onSystem ? bridge.alpsApbasil() : bridge.apbasil());
            pbs = PbsComplex.start(prefix, bridge, c -> {
                PolicyBench.startResidentAlps(bridge);
                bridge.startProxy();
            }, client);
            if (onSystem) {
                bridge.stopProxy(); // it answered the complex's own start; its refreshes must not count as pbs_mom's calls
            }
            List<String> plantOn = offlineVnodes(pbs, PLANTED);
            PolicyBench.Mark mark = PolicyBench.mark(bridge, !onSystem);
            System.out.println(name + ": load average at the start " + PolicyBench.loadAverage());
            long t0 = System.nanoTime();
            List<String> submitted = pbs.submitMixed(jobs, seed, 3);
            PbsComplex p = pbs;
            List<String> planted = new ArrayList<>();
            Duration limit = Duration.ofMinutes(Integer.getInteger("interop.sideMinutes", 40));
            // one at the workload's start, one when half the jobs have gone, as SlurmPolicyBench plants them
            planted.add(PolicyBench.plant(bridge, 1, Duration.ofMinutes(5), plantOn.get(0)));
            assertTrue(Host.await(limit, () -> p.queue().size() <= jobs / 2), name + ": jobs left " + pbs.queue());
            planted.add(PolicyBench.plant(bridge, PLANTED, Duration.ofMinutes(5), plantOn.get(1)));
            assertTrue(Host.await(limit, () -> p.queue().isEmpty()), name + ": jobs left " + pbs.queue());
            Duration makespan = Duration.ofNanos(System.nanoTime() - t0);
            System.out.println(name + ": makespan " + makespan.toSeconds() + " s, load average at the end "
                    + PolicyBench.loadAverage());
            PolicyBench.Side figures = PolicyBench.side(bridge, name, mark, makespan, !onSystem, planted);
            List<String> found = onSystem ? List.of() : PolicyBench.orphansFound(bridge, planted, List.of());
            if (onSystem) { // PBS never looks for them: released straight, as an admin would
                for (String id : planted) {
                    bridge.basil(bridge.alpsApbasil(), "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.3\""
                            + " method=\"RELEASE\" reservation_id=\"" + id + "\"/>\n");
                }
            }
            List<String> notZero = submitted.stream().filter(j -> !p.attribute(j, "Exit_status").equals("0"))
                    .map(j -> j + " " + p.state(j) + " exit " + p.attribute(j, "Exit_status") + ": " + p.attribute(j, "comment"))
                    .toList();
            return new Side(figures, mom(pbs.momLog(), planted), found, notZero);
        } finally {
            if (pbs != null) {
                pbs.close();
            }
            bridge.close();
        }
    }

    /** Takes the {@code n} highest-numbered compute vnodes offline for the run (the planted reservations' nodes); their nids. */
    private static List<String> offlineVnodes(PbsComplex pbs, int n) {
        List<String> names = pbs.vnodes().keySet().stream()
                .sorted(Comparator.comparingLong(v -> Long.parseLong(v.substring(v.lastIndexOf('_') + 1)))).toList();
        List<String> last = names.subList(names.size() - n, names.size());
        last.forEach(v -> pbs.qmgr("set node " + v + " state = offline")); // pbsnodes -o knows hosts, not vnodes
        return last.stream().map(v -> v.substring(v.lastIndexOf('_') + 1)).toList();
    }

    private static Mom mom(String log, List<String> planted) {
        int inventories = (int) log.lines().filter(l -> l.contains(";Node;inventory;")).count();
        Matcher cancel = Pattern.compile("Canceling ALPS reservation (\\d+) with PAGG").matcher(log);
        Map<String, Integer> calls = new TreeMap<>();
        while (cancel.find()) {
            calls.merge(cancel.group(1), 1, Integer::sum);
        }
        int claims = (int) log.lines().filter(l -> l.matches(".*ALPS reservation \\d+ has \\d+ claims against it.*")).count();
        Map<String, Integer> failed = new TreeMap<>();
        List<String> basilErrors = log.lines().filter(l -> l.contains("BASIL error")).toList();
        // every BASIL error of a job start is its RESERVE's or CONFIRM's; the class says which it could be
        basilErrors.forEach(l -> failed.merge(PolicyBench.reserveFailure(l, planted), 1, Integer::sum));
        return new Mom(inventories, calls.values().stream().mapToInt(Integer::intValue).sum(), claims,
                calls.values().stream().mapToInt(Integer::intValue).max().orElse(0), failed,
                log.lines().filter(l -> PbsInteropTest.MOM_ERRORS.matcher(l).find()).toList());
    }
}
