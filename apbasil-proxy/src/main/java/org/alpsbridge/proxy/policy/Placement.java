package org.alpsbridge.proxy.policy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.model.ReserveParam;

/**
 * What ALPS holds on one node it chose for a reservation, worked out from the node as the cache shows it:
 * the reservation's ProcessorAllocations and MemoryAllocations, as the next inventory would show them.
 *
 * <p>ALPS's Reserved answer names the nodes (ReservedNodeArray, from "1.1+") but not what it took on each.
 * The rules here are the ones ALPS documents and the emulator follows: a PE takes {@code depth}
 * processors from the first free ones of the allowed segments, using only the first {@code nppcu}
 * hardware threads of each compute unit; with {@code npps}, at most that many PEs per segment and
 * {@code nspn} segments; memory is {@code size_mb} per PE from the PE's own segment, spilling over in
 * segment order, and without {@code size_mb} the whole free memory of a node held exclusively or a share
 * in proportion to the processors taken. Whenever the node does not fit those rules (it looks busy, the
 * memory sits on the node rather than on segments), the answer is {@code null}, and the policy fetches a
 * fresh inventory instead of guessing.
 */
final class Placement {

    /** The result on one node: the node with the new allocations, and how many PEs went there. */
    record Placed(NodeView node, int pes) {
    }

    private final ReserveParam param;
    private final boolean shared;
    private final int depth;
    private final long nppn;
    private final long memoryMb;
    private final boolean accelerator;

    Placement(ReserveParam param) {
        this.param = param;
        this.shared = "SHARED".equals(param.reservationMode());
        this.depth = (int) Math.max(1, param.depth() == null ? 0 : param.depth());
        this.nppn = param.nppn() == null ? 0 : param.nppn();
        this.memoryMb = param.memoryParams().isEmpty() || param.memoryParams().get(0).sizeMb() == null
                ? 0 : param.memoryParams().get(0).sizeMb();
        this.accelerator = !param.accelParams().isEmpty();
    }

    long effectiveDepth() {
        return depth;
    }

    /**
     * Places up to {@code remaining} PEs of this ReserveParam on {@code node} for reservation {@code id}.
     *
     * @return the placement, or null when it cannot be worked out with certainty
     */
    Placed place(NodeView node, long remaining, long id) {
        List<NodeView.Segment> segments = node.segments();
        if (segments.isEmpty() || !node.memory().isEmpty()) {
            return null;
        }
        boolean idle = node.reservations().isEmpty();
        if (!idle) {
            return null; // sharing a node depends on the other holders' modes: not worth guessing
        }
        long[] segmentPages = new long[segments.size()];
        long[] busyPages = new long[segments.size()];
        long pageSizeKb = 0;
        for (int s = 0; s < segments.size(); s++) {
            if (segments.get(s).memory().size() != 1) {
                return null;
            }
            NodeView.Memory m = segments.get(s).memory().get(0);
            if (pageSizeKb != 0 && m.pageSizeKb() != pageSizeKb || m.pageSizeKb() <= 0 || 1024 % m.pageSizeKb() != 0) {
                return null;
            }
            pageSizeKb = m.pageSizeKb();
            segmentPages[s] = m.pageCount();
            busyPages[s] = m.allocations().stream().mapToLong(NodeView.MemoryAllocation::pageCount).sum();
        }
        long pagesPerMb = 1024 / pageSizeKb;
        int[] allowed = allowedSegments(segments.size());
        int[][] usable = usableProcessors(segments, allowed);
        if (allowed == null || usable == null) {
            return null;
        }
        BitSet busy = busyProcessors(segments);
        long freePages = 0;
        for (int s = 0; s < segments.size(); s++) {
            freePages += segmentPages[s] - busyPages[s];
        }
        long want = Math.min(remaining, nppn > 0 ? nppn : Integer.MAX_VALUE);
        long limit = Math.min(want, memoryMb > 0 ? freePages / (memoryMb * pagesPerMb) : Integer.MAX_VALUE);
        int segmentLimit = param.nspn() != null && param.nspn() > 0 ? (int) (long) param.nspn() : allowed.length;
        BitSet taken = new BitSet();
        int[] pesBySegment = new int[allowed.length];
        int pes = param.npps() != null && param.npps() > 0
                ? takePerSegment(usable, busy, limit, segmentLimit, param.npps(), taken, pesBySegment)
                : takePooled(usable, busy, limit, segmentLimit, taken, pesBySegment);
        if (pes == 0 || (nppn > 0 && pes < want)) {
            return null;
        }
        long[] pages = memoryMb > 0
                ? pagesBySize(allowed, pesBySegment, segmentPages, busyPages, pagesPerMb)
                : pagesByShare(segments, segmentPages, busyPages, taken, idle);
        return new Placed(withAllocations(node, id, taken, pages), pes);
    }

    /** MB per PE for the pseudo-application's Command: size_mb, or the node's memory over its PEs. */
    long memoryPerPe(NodeView firstNode, int pesOnFirstNode) {
        if (memoryMb > 0) {
            return memoryMb;
        }
        return firstNode.memoryMb() / Math.max(1, pesOnFirstNode);
    }

    private int[] allowedSegments(int count) {
        if (param.segments() == null || param.segments().isBlank()) {
            int[] all = new int[count];
            for (int i = 0; i < count; i++) {
                all[i] = i;
            }
            return all;
        }
        String[] parts = param.segments().split(",");
        int[] allowed = new int[parts.length];
        try {
            for (int i = 0; i < parts.length; i++) {
                allowed[i] = Integer.parseInt(parts[i].strip());
                if (allowed[i] < 0 || allowed[i] >= count) {
                    return null;
                }
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return allowed;
    }

    /** Node-wide processor indices (segments, cores, threads in document order) usable per allowed segment. */
    private int[][] usableProcessors(List<NodeView.Segment> segments, int[] allowed) {
        if (allowed == null) {
            return null;
        }
        long nppcu = param.nppcu() == null ? 0 : param.nppcu();
        int[] first = new int[segments.size()];
        int index = 0;
        for (int s = 0; s < segments.size(); s++) {
            first[s] = index;
            for (NodeView.Core c : segments.get(s).cores()) {
                index += c.threads().size();
            }
        }
        int[][] usable = new int[allowed.length][];
        for (int i = 0; i < allowed.length; i++) {
            List<Integer> list = new ArrayList<>();
            int p = first[allowed[i]];
            for (NodeView.Core c : segments.get(allowed[i]).cores()) {
                int threads = c.threads().size();
                if (nppcu > threads) {
                    return null;
                }
                int use = nppcu > 0 ? (int) nppcu : threads;
                for (int t = 0; t < use; t++) {
                    list.add(p + t);
                }
                p += threads;
            }
            usable[i] = list.stream().mapToInt(Integer::intValue).toArray();
        }
        return usable;
    }

    private static BitSet busyProcessors(List<NodeView.Segment> segments) {
        BitSet busy = new BitSet();
        int p = 0;
        for (NodeView.Segment g : segments) {
            for (NodeView.Core c : g.cores()) {
                for (NodeView.Thread t : c.threads()) {
                    if (!t.reservations().isEmpty()) {
                        busy.set(p);
                    }
                    p++;
                }
            }
        }
        return busy;
    }

    private int takePerSegment(int[][] usable, BitSet busy, long limit, int segmentLimit, long npps, BitSet taken,
                               int[] pesBySegment) {
        int pes = 0;
        int used = 0;
        for (int i = 0; i < usable.length && used < segmentLimit && pes < limit; i++) {
            int free = 0;
            for (int p : usable[i]) {
                free += busy.get(p) ? 0 : 1;
            }
            int here = (int) Math.min(Math.min(npps, limit - pes), free / depth);
            int need = here * depth;
            for (int k = 0; k < usable[i].length && need > 0; k++) {
                if (!busy.get(usable[i][k])) {
                    taken.set(usable[i][k]);
                    need--;
                }
            }
            if (here > 0) {
                used++;
                pes += here;
                pesBySegment[i] += here;
            }
        }
        return pes;
    }

    /** Without npps a PE may span segments, so the allowed segments form one pool of processors. */
    private int takePooled(int[][] usable, BitSet busy, long limit, int segmentLimit, BitSet taken, int[] pesBySegment) {
        List<int[]> pool = new ArrayList<>();
        for (int i = 0; i < Math.min(segmentLimit, usable.length); i++) {
            for (int p : usable[i]) {
                if (!busy.get(p)) {
                    pool.add(new int[] {p, i});
                }
            }
        }
        int pes = (int) Math.min(limit, pool.size() / depth);
        for (int k = 0; k < pes * depth; k++) {
            taken.set(pool.get(k)[0]);
            if (k % depth == 0) {
                pesBySegment[pool.get(k)[1]]++;
            }
        }
        return pes;
    }

    private long[] pagesBySize(int[] allowed, int[] pesBySegment, long[] segmentPages, long[] busyPages, long pagesPerMb) {
        long[] need = new long[segmentPages.length];
        for (int i = 0; i < allowed.length; i++) {
            need[allowed[i]] += pesBySegment[i] * memoryMb * pagesPerMb;
        }
        long[] pages = new long[segmentPages.length];
        long shortfall = 0;
        for (int s = 0; s < pages.length; s++) {
            pages[s] = Math.min(need[s], segmentPages[s] - busyPages[s]);
            shortfall += need[s] - pages[s];
        }
        for (int s = 0; s < pages.length && shortfall > 0; s++) {
            long more = Math.min(shortfall, segmentPages[s] - busyPages[s] - pages[s]);
            pages[s] += more;
            shortfall -= more;
        }
        return pages;
    }

    private long[] pagesByShare(List<NodeView.Segment> segments, long[] segmentPages, long[] busyPages, BitSet taken,
                                boolean idle) {
        long[] pages = new long[segmentPages.length];
        int first = 0;
        for (int s = 0; s < pages.length; s++) {
            int processors = segments.get(s).cores().stream().mapToInt(c -> c.threads().size()).sum();
            long free = segmentPages[s] - busyPages[s];
            if (!shared && idle) {
                pages[s] = free;
            } else {
                int mine = taken.get(first, first + processors).cardinality();
                pages[s] = Math.min(free, segmentPages[s] * mine / Math.max(1, processors));
            }
            first += processors;
        }
        return pages;
    }

    private NodeView withAllocations(NodeView node, long id, BitSet taken, long[] pages) {
        List<NodeView.Socket> sockets = new ArrayList<>(node.sockets().size());
        int p = 0;
        int s = 0;
        for (NodeView.Socket socket : node.sockets()) {
            List<NodeView.Segment> segments = new ArrayList<>(socket.segments().size());
            for (NodeView.Segment g : socket.segments()) {
                List<NodeView.Core> cores = new ArrayList<>(g.cores().size());
                for (NodeView.Core c : g.cores()) {
                    List<NodeView.Thread> threads = new ArrayList<>(c.threads().size());
                    for (NodeView.Thread t : c.threads()) {
                        threads.add(taken.get(p++) ? new NodeView.Thread(t.ordinal(), plus(t.reservations(), id)) : t);
                    }
                    cores.add(new NodeView.Core(c.ordinal(), threads));
                }
                NodeView.Memory m = g.memory().get(0);
                List<NodeView.MemoryAllocation> allocations = new ArrayList<>(m.allocations());
                if (pages[s] > 0) {
                    allocations.add(new NodeView.MemoryAllocation(id, pages[s]));
                }
                segments.add(new NodeView.Segment(g.ordinal(), cores,
                        List.of(new NodeView.Memory(m.type(), m.pageSizeKb(), m.pageCount(), allocations)), g.labels()));
                s++;
            }
            sockets.add(new NodeView.Socket(socket.ordinal(), socket.architecture(), socket.clockMhz(), segments));
        }
        List<NodeView.Accelerator> accels = node.accelerators();
        if (accelerator) {
            accels = node.accelerators().stream().map(a -> new NodeView.Accelerator(a.ordinal(), a.type(), a.state(),
                    a.family(), a.memoryMb(), a.clockMhz(), plus(a.reservations(), id))).toList();
        }
        return new NodeView(node.nodeId(), node.name(), node.architecture(), node.role(), node.state(), node.routerId(),
                sockets, node.memory(), node.labels(), accels);
    }

    static List<Long> plus(List<Long> ids, long id) {
        List<Long> more = new ArrayList<>(ids.size() + 1);
        more.addAll(ids);
        more.add(id);
        return more;
    }
}
