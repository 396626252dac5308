package org.alpsbridge.basil.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.inventory.Inventories;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.InventoryWriter;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Inventory;
import org.alpsbridge.basil.model.Node;

/**
 * The three ways {@code basil bench} reads an INVENTORY file, each from the file (as {@code xmlwf} reads it) and
 * each returning what it found, so the bench can refuse figures from passes that disagree.
 */
final class DecodePasses {

    /** Nodes, processors (hardware threads) and reservations a pass saw; {@code kept} is what it holds on to. */
    record Counts(long nodes, long processors, long reservations, Object kept) {

        boolean sameAs(Counts other) {
            return nodes == other.nodes && processors == other.processors && reservations == other.reservations;
        }

        @Override
        public String toString() {
            return "nodes=" + nodes + " processors=" + processors + " reservations=" + reservations;
        }
    }

    /** One way of reading a file. */
    interface Pass {
        Counts run(Path file) throws IOException, BasilException;
    }

    private static final BasilCodec CODEC = BasilCodec.standard();

    private DecodePasses() {
    }

    /** (a) The whole document into the JAXB model; counting afterwards walks the model it returned. */
    static Counts fullModel(Path file) throws IOException, BasilException {
        BasilResponse response;
        try (InputStream in = Files.newInputStream(file)) {
            response = CODEC.readResponse(in);
        }
        Inventory inventory = response.responseData().content(Inventory.class)
                .orElseThrow(() -> new BasilException(file + " holds no Inventory"));
        long processors = 0;
        for (Node n : inventory.nodes()) {
            processors += Inventories.node(n).processorCount();
        }
        return new Counts(inventory.nodes().size(), processors, inventory.reservations().size(), response);
    }

    /** (b) The streaming reader: one {@link NodeView} and one reservation view at a time. */
    static Counts streamingView(Path file) throws IOException, BasilException {
        long nodes = 0;
        long processors = 0;
        long reservations = 0;
        try (InputStream in = Files.newInputStream(file); InventoryReader r = InventoryReader.open(in)) {
            for (NodeView n; (n = r.nextNode()) != null; ) {
                nodes++;
                processors += n.processorCount();
            }
            while (r.nextReservation() != null) {
                reservations++;
            }
            r.finish();
        }
        return new Counts(nodes, processors, reservations, null);
    }

    /** The views of the last file the encoder pass was given, read once: the encoder's input, as the proxy caches it. */
    private static Path loadedFile;
    private static InventoryHeader loadedHeader;
    private static List<NodeView> loadedNodes;
    private static List<ReservationView> loadedReservations;
    private static long loadedProcessors;

    /**
     * (d) The proxy's cached answer: the file's views (read once per file, in the first, untimed round) written back as
     * one document with {@link InventoryWriter}, as {@code CachedInventory.document} does for every INVENTORY it
     * answers after a change. Counts are the views'; {@code kept} is the document written.
     */
    static Counts cachedEncoder(Path file) throws IOException, BasilException {
        if (!file.equals(loadedFile)) {
            loadedFile = null;
            List<NodeView> nodes = new ArrayList<>();
            List<ReservationView> reservations = new ArrayList<>();
            long processors = 0;
            try (InputStream in = Files.newInputStream(file); InventoryReader r = InventoryReader.open(in)) {
                loadedHeader = r.header();
                for (NodeView n; (n = r.nextNode()) != null; ) {
                    nodes.add(n);
                    processors += n.processorCount();
                }
                for (ReservationView v; (v = r.nextReservation()) != null; ) {
                    reservations.add(v);
                }
            }
            loadedNodes = nodes;
            loadedReservations = reservations;
            loadedProcessors = processors;
            loadedFile = file;
        }
        // sized by the file, as the proxy's cache sizes it by the document it fetched
        byte[] written = InventoryWriter.write(loadedHeader, loadedNodes, loadedReservations, Files.size(file));
        return new Counts(loadedNodes.size(), loadedProcessors, loadedReservations.size(), written);
    }

    /**
     * (c) The floor: the codec's hardened Woodstox reader pulls every event and reads every attribute value and
     * the length of every text, building nothing. Elements are counted by name, which is exact for inventories.
     */
    static Counts rawWoodstox(Path file) throws IOException, BasilException {
        long nodes = 0;
        long processors = 0;
        long reservations = 0;
        long characters = 0;
        try (InputStream in = Files.newInputStream(file)) {
            XMLStreamReader r = CODEC.openStream(in);
            try {
                while (r.hasNext()) {
                    int event = r.next();
                    if (event == XMLStreamConstants.START_ELEMENT) {
                        switch (r.getLocalName()) {
                            case "Node" -> nodes++;
                            case "Processor" -> processors++;
                            case "Reservation" -> reservations++;
                            default -> { }
                        }
                        for (int i = 0, n = r.getAttributeCount(); i < n; i++) {
                            characters += r.getAttributeValue(i).length();
                        }
                    } else if (event == XMLStreamConstants.CHARACTERS) {
                        characters += r.getTextLength();
                    }
                }
            } catch (XMLStreamException | RuntimeException e) {
                throw BasilCodec.streamFailure("invalid document", e, r);
            } finally {
                try {
                    r.close();
                } catch (XMLStreamException ignored) {
                    // the stream's own close below reports real I/O trouble
                }
            }
        }
        return new Counts(nodes, processors, reservations, characters);
    }
}
