package org.alpsbridge.basil.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import jakarta.xml.bind.JAXBContext;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamReader;
import org.alpsbridge.basil.model.Inventory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class NodeViewTest {

    @BeforeAll
    static void corpusPresent() {
        assumeTrue(Corpus.directory().isPresent(), "shared/basil/corpus not found; set ALPSBRIDGE_CORPUS");
    }

    static Inventory inventoryOf(String corpusName) throws Exception {
        JAXBContext ctx = JAXBContext.newInstance(Inventory.class);
        try (InputStream in = Files.newInputStream(Corpus.document(corpusName))) {
            XMLStreamReader r = XMLInputFactory.newFactory().createXMLStreamReader(in);
            while (!(r.getEventType() == XMLStreamConstants.START_ELEMENT && r.getLocalName().equals("Inventory"))) {
                r.next();
            }
            return ctx.createUnmarshaller().unmarshal(r, Inventory.class).getValue();
        }
    }

    @Test
    void the13ShapeMapsSocketsSegmentsComputeUnitsAndThreadsOneToOne() throws Exception {
        List<NodeView> nodes = Inventories.nodes(inventoryOf("torque-basil_13_short.xml"));
        assertEquals(1, nodes.size());
        NodeView n = nodes.get(0);
        assertEquals(6142, n.nodeId());
        assertEquals(2, n.sockets().size());
        assertEquals("x86_64", n.sockets().get(0).architecture());
        assertEquals(2300, n.sockets().get(1).clockMhz());
        assertEquals(4, n.segments().size());
        assertEquals(16, n.coreCount());
        assertEquals(32, n.processorCount());
        assertEquals(4L * 2097152 * 4 / 1024, n.memoryMb());
        assertTrue(n.memory().isEmpty(), "1.3 memory sits on the segments");
        assertFalse(n.isAllocated());
    }

    @Test
    void the10FlatShapeBecomesOneSocketOneSegmentOfOneThreadCoresWithNodeLevelMemory() throws Exception {
        List<NodeView> nodes = Inventories.nodes(inventoryOf("torque-generate_alps_status-sample_start-1.0.xml"));
        assertEquals(3, nodes.size());
        NodeView n = nodes.get(0);
        assertEquals(1, n.sockets().size());
        assertEquals("x86_64", n.sockets().get(0).architecture());
        assertEquals(2100, n.sockets().get(0).clockMhz());
        assertEquals(1, n.segments().size());
        assertEquals(24, n.coreCount());
        assertEquals(24, n.processorCount());
        assertEquals(1, n.memory().size());
        assertEquals(4096000L * 4 / 1024, n.memoryMb());
        assertEquals(Set.of(2869L), n.reservations());
        assertEquals(List.of(new NodeView.Label("MOAB:FEATURE=regmem", "SOFT", "ATTRACT")), n.allLabels());
        assertFalse(nodes.get(1).isAllocated());
    }

    @Test
    void the11SegmentShapePutsSegmentsIntoOneSocketAndKeepsNodeLevelLabelsAndAccelerators() throws Exception {
        List<NodeView> nodes = Inventories.nodes(inventoryOf("torque-get_inventory-1.0-hybrid.xml"));
        NodeView n = nodes.get(0);
        assertEquals(1, n.sockets().size());
        assertEquals(2, n.segments().size());
        assertEquals(1, n.segments().get(1).ordinal(), "a Segment without ordinal takes its position");
        assertEquals(2, n.accelerators().size());
        assertEquals("E10", n.accelerators().get(0).family());
        assertEquals(2, n.labels().size());
        assertEquals(2 * 4096000L * 4 / 1024, n.memoryMb());
    }

    @Test
    void reservationsKeepTheirApplicationsAndTheBasilPseudoApplication() throws Exception {
        List<ReservationView> rs = Inventories.reservations(inventoryOf("cobalt-input-error1.xml"));
        assertEquals(1, rs.size());
        ReservationView r = rs.get(0);
        assertEquals(643, r.reservationId());
        assertTrue(r.isInteractive());
        assertEquals(List.of(2208L), r.launchedApplicationIds());
        assertEquals("sleep", r.applications().get(0).commands().get(0).cmd());
    }
}
