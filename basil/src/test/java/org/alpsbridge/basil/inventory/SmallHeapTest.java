package org.alpsbridge.basil.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.alpsbridge.basil.cli.CheckAccess;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Limits;
import org.alpsbridge.basil.fixtures.Fixtures;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Run by the {@code small-heap} surefire execution under {@code -Xmx64m}: hostile documents fail with one
 * checked exception (never an OutOfMemoryError, a hang or an unchecked exception), and machine-sized
 * inventories stream through in bounded memory.
 */
@Tag("smallheap")
class SmallHeapTest {

    static List<Path> hostile() throws IOException {
        return Fixtures.documentsIn("hostile");
    }

    @ParameterizedTest
    @MethodSource("hostile")
    void everyHostileDocumentIsRefusedWithItsPlaceByTheFullCodec(Path file) throws Exception {
        byte[] doc = Files.readAllBytes(file);
        BasilException e = assertThrows(BasilException.class, () -> CheckAccess.describe(doc));
        assertTrue(e.line() > 0, file.getFileName() + ": no line:column in " + e.getMessage());
        assertFalse(e.getMessage().isBlank());
    }

    @ParameterizedTest
    @MethodSource("hostile")
    void everyHostileDocumentIsRefusedByTheStreamingReader(Path file) throws Exception {
        BasilException e = assertThrows(BasilException.class, () -> {
            try (InputStream in = Files.newInputStream(file); InventoryReader r = InventoryReader.open(in)) {
                while (r.nextNode() != null) {
                    // drain
                }
                while (r.nextReservation() != null) {
                    // drain
                }
                r.finish();
            }
        });
        assertTrue(e.line() > 0, file.getFileName() + ": no line:column in " + e.getMessage());
    }

    @Test
    void aHundredThousandNodeInventoryStreamsThroughASmallHeap() throws Exception {
        SyntheticInventory machine = SyntheticInventory.xc30(100_000, 300);
        long[] counts = streamCounts(machine, "1.3");
        assertEquals(100_000, counts[0]);
        assertEquals(100_000L * 32, counts[1]);
        assertEquals(300, counts[2]);
        assertEquals(100_000L, counts[3], "the last NID is 100000: 32-bit node ids throughout");
    }

    @Test
    void aKnlInventoryOf9688NodesWith272ProcessorsEachStreamsThroughASmallHeap() throws Exception {
        long[] counts = streamCounts(SyntheticInventory.knl(9688), "1.3");
        assertEquals(9688, counts[0]);
        assertEquals(9688L * 272, counts[1]);
    }

    @Test
    void aDocumentThatNeverEndsStopsAtTheSizeLimit() {
        BasilCodec small = BasilCodec.withLimits(Limits.DEFAULT.withMaxDocumentBytes(1 << 20));
        InputStream endless = new InputStream() {
            final byte[] head = ("<BasilResponse protocol=\"1.3\"><ResponseData status=\"SUCCESS\" method=\"QUERY\">"
                    + "<Inventory><NodeArray>").getBytes(StandardCharsets.US_ASCII);
            final byte[] node = "<Node node_id=\"1\"/>".getBytes(StandardCharsets.US_ASCII);
            long i;

            @Override
            public int read() {
                long k = i++;
                return k < head.length ? head[(int) k] : node[(int) ((k - head.length) % node.length)];
            }
        };
        BasilException e = assertThrows(BasilException.class, () -> {
            try (InventoryReader r = InventoryReader.open(endless, small)) {
                while (r.nextNode() != null) {
                    // drain
                }
            }
        });
        assertTrue(e.getMessage().contains("limit"), e.getMessage());
    }

    /** Nodes, processors, reservations and the last NID of {@code machine} written in a thread and streamed. */
    static long[] streamCounts(SyntheticInventory machine, String protocol) throws Exception {
        long nodes = 0;
        long processors = 0;
        long reservations = 0;
        long lastNid = 0;
        try (WrittenStream document = WrittenStream.start("inventory-writer", out -> machine.write(out, protocol));
             InventoryReader r = InventoryReader.open(document.in())) {
            for (NodeView n; (n = r.nextNode()) != null; ) {
                nodes++;
                processors += n.processorCount();
                lastNid = n.nodeId();
            }
            while (r.nextReservation() != null) {
                reservations++;
            }
            r.finish();
        }
        return new long[] {nodes, processors, reservations, lastNid};
    }
}
