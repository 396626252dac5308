package org.alpsbridge.basil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.SyntheticInventory;
import org.alpsbridge.basil.inventory.WrittenStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Run by the {@code small-heap} surefire execution under {@code -Xmx64m}: {@code basil convert} rewrites a
 * 180 MB KNL inventory node by node, so its memory does not grow with the machine.
 */
@Tag("smallheap")
class ConvertSmallHeapTest {

    @Test
    void aKnlInventoryOf9688NodesConvertsFrom13To12ThroughASmallHeap() throws Exception {
        SyntheticInventory knl = SyntheticInventory.knl(9688);
        byte[] head = head(knl);
        Converter converter = new Converter("1.2");
        long nodes = 0;
        long processors = 0;
        String protocol;
        try (WrittenStream converted = WrittenStream.start("convert", out -> converter.convert(head, () -> generated(knl), out));
             InventoryReader r = InventoryReader.open(converted.in())) {
            protocol = r.header().protocol();
            for (NodeView n; (n = r.nextNode()) != null; ) {
                nodes++;
                processors += n.processorCount();
                assertEquals(272, n.coreCount(), "1.2 has no compute units: every processor becomes a core");
            }
            r.finish();
        }
        assertEquals("1.2", protocol);
        assertEquals(9688, nodes);
        assertEquals(9688L * 272, processors);
        assertTrue(converter.losses().stream().anyMatch(l -> l.contains("9688")), "each node's loss is counted: "
                + converter.losses());
    }

    /** The first bytes, for the converter's sniffing. */
    private static byte[] head(SyntheticInventory knl) throws Exception {
        ByteArrayOutputStream first = new ByteArrayOutputStream();
        new SyntheticInventory(1, knl.sockets(), knl.cores(), knl.threads(), knl.clockMhz(), knl.pagesPerSegment(), 0)
                .write(first, "1.3");
        return first.toByteArray();
    }

    /**
     * A fresh stream of the whole document (the converter opens the source twice: its first look reads only the
     * header and closes its end, which stops that writer; nobody waits for it).
     */
    private static InputStream generated(SyntheticInventory machine) throws IOException {
        return WrittenStream.start("inventory-writer", out -> machine.write(out, "1.3")).in();
    }
}
