package org.alpsbridge.emulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * apsched's placement of RESERVE demands on the nodes {@link Apsched} keeps, as ALPS places them: nodes are taken in
 * NID order (or in the order of the request's node list), EXCLUSIVE reservations (the default) need idle nodes,
 * SHARED ones may share nodes with other SHARED reservations. On each node a PE takes {@code depth} processors from
 * the first free processors of the allowed segments, using only the first {@code nppcu} processors of each compute
 * unit when nppcu is set. It reads the node state and changes nothing: the plan it returns is held by the caller.
 */
final class Placement {

    private static final long PAGES_PER_MB = 1024 / Hardware.PAGE_SIZE_KB;

    private final Apsched apsched;
    private final Machine machine;

    Placement(Apsched apsched) {
        this.apsched = apsched;
        this.machine = apsched.machine();
    }

    /** What one demand takes on each node, and the memory per PE its command reports. */
    record Plan(List<Reservation.Share> shares, long memoryMbPerPe) {
    }

    /**
     * How one demand fits the nodes of one hardware kind: the usable processors of each allowed segment
     * (nppcu applied), PEs per segment and per node on an idle node, or why it cannot fit at all.
     */
    private static final class Fit {
        final Hardware hw;
        final Demand d;
        final int depth;
        final int[][] usable;
        final int segmentLimit;
        final int idleCapacity;
        final String impossible;

        Fit(Hardware hw, Demand d) {
            this.hw = hw;
            this.d = d;
            this.depth = (int) Math.min(Integer.MAX_VALUE, d.effectiveDepth());
            String why = null;
            int threads = hw.threadsPerCu();
            if (d.nppcu() > hw.threadsPerCu()) {
                why = "nppcu " + d.nppcu() + " exceeds the " + hw.threadsPerCu() + " processors per compute unit of " + hw.kind() + " nodes";
            } else if (d.nppcu() > 0) {
                threads = (int) d.nppcu();
            }
            int[] allowed = d.segments() == null ? allSegments(hw) : d.segments();
            for (int s : allowed) {
                if (why == null && (s < 0 || s >= hw.segments())) {
                    why = "segment " + s + " does not exist on " + hw.kind() + " nodes (" + hw.segments() + " segments)";
                }
            }
            if (why == null && d.nspn() > allowed.length) {
                why = "nspn " + d.nspn() + " exceeds the " + allowed.length + " segments allowed on " + hw.kind() + " nodes";
            }
            usable = new int[why == null ? allowed.length : 0][];
            for (int i = 0; i < usable.length; i++) {
                usable[i] = usableProcessors(hw, allowed[i], threads);
            }
            segmentLimit = d.nspn() > 0 ? (int) d.nspn() : usable.length;
            int capacity = 0;
            if (why == null) {
                capacity = count(new BitSet(), new long[hw.segments()], Integer.MAX_VALUE, null, null);
                int perSegment = usable.length == 0 ? 0 : usable[0].length / depth;
                if (d.npps() > 0 && d.npps() > perSegment) {
                    why = "npps " + d.npps() + " exceeds the " + perSegment + " PEs a segment of a " + hw.kind()
                            + " node holds at depth " + depth + " with nppcu " + d.nppcu();
                } else if (capacity == 0 && d.memoryMb() * PAGES_PER_MB > hw.pages()) {
                    why = "memory " + d.memoryMb() + " MB per PE exceeds the " + hw.memoryMb() + " MB of a " + hw.kind() + " node";
                } else if (capacity == 0) {
                    why = "depth " + depth + " exceeds the " + segmentLimit * (long) usable[0].length + " processors a " + hw.kind()
                            + " node offers with nppcu " + d.nppcu();
                } else if (d.nppn() > capacity) {
                    why = "nppn " + d.nppn() + " exceeds the " + capacity + " PEs a " + hw.kind() + " node holds at depth " + depth
                            + " with nppcu " + d.nppcu() + (d.memoryMb() > 0 ? " and " + d.memoryMb() + " MB per PE" : "");
                }
            }
            if (why == null) {
                why = accelMismatch(hw, d);
            }
            this.idleCapacity = why == null ? (int) (d.nppn() > 0 ? d.nppn() : capacity) : 0;
            this.impossible = why;
        }

        private static int[] allSegments(Hardware hw) {
            int[] all = new int[hw.segments()];
            Arrays.setAll(all, i -> i);
            return all;
        }

        private static int[] usableProcessors(Hardware hw, int segment, int threads) {
            int[] p = new int[hw.cusPerSegment() * threads];
            int k = 0;
            for (int cu = 0; cu < hw.cusPerSegment(); cu++) {
                for (int t = 0; t < threads; t++) {
                    p[k++] = (segment * hw.cusPerSegment() + cu) * hw.threadsPerCu() + t;
                }
            }
            return p;
        }

        private static String accelMismatch(Hardware hw, Demand d) {
            for (Demand.AccelWish w : d.accels()) {
                Hardware.Accelerator a = hw.accelerator();
                boolean ok = a != null && (w.type() == null || w.type().equalsIgnoreCase("GPU"))
                        && (w.family() == null || w.family().isEmpty() || w.family().equalsIgnoreCase(a.family()))
                        && w.memoryMb() <= a.memoryMb();
                if (!ok) {
                    return "no " + hw.kind() + " node has an accelerator of type " + w.type()
                            + (w.family() == null ? "" : " family " + w.family()) + (w.memoryMb() > 0 ? " with " + w.memoryMb() + " MB" : "");
                }
            }
            return null;
        }

        /**
         * Counts (and, given {@code taken}, takes) up to {@code max} PEs on a node whose busy processors
         * and pages are given; {@code pesBySegment} receives the PEs placed per allowed segment.
         */
        int count(BitSet busy, long[] busyPages, int max, BitSet taken, int[] pesBySegment) {
            long freePages = hw.pages();
            for (long p : busyPages) {
                freePages -= p;
            }
            long pesByMemory = d.memoryMb() > 0 ? freePages / (d.memoryMb() * PAGES_PER_MB) : Long.MAX_VALUE;
            int limit = (int) Math.min(max, pesByMemory);
            int pes = 0;
            int segmentsUsed = 0;
            if (d.npps() > 0) {
                for (int s = 0; s < usable.length && segmentsUsed < segmentLimit && pes < limit; s++) {
                    int here = takeInOrder(usable[s], busy, (int) Math.min(d.npps(), limit - pes), taken);
                    if (here > 0) {
                        segmentsUsed++;
                        pes += here;
                        if (pesBySegment != null) {
                            pesBySegment[s] += here;
                        }
                    }
                }
                return pes;
            }
            // Without npps a PE may span segments (aprun -d larger than a NUMA node), so the allowed
            // segments form one pool of processors.
            int free = 0;
            int[] pool = new int[Math.min(segmentLimit, usable.length) * (usable.length == 0 ? 0 : usable[0].length)];
            int[] segmentOf = new int[pool.length];
            for (int s = 0; s < Math.min(segmentLimit, usable.length); s++) {
                for (int p : usable[s]) {
                    if (!busy.get(p)) {
                        segmentOf[free] = s;
                        pool[free++] = p;
                    }
                }
            }
            pes = Math.min(limit, free / depth);
            if (taken != null) {
                for (int i = 0; i < pes * depth; i++) {
                    taken.set(pool[i]);
                    if (pesBySegment != null && i % depth == 0) {
                        pesBySegment[segmentOf[i]]++;
                    }
                }
            }
            return pes;
        }

        private int takeInOrder(int[] processors, BitSet busy, int max, BitSet taken) {
            int free = 0;
            for (int p : processors) {
                if (!busy.get(p)) {
                    free++;
                }
            }
            int pes = Math.min(max, free / depth);
            if (taken != null) {
                int need = pes * depth;
                for (int i = 0; i < processors.length && need > 0; i++) {
                    if (!busy.get(processors[i])) {
                        taken.set(processors[i]);
                        need--;
                    }
                }
            }
            return pes;
        }
    }

    /**
     * Where one demand goes, given the nodes other demands of the same reservation {@code claimed}; changes
     * nothing (the caller holds the plan's shares).
     */
    Plan plan(Demand d, BitSet claimed) throws Rejection {
        if (d.width() < 1) {
            throw Rejection.syntax("ALPS error: ReserveParam width must be at least 1, not " + d.width());
        }
        if (d.depth() < 0 || d.nppn() < 0 || d.npps() < 0 || d.nspn() < 0 || d.nppcu() < 0 || d.memoryMb() < 0) {
            throw Rejection.syntax("ALPS error: ReserveParam depth, nppn, npps, nspn, nppcu and size_mb must not be negative");
        }
        if (d.architecture() != null && !d.architecture().equals("XT")) {
            throw Rejection.permanent("ALPS error: apsched: no compute nodes of architecture " + d.architecture());
        }
        Map<Hardware, Fit> fits = new HashMap<>();
        String why = null;
        long machineCapacity = 0;
        for (Hardware hw : machine.kinds()) {
            Fit f = new Fit(hw, d);
            fits.put(hw, f);
            why = why == null ? f.impossible : why;
        }
        for (int node = 0; node < machine.size(); node++) {
            machineCapacity += fits.get(machine.hardware(node)).idleCapacity;
        }
        if (machineCapacity == 0) {
            throw Rejection.permanent("ALPS error: apsched: " + why);
        }
        if (machineCapacity < d.width()) {
            throw Rejection.permanent("ALPS error: apsched: request exceeds max nodes, alloc: width " + d.width()
                    + " but the whole machine holds " + machineCapacity + " such PEs");
        }
        long memoryMb = d.memoryMb();
        List<Reservation.Share> shares = new ArrayList<>();
        long remaining = d.width();
        if (!d.nodeLists().isEmpty()) {
            int[] list = d.nodeLists().get(0);
            for (int nid : new LinkedHashSet<>(Arrays.stream(list).boxed().toList())) {
                if (remaining == 0) {
                    break;
                }
                int node = machine.indexOf(nid);
                if (node < 0) {
                    throw Rejection.transientFailure("ALPS error: apsched: node " + nid + " is not a compute node known to ALPS");
                }
                if (apsched.role(node) != Role.BATCH) {
                    throw Rejection.transientFailure("ALPS error: apsched: node " + nid + " is " + apsched.role(node) + ", not BATCH");
                }
                if (apsched.state(node) != NodeState.UP) {
                    throw Rejection.transientFailure("ALPS error: apsched: node " + nid + " is " + apsched.state(node));
                }
                Fit f = fits.get(machine.hardware(node));
                if (f.impossible != null || !labelsAllow(node, d) || claimed.get(node)) {
                    continue;
                }
                Reservation.Share s = take(node, f, remaining);
                if (s == null) {
                    throw Rejection.transientFailure("ALPS error: apsched: node " + nid + " is already reserved (resId "
                            + apsched.use(node).holders.get(0).id + ")");
                }
                shares.add(s);
                claimed.set(node);
                remaining -= pes(s, f);
            }
            if (remaining > 0) {
                throw Rejection.permanent("ALPS error: at least one command's user NID list is short");
            }
        } else {
            boolean soft = d.labels().stream().anyMatch(l -> !l.hard());
            for (int pass = soft ? 0 : 1; pass < 2 && remaining > 0; pass++) {
                for (int node = 0; node < machine.size() && remaining > 0; node++) {
                    Fit f = fits.get(machine.hardware(node));
                    if (f.impossible != null || claimed.get(node) || apsched.role(node) != Role.BATCH || apsched.state(node) != NodeState.UP
                            || !labelsAllow(node, d) || (pass == 0 && !softPreferred(node, d))) {
                        continue;
                    }
                    Reservation.Share s = take(node, f, remaining);
                    if (s != null) {
                        shares.add(s);
                        claimed.set(node);
                        remaining -= pes(s, f);
                    }
                }
            }
            if (remaining > 0) {
                throw Rejection.transientFailure("ALPS error: apsched: resources not available: " + d.width()
                        + " PEs asked, " + (d.width() - remaining) + " placeable now");
            }
        }
        if (memoryMb == 0 && !shares.isEmpty()) {
            Reservation.Share first = shares.get(0);
            memoryMb = machine.hardware(first.node()).memoryMb() / Math.max(1, pes(first, fits.get(machine.hardware(first.node()))));
        }
        return new Plan(shares, memoryMb);
    }

    private static int pes(Reservation.Share s, Fit f) {
        return s.processors().cardinality() / f.depth;
    }

    /**
     * Takes up to {@code remaining} PEs of the fit on the node (exactly nppn, or the rest of the width,
     * when nppn is given), or returns {@code null} if the node cannot take them now.
     */
    private Reservation.Share take(int node, Fit f, long remaining) {
        Apsched.NodeUse u = apsched.use(node);
        Hardware hw = f.hw;
        if (u != null && (!f.d.shared() || u.exclusive())) {
            return null;
        }
        BitSet busy = u == null ? new BitSet() : u.processors;
        long[] busyPages = u == null ? new long[hw.segments()] : u.pages;
        int want = (int) Math.min(remaining, f.d.nppn() > 0 ? f.d.nppn() : Integer.MAX_VALUE);
        boolean accel = !f.d.accels().isEmpty();
        if (accel && u != null && u.accelerator) {
            return null;
        }
        int[] pesBySegment = new int[f.usable.length];
        BitSet taken = new BitSet(hw.processors());
        int pes = f.count(busy, busyPages, want, taken, pesBySegment);
        if (pes == 0 || (f.d.nppn() > 0 && pes < want)) {
            return null;
        }
        return new Reservation.Share(node, taken, pages(hw, f, busyPages, taken, pesBySegment, pes, u == null), accel,
                f.d.memoryType() == null ? "OS" : f.d.memoryType());
    }

    /**
     * The pages a share takes per segment: size_mb per PE from the segments its PEs run on, spilling
     * into other segments when those are full; without size_mb, all memory of an exclusively held node
     * or, when shared, memory in proportion to the processors taken.
     */
    private static long[] pages(Hardware hw, Fit f, long[] busyPages, BitSet taken, int[] pesBySegment, int pes, boolean idle) {
        long[] pages = new long[hw.segments()];
        if (f.d.memoryMb() == 0) {
            for (int s = 0; s < hw.segments(); s++) {
                long free = hw.segmentPages(s) - busyPages[s];
                if (!f.d.shared() && idle) {
                    pages[s] = free;
                } else {
                    int procs = taken.get(s * hw.processorsPerSegment(), (s + 1) * hw.processorsPerSegment()).cardinality();
                    pages[s] = Math.min(free, hw.segmentPages(s) * procs / hw.processorsPerSegment());
                }
            }
            return pages;
        }
        long[] need = new long[hw.segments()];
        int[] allowed = f.d.segments() == null ? Fit.allSegments(hw) : f.d.segments();
        for (int i = 0; i < pesBySegment.length; i++) {
            need[allowed[i]] += pesBySegment[i] * f.d.memoryMb() * PAGES_PER_MB;
        }
        long shortfall = 0;
        for (int s = 0; s < hw.segments(); s++) {
            pages[s] = Math.min(need[s], hw.segmentPages(s) - busyPages[s]);
            shortfall += need[s] - pages[s];
        }
        for (int s = 0; s < hw.segments() && shortfall > 0; s++) {
            long more = Math.min(shortfall, hw.segmentPages(s) - busyPages[s] - pages[s]);
            pages[s] += more;
            shortfall -= more;
        }
        return pages;
    }

    private boolean labelsAllow(int node, Demand d) {
        for (Demand.LabelWish w : d.labels()) {
            if (w.hard() && hasLabel(node, w.name()) != w.attract()) {
                return false;
            }
        }
        return true;
    }

    /** True if the node satisfies every SOFT label wish of the demand. */
    private boolean softPreferred(int node, Demand d) {
        for (Demand.LabelWish w : d.labels()) {
            if (!w.hard() && hasLabel(node, w.name()) != w.attract()) {
                return false;
            }
        }
        return true;
    }

    private boolean hasLabel(int node, String name) {
        for (String l : apsched.labels(node)) {
            if (l.equals(name)) {
                return true;
            }
        }
        return false;
    }
}
