package org.alpsbridge.proxy.policy;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.ReserveParam;

/**
 * The last full inventory of one protocol version, as views, kept current by the reservation changes the
 * proxy forwarded, and answered as {@link InventoryAnswer}s: taken under the policy's lock, written with the
 * inventory writer the backend's own documents come from outside it. Not thread-safe: the policy guards it; the
 * views are immutable, and a patch replaces a node's view in this entry's own list, so an answer taken before
 * keeps the views it was taken with.
 *
 * <p>Besides the document it keeps what a RESERVE answer does not say and earlier inventories did: each
 * user's uid and gid (from their reservations' pseudo-applications), the highest application id ALPS has
 * handed out (the next reservation's pseudo-application takes the next one), the highest reservation id
 * (ALPS numbers reservations one after another, so a RESERVE answer that skips ids reveals reservations
 * made behind the proxy's back, each of which took application ids the cache cannot count), and the offset
 * of ALPS's clock from the proxy's. Both counters are learned from every full inventory and every RESERVE
 * answer the proxy forwards.
 */
final class CachedInventory {

    /** How far a patched reservation's {@code time_stamp} may lie from ALPS's: {@link #sameButTheClock}. */
    private static final long CLOCK_UNCERTAINTY_SECONDS = 1;

    final String protocol;
    private final InventoryHeader header;
    private final List<NodeView> nodes;
    private final Map<Long, Integer> position = new HashMap<>();
    /** Where each reservation holds something: positions in {@link #nodes}, so a patch touches those nodes only. */
    private final Map<Long, Set<Integer>> heldAt = new HashMap<>();
    private final LinkedHashMap<Long, ReservationView> reservations = new LinkedHashMap<>();
    private final Map<String, long[]> idsByUser;
    /** ALPS's clock minus the proxy's, in seconds: from the fetch, then from later reservations-only answers. */
    private long clockOffsetSeconds;
    /** The round trip of the answer {@link #clockOffsetSeconds} was judged from: how far ALPS's stamp may lie behind. */
    private long clockJudgedWithinMillis;
    final long fetchedAtMillis;
    final long fetchStartedNanos;
    private long maxApid;
    private long maxReservationId;
    private final Set<Long> patched = new LinkedHashSet<>();
    /** Patched reservations whose uid and gid came from a {@link UserIds} lookup, not from an inventory. */
    private final Set<Long> lookedUp = new LinkedHashSet<>();
    /** The answer for the content as it stands (under the stamp of its time), or null after a patch. */
    private InventoryAnswer answer;
    /** The size of the fetched document: the written ones are about the same. */
    private final long sizeHint;

    private CachedInventory(String protocol, InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations,
                            Map<String, long[]> idsByUser, long maxApid, long maxReservationId, long clockOffsetSeconds,
                            long clockJudgedWithinMillis, long fetchedAtMillis, long fetchStartedNanos, byte[] document) {
        this.protocol = protocol;
        this.header = header;
        this.nodes = nodes;
        for (int i = 0; i < nodes.size(); i++) {
            position.put(nodes.get(i).nodeId(), i);
            for (Long id : nodes.get(i).reservations()) {
                heldAt.computeIfAbsent(id, k -> new java.util.TreeSet<>()).add(i);
            }
        }
        reservations.forEach(r -> this.reservations.put(r.reservationId(), r));
        this.idsByUser = idsByUser;
        this.maxApid = maxApid;
        this.maxReservationId = maxReservationId;
        this.clockOffsetSeconds = clockOffsetSeconds;
        this.clockJudgedWithinMillis = clockJudgedWithinMillis;
        this.fetchedAtMillis = fetchedAtMillis;
        this.fetchStartedNanos = fetchStartedNanos;
        this.answer = InventoryAnswer.fetched(header, nodes, reservations, document);
        this.sizeHint = document.length;
    }

    /**
     * Reads a full inventory the backend just answered.
     *
     * @param fetchedAtMillis when the fetch started: the cache's age counts from there
     * @param answeredAtMillis when the answer arrived: ALPS's clock is judged against this. ALPS stamps its answer
     *     after the backend's own start-up (an apbasil process, an ssh hop, the drop-in emulator's JVM: a second and
     *     more), so judged from the fetch's start the offset came out a second or two ahead, and every cached answer
     *     and patched reservation carried a time ALPS had not written yet
     * @param previous the entry it replaces, whose learned uids and application ids carry over, or null
     */
    static CachedInventory read(byte[] document, String protocol, long fetchedAtMillis, long answeredAtMillis,
                                long fetchStartedNanos, CachedInventory previous) throws BasilException {
        List<NodeView> nodes = new ArrayList<>();
        List<ReservationView> reservations = new ArrayList<>();
        InventoryHeader header;
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(document))) {
            header = r.header();
            for (NodeView n; (n = r.nextNode()) != null; ) {
                nodes.add(n);
            }
            for (ReservationView v; (v = r.nextReservation()) != null; ) {
                reservations.add(v);
            }
            r.finish();
        }
        Map<String, long[]> ids = previous == null ? new HashMap<>() : new HashMap<>(previous.idsByUser);
        long maxApid = previous == null ? 0 : previous.maxApid;
        long maxReservationId = previous == null ? 0 : previous.maxReservationId;
        for (ReservationView v : reservations) {
            maxReservationId = Math.max(maxReservationId, v.reservationId());
            for (ReservationView.Application a : v.applications()) {
                maxApid = Math.max(maxApid, a.applicationId());
                if (a.isReservationPseudoApplication()) {
                    ids.put(v.userName(), new long[] {a.userId(), a.groupId()});
                }
            }
        }
        long offset = header.timestamp() == null ? 0 : header.timestamp() - Math.floorDiv(answeredAtMillis, 1000);
        return new CachedInventory(protocol, header, nodes, reservations, ids, maxApid, maxReservationId, offset,
                Math.max(0, answeredAtMillis - fetchedAtMillis), fetchedAtMillis, fetchStartedNanos, document);
    }

    InventoryHeader header() {
        return header;
    }

    List<NodeView> nodes() {
        return List.copyOf(nodes);
    }

    List<ReservationView> reservations() {
        return List.copyOf(reservations.values());
    }

    /** The ids of the reservations this inventory shows. */
    Set<Long> reservationIds() {
        return Set.copyOf(reservations.keySet());
    }

    Long schedchangecount() {
        return header.schedchangecount();
    }

    /**
     * Takes ALPS's clock offset from a reservations-only answer read after this entry's fetch. ALPS stamps a document
     * before writing it, and the offset is judged from the answer's arrival: a few hundred bytes arrive within the
     * stamp's second, while an 82-MB inventory (knl:4392) arrives a second or two after it, which had every patched
     * reservation's {@code time_stamp} a second behind ALPS's (21 patch mismatches in 50 RESERVEs of the Slurm bench).
     * A small answer is slow too under load, though: one that took more than a second (ALPS stamped it that long
     * before it arrived) is taken only if the offset held was judged from a slower one.
     */
    void takeClock(CachedInventory fresh) {
        if (header.timestamp() != null && fresh.header.timestamp() != null
                && (fresh.clockJudgedWithinMillis < 1000 || fresh.clockJudgedWithinMillis <= clockJudgedWithinMillis)) {
            clockOffsetSeconds = fresh.clockOffsetSeconds;
            clockJudgedWithinMillis = fresh.clockJudgedWithinMillis;
        }
    }

    /** ALPS's clock now, by the offset last judged. */
    long alpsSeconds(long nowMillis) {
        return Math.floorDiv(nowMillis, 1000) + clockOffsetSeconds;
    }

    /**
     * What the backend would answer now: the fetched bytes while nothing changed within the second, the same bytes
     * re-stamped in a later second, or the content as it stands written anew after a patch. Cheap (nothing is written
     * here): take it under the policy's lock, ask its {@link InventoryAnswer#bytes()} outside.
     */
    InventoryAnswer answer(long nowMillis) {
        Long timestamp = header.timestamp() == null ? null : alpsSeconds(nowMillis);
        if (answer != null && java.util.Objects.equals(answer.header().timestamp(), timestamp)) {
            return answer;
        }
        InventoryHeader h = new InventoryHeader(header.protocol(), header.status(), header.method(), header.errorClass(),
                header.errorSource(), header.messages(), header.mppHost(), timestamp, header.cpcu(), header.changecount(),
                header.schedchangecount());
        answer = answer != null ? answer.restamped(h) : InventoryAnswer.of(h, nodes, List.copyOf(reservations.values()), sizeHint);
        return answer;
    }

    /**
     * Whether ALPS's answer to a RESERVE took the next reservation id after every one the cache has seen;
     * if not, reservations were made behind the proxy's back since the last fetch, and the application ids
     * they took make the pseudo-application id of this one unknowable.
     */
    boolean isNextReservation(long id) {
        return id == maxReservationId + 1;
    }

    /**
     * Counts a RESERVE that ALPS answered but this entry did not apply (it is stale and about to be
     * replaced): the reservation took its id and one application id, which the next inventory may no longer
     * show if the reservation is released before it.
     */
    void noteUnapplied(long id) {
        maxReservationId = Math.max(maxReservationId, id);
        if (maxApid != 0) {
            maxApid++;
        }
    }

    /** Whether an inventory has shown this user's uid and gid. */
    boolean knowsUser(String user) {
        return idsByUser.containsKey(user);
    }

    /**
     * Adds what a successful RESERVE made: the reservation with its BASIL pseudo-application, and its
     * allocations on the nodes ALPS named.
     *
     * @param lookedUpIds the user's {uid, gid} from a lookup, used when no inventory has shown the user; or null
     * @return false when that cannot be worked out with certainty; the entry is then unusable
     */
    boolean applyReserve(BasilRequest request, long id, List<Long> nids, long nowMillis, long[] lookedUpIds) {
        long[] ids = idsByUser.get(request.user());
        boolean fromLookup = ids == null && lookedUpIds != null;
        if (fromLookup) {
            ids = lookedUpIds;
        }
        if (ids == null || maxApid == 0 || nids.isEmpty() || request.reserveParams().isEmpty()
                || reservations.containsKey(id)) {
            return false;
        }
        List<ReservationView.Command> commands = new ArrayList<>();
        Map<Integer, NodeView> changed = new HashMap<>();
        int next = 0;
        for (ReserveParam p : request.reserveParams()) {
            if (p.width() == null || p.width() < 1) {
                return false;
            }
            Placement placement = new Placement(p);
            long remaining = p.width();
            NodeView first = null;
            int firstPes = 0;
            while (remaining > 0) {
                if (next >= nids.size()) {
                    return false;
                }
                Integer at = position.get(nids.get(next++));
                if (at == null || changed.containsKey(at)) {
                    return false;
                }
                Placement.Placed placed = placement.place(nodes.get(at), remaining, id);
                if (placed == null) {
                    return false;
                }
                if (first == null) {
                    first = nodes.get(at);
                    firstPes = placed.pes();
                }
                changed.put(at, placed.node());
                remaining -= placed.pes();
            }
            commands.add(new ReservationView.Command(p.width(), placement.effectiveDepth(), p.nppn() == null ? 0 : p.nppn(),
                    placement.memoryPerPe(first, firstPes), p.architecture() == null ? "XT" : p.architecture(), "BASIL"));
        }
        if (next != nids.size()) {
            return false;
        }
        ReserveParam lead = request.reserveParams().get(0);
        boolean v11 = Protocols.atLeast(protocol, "1.1");
        long apid = maxApid + 1;
        ReservationView view = new ReservationView(id, request.user(), request.account() == null ? "DEFAULT" : request.account(),
                v11 ? alpsSeconds(nowMillis) : null, v11 ? request.batchId() : null,
                v11 ? ("SHARED".equals(lead.reservationMode()) ? "SHARED" : "EXCLUSIVE") : null,
                v11 ? (lead.gpcMode() == null ? "NONE" : lead.gpcMode()) : null,
                List.of(new ReservationView.Application(apid, ids[0], ids[1], 0, commands)));
        changed.forEach((at, node) -> {
            nodes.set(at, node);
            heldAt.computeIfAbsent(id, k -> new java.util.TreeSet<>()).add(at);
        });
        reservations.put(id, view);
        maxApid = apid;
        maxReservationId = Math.max(maxReservationId, id);
        patched.add(id);
        if (fromLookup) {
            lookedUp.add(id);
        }
        answer = null;
        return true;
    }

    /** Whether this inventory shows the reservation. */
    boolean holds(long id) {
        return reservations.containsKey(id);
    }

    /** Whether the reservation holds something on any of these nodes, as this inventory shows it. */
    boolean holdsAnyOf(long id, java.util.Set<Long> nids) {
        if (!reservations.containsKey(id)) {
            return false;
        }
        Set<Integer> held = heldAt.getOrDefault(id, Set.of());
        for (Long nid : nids) {
            Integer at = position.get(nid);
            if (at != null && held.contains(at)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the reservation was made SHARED (BASIL 1.1+ shows the mode; before, every reservation is exclusive). */
    boolean shared(long id) {
        ReservationView v = reservations.get(id);
        return v != null && "SHARED".equals(v.reservationMode());
    }

    /**
     * Takes ALPS's view of every reservation both this entry and a reservations-only {@code fresh} show, where it
     * differs: the applications change as aprun launches and ends behind the proxy's back, while what a reservation
     * holds on its nodes does not, so the nodes stay as they are. Application ids are learned as from a full inventory.
     *
     * @return where this entry's own RESERVE patches had a reservation other than ALPS shows it (its launched
     *     applications aside): misjudged application ids, uids or clock, as {@link #patchMismatches} words them
     */
    List<String> takeReservations(CachedInventory fresh) {
        List<String> wrong = new ArrayList<>();
        for (ReservationView theirs : fresh.reservations.values()) {
            ReservationView mine = reservations.get(theirs.reservationId());
            if (mine == null || mine.equals(theirs)) {
                continue;
            }
            if (patched.contains(theirs.reservationId()) && !sameButTheClock(reservationOnly(mine), reservationOnly(theirs))) {
                wrong.add("reservation " + theirs.reservationId() + ": cached " + mine + " but ALPS shows " + theirs);
            }
            reservations.put(theirs.reservationId(), theirs);
            for (ReservationView.Application a : theirs.applications()) {
                maxApid = Math.max(maxApid, a.applicationId());
            }
            answer = null;
        }
        return wrong;
    }

    /**
     * Whether a patched reservation is ALPS's but for a {@code time_stamp} within the clock judgement's own
     * uncertainty: both clocks count whole seconds, and the patch reads ALPS's by the offset at the RESERVE answer's
     * arrival, after ALPS stamped it (under load, 1796182194 patched for 1796182193 written). More than
     * {@link #CLOCK_UNCERTAINTY_SECONDS} apart is a misjudged clock, still a mismatch.
     */
    private static boolean sameButTheClock(ReservationView mine, ReservationView theirs) {
        if (mine.equals(theirs)) {
            return true;
        }
        if (mine.timeStamp() == null || theirs.timeStamp() == null
                || Math.abs(mine.timeStamp() - theirs.timeStamp()) > CLOCK_UNCERTAINTY_SECONDS) {
            return false;
        }
        return new ReservationView(mine.reservationId(), mine.userName(), mine.accountName(), theirs.timeStamp(),
                mine.batchId(), mine.reservationMode(), mine.gpcMode(), mine.applications()).equals(theirs);
    }

    /** The reservation with its pseudo-application only: what a RESERVE made of it, before any aprun. */
    private static ReservationView reservationOnly(ReservationView v) {
        return new ReservationView(v.reservationId(), v.userName(), v.accountName(), v.timeStamp(), v.batchId(),
                v.reservationMode(), v.gpcMode(), v.applications().stream()
                .filter(ReservationView.Application::isReservationPseudoApplication).toList());
    }

    /** Removes a reservation ALPS released (claims 0) and its allocations. */
    void applyRelease(long id) {
        if (reservations.remove(id) == null) {
            return;
        }
        for (int i : heldAt.getOrDefault(id, Set.of())) {
            nodes.set(i, without(nodes.get(i), id));
        }
        heldAt.remove(id);
        patched.remove(id);
        lookedUp.remove(id);
        answer = null;
    }

    private static NodeView without(NodeView n, long id) {
        List<NodeView.Socket> sockets = new ArrayList<>();
        for (NodeView.Socket s : n.sockets()) {
            List<NodeView.Segment> segments = new ArrayList<>();
            for (NodeView.Segment g : s.segments()) {
                List<NodeView.Core> cores = new ArrayList<>();
                for (NodeView.Core c : g.cores()) {
                    cores.add(new NodeView.Core(c.ordinal(), c.threads().stream()
                            .map(t -> t.reservations().contains(id) ? new NodeView.Thread(t.ordinal(), minus(t.reservations(), id)) : t)
                            .toList()));
                }
                segments.add(new NodeView.Segment(g.ordinal(), cores, withoutMemory(g.memory(), id), g.labels()));
            }
            sockets.add(new NodeView.Socket(s.ordinal(), s.architecture(), s.clockMhz(), segments));
        }
        List<NodeView.Accelerator> accels = n.accelerators().stream().map(a -> new NodeView.Accelerator(a.ordinal(), a.type(),
                a.state(), a.family(), a.memoryMb(), a.clockMhz(), minus(a.reservations(), id))).toList();
        return new NodeView(n.nodeId(), n.name(), n.architecture(), n.role(), n.state(), n.routerId(), sockets,
                withoutMemory(n.memory(), id), n.labels(), accels);
    }

    private static List<NodeView.Memory> withoutMemory(List<NodeView.Memory> memory, long id) {
        return memory.stream().map(m -> new NodeView.Memory(m.type(), m.pageSizeKb(), m.pageCount(),
                m.allocations().stream().filter(a -> a.reservationId() != id).toList())).toList();
    }

    private static List<Long> minus(List<Long> ids, long id) {
        return ids.stream().filter(x -> x != id).toList();
    }

    /**
     * Where this entry's own RESERVE patches differ from what a fresh inventory shows for the same
     * reservations: each difference is a misjudged placement, application id, uid or clock.
     */
    List<String> patchMismatches(CachedInventory fresh) {
        List<String> out = new ArrayList<>();
        for (Long id : patched) {
            ReservationView mine = reservations.get(id);
            ReservationView theirs = fresh.reservations.get(id);
            if (theirs == null) {
                continue; // gone since: nothing to compare
            }
            if (!sameButTheClock(mine, theirs)) {
                out.add("reservation " + id + ": cached " + mine + " but ALPS shows " + theirs);
                continue;
            }
            for (int i : heldAt.getOrDefault(id, Set.of())) {
                NodeView n = nodes.get(i);
                Integer at = fresh.position.get(n.nodeId());
                // the node's state, role or labels may have changed since (SUMMARY's business): only what
                // the reservation holds there was the patch's doing
                if (at == null || !holdings(fresh.nodes.get(at), id).equals(holdings(n, id))) {
                    out.add("reservation " + id + " on node " + n.nodeId() + ": allocations differ, cached " + holdings(n, id)
                            + " but ALPS shows " + (at == null ? "no such node" : holdings(fresh.nodes.get(at), id)));
                    break;
                }
            }
        }
        return out;
    }

    /**
     * The users whose looked-up uid or gid differs from what a fresh inventory shows ALPS wrote in their
     * reservations, each with both pairs.
     */
    List<String> lookupMismatches(CachedInventory fresh) {
        List<String> out = new ArrayList<>();
        for (Long id : lookedUp) {
            ReservationView mine = reservations.get(id);
            ReservationView theirs = fresh.reservations.get(id);
            ReservationView.Application a = mine == null ? null : pseudoApplication(mine);
            ReservationView.Application b = theirs == null ? null : pseudoApplication(theirs);
            if (a != null && b != null && (a.userId() != b.userId() || a.groupId() != b.groupId())) {
                out.add("user " + mine.userName() + ": looked up uid " + a.userId() + " gid " + a.groupId() + ", ALPS wrote uid "
                        + b.userId() + " gid " + b.groupId());
            }
        }
        return out;
    }

    private static ReservationView.Application pseudoApplication(ReservationView v) {
        return v.applications().stream().filter(ReservationView.Application::isReservationPseudoApplication).findFirst().orElse(null);
    }

    /** What reservation {@code id} holds on a node: its processors, memory pages and accelerators, by place. */
    private static List<String> holdings(NodeView n, long id) {
        List<String> held = new ArrayList<>();
        for (NodeView.Socket s : n.sockets()) {
            for (NodeView.Segment g : s.segments()) {
                for (NodeView.Core c : g.cores()) {
                    for (NodeView.Thread t : c.threads()) {
                        if (t.reservations().contains(id)) {
                            held.add("processor " + s.ordinal() + "/" + g.ordinal() + "/" + c.ordinal() + "/" + t.ordinal());
                        }
                    }
                }
                memoryHoldings(g.memory(), id, "segment " + s.ordinal() + "/" + g.ordinal(), held);
            }
        }
        memoryHoldings(n.memory(), id, "node", held);
        for (NodeView.Accelerator a : n.accelerators()) {
            if (a.reservations().contains(id)) {
                held.add("accelerator " + a.ordinal());
            }
        }
        return held;
    }

    private static void memoryHoldings(List<NodeView.Memory> memory, long id, String where, List<String> held) {
        for (NodeView.Memory m : memory) {
            for (NodeView.MemoryAllocation a : m.allocations()) {
                if (a.reservationId() == id) {
                    held.add(where + " " + m.type() + " " + a.pageCount() + "x" + m.pageSizeKb() + "KiB");
                }
            }
        }
    }

    /** Whether the nodes and reservations equal another entry's (the header aside). */
    boolean sameContent(CachedInventory other) {
        return nodes.equals(other.nodes) && List.copyOf(reservations.values()).equals(List.copyOf(other.reservations.values()));
    }

    boolean patchedSinceFetch() {
        return !patched.isEmpty();
    }
}
