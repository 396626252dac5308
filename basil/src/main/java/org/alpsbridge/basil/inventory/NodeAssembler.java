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
            cores.add(reservations.isEmpty() ? idleCore(core, IDLE_THREADS_OF_ONE)
                    : new NodeView.Core(core, List.of(new NodeView.Thread(0, reservations))));
        }
    }

    private static final List<NodeView.Thread> IDLE_THREADS_OF_ONE = List.of(IDLE_THREADS[0]);

    private static NodeView.Thread thread(long ordinal, List<Long> reservations) {
        return reservations.isEmpty() && ordinal >= 0 && ordinal < SHARED_ORDINALS ? IDLE_THREADS[(int) ordinal]
                : new NodeView.Thread(ordinal, reservations);
    }

    /** The core of these threads: a shared one when they are idle and numbered 0, 1, ... (the usual case). */
    private NodeView.Core idleCore(long ordinal, List<NodeView.Thread> threads) {
        int n = threads.size();
        if (n == 0 || n >= idleCores.length || ordinal < 0 || ordinal >= SHARED_ORDINALS) {
            return new NodeView.Core(ordinal, threads);
        }
        for (int i = 0; i < n; i++) {
            if (threads.get(i) != IDLE_THREADS[i]) {
                return new NodeView.Core(ordinal, threads);
            }
        }
        NodeView.Core[] bySize = idleCores[n];
        if (bySize == null || bySize.length <= ordinal) {
            // grown as ordinals come: a small document (a 48-KB capture) should not pay for a KNL's 68 cores
            bySize = idleCores[n] = java.util.Arrays.copyOf(bySize == null ? new NodeView.Core[0] : bySize,
                    (int) Math.min(SHARED_ORDINALS, Math.max(16, 2 * (ordinal + 1))));
        }
        NodeView.Core c = bySize[(int) ordinal];
        if (c == null) {
            c = bySize[(int) ordinal] = new NodeView.Core(ordinal, threads);
        }
        return c;
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

    /** The list as the views keep it: an empty one is {@code List.of()}, which they keep without copying anything. */
    private static <T> List<T> frozen(List<T> list) {
        return list.isEmpty() ? List.of() : list;
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
            cores.add(idleCore(unitOrdinal, threads));
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
            sockets.add(new NodeView.Socket(socketOrdinal, socketArchitecture, socketClock, segments));
        }
    }
}
