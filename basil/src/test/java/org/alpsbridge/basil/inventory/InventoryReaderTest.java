package org.alpsbridge.basil.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.fixtures.Fixtures;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Inventory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class InventoryReaderTest {

    /**
     * Every successful INVENTORY response of the project's fixtures, and of the shared corpus when it is beside
     * the checkout (it is not on CI: see {@link Corpus}).
     */
    static List<Path> inventories() throws Exception {
        List<Path> candidates = new ArrayList<>(Fixtures.allButHostile());
        if (Corpus.directory().isPresent()) {
            candidates.addAll(Corpus.documents());
        }
        List<Path> out = new ArrayList<>();
        for (Path p : candidates) {
            String text = Files.readString(p, StandardCharsets.ISO_8859_1);
            if (text.contains("<BasilResponse") && text.contains("<Inventory") && text.contains("SUCCESS")) {
                out.add(p);
            }
        }
        return out;
    }

    static InventoryReader reader(String xml) throws BasilException {
        return InventoryReader.open(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    @ParameterizedTest
    @MethodSource("inventories")
    void streamingGivesTheSameNodesAndReservationsAsTheFullModel(Path file) throws Exception {
        byte[] doc = Files.readAllBytes(file);
        Inventory full = BasilCodec.standard().readResponse(doc).responseData().content(Inventory.class).orElseThrow();
        List<NodeView> nodes = new ArrayList<>();
        List<ReservationView> reservations = new ArrayList<>();
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(doc))) {
            for (NodeView n; (n = r.nextNode()) != null; ) {
                nodes.add(n);
            }
            for (ReservationView v; (v = r.nextReservation()) != null; ) {
                reservations.add(v);
            }
            r.finish();
            assertEquals(full.nodeArray().flatMap(a -> a.changecount()).orElse(null), r.header().changecount());
            assertEquals(full.mppHost().orElse(null), r.header().mppHost());
        }
        assertEquals(Inventories.nodes(full), nodes);
        assertEquals(Inventories.reservations(full), reservations);
    }

    @Test
    void readsTheHeaderOfAFailureAndYieldsNothing() throws Exception {
        try (InventoryReader r = reader("""
                <BasilResponse protocol="1.2"><ResponseData status="FAILURE" method="QUERY" error_class="PERMANENT"
                 error_source="BACKEND"><Message severity="ERROR">Node mapping mismatch</Message></ResponseData>
                </BasilResponse>""")) {
            assertFalse(r.header().isSuccess());
            assertEquals("PERMANENT", r.header().errorClass());
            assertEquals(List.of("Node mapping mismatch"), r.header().messages());
            assertNull(r.nextNode());
            assertNull(r.nextReservation());
        }
    }

    @Test
    void reservationsBeforeNodesAreKeptUntilAsked() throws Exception {
        try (InventoryReader r = reader("""
                <BasilResponse protocol="1.1"><ResponseData status="SUCCESS" method="QUERY"><Inventory>
                <ReservationArray><Reservation reservation_id="7" user_name="u" account_name="DEFAULT"/></ReservationArray>
                <NodeArray><Node node_id="4294967295" name="c0-0c0s0n0" architecture="XT" role="BATCH" state="UP"/></NodeArray>
                </Inventory></ResponseData></BasilResponse>""")) {
            NodeView n = r.nextNode();
            assertEquals(4294967295L, n.nodeId(), "node ids are unsigned 32-bit");
            assertNull(r.nextNode());
            assertEquals(7, r.nextReservation().reservationId());
            assertNull(r.nextReservation());
        }
    }

    @Test
    void askingForReservationsSkipsTheRemainingNodes() throws Exception {
        try (InventoryReader r = reader("""
                <BasilResponse protocol="1.0"><ResponseData status="SUCCESS" method="QUERY"><Inventory><NodeArray>
                <Node node_id="1"><ProcessorArray><Processor ordinal="0" architecture="x86_64" clock_mhz="1"/></ProcessorArray></Node>
                <Node node_id="2"/></NodeArray>
                <ReservationArray><Reservation reservation_id="9" user_name="u" account_name="DEFAULT"/></ReservationArray>
                </Inventory></ResponseData></BasilResponse>""")) {
            assertEquals(9, r.nextReservation().reservationId());
            assertNull(r.nextNode());
        }
    }

    @Test
    void aBadNumberIsReportedWithItsAttributeAndPlace() throws Exception {
        try (InventoryReader r = reader("""
                <BasilResponse protocol="1.0"><ResponseData status="SUCCESS" method="QUERY"><Inventory><NodeArray>
                <Node node_id="12x"/></NodeArray></Inventory></ResponseData></BasilResponse>""")) {
            BasilException e = assertThrows(BasilException.class, r::nextNode);
            assertTrue(e.getMessage().contains("node_id=\"12x\""), e.getMessage());
            assertEquals(2, e.line());
        }
    }

    /**
     * Attributes are read from Woodstox's buffer, which hands a decoder the value with white space trimmed off: a value
     * with spaces (written or as {@code &#32;}/{@code &#9;}) must still read as written, and a number with them must
     * still be refused, with the same message, as when every value was a String.
     */
    @Test
    void valuesAreReadAsWrittenWhateverWhiteSpaceSurroundsThem() throws Exception {
        try (InventoryReader r = reader("""
                <BasilResponse protocol="1.0"><ResponseData status="SUCCESS" method="QUERY"><Inventory><NodeArray>
                <Node node_id="1" name=" c0-0c0s0n1 " architecture="XT" role="&#9;BATCH" state="UP&#32;">
                <ProcessorArray><Processor ordinal="0" architecture="x86_64 " clock_mhz="2600"/></ProcessorArray>
                <MemoryArray><Memory type=" OS" page_size_kb="4" page_count="10"/></MemoryArray></Node>
                <Node node_id="2" name="c0-0c0s0n2" architecture="XT" role="BATCH" state="UP"/>
                </NodeArray></Inventory></ResponseData></BasilResponse>""")) {
            NodeView first = r.nextNode();
            assertEquals(" c0-0c0s0n1 ", first.name());
            assertEquals("\tBATCH", first.role());
            assertEquals("UP ", first.state());
            assertEquals("x86_64 ", first.sockets().get(0).architecture());
            assertEquals(" OS", first.memory().get(0).type());
            NodeView second = r.nextNode();
            assertEquals("BATCH", second.role(), "a value shared from an earlier node is the value written here");
            assertEquals("UP", second.state());
        }
        for (String bad : List.of(" 12", "12 ", "&#32;12", "12&#9;", " ", "")) {
            try (InventoryReader r = reader("""
                    <BasilResponse protocol="1.0"><ResponseData status="SUCCESS" method="QUERY"><Inventory><NodeArray>
                    <Node node_id="1"><ProcessorArray><Processor ordinal="%s"/></ProcessorArray></Node>
                    </NodeArray></Inventory></ResponseData></BasilResponse>""".formatted(bad))) {
                BasilException e = assertThrows(BasilException.class, r::nextNode, bad);
                String value = bad.replace("&#32;", " ").replace("&#9;", "\t");
                assertTrue(e.getMessage().contains("<Processor> ordinal=\"" + value + "\" is not an unsigned decimal number"),
                        bad + ": " + e.getMessage());
                assertEquals(2, e.line());
            }
        }
    }

    @Test
    void aTruncatedInventoryFailsWithItsPlace() {
        BasilException e = assertThrows(BasilException.class, () -> {
            try (InventoryReader r = reader("""
                    <BasilResponse protocol="1.0"><ResponseData status="SUCCESS" method="QUERY"><Inventory><NodeArray>
                    <Node node_id="1"><ProcessorArray><Processor ordinal="0\"""")) {
                while (r.nextNode() != null) {
                    // drain
                }
            }
        });
        assertTrue(e.line() > 0, e.getMessage());
    }

    @Test
    void aRequestIsNotAnInventoryResponse() {
        BasilException e = assertThrows(BasilException.class,
                () -> reader("<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"INVENTORY\"/>"));
        assertTrue(e.getMessage().contains("BasilRequest"), e.getMessage());
    }

    @Test
    void aDoctypeIsRefused() {
        BasilException e = assertThrows(BasilException.class, () -> reader("""
                <?xml version="1.0"?><!DOCTYPE BasilResponse [<!ENTITY x SYSTEM "file:///etc/passwd">]>
                <BasilResponse protocol="1.0"/>"""));
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
    }
}
