package org.alpsbridge.emulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/**
 * The emulated ALPS scheduler (apsched): node states and roles, reservations and what they hold on each node,
 * and the change counters; {@link Placement} decides where a RESERVE goes. Not thread-safe: {@link Emulator}
 * guards it with a read-write lock.
 */
final class Apsched {

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
    /** The uid and gid ALPS writes in a user's applications: from the name alone, unless told otherwise (Control). */
    private Function<String, long[]> userIds = Views::idsOfName;
    private long changeCount = 1;
    private long schedChangeCount = 1;
    private final Placement placement;

    /** What the reservations holding a node take of it together, and who they are. */
    static final class NodeUse {
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
        this.placement = new Placement(this);
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

    /** What is held on the node, or {@code null} for an idle node. */
    NodeUse use(int node) {
        return use[node];
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
            Placement.Plan plan = placement.plan(d, claimed);
            shares.addAll(plan.shares());
            commands.add(new Reservation.Command(d.width(), d.effectiveDepth(), d.nppn(), plan.memoryMbPerPe(),
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

    /** Takes users' uid and gid from {@code ids} from now on (see {@link Control#userIds}). */
    void userIds(Function<String, long[]> ids) {
        userIds = ids;
    }

    /** {uid, gid} ALPS writes in {@code user}'s applications. */
    long[] userIds(String user) {
        return userIds.apply(user);
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
        long[] ids = userIds(r.user);
        r.applications.add(new Reservation.Application(apid, ids[0], ids[1], Math.max(1, now()), cmd, c.width(), c.depth(),
                c.nppn()));
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
