package org.alpsbridge.basil.inventory;

import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.model.Accelerator;
import org.alpsbridge.basil.model.Allocation;
import org.alpsbridge.basil.model.Application;
import org.alpsbridge.basil.model.Command;
import org.alpsbridge.basil.model.ComputeUnit;
import org.alpsbridge.basil.model.Inventory;
import org.alpsbridge.basil.model.Label;
import org.alpsbridge.basil.model.Memory;
import org.alpsbridge.basil.model.Node;
import org.alpsbridge.basil.model.Processor;
import org.alpsbridge.basil.model.Reservation;
import org.alpsbridge.basil.model.Segment;
import org.alpsbridge.basil.model.Socket;
import org.alpsbridge.basil.model.Summary;
import org.alpsbridge.basil.nodes.NidSet;

/** Maps the full document model ({@link Inventory}) into the version-neutral views. */
public final class Inventories {

    private Inventories() {
    }

    /** Every node of the inventory, in document order. */
    public static List<NodeView> nodes(Inventory inventory) {
        NodeAssembler assembler = new NodeAssembler();
        List<NodeView> views = new ArrayList<>(inventory.nodes().size());
        for (Node n : inventory.nodes()) {
            views.add(node(n, assembler));
        }
        return views;
    }

    /** Every reservation of the inventory, in document order. */
    public static List<ReservationView> reservations(Inventory inventory) {
        List<ReservationView> views = new ArrayList<>(inventory.reservations().size());
        for (Reservation r : inventory.reservations()) {
            views.add(reservation(r));
        }
        return views;
    }

    /**
     * The SUMMARY answer for these nodes, in the shape {@link Summary} defines: NodeSummary Up = nodes whose state
     * is {@code UP}, Down = all others; AccelSummary (only when some node has an accelerator) Up = nodes whose
     * accelerators are all {@code UP}, Down = nodes with one that is not.
     */
    public static Summary summary(long schedchangecount, Iterable<NodeView> nodes) {
        java.util.stream.LongStream.Builder up = java.util.stream.LongStream.builder();
        java.util.stream.LongStream.Builder down = java.util.stream.LongStream.builder();
        java.util.stream.LongStream.Builder accelUp = java.util.stream.LongStream.builder();
        java.util.stream.LongStream.Builder accelDown = java.util.stream.LongStream.builder();
        boolean accelerators = false;
        for (NodeView n : nodes) {
            ("UP".equals(n.state()) ? up : down).add(n.nodeId());
            if (!n.accelerators().isEmpty()) {
                accelerators = true;
                boolean allUp = n.accelerators().stream().allMatch(a -> "UP".equals(a.state()));
                (allUp ? accelUp : accelDown).add(n.nodeId());
            }
        }
        return Summary.of(schedchangecount, NidSet.copyOf(up.build()), NidSet.copyOf(down.build()),
                accelerators ? NidSet.copyOf(accelUp.build()) : null,
                accelerators ? NidSet.copyOf(accelDown.build()) : null);
    }

    /** One node. */
    public static NodeView node(Node node) {
        return node(node, new NodeAssembler());
    }

    /** One reservation. */
    public static ReservationView reservation(Reservation r) {
        List<ReservationView.Application> apps = new ArrayList<>(r.applications().size());
        for (Application a : r.applications()) {
            List<ReservationView.Command> commands = new ArrayList<>(a.commands().size());
            for (Command c : a.commands()) {
                commands.add(new ReservationView.Command(c.width(), c.depth(), c.nppn(), c.memory(),
                        c.architecture(), c.cmd()));
            }
            apps.add(new ReservationView.Application(a.applicationId(), a.userId(), a.groupId(), a.timeStamp(),
                    commands));
        }
        return new ReservationView(r.reservationId(), r.userName(), r.accountName().orElse(null),
                r.timeStamp().orElse(null), r.batchId().orElse(null), r.reservationMode().orElse(null),
                r.gpcMode().orElse(null), apps);
    }

    private static NodeView node(Node n, NodeAssembler a) {
        a.begin(n.nodeId(), n.name(), n.architecture(), n.role(), n.state(), n.routerId().orElse(null));
        for (Socket s : n.sockets()) {
            a.socket(s.ordinal(), s.architecture(), s.clockMhz());
            segments(s.segments(), a);
            a.endSocket();
        }
        segments(n.segments(), a);
        processors(n.processors(), a);
        memory(n.memory(), a);
        labels(n.labels(), a);
        for (Accelerator x : n.accelerators()) {
            a.accelerator(new NodeView.Accelerator(x.ordinal(), x.type(), x.state(), x.family(), x.memoryMb(),
                    x.clockMhz(), reservationIds(x.allocations())));
        }
        return a.end();
    }

    private static void segments(List<Segment> segments, NodeAssembler a) {
        for (Segment g : segments) {
            a.segment(g.ordinal().orElse(-1L));
            for (ComputeUnit cu : g.computeUnits()) {
                a.computeUnit(cu.ordinal());
                processors(cu.processors(), a);
                a.endComputeUnit();
            }
            processors(g.processors(), a);
            memory(g.memory(), a);
            labels(g.labels(), a);
            a.endSegment();
        }
    }

    private static void processors(List<Processor> processors, NodeAssembler a) {
        for (Processor p : processors) {
            a.processor(p.ordinal(), p.architecture().orElse(null), p.clockMhz().orElse(0L),
                    reservationIds(p.allocations()));
        }
    }

    private static void memory(List<Memory> memory, NodeAssembler a) {
        for (Memory m : memory) {
            List<NodeView.MemoryAllocation> allocations = new ArrayList<>(m.allocations().size());
            for (Allocation x : m.allocations()) {
                allocations.add(new NodeView.MemoryAllocation(x.reservationId(), x.pageCount().orElse(0L)));
            }
            a.memory(new NodeView.Memory(m.type(), m.pageSizeKb(), m.pageCount(), allocations));
        }
    }

    private static void labels(List<Label> labels, NodeAssembler a) {
        for (Label l : labels) {
            a.label(new NodeView.Label(l.name(), l.type(), l.disposition()));
        }
    }

    private static List<Long> reservationIds(List<Allocation> allocations) {
        if (allocations.isEmpty()) {
            return List.of();
        }
        List<Long> ids = new ArrayList<>(allocations.size());
        for (Allocation x : allocations) {
            ids.add(x.reservationId());
        }
        return ids;
    }
}
