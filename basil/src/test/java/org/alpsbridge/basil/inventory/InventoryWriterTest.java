package org.alpsbridge.basil.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.model.Inventory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InventoryWriterTest {

    static List<NodeView> stream(byte[] doc, List<ReservationView> reservations) throws Exception {
        List<NodeView> nodes = new ArrayList<>();
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(doc))) {
            for (NodeView n; (n = r.nextNode()) != null; ) {
                nodes.add(n);
            }
            for (ReservationView v; (v = r.nextReservation()) != null; ) {
                reservations.add(v);
            }
            r.finish();
        }
        return nodes;
    }

    @Test
    void anXc30Of2256NodesWrittenAs13ReadsBackIdenticallyThroughBothPaths() throws Exception {
        SyntheticInventory machine = SyntheticInventory.xc30(2256, 300);
        byte[] doc = machine.bytes("1.3");
        List<ReservationView> reservations = new ArrayList<>();
        List<NodeView> streamed = stream(doc, reservations);
        assertEquals(2256, streamed.size());
        assertEquals(72192, streamed.stream().mapToInt(NodeView::processorCount).sum());
        assertEquals(300, reservations.size());
        for (int i = 0; i < 2256; i += 97) {
            assertEquals(machine.node(i), streamed.get(i));
        }
        assertEquals(machine.reservation(299), reservations.get(299));
        Inventory full = BasilCodec.standard().readResponse(doc).responseData().content(Inventory.class).orElseThrow();
        assertEquals(streamed, Inventories.nodes(full));
        assertEquals(reservations, Inventories.reservations(full));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.0", "1.1", "1.2", "1.3", "1.4", "1.7"})
    void everyVersionKeepsProcessorsMemoryAndAllocationsPerNode(String protocol) throws Exception {
        SyntheticInventory machine = SyntheticInventory.xc30(40, 4);
        List<ReservationView> reservations = new ArrayList<>();
        List<NodeView> nodes = stream(machine.bytes(protocol), reservations);
        for (int i = 0; i < 40; i++) {
            NodeView expected = machine.node(i);
            assertEquals(expected.processorCount(), nodes.get(i).processorCount());
            assertEquals(expected.memoryMb(), nodes.get(i).memoryMb());
            assertEquals(expected.reservations(), nodes.get(i).reservations());
        }
        assertEquals(4, reservations.size());
        assertEquals(protocol.equals("1.0") ? List.of() : machine.reservation(2).launchedApplicationIds(),
                reservations.get(2).launchedApplicationIds());
    }

    @Test
    void the10ShapeNumbersProcessorsAcrossTheNodeAndTheSegmentShapeRestartsPerSegment() throws Exception {
        NodeView n = SyntheticInventory.xc30(1, 0).node(0);
        String v10 = new String(InventoryWriter.write(InventoryHeader.success("1.0", null, null, null, null),
                List.of(n), List.of()), StandardCharsets.US_ASCII);
        assertTrue(v10.contains("<Processor ordinal=\"31\" architecture=\"x86_64\" clock_mhz=\"2600\""), v10);
        assertFalse(v10.contains("Segment"));
        String v12 = new String(InventoryWriter.write(InventoryHeader.success("1.2", "h", 1L, 5L, 5L),
                List.of(n), List.of()), StandardCharsets.US_ASCII);
        assertTrue(v12.contains("<Segment ordinal=\"1\">"), v12);
        assertFalse(v12.contains("ordinal=\"16\""), "processor ordinals restart in each segment");
        assertTrue(v12.contains("<NodeArray changecount=\"5\">"), v12);
        assertFalse(v12.contains("schedchangecount"));
        assertTrue(v12.startsWith("<?xml version=\"1.0\"?>\n<BasilResponse protocol=\"1.2\">"), v12);
    }

    @Test
    void lossesNameWhatAnOlderVersionCannotSay() {
        NodeView n = SyntheticInventory.xc30(1, 0).node(0);
        assertTrue(InventoryWriter.losses(n, "1.3").isEmpty());
        List<String> to12 = InventoryWriter.losses(n, "1.2");
        assertTrue(to12.stream().anyMatch(s -> s.contains("compute units")), to12.toString());
        assertTrue(to12.stream().anyMatch(s -> s.contains("sockets")), to12.toString());
        assertTrue(InventoryWriter.losses(n, "1.0").stream().anyMatch(s -> s.contains("NUMA segments")));
    }

    /** Seeded random 1.3-shaped nodes: write as 1.3, read both ways, get the same view. */
    @Test
    void randomNodesRoundTripExactlyIn13() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        for (int round = 0; round < 50; round++) {
            List<NodeView> nodes = new ArrayList<>();
            for (int i = 0; i < 1 + rnd.nextInt(5); i++) {
                nodes.add(randomNode(rnd));
            }
            byte[] doc = InventoryWriter.write(InventoryHeader.success("1.3", "x", 1L, 2L, 2L), nodes, List.of());
            List<NodeView> back = stream(doc, new ArrayList<>());
            assertEquals(nodes, back, "seed " + seed);
            Inventory full = BasilCodec.standard().readResponse(doc).responseData().content(Inventory.class)
                    .orElseThrow();
            assertEquals(nodes, Inventories.nodes(full), "seed " + seed);
        }
    }

    static NodeView randomNode(Random rnd) {
        List<NodeView.Socket> sockets = new ArrayList<>();
        for (int s = 0; s < 1 + rnd.nextInt(3); s++) {
            List<NodeView.Segment> segments = new ArrayList<>();
            for (int g = 0; g < 1 + rnd.nextInt(2); g++) {
                List<NodeView.Core> cores = new ArrayList<>();
                for (int c = 0; c < rnd.nextInt(5); c++) {
                    List<NodeView.Thread> threads = new ArrayList<>();
                    for (int t = 0; t < 1 + rnd.nextInt(4); t++) {
                        threads.add(new NodeView.Thread(t, rnd.nextInt(4) == 0
                                ? List.of(rnd.nextLong() & 0xffffffffL) : List.of()));
                    }
                    cores.add(new NodeView.Core(c, threads));
                }
                List<NodeView.Memory> memory = List.of(new NodeView.Memory("OS", 4, rnd.nextLong() & 0xffffffffL,
                        rnd.nextBoolean() ? List.of(new NodeView.MemoryAllocation(7, 3)) : List.of()));
                List<NodeView.Label> labels = rnd.nextBoolean() ? List.of()
                        : List.of(new NodeView.Label("l" + rnd.nextInt(9), "SOFT", "ATTRACT"));
                segments.add(new NodeView.Segment(g, cores, memory, labels));
            }
            sockets.add(new NodeView.Socket(s, "x86_64", rnd.nextInt(4000), segments));
        }
        List<NodeView.Accelerator> accels = rnd.nextBoolean() ? List.of()
                : List.of(new NodeView.Accelerator(0, "GPU", "UP", "K20X", 6144, 732,
                        rnd.nextBoolean() ? List.of(9L) : List.of()));
        long nid = rnd.nextLong() & 0xffffffffL;
        return new NodeView(nid, "c0-0c0s0n" + (nid % 4), "XT", "BATCH", rnd.nextBoolean() ? "UP" : "DOWN", null,
                sockets, List.of(), List.of(), accels);
    }
}
