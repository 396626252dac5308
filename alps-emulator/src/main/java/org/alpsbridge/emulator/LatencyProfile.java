package org.alpsbridge.emulator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * A named MODEL of how long a real ALPS took to answer each BASIL method, so that what the emulator's
 * callers measure shows the relations of a real machine rather than an emulator's microseconds.
 *
 * <p>Each method's median is {@code base + perNode × compute nodes + perReservation × reservations held
 * + perReservedNode × nodes of the reservation concerned} (for RESERVE the nodes asked for), in
 * milliseconds; one call draws {@code median × exp(σ·Z)} with Z standard normal cut at ±3.09 (a
 * log-normal: a long right tail, never negative), σ chosen so that the 99th percentile is {@code tail ×
 * median}. Draws come from the caller's seeded {@link Random}, so a run repeats.
 *
 * <p><b>What is measured fact and what is assumption.</b> No public source gives per-method apbasil
 * timings for an XC30; the numbers below are ASSUMPTIONS, shaped to fit these facts:
 * <ul>
 * <li>The project's seed notes for a real XC30: CONFIRM took longer than INVENTORY, and RESERVE and
 *     RELEASE much longer than SUMMARY (recorded relations, no figures).
 * <li>Slurm 18.08.9 {@code slurm.conf(5)}, {@code SchedulerParameters=inventory_interval}: the BASIL
 *     inventory call "is rather slow, so making it less frequently improves performance dramatically";
 *     hence INVENTORY is the slowest query and grows with the machine (a per-node term).
 * <li>Slurm 18.08.9 {@code libalps/basil_request.c}: an apbasil call is logged as slow only past a
 *     "5 seconds limit"; so normal calls stay well under 5 s (every p99 here does, at 2,256 nodes).
 * <li>OpenPBS {@code mom_main.c}: {@code alps_release_wait_time} 0.4 s and {@code alps_release_jitter}
 *     0.12 s between RELEASE attempts while ALPS still cleans up a reservation's nodes; hence RELEASE is
 *     modelled in the tenths of a second, with a per-reserved-node term.
 * <li>apbasil is a program started per call on a service node that asks apsched; every method pays a
 *     process start and a round trip (ENGINE's base, an assumption of a few tens of milliseconds).
 * </ul>
 * Derived plainly: SUMMARY is one small answer (no per-node work beyond counting); an INVENTORY that asks
 * for the reservations alone (no NodeArray: Cobalt's way of following reservations) pays INVENTORY's base and
 * per-reservation terms and walks no node, so its per-node term counts no nodes; RESERVE is
 * apsched's placement (a search over free nodes) plus writing the reservation; CONFIRM binds the job
 * container to the reservation on its nodes (per-node claims); SWITCH signals every node of the
 * reservation. The design point is {@value #DESIGN_NODES} compute nodes with up to one reservation per
 * {@value #NODES_PER_RESERVATION} nodes; the relations hold there (see the profile's tests).
 */
public final class LatencyProfile {

    /** The profiles {@link #named(String)} knows, as the knobs' help texts list them. */
    public static final String NAMES = "xc30-2256 (a modelled 2,256-node Cray XC30) or none (answer at once)";

    /** The machine the xc30-2256 profile was shaped for. */
    public static final int DESIGN_NODES = 2256;

    /** The busiest machine the relations are promised for: one reservation per this many nodes. */
    public static final int NODES_PER_RESERVATION = 8;

    /** 2.326: the 99th percentile of the standard normal. */
    private static final double Z99 = 2.3263;

    /** The cut of Z: no draw beyond the 99.9th percentile, so one unlucky call cannot stall a run. */
    private static final double Z_CUT = 3.0902;

    /**
     * One method's model, in milliseconds.
     *
     * @param tail the 99th percentile as a multiple of the median
     */
    public record Term(double base, double perNode, double perReservation, double perReservedNode, double tail) {

        /** The median for this machine state. */
        public double medianMillis(Load load) {
            return base + perNode * load.computeNodes() + perReservation * load.reservations()
                    + perReservedNode * load.reservedNodes();
        }

        double sigma() {
            return Math.log(tail) / Z99;
        }
    }

    /**
     * What a call's latency depends on.
     *
     * @param computeNodes compute nodes of the machine (0 for an INVENTORY of the reservations alone)
     * @param reservations reservations ALPS holds
     * @param reservedNodes nodes of the reservation the call concerns (RESERVE: asked for; else 0)
     */
    public record Load(int computeNodes, int reservations, int reservedNodes) {
    }

    private static final LatencyProfile NONE = new LatencyProfile("none", Map.of());

    private static final LatencyProfile XC30_2256 = new LatencyProfile("xc30-2256", xc30());

    private static Map<String, Term> xc30() {
        Map<String, Term> m = new LinkedHashMap<>();
        // key                          base  perNode perRes perResNode tail    median at 2,256 nodes, 0..282 reservations
        m.put("QUERY/ENGINE", new Term(25, 0, 0, 0, 2.0));           // 25 ms
        m.put("QUERY/SUMMARY", new Term(30, 0.005, 0, 0, 2.0));      // 41 ms
        m.put("QUERY/STATUS", new Term(35, 0, 0.05, 0, 2.0));        // 35-49 ms
        m.put("QUERY/SYSTEM", new Term(50, 0.04, 0, 0, 2.0));        // 140 ms
        m.put("QUERY/TOPOLOGY", new Term(50, 0.04, 0, 0, 2.0));      // 140 ms
        m.put("QUERY/INVENTORY", new Term(60, 0.08, 0.5, 0, 2.5));   // 240-381 ms
        m.put("RESERVE", new Term(350, 0, 0.2, 0.5, 3.0));           // 350-770 ms (0..512 nodes asked)
        m.put("CONFIRM", new Term(450, 0, 0, 1.0, 3.0));             // 450-962 ms
        m.put("RELEASE", new Term(400, 0, 0, 1.0, 3.0));             // 400-912 ms
        m.put("SWITCH", new Term(300, 0, 0, 1.0, 3.0));              // 300-812 ms
        return Map.copyOf(m);
    }

    private final String name;
    private final Map<String, Term> terms;

    private LatencyProfile(String name, Map<String, Term> terms) {
        this.name = name;
        this.terms = terms;
    }

    /**
     * The profile of this name.
     *
     * @throws IllegalArgumentException naming the profiles there are
     */
    public static LatencyProfile named(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "xc30-2256" -> XC30_2256;
            case "none" -> NONE;
            default -> throw new IllegalArgumentException("unknown latency profile '" + name + "'; expected " + NAMES);
        };
    }

    public String name() {
        return name;
    }

    /** True for {@code none}: every call answers at once. */
    public boolean isNone() {
        return terms.isEmpty();
    }

    /** The method keys ({@code QUERY/INVENTORY}, {@code RESERVE}, ...) this profile models, in a fixed order. */
    public List<String> methods() {
        return terms.keySet().stream().sorted().toList();
    }

    /** The model of one method ({@code QUERY/TYPE} or the method name), or null if it is not modelled. */
    public Term term(String methodKey) {
        return terms.get(methodKey);
    }

    /** The modelled median of one call, in milliseconds; 0 for a method the profile does not model. */
    public double medianMillis(String methodKey, Load load) {
        Term t = terms.get(methodKey);
        return t == null ? 0 : t.medianMillis(load);
    }

    /** One call's modelled latency in nanoseconds, drawn from {@code random}; 0 for a method not modelled. */
    public long drawNanos(String methodKey, Load load, Random random) {
        Term t = terms.get(methodKey);
        if (t == null) {
            return 0;
        }
        double z = Math.max(-Z_CUT, Math.min(Z_CUT, random.nextGaussian()));
        return Math.round(t.medianMillis(load) * Math.exp(t.sigma() * z) * 1e6);
    }

    @Override
    public String toString() {
        return name;
    }
}
