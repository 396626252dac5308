package org.alpsbridge.affinity.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.codec.Failures;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryWriter;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.SyntheticInventory;
import org.alpsbridge.basil.model.ErrorClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BasilNodesTest {

    /** A 1.3 node: coresPerSegment[s][g] cores of {@code threads} threads in segment g of socket s. */
    static NodeView node(long nid, int threads, int[][] coresPerSegment) {
        List<NodeView.Socket> sockets = new ArrayList<>();
        for (int s = 0; s < coresPerSegment.length; s++) {
            List<NodeView.Segment> segments = new ArrayList<>();
            for (int g = 0; g < coresPerSegment[s].length; g++) {
                List<NodeView.Core> cores = new ArrayList<>();
                for (int c = 0; c < coresPerSegment[s][g]; c++) {
                    List<NodeView.Thread> ts = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        ts.add(new NodeView.Thread(t, List.of()));
                    }
                    cores.add(new NodeView.Core(c, ts));
                }
                segments.add(new NodeView.Segment(g, cores, List.of(), List.of()));
            }
            sockets.add(new NodeView.Socket(s, "x86_64", 2100, segments));
        }
        return new NodeView(nid, "c0-0c0s0n" + nid, "XT", "BATCH", "UP", null, sockets, List.of(), List.of(), List.of());
    }

    static Path inventory(Path dir, String protocol, NodeView... nodes) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InventoryWriter w = InventoryWriter.open(out, InventoryHeader.success(protocol, "test", 1L, 1L, 1L))) {
            for (NodeView n : nodes) {
                w.node(n);
            }
        }
        return Files.write(dir.resolve("inventory-" + protocol + ".xml"), out.toByteArray());
    }

    @Test
    void xc30NodeIsTheSyntheticLayoutWithOneNumaDomainPerSocket() throws Exception {
        Topology t = BasilNodes.topology(SyntheticInventory.xc30(1, 0).node(0), Numbering.INTEL);
        assertEquals(TopologySourcesTest.view(Topology.synthetic("2x8x2", Numbering.INTEL)), TopologySourcesTest.view(t));
        assertEquals(2, t.numaDomains().size());
    }

    @Test
    void interlagosComputeUnitsKeepTheirDies() throws Exception {
        NodeView xe6 = node(7, 2, new int[][] {{4, 4}, {4, 4}});
        Topology t = BasilNodes.topology(xe6, Numbering.INTERLEAVED);
        assertEquals(Topology.synthetic("2x2x4x2", Numbering.INTERLEAVED), t);
        assertEquals(4, t.numaDomains().size());
    }

    @Test
    void unevenSocketsAreNumberedThreadByThread() throws Exception {
        Topology t = BasilNodes.topology(node(3, 2, new int[][] {{8}, {6}}), Numbering.INTEL);
        assertEquals(List.of(8, 22), t.sockets().get(1).cores().get(0).pus());
        assertEquals(List.of(0, 14), t.sockets().get(0).cores().get(0).pus());
        assertEquals(28, t.cpuCount());
    }

    @Test
    void readsTheRequestedNodeOfAStreamedInventory(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("knl.xml");
        Files.write(file, SyntheticInventory.knl(3).bytes("1.3"));
        Topology t = BasilNodes.read(file, 2, Numbering.INTEL);
        assertEquals("1 socket x 68 cores x 4 threads (272 CPUs)", t.shape());
        assertTrue(t.source().startsWith("BASIL node 2 "), t.source());
        assertEquals(Topology.synthetic("1x68x4", Numbering.INTEL).cpus(), BasilNodes.read(file, -1, Numbering.INTEL).cpus());
        assertTrue(assertThrows(TopologyException.class, () -> BasilNodes.read(file, 99, Numbering.INTEL))
                .getMessage().endsWith("no node with NID 99"));
    }

    @Test
    void beforeProtocol13EveryProcessorIsACore(@TempDir Path dir) throws Exception {
        Path file = inventory(dir, "1.2", node(5, 2, new int[][] {{8}, {8}}));
        Topology t = BasilNodes.read(file, 5, Numbering.INTEL);
        assertEquals("1 socket x 32 cores x 1 thread (32 CPUs)", t.shape());
        assertEquals(2, t.numaDomains().size());
    }

    @Test
    void aFailureResponseOrJunkIsNamed(@TempDir Path dir) throws Exception {
        Path failure = Files.write(dir.resolve("failure.xml"),
                Failures.failure("1.3", "QUERY", ErrorClass.PERMANENT, "BACKEND", "ALPS is down"));
        assertTrue(assertThrows(TopologyException.class, () -> BasilNodes.read(failure, -1, Numbering.INTEL))
                .getMessage().contains("not a successful QUERY(INVENTORY) response"));
        Path junk = Files.writeString(dir.resolve("junk.xml"), "<BasilResponse protocol=\"1.3\"><ResponseData");
        assertThrows(TopologyException.class, () -> BasilNodes.read(junk, -1, Numbering.INTEL));
        assertThrows(TopologyException.class, () -> BasilNodes.read(dir.resolve("absent.xml"), -1, Numbering.INTEL));
    }
}
