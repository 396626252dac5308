package org.alpsbridge.basil.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import org.alpsbridge.basil.inventory.Inventories;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Inventory;
import org.alpsbridge.basil.model.Node;

/**
 * Coverage-guided fuzzing of the codec: whatever bytes arrive on apbasil's stdin or from the proxy's wire,
 * reading gives a model or one {@link BasilException} naming the problem and where it is; what is accepted
 * writes and reads back to the same document; the streaming reader sees what the full model sees.
 *
 * <p>The default test run replays the committed inputs ({@code src/test/resources/.../BasilCodecFuzzTestInputs/});
 * {@code mvn -Pfuzz verify} fuzzes (see the root README). Seeds: the project's BASIL fixtures.
 */
class BasilCodecFuzzTest {

    private static final BasilCodec CODEC = BasilCodec.standard();

    @FuzzTest
    @DictionaryFile(resourcePath = "basil.dict")
    void requestsAreReadOrRefusedWithAPlace(byte[] document) throws Exception {
        BasilRequest request;
        try {
            request = CODEC.readRequest(document);
        } catch (BasilException refused) {
            assertPlaced(refused);
            return;
        }
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        CODEC.write(request, written);
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        CODEC.write(CODEC.readRequest(written.toByteArray()), again);
        assertArrayEquals(written.toByteArray(), again.toByteArray(), "write(read(write(x))) == write(x)");
    }

    @FuzzTest
    @DictionaryFile(resourcePath = "basil.dict")
    void responsesAreReadOrRefusedWithAPlaceAndTheStreamingReaderAgrees(byte[] document) throws Exception {
        BasilResponse response;
        try {
            response = CODEC.readResponse(document);
        } catch (BasilException refused) {
            assertPlaced(refused);
            return;
        }
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        CODEC.write(response, written);
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        CODEC.write(CODEC.readResponse(written.toByteArray()), again);
        assertArrayEquals(written.toByteArray(), again.toByteArray(), "write(read(write(x))) == write(x)");

        Inventory inventory = response.responseData() == null ? null
                : response.responseData().content(Inventory.class).orElse(null);
        if (inventory == null) {
            return;
        }
        long processors = 0;
        for (Node n : inventory.nodes()) {
            processors += Inventories.node(n).processorCount();
        }
        long streamedNodes = 0;
        long streamedProcessors = 0;
        long streamedReservations = 0;
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(document))) {
            for (NodeView n; (n = r.nextNode()) != null; ) {
                streamedNodes++;
                streamedProcessors += n.processorCount();
            }
            while (r.nextReservation() != null) {
                streamedReservations++;
            }
            r.finish();
        } catch (BasilException refused) {
            // The streaming reader is stricter in places (it refuses what it cannot stream); never looser.
            assertPlaced(refused);
            return;
        }
        assertEquals(inventory.nodes().size(), streamedNodes, "nodes");
        assertEquals(processors, streamedProcessors, "processors");
        assertEquals(inventory.reservations().size(), streamedReservations, "reservations");
    }

    @FuzzTest
    @DictionaryFile(resourcePath = "basil.dict")
    void theStreamingReaderReadsOrRefusesWithAPlace(byte[] document) throws Exception {
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(document))) {
            while (r.nextNode() != null) {
                // drain
            }
            while (r.nextReservation() != null) {
                // drain
            }
            r.finish();
        } catch (BasilException refused) {
            assertPlaced(refused);
        }
    }

    static void assertPlaced(BasilException refused) {
        String message = refused.getMessage();
        assertTrue(message != null && !message.isBlank(), "a refusal names the problem");
        assertTrue(refused.line() >= 1 && refused.column() >= 1, "a refusal says where: " + message);
    }
}
