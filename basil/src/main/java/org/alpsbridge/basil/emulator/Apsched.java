package org.alpsbridge.basil.emulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/**
 * The emulated ALPS scheduler (apsched): node states and roles, reservations and what they hold, the
 * placement of RESERVE requests and the change counters. Not thread-safe: {@link Emulator} guards it with
 * a read-write lock.
 *
 * <p>Placement follows ALPS: nodes are taken in NID order (or in the order of the request's node list),
 * EXCLUSIVE reservations (the default) need idle nodes, SHARED ones may share nodes with other SHARED
 * reservations. On each node a PE takes {@code depth} processors from the first free processors of the
 * allowed segments, using only the first {@code nppcu} processors of each compute unit when nppcu is set.
 */
final class Apsched {

    private static final long PAGES_PER_MB = 1024 / Hardware.PAGE_SIZE_KB;

    private final Machine machine;
    private final LongSupplier clock;
    private final NodeState[] states;
    private final Role[] roles;
    private final String[][] labels;
    /** What is held on each node, or {@code null} for an idle node. */
    private final NodeUse[] use;
    /** The changecount at which each node's data last changed (1: never since start). */
    private final long[] changedAt;
    private final TreeMap<Long, Reservation> reservations = new TreeMap<>();
    private long nextReservationId = 1;
    private long nextApid = 1_000_001;
    /** Whether a process aggregate still exists; never, unless the emulator watches this host's (see Control). */
    private LongPredicate paggAlive = pagg -> false;
    private boolean watchingPaggs;
    private long changeCount = 1;
    private long schedChangeCount = 1;

    private static final class NodeUse {
        final BitSet processors = new BitSet();
        final long[] pages;
        final List<Reservation> holders = new ArrayList<>(1);
        /** The share of each holder on this node, in the order of {@link #holders}. */
        final List<Reservation.Share> shares = new ArrayList<>(1);
        boolean accelerator;

        NodeUse(int segments) {
            pages = new long[segments];
        }

        boolean exclusive() {
            return holders.stream().anyMatch(r -> !r.shared);
        }
    }

    /** A machine as it starts, holding the reservations of its capture, if any. */
    Apsched(Machine machine, LongSupplier clockSeconds) {
        this(machine, clockSeconds, true);
    }

    /** {@code startReservations} false for a machine whose reservations come from a snapshot instead. */
    Apsched(Machine machine, LongSupplier clockSeconds, boolean startReservations) {
        this.machine = machine;
        this.clock = clockSeconds;
        int n = machine.size();
        states = new NodeState[n];
        roles = new Role[n];
        labels = new String[n][];
        use = new NodeUse[n];
        changedAt = new long[n];
        Arrays.fill(changedAt, 1);
        for (int i = 0; i < n; i++) {
            states[i] = machine.initialState(i);
            roles[i] = machine.initialRole(i) == Machine.ROLE_INTERACTIVE ? Role.INTERACTIVE : Role.BATCH;
            labels[i] = machine.initialLabels(i);
        }
        if (startReservations) {
            for (Reservation r : machine.startReservations()) {
                restoreReservation(r);
                nextReservationId = Math.max(nextReservationId, r.id + 1);
                nextApid = Math.max(nextApid, r.applications.stream().mapToLong(Reservation.Application::apid).max().orElse(0) + 1);
                nextApid = Math.max(nextApid, r.basilApid + 1);
            }
        }
    }

    Machine machine() {
        return machine;
    }

    long now() {
        return clock.getAsLong();
    }

    // ---- node state ---------------------------------------------------------------------------------

    NodeState state(int node) {
        return states[node];
    }

    Role role(int node) {
        return roles[node];
    }

    String[] labels(int node) {
        return labels[node];
    }

    long changeCount() {
        return changeCount;
    }

    long schedChangeCount() {
        return schedChangeCount;
    }

    /** Sets nodes' state; the change counters move only if some node really changed. */
    void setState(int[] nids, NodeState state) {
        change(nids, node -> states[node] != state, node -> states[node] = state, true);
    }

    void setRole(int[] nids, Role role) {
        change(nids, node -> roles[node] != role, node -> roles[node] = role, true);
    }

    /** Replaces nodes' labels: node data, but not what SUMMARY's schedchangecount follows. */
    void setLabels(int[] nids, String... names) {
        change(nids, node -> !Arrays.equals(labels[node], names), node -> labels[node] = names.clone(), false);
    }

    /** Applies a node change; the counters move once, and only if some node really changed. */
    private void change(int[] nids, IntPredicate differs, IntConsumer apply, boolean scheduling) {
        int[] nodes = indices(nids);
        boolean changed = false;
        for (int node : nodes) {
            if (differs.test(node)) {
                if (!changed) {
                    changeCount++;
                    schedChangeCount += scheduling ? 1 : 0;
                    changed = true;
                }
                apply.accept(node);
                changedAt[node] = changeCount;
            }
        }
    }

    /** The changecount at which the node's data last changed. */
    long changedAt(int node) {
        return changedAt[node];
    }

    private int[] indices(int[] nids) {
        int[] nodes = new int[nids.length];
        for (int i = 0; i < nids.length; i++) {
            nodes[i] = machine.indexOf(nids[i]);
            if (nodes[i] < 0) {
                throw new IllegalArgumentException("NID " + nids[i] + " is not a compute node of machine '" + machine.spec() + "'");
            }
        }
        return nodes;
    }

    /** True if any reservation holds processors, memory or the accelerator of the node. */
    boolean allocated(int node) {
        return use[node] != null;
    }

    /** The reservations holding something on the node, oldest first; empty if idle. */
    List<Reservation> holders(int node) {
        return use[node] == null ? List.of() : List.copyOf(use[node].holders);
    }

    /** What each of {@link #holders(int)} holds on the node, in the same order. */
    List<Reservation.Share> shares(int node) {
        return use[node] == null ? List.of() : List.copyOf(use[node].shares);
    }

    Collection<Reservation> reservations() {
        return reservations.values();
    }

    Reservation reservation(long id) {
        return reservations.get(id);
    }

    // ---- RESERVE ------------------------------------------------------------------------------------

    /**
     * Places one reservation: every demand on nodes of its own. All or nothing: a rejection leaves the
     * state untouched.
     */
    Reservation reserve(String user, String account, String batchId, List<Demand> demands) throws Rejection {
        if (user == null || user.isBlank()) {
            throw Rejection.syntax("ALPS error: RESERVE needs a user_name");
        }
        if (demands.isEmpty()) {
            throw Rejection.syntax("ALPS error: RESERVE needs at least one ReserveParam");
        }
        boolean shared = demands.get(0).shared();
        BitSet claimed = new BitSet(machine.size());
        List<Reservation.Share> shares = new ArrayList<>();
        List<Reservation.Command> commands = new ArrayList<>();
        for (Demand d : demands) {
            if (d.shared() != shared) {
                throw Rejection.syntax("ALPS error: all ReserveParams of one reservation need the same reservation_mode");
            }
            Plan plan = plan(d, claimed);
            shares.addAll(plan.shares);
            commands.add(new Reservation.Command(d.width(), d.effectiveDepth(), d.nppn(), plan.memoryMbPerPe,
                    d.architecture() == null ? "XT" : d.architecture()));
        }
        Reservation r = new Reservation(nextReservationId++, user, account == null ? "DEFAULT" : account,
                batchId, shared, demands.get(0).gpcMode(), now(), commands, shares);
        hold(r);
        return r;
    }

    private void hold(Reservation r) {
        if (r.basilApid == 0) {
            r.basilApid = nextApid++;
        }
        reservations.put(r.id, r);
        for (Reservation.Share s : r.shares) {
            NodeUse u = use[s.node()];
            if (u == null) {
                u = use[s.node()] = new NodeUse(machine.hardware(s.node()).segments());
            }
            u.processors.or(s.processors());
            for (int seg = 0; seg < s.pages().length; seg++) {
                u.pages[seg] += s.pages()[seg];
            }
            u.accelerator |= s.accelerator();
            u.holders.add(r);
            u.shares.add(s);
        }
    }

    private void unhold(Reservation r) {
        reservations.remove(r.id);
        for (Reservation.Share s : r.shares) {
            NodeUse u = use[s.node()];
            int k = u.holders.indexOf(r);
            u.holders.remove(k);
            u.shares.remove(k);
            if (u.holders.isEmpty()) {
                use[s.node()] = null;
                continue;
            }
            u.processors.andNot(s.processors());
            for (int seg = 0; seg < s.pages().length; seg++) {
                u.pages[seg] -= s.pages()[seg];
            }
            u.accelerator &= !s.accelerator();
        }
    }

    private record Plan(List<Reservation.Share> shares, long memoryMbPerPe) {
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

    private Plan plan(Demand d, BitSet claimed) throws Rejection {
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
                if (roles[node] != Role.BATCH) {
                    throw Rejection.transientFailure("ALPS error: apsched: node " + nid + " is " + roles[node] + ", not BATCH");
                }
                if (states[node] != NodeState.UP) {
                    throw Rejection.transientFailure("ALPS error: apsched: node " + nid + " is " + states[node]);
                }
                Fit f = fits.get(machine.hardware(node));
                if (f.impossible != null || !labelsAllow(node, d) || claimed.get(node)) {
                    continue;
                }
                Reservation.Share s = take(node, f, remaining);
                if (s == null) {
                    throw Rejection.transientFailure("ALPS error: apsched: node " + nid + " is already reserved (resId "
                            + use[node].holders.get(0).id + ")");
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
                    if (f.impossible != null || claimed.get(node) || roles[node] != Role.BATCH || states[node] != NodeState.UP
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
        NodeUse u = use[node];
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
        for (String l : labels[node]) {
            if (l.equals(name)) {
                return true;
            }
        }
        return false;
    }

    // ---- CONFIRM, RELEASE, SWITCH -------------------------------------------------------------------

    /** Binds the reservation to a process aggregate. Repeating it with the same pagg is a no-op, as Slurm relies on. */
    Reservation confirm(long id, long pagg) throws Rejection {
        Reservation r = reservations.get(id);
        if (r == null || r.releasing) {
            throw Rejection.permanent("ALPS error: apsched: cannot find resId " + id);
        }
        if (pagg == 0) {
            throw Rejection.syntax("ALPS error: CONFIRM needs a non-zero pagg_id");
        }
        if (r.confirmed() && r.pagg != pagg) {
            throw Rejection.permanent("ALPS error: apsched: resId " + id + " is already confirmed with pagg_id " + r.pagg);
        }
        r.pagg = pagg;
        return r;
    }

    /**
     * Releases a reservation. While claims are outstanding it stays, marked releasing, and the answer counts them
     * (a RELEASE of a reservation already releasing is answered the same way); it goes when the last one ends. A
     * RELEASE of one that is gone is refused "No entry for resId". The claims are its running applications and,
     * when the emulator watches process aggregates, the confirming pagg while it lives, as ALPS learnt of a job
     * container's end from the kernel's job module. Slurm 18.08 (proctrack/pgid) confirms with the session of its
     * slurmstepd, which lives until after the stepd's own RELEASE: slurmctld's RELEASE at scancel
     * (select_p_job_signal) and the stepd's at the job's end are both answered claims 1, and the reservation goes
     * when the stepd exits, at the emulator's next call ({@link #sweepReleased}), instead of the stepd retrying a
     * "No entry for resId" for 500 s (basil_interface.c {@code do_basil_release}).
     *
     * @return the claims still outstanding (0: the reservation is gone)
     */
    int release(long id) throws Rejection {
        Reservation r = reservations.get(id);
        if (r == null) {
            throw Rejection.permanent("ALPS error: apsched: No entry for resId " + id);
        }
        int claims = r.applications.size() + (r.confirmed() && paggAlive.test(r.pagg) ? 1 : 0);
        if (claims == 0) {
            unhold(r);
            return 0;
        }
        r.releasing = true;
        return claims;
    }

    /** Watches process aggregates with {@code alive} (see {@link #release}). */
    void watchPaggs(LongPredicate alive) {
        paggAlive = alive;
        watchingPaggs = true;
    }

    boolean watchingPaggs() {
        return watchingPaggs;
    }

    /** Removes releasing reservations whose last claim has ended (the emulator does it at each call); true if one went. */
    boolean sweepReleased() {
        boolean any = false;
        for (Reservation r : List.copyOf(reservations.values())) {
            if (r.releasing && r.applications.isEmpty() && !(r.confirmed() && paggAlive.test(r.pagg))) {
                unhold(r);
                any = true;
            }
        }
        return any;
    }

    /** Suspends ({@code out}) or resumes a reservation; false if there is no such reservation. */
    boolean switchReservation(long id, boolean out) {
        Reservation r = reservations.get(id);
        if (r == null || r.releasing) {
            return false;
        }
        r.suspended = out;
        return true;
    }

    // ---- scenario controls --------------------------------------------------------------------------

    /**
     * Creates a reservation behind the scheduler's back, as aprun on an interactive node or a forgotten
     * job would: whole nodes, exclusive, confirmed, with one running application. Ignores node state and
     * role (that is the point) but not other reservations.
     */
    Reservation plant(String user, String batchId, int[] nids) {
        int[] nodes = indices(nids);
        List<Reservation.Share> shares = new ArrayList<>();
        for (int node : nodes) {
            if (use[node] != null) {
                throw new IllegalArgumentException("NID " + machine.nid(node) + " is already reserved (resId " + use[node].holders.get(0).id + ")");
            }
            Hardware hw = machine.hardware(node);
            BitSet all = new BitSet();
            all.set(0, hw.processors());
            long[] pages = new long[hw.segments()];
            Arrays.setAll(pages, hw::segmentPages);
            shares.add(new Reservation.Share(node, all, pages, hw.accelerator() != null, "OS"));
        }
        long width = shares.stream().mapToLong(s -> s.processors().cardinality()).sum();
        Hardware first = machine.hardware(nodes[0]);
        Reservation r = new Reservation(nextReservationId++, user, "DEFAULT", batchId, false, null, now(),
                List.of(new Reservation.Command(width, 1, 0, first.memoryMb() / first.processors(), "XT")), shares);
        r.pagg = 100_000 + r.id;
        hold(r);
        launch(r.id, "a.out");
        return r;
    }

    /** Starts an aprun application in a reservation (for APIDs in the inventory); returns its APID. */
    long launch(long id, String cmd) {
        Reservation r = reservations.get(id);
        if (r == null) {
            throw new IllegalArgumentException("no reservation " + id);
        }
        Reservation.Command c = r.commands.get(0);
        long apid = nextApid++;
        long uid = Views.userId(r.user);
        r.applications.add(new Reservation.Application(apid, uid, uid, Math.max(1, now()), cmd, c.width(), c.depth(), c.nppn()));
        return apid;
    }

    /** Ends an application (what apkill does); a releasing reservation goes with its last one. */
    boolean kill(long apid) {
        for (Reservation r : List.copyOf(reservations.values())) {
            if (r.applications.removeIf(a -> a.apid() == apid)) {
                if (r.releasing && r.applications.isEmpty()) {
                    unhold(r);
                }
                return true;
            }
        }
        return false;
    }

    /** Reservation ids in ascending order. */
    long[] reservationIds() {
        return reservations.keySet().stream().mapToLong(Long::longValue).toArray();
    }

    // ---- snapshot and restore (the drop-in's state directory) ---------------------------------------

    /** The counters a snapshot keeps: next reservation id, next APID, changecount, schedchangecount. */
    long[] counters() {
        return new long[] {nextReservationId, nextApid, changeCount, schedChangeCount};
    }

    void restoreCounters(long[] c) {
        nextReservationId = c[0];
        nextApid = c[1];
        changeCount = c[2];
        schedChangeCount = c[3];
    }

    /** True if the node differs from how the machine starts, so a snapshot must keep it. */
    boolean changedSinceStart(int node) {
        return states[node] != machine.initialState(node) || changedAt[node] != 1 || !Arrays.equals(labels[node], machine.initialLabels(node))
                || (roles[node] == Role.INTERACTIVE) != (machine.initialRole(node) == Machine.ROLE_INTERACTIVE);
    }

    void restoreNode(int node, NodeState state, Role role, String[] nodeLabels, long at) {
        states[node] = state;
        roles[node] = role;
        labels[node] = nodeLabels;
        changedAt[node] = at;
    }

    /** Puts back a reservation read from a snapshot; refuses one that overlaps what is already held. */
    void restoreReservation(Reservation r) {
        for (Reservation.Share s : r.shares) {
            NodeUse u = use[s.node()];
            if (u != null && (u.exclusive() || !r.shared || u.processors.intersects(s.processors()))) {
                throw new IllegalArgumentException("reservation " + r.id + " overlaps reservation " + u.holders.get(0).id
                        + " on NID " + machine.nid(s.node()));
            }
        }
        hold(r);
    }
}
