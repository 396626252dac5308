package org.alpsbridge.emulator;

import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.LongStream;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryWriter;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.NodeGroup;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.Summary;
import org.alpsbridge.basil.model.SystemInventory;
import org.alpsbridge.basil.model.Topology;
import org.alpsbridge.basil.nodes.NidSet;
import org.w3c.dom.Element;

/**
 * The QUERY answers drawn from the machine: INVENTORY (streamed node by node, so a 100,000-node
 * inventory is never held as a tree), SUMMARY (up/down lists and schedchangecount, nothing about
 * reservations), SYSTEM (1.7 node groups) and TOPOLOGY. Callers hold the emulator's read lock.
 */
final class Queries {

    /** What ALPS reports as {@code mpp_host}: the SDB host name of the emulated system. */
    static final String MPP_HOST = "sdb";

    private final Apsched apsched;
    private final Views views;

    Queries(Apsched apsched) {
        this.apsched = apsched;
        this.views = new Views(apsched);
    }

    /**
     * Streams the INVENTORY answer. A query body limits it: nodes only when it has a NodeArray (and then
     * only those changed since its changecount), reservations only when it has a ReservationArray.
     */
    void inventory(BasilRequest req, long now, OutputStream out) throws BasilException {
        String p = req.protocol();
        Long cpcu = Protocols.atLeast(p, "1.7") ? 0L : null;
        InventoryHeader header = new InventoryHeader(p, "SUCCESS", "QUERY", null, null, List.of(), MPP_HOST, now, cpcu,
                apsched.changeCount(), apsched.schedChangeCount());
        long since = req.changecount() == null ? 0 : req.changecount();
        boolean memoryOnNode = Protocols.atLeast(p, "1.3") && apsched.machine().memoryOnNode();
        try (InventoryWriter w = InventoryWriter.open(out, header).memoryOnNode(memoryOnNode)) {
            if (req.inventoryNodesWanted()) {
                for (int node = 0; node < apsched.machine().size(); node++) {
                    if (apsched.changedAt(node) > since) {
                        w.node(views.node(node, memoryOnNode));
                    }
                }
            }
            if (req.inventoryReservationsWanted()) {
                for (Reservation r : apsched.reservations()) {
                    w.reservation(Views.reservation(r, apsched.userIds(r.user)));
                }
            }
        }
    }

    /** Nodes UP and not UP, GPUs likewise when the machine has any; the schedchangecount of the inventory. */
    Summary summary() {
        Machine m = apsched.machine();
        LongStream.Builder up = LongStream.builder();
        LongStream.Builder down = LongStream.builder();
        LongStream.Builder gpus = LongStream.builder();
        boolean anyGpu = false;
        for (int node = 0; node < m.size(); node++) {
            (apsched.state(node) == NodeState.UP ? up : down).add(m.nid(node));
            if (m.hardware(node).accelerator() != null) {
                anyGpu = true;
                gpus.add(m.nid(node));
            }
        }
        return Summary.of(apsched.schedChangeCount(), NidSet.copyOf(up.build()), NidSet.copyOf(down.build()),
                anyGpu ? NidSet.copyOf(gpus.build()) : null, anyGpu ? NidSet.empty() : null);
    }

    /** The 1.7 SYSTEM answer: one group per hardware kind, role and state. */
    SystemInventory system() {
        Machine m = apsched.machine();
        Map<List<Object>, LongStream.Builder> groups = new LinkedHashMap<>();
        for (int node = 0; node < m.size(); node++) {
            List<Object> key = List.of(m.hardware(node), apsched.role(node), apsched.state(node));
            groups.computeIfAbsent(key, k -> LongStream.builder()).add(m.nid(node));
        }
        List<NodeGroup> out = new ArrayList<>();
        for (Map.Entry<List<Object>, LongStream.Builder> g : groups.entrySet()) {
            Hardware hw = (Hardware) g.getKey().get(0);
            NodeGroup group = new NodeGroup(lower(g.getKey().get(1)), lower(g.getKey().get(2)), hw.clockMhz(), hw.segments(),
                    hw.computeUnits(), hw.threadsPerCu(), Hardware.PAGE_SIZE_KB, hw.pages(), NidSet.copyOf(g.getValue().build()));
            if (hw.accelerator() != null) {
                group.withAccelerator(hw.accelerator().family(), "up");
            }
            if (hw.hbmMb() > 0) {
                // quad cluster mode, all MCDRAM used as cache: one NUMA node, as the knl kind describes
                group.withKnl("quad", hw.hbmMb(), "100");
            }
            out.add(group);
        }
        return new SystemInventory(MPP_HOST, apsched.now(), 0L, out);
    }

    /**
     * TOPOLOGY: no real answer is public, so the emulator names the network (aries or gemini) and echoes
     * the filters asked for.
     */
    Topology topology(BasilRequest req) {
        List<String> filters = new ArrayList<>();
        for (Element e : req.otherElements()) {
            if (e.getLocalName() != null && e.getLocalName().equals("Topology")) {
                var list = e.getElementsByTagName("Filter");
                for (int i = 0; i < list.getLength(); i++) {
                    filters.add(((Element) list.item(i)).getAttribute("name"));
                }
            }
        }
        return new Topology(apsched.machine().hardware(0).aries() ? "aries" : "gemini", filters);
    }

    private static String lower(Object o) {
        return o.toString().toLowerCase(Locale.ROOT);
    }
}
