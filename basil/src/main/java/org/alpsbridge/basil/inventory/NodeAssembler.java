package org.alpsbridge.basil.inventory;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds a {@link NodeView} from the elements of one {@code Node} in document order, whatever the version's
 * shape. Both the full-model mapping and the streaming reader feed it, so the normalisation rules live in one
 * place: a Processor inside a ComputeUnit is a thread; a Processor anywhere else is a one-thread core; a
 * Segment outside a Socket goes into an implicit socket 0; Processors outside any Segment go into an implicit
 * segment 0; memory and labels outside any Segment stay node-level.
 */
final class NodeAssembler {

    /**
     * Idle threads and cores are the bulk of an inventory (a busy KNL node still has most of its 272 threads free),
     * and views are immutable: one shared instance per ordinal (and per thread count for cores) serves them all, so a
     * node costs the allocations of what is reserved on it, not of its size.
     */
    private static final int SHARED_ORDINALS = 512;
    private static final NodeView.Thread[] IDLE_THREADS = new NodeView.Thread[SHARED_ORDINALS];

    static {
        for (int i = 0; i < SHARED_ORDINALS; i++) {
            IDLE_THREADS[i] = new NodeView.Thread(i, List.of());
        }
    }

    /** Idle cores by thread count (1 to 8) and ordinal, made on first use by this assembler. */
    private final NodeView.Core[][] idleCores = new NodeView.Core[9][];
    /**
     * The last busy core made by thread count and ordinal, and the last busy thread by ordinal: a reservation covers
     * node after node with the same threads (its reader shares one id list among them), so these serve again.
     */
    private final NodeView.Core[][] busyCores = new NodeView.Core[9][];
    private NodeView.Thread[] busyThreads = new NodeView.Thread[0];

    private long nodeId;
    private String name;
    private String architecture;
    private String role;
    private String state;
    private Long routerId;
    private final List<NodeView.Socket> sockets = new ArrayList<>();
    private final List<NodeView.Memory> nodeMemory = new ArrayList<>();
    private final List<NodeView.Label> nodeLabels = new ArrayList<>();
    private final List<NodeView.Accelerator> accelerators = new ArrayList<>();

    // The open socket (explicit or implicit), segment and compute unit, or null.
    private boolean socketOpen;
    private boolean socketImplicit;
    private long socketOrdinal;
    private String socketArchitecture;
    private long socketClock;
    private final List<NodeView.Segment> segments = new ArrayList<>();

    private boolean segmentOpen;
    private boolean segmentImplicit;
    private long segmentOrdinal;
    private final List<NodeView.Core> cores = new ArrayList<>();
    private final List<NodeView.Memory> segmentMemory = new ArrayList<>();
    private final List<NodeView.Label> segmentLabels = new ArrayList<>();

    private boolean unitOpen;
    private long unitOrdinal;
    private final List<NodeView.Thread> threads = new ArrayList<>();

    void begin(long nodeId, String name, String architecture, String role, String state, Long routerId) {
        this.nodeId = nodeId;
        this.name = name;
        this.architecture = architecture;
        this.role = role;
        this.state = state;
        this.routerId = routerId;
        sockets.clear();
        nodeMemory.clear();
        nodeLabels.clear();
        accelerators.clear();
        socketOpen = false;
        segmentOpen = false;
        unitOpen = false;
    }

    void socket(long ordinal, String arch, long clockMhz) {
        closeSegmentIfImplicit();
        closeSocket();
        openSocket(ordinal, arch, clockMhz, false);
    }

    void endSocket() {
        closeSocket();
    }

    /** A Segment; {@code ordinal < 0} means the document left it out, and its position is used. */
    void segment(long ordinal) {
        closeSegment();
        if (!socketOpen) {
            openSocket(sockets.size(), null, 0, true);
        }
        openSegment(ordinal < 0 ? segments.size() : ordinal, false);
    }

    void endSegment() {
        closeSegment();
    }

    void computeUnit(long ordinal) {
        closeUnit();
        ensureSegment();
        unitOpen = true;
        unitOrdinal = ordinal < 0 ? cores.size() : ordinal;
        threads.clear();
    }

    void endComputeUnit() {
        closeUnit();
    }

    /**
     * Whether the next Processor's architecture would be taken as its socket's (the socket has none yet): a reader
     * can leave the attribute unread otherwise, as most Processors of 1.0–1.2 repeat their socket's.
     */
    boolean wantsProcessorArchitecture() {
        return !socketOpen || socketArchitecture == null;
    }

    /** A Processor; {@code arch}/{@code clockMhz} are those of 1.0–1.2 ({@code null}/0 in 1.3+). */
    void processor(long ordinal, String arch, long clockMhz, List<Long> reservations) {
        if (!unitOpen) {
            ensureSegment();
        }
        if (arch != null && socketArchitecture == null) {
            socketArchitecture = arch;
            socketClock = clockMhz;
        }
        if (unitOpen) {
            threads.add(thread(ordinal < 0 ? threads.size() : ordinal, reservations));
        } else {
            long core = ordinal < 0 ? cores.size() : ordinal;
            cores.add(reservations.isEmpty() ? core(core, IDLE_THREADS_OF_ONE) : busyCoreOfOne(core, thread(0, reservations)));
        }
    }

    private static final List<NodeView.Thread> IDLE_THREADS_OF_ONE = List.of(IDLE_THREADS[0]);

    /** A thread: the shared idle one, the last one made with the same id list, or a new one. */
    private NodeView.Thread thread(long ordinal, List<Long> reservations) {
        if (ordinal < 0 || ordinal >= SHARED_ORDINALS) {
            return new NodeView.Thread(ordinal, reservations);
        }
        int k = (int) ordinal;
        if (reservations.isEmpty()) {
            return IDLE_THREADS[k];
        }
        if (busyThreads.length <= k) {
            busyThreads = java.util.Arrays.copyOf(busyThreads, grownLength(k));
        }
        NodeView.Thread t = busyThreads[k];
        if (t == null || t.reservations() != reservations) {
            t = busyThreads[k] = new NodeView.Thread(ordinal, reservations);
        }
        return t;
    }

    /**
     * The core of these threads: a shared one when they are idle and numbered 0, 1, ... (the usual case), the last
     * one made of the very same threads, or a new one.
     */
    private NodeView.Core core(long ordinal, List<NodeView.Thread> threads) {
        int n = threads.size();
        if (n == 0 || n >= idleCores.length || ordinal < 0 || ordinal >= SHARED_ORDINALS) {
            return new NodeView.Core(ordinal, threads);
        }
        boolean idle = true;
        for (int i = 0; i < n && idle; i++) {
            idle = threads.get(i) == IDLE_THREADS[i];
        }
        NodeView.Core[][] made = idle ? idleCores : busyCores;
        int k = (int) ordinal;
        NodeView.Core[] bySize = made[n];
        if (bySize == null || bySize.length <= k) {
            bySize = made[n] = java.util.Arrays.copyOf(bySize == null ? new NodeView.Core[0] : bySize, grownLength(k));
        }
        NodeView.Core c = bySize[k];
        if (c == null || !idle && !sameThreads(c.threads(), threads)) {
            c = bySize[k] = new NodeView.Core(ordinal, threads);
        }
        return c;
    }

    /** A one-thread core (a Processor of 1.0–1.2) whose thread is busy: the last one made of it, or a new one. */
    private NodeView.Core busyCoreOfOne(long ordinal, NodeView.Thread thread) {
        if (ordinal < 0 || ordinal >= SHARED_ORDINALS) {
            return new NodeView.Core(ordinal, List.of(thread));
        }
        int k = (int) ordinal;
        NodeView.Core[] made = busyCores[1];
        if (made == null || made.length <= k) {
            made = busyCores[1] = java.util.Arrays.copyOf(made == null ? new NodeView.Core[0] : made, grownLength(k));
        }
        NodeView.Core c = made[k];
        if (c == null || c.threads().get(0) != thread) {
            c = made[k] = new NodeView.Core(ordinal, List.of(thread));
        }
        return c;
    }

    /** Caches grow as ordinals come: a small document (a 48-KB capture) should not pay for a KNL's 68 cores. */
    private static int grownLength(int ordinal) {
        return Math.min(SHARED_ORDINALS, Math.max(16, 2 * (ordinal + 1)));
    }

    private static boolean sameThreads(List<NodeView.Thread> a, List<NodeView.Thread> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i) != b.get(i)) {
                return false;
            }
        }
        return true;
    }

    void memory(NodeView.Memory memory) {
        if (segmentOpen && !segmentImplicit) {
            segmentMemory.add(memory);
        } else {
            nodeMemory.add(memory);
        }
    }

    void label(NodeView.Label label) {
        if (segmentOpen && !segmentImplicit) {
            segmentLabels.add(label);
        } else {
            nodeLabels.add(label);
        }
    }

    void accelerator(NodeView.Accelerator accelerator) {
        accelerators.add(accelerator);
    }

    NodeView end() {
        closeSocket();
        return new NodeView(nodeId, name, architecture, role, state, routerId, frozen(sockets), frozen(nodeMemory),
                frozen(nodeLabels), frozen(accelerators));
    }

    /**
     * The list as the views keep it: up to two elements an immutable list made at once (which the views keep without
     * copying anything), longer ones copied by the views.
     */
    private static <T> List<T> frozen(List<T> list) {
        return switch (list.size()) {
            case 0 -> List.of();
            case 1 -> List.of(list.get(0));
            case 2 -> List.of(list.get(0), list.get(1));
            default -> list;
        };
    }

    private void ensureSegment() {
        if (segmentOpen) {
            return;
        }
        if (!socketOpen) {
            openSocket(sockets.size(), null, 0, true);
        }
        openSegment(segments.size(), true);
    }

    private void openSocket(long ordinal, String arch, long clockMhz, boolean implicit) {
        socketOpen = true;
        socketImplicit = implicit;
        socketOrdinal = ordinal;
        socketArchitecture = arch;
        socketClock = clockMhz;
        segments.clear();
    }

    private void openSegment(long ordinal, boolean implicit) {
        segmentOpen = true;
        segmentImplicit = implicit;
        segmentOrdinal = ordinal;
        cores.clear();
        segmentMemory.clear();
        segmentLabels.clear();
    }

    private void closeUnit() {
        if (unitOpen) {
            unitOpen = false;
            cores.add(core(unitOrdinal, threads));
        }
    }

    private void closeSegmentIfImplicit() {
        if (segmentOpen && segmentImplicit) {
            closeSegment();
        }
    }

    private void closeSegment() {
        closeUnit();
        if (segmentOpen) {
            segmentOpen = false;
            segments.add(new NodeView.Segment(segmentOrdinal, frozen(cores), frozen(segmentMemory), frozen(segmentLabels)));
        }
    }

    private void closeSocket() {
        closeSegment();
        if (socketOpen) {
            socketOpen = false;
            sockets.add(new NodeView.Socket(socketOrdinal, socketArchitecture, socketClock, frozen(segments)));
        }
    }
}
