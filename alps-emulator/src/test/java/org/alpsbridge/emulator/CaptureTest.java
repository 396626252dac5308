package org.alpsbridge.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.cli.CheckAccess;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.inventory.Corpus;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.ResponseData;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CaptureTest {

    private static final BasilCodec CODEC = BasilCodec.standard();

    @BeforeAll
    static void corpusPresent() {
        assumeTrue(Corpus.directory().isPresent(), "shared/basil/corpus not found; set ALPSBRIDGE_CORPUS");
    }

    private static List<NodeView> nodes(byte[] document) throws Exception {
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(document))) {
            List<NodeView> out = new ArrayList<>();
            for (NodeView n; (n = r.nextNode()) != null; ) {
                out.add(n);
            }
            return out;
        }
    }

    private static List<ReservationView> reservations(byte[] document) throws Exception {
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(document))) {
            List<ReservationView> out = new ArrayList<>();
            for (ReservationView v; (v = r.nextReservation()) != null; ) {
                out.add(v);
            }
            return out;
        }
    }

    @Test
    void aRealOnePointZeroCaptureReplaysItsNodesStatesAndReservations() throws Exception {
        String file = Corpus.document("slurm-gele-inventory-1.0.xml").toString();
        byte[] captured = Files.readAllBytes(Corpus.document("slurm-gele-inventory-1.0.xml"));
        Emulator e = Emulator.create("inventory:" + file);
        byte[] replayed = e.handle(CODEC.write(BasilRequest.query("1.0", "INVENTORY")));
        List<NodeView> before = nodes(captured);
        List<NodeView> after = nodes(replayed);
        assertEquals(80, after.size());
        for (int i = 0; i < before.size(); i++) {
            NodeView b = before.get(i);
            NodeView a = after.get(i);
            assertEquals(b.nodeId(), a.nodeId());
            assertEquals(b.name(), a.name());
            assertEquals(b.state(), a.state());
            assertEquals(b.role(), a.role());
            assertEquals(b.processorCount(), a.processorCount());
            assertEquals(b.memoryMb(), a.memoryMb());
        }
        List<Long> ids = reservations(captured).stream().map(ReservationView::reservationId).toList();
        assertEquals(6, ids.size());
        assertEquals(ids, reservations(replayed).stream().map(ReservationView::reservationId).toList());
        assertEquals(ids.size(), e.control().reservationIds().length);
        assertEquals(4, after.stream().filter(n -> !n.state().equals("UP")).count());
    }

    @Test
    void aOnePointThreeCaptureKeepsItsTopologyAndTakesNewReservations() throws Exception {
        Emulator e = Emulator.create("inventory:" + Corpus.document("torque-basil_13_short.xml"));
        NodeView n = nodes(e.handle(CODEC.write(BasilRequest.query("1.3", "INVENTORY")))).get(0);
        assertEquals(6142, n.nodeId());
        assertEquals(32, n.processorCount());
        assertEquals(2, n.sockets().size());
        assertEquals(2, n.sockets().get(0).segments().size());
        ResponseData d = CODEC.readResponse(e.handle(CODEC.write(BasilRequest.reserve("1.3", "u", "1", null,
                List.of(ReserveParam.builder().width(16).nppcu(1).build()))))).responseData();
        assertTrue(d.isSuccess(), d.messageText());
    }

    @Test
    void aCaptureThatIsNotAnInventoryIsRefused() {
        String file = Corpus.document("torque-release-success-1.1.xml").toString();
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Emulator.create("inventory:" + file));
        assertTrue(e.getMessage().contains("inventory"), e.getMessage());
        assertFalse(e.getMessage().isEmpty());
    }

    @Test
    void everyRequestOfTheCorpusGetsAnAnswerThatPassesCheck() throws Exception {
        Emulator e = Emulator.create("mixed:xc30:40+knl:4+xc50-gpu:4");
        int requests = 0;
        for (var path : Corpus.documents()) {
            byte[] doc = Files.readAllBytes(path);
            if (!new String(doc, java.nio.charset.StandardCharsets.ISO_8859_1).contains("<BasilRequest")) {
                continue;
            }
            requests++;
            byte[] answer = e.handle(doc);
            String checked = CheckAccess.describe(answer);
            try (InputStream in = new ByteArrayInputStream(answer)) {
                ResponseData d = CODEC.readResponse(in).responseData();
                assertTrue(d.isSuccess() || d.errorClass() != null, path + ": " + new String(answer));
                System.out.println(path.getFileName() + " -> " + (d.isSuccess() ? "SUCCESS " + checked.lines().findFirst().orElse("")
                        : d.errorClass() + " " + d.messageText()));
            }
        }
        assertTrue(requests >= 9, "requests found: " + requests);
    }
}
