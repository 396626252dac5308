package org.alpsbridge.emulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;

/**
 * The emulator's state as the version-neutral inventory views the inventory writer turns into any
 * protocol's shape. Ordinals are local, as in real 1.3 output: segments per socket, compute units per
 * segment, processors per compute unit. Memory sits on the segments (the placement of CLE 5.1 and of 5.2
 * UP03 and later) or, for an engine of CLE 5.2 before UP03, on the node. The parts of an idle node are shared
 * between nodes of one hardware kind, which keeps a 100,000-node inventory cheap to produce.
 */
final class Views {

    private static final String ARCHITECTURE = "x86_64";

    private final Apsched apsched;
    private final Map<Hardware, List<NodeView.Socket>> idleSockets = new ConcurrentHashMap<>();
    private final Map<Hardware, List<NodeView.Socket>> idleSocketsNoMemory = new ConcurrentHashMap<>();

    Views(Apsched apsched) {
        this.apsched = apsched;
    }

    /**
     * The node as ALPS shows it; {@code memoryOnNode} puts the node's memory on the node itself (one bank, each
     * reservation's pages summed) instead of on its segments, as CLE 5.2 before UP03 did.
     */
    NodeView node(int node, boolean memoryOnNode) {
        Machine m = apsched.machine();
        Hardware hw = m.hardware(node);
        List<Reservation> holders = apsched.holders(node);
        List<Reservation.Share> shares = apsched.shares(node);
        List<NodeView.Socket> sockets = holders.isEmpty()
                ? (memoryOnNode ? idleSocketsNoMemory : idleSockets).computeIfAbsent(hw, h -> sockets(h, List.of(), List.of(), !memoryOnNode))
                : sockets(hw, holders, shares, !memoryOnNode);
        List<NodeView.Memory> nodeMemory = List.of();
        if (memoryOnNode) {
            List<NodeView.MemoryAllocation> allocations = new ArrayList<>();
            for (int i = 0; i < shares.size(); i++) {
                if (shares.get(i).totalPages() > 0) {
                    allocations.add(new NodeView.MemoryAllocation(holders.get(i).id, shares.get(i).totalPages()));
                }
            }
            nodeMemory = List.of(new NodeView.Memory("OS", Hardware.PAGE_SIZE_KB, hw.pages(), allocations));
        }
        List<NodeView.Label> labels = new ArrayList<>();
        for (String l : apsched.labels(node)) {
            labels.add(new NodeView.Label(l, "HARD", "ATTRACT"));
        }
        List<NodeView.Accelerator> accels = new ArrayList<>();
        if (hw.accelerator() != null) {
            List<Long> holding = new ArrayList<>();
            for (int i = 0; i < shares.size(); i++) {
                if (shares.get(i).accelerator()) {
                    holding.add(holders.get(i).id);
                }
            }
            Hardware.Accelerator a = hw.accelerator();
            accels.add(new NodeView.Accelerator(0, "GPU", "UP", a.family(), a.memoryMb(), a.clockMhz(), holding));
        }
        int nid = m.nid(node);
        // A Gemini router serves two nodes, an Aries router the four of a blade. The writer emits router_id only in
        // BASIL 1.1 and 1.2, where ALPS wrote it on every Node: Slurm 18.08's parser for those versions
        // (libalps/parser_basil_3.1.c, eh_node_3_1) requires it and fatal()s without it, also on an XC30 whose
        // ALPS answers 5.0.x (BASIL 1.2).
        Long router = (long) (hw.aries() ? nid / 4 : nid / 2);
        return new NodeView(nid, m.name(node), "XT", apsched.role(node).name(), apsched.state(node).name(), router,
                sockets, nodeMemory, labels, accels);
    }

    private static List<NodeView.Socket> sockets(Hardware hw, List<Reservation> holders, List<Reservation.Share> shares,
                                                 boolean segmentMemory) {
        List<NodeView.Socket> sockets = new ArrayList<>(hw.sockets());
        for (int s = 0; s < hw.sockets(); s++) {
            List<NodeView.Segment> segments = new ArrayList<>(hw.segmentsPerSocket());
            for (int g = 0; g < hw.segmentsPerSocket(); g++) {
                int segment = s * hw.segmentsPerSocket() + g;
                List<NodeView.Core> cores = new ArrayList<>(hw.cusPerSegment());
                for (int c = 0; c < hw.cusPerSegment(); c++) {
                    List<NodeView.Thread> threads = new ArrayList<>(hw.threadsPerCu());
                    for (int t = 0; t < hw.threadsPerCu(); t++) {
                        int processor = (segment * hw.cusPerSegment() + c) * hw.threadsPerCu() + t;
                        threads.add(new NodeView.Thread(t, holding(holders, shares, processor)));
                    }
                    cores.add(new NodeView.Core(c, threads));
                }
                List<NodeView.MemoryAllocation> allocations = new ArrayList<>();
                for (int i = 0; i < shares.size(); i++) {
                    long pages = shares.get(i).pages()[segment];
                    if (pages > 0) {
                        allocations.add(new NodeView.MemoryAllocation(holders.get(i).id, pages));
                    }
                }
                NodeView.Memory memory = new NodeView.Memory("OS", Hardware.PAGE_SIZE_KB, hw.segmentPages(segment), allocations);
                segments.add(new NodeView.Segment(g, cores, segmentMemory ? List.of(memory) : List.of(), List.of()));
            }
            sockets.add(new NodeView.Socket(s, ARCHITECTURE, hw.clockMhz(), segments));
        }
        return sockets;
    }

    private static List<Long> holding(List<Reservation> holders, List<Reservation.Share> shares, int processor) {
        List<Long> ids = List.of();
        for (int i = 0; i < shares.size(); i++) {
            if (shares.get(i).processors().get(processor)) {
                ids = ids.isEmpty() ? new ArrayList<>(1) : ids;
                ids.add(holders.get(i).id);
            }
        }
        return ids;
    }

    /** {@code r} as an inventory shows it, its pseudo-application carrying the user's {@code ids} ({uid, gid}). */
    static ReservationView reservation(Reservation r, long[] ids) {
        List<ReservationView.Application> apps = new ArrayList<>();
        List<ReservationView.Command> basil = new ArrayList<>();
        for (Reservation.Command c : r.commands) {
            basil.add(new ReservationView.Command(c.width(), c.depth(), c.nppn(), c.memoryMb(), c.architecture(), "BASIL"));
        }
        apps.add(new ReservationView.Application(r.basilApid, ids[0], ids[1], 0, basil));
        long memory = r.commands.get(0).memoryMb();
        for (Reservation.Application a : r.applications) {
            apps.add(new ReservationView.Application(a.apid(), a.userId(), a.groupId(), a.timeStamp(),
                    List.of(new ReservationView.Command(a.width(), a.depth(), a.nppn(), memory, "XT", a.cmd()))));
        }
        return new ReservationView(r.id, r.user, r.account, r.timeStamp, r.batchId, r.shared ? "SHARED" : "EXCLUSIVE",
                r.gpcMode == null ? "NONE" : r.gpcMode, apps);
    }

    /**
     * A stable uid for a user name, and the same gid, for an emulator that does not consult a password database
     * (the default: the same ids on every host, so its documents are the same everywhere).
     */
    static long[] idsOfName(String user) {
        long uid = 10_000 + Math.floorMod(user.hashCode(), 50_000);
        return new long[] {uid, uid};
    }
}
