package org.alpsbridge.proxy.policy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryWriter;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;

/**
 * One answer of a cached inventory: what the cache held at one moment, under one ALPS time stamp, and the document
 * ALPS would write for it. The policy takes it under its lock (references to immutable views, nothing written) and
 * asks for the {@link #bytes()} after letting go, so no RESERVE, SWITCH or RELEASE patch ever waits behind the
 * writing of a 100-MB inventory; every INVENTORY that asks while the cache is unchanged within the same second gets
 * this same answer and the same bytes, written once.
 *
 * <p>An answer whose content equals the one before and whose stamp alone differs (a new second, nothing patched) is
 * that one's bytes with the {@code Inventory} element's {@code timestamp} rewritten, a copy instead of a writing:
 * the writer puts the header's time stamp there and nowhere else, so the bytes are the same.
 */
final class InventoryAnswer {

    private static final byte[] INVENTORY = "<Inventory ".getBytes(StandardCharsets.US_ASCII);
    /** The Inventory element starts within the first lines of the document. */
    private static final int HEADER_SCAN = 4096;

    private final InventoryHeader header;
    private final List<NodeView> nodes;
    private final List<ReservationView> reservations;
    private final long sizeHint;
    /** The answer before, with the same content and another stamp, until this one's bytes are had; or null. */
    private InventoryAnswer previous;
    private byte[] bytes;

    private InventoryAnswer(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations, long sizeHint,
                            InventoryAnswer previous, byte[] bytes) {
        this.header = header;
        this.nodes = nodes;
        this.reservations = reservations;
        this.sizeHint = sizeHint;
        this.previous = previous;
        this.bytes = bytes;
    }

    /** The answer of a fetched inventory: the backend's own bytes. */
    static InventoryAnswer fetched(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations,
                                   byte[] document) {
        return new InventoryAnswer(header, List.copyOf(nodes), List.copyOf(reservations), document.length, null, document);
    }

    /** An answer to be written from these views (copied here: the cache goes on patching its own lists). */
    static InventoryAnswer of(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations, long sizeHint) {
        return new InventoryAnswer(header, List.copyOf(nodes), List.copyOf(reservations), sizeHint, null, null);
    }

    /** The same content under another header (another time stamp). */
    InventoryAnswer restamped(InventoryHeader newHeader) {
        return new InventoryAnswer(newHeader, nodes, reservations, sizeHint, this, null);
    }

    InventoryHeader header() {
        return header;
    }

    /**
     * The document, written by the first caller (the others wait for it, as each waits for its own answer anyway).
     * Call it outside the policy's lock.
     */
    synchronized byte[] bytes() throws BasilException {
        if (bytes == null) {
            if (previous != null) {
                bytes = restamp(previous.bytes(), previous.header.timestamp(), header.timestamp());
                previous = null;
            }
            if (bytes == null) {
                bytes = InventoryWriter.write(header, nodes, reservations, sizeHint);
            }
        }
        return bytes;
    }

    /**
     * {@code document} with the Inventory element's {@code timestamp="from"} made {@code timestamp="to"}; null when
     * that attribute is not found in the header (the caller then writes the document anew).
     */
    static byte[] restamp(byte[] document, Long from, Long to) {
        if (from == null || to == null) {
            return null;
        }
        int element = indexOf(document, INVENTORY, 0, Math.min(document.length, HEADER_SCAN));
        if (element < 0) {
            return null;
        }
        int end = indexOf(document, new byte[] {'>'}, element, Math.min(document.length, HEADER_SCAN));
        byte[] old = (" timestamp=\"" + from + "\"").getBytes(StandardCharsets.US_ASCII);
        int at = end < 0 ? -1 : indexOf(document, old, element, end);
        if (at < 0) {
            return null;
        }
        byte[] now = (" timestamp=\"" + to + "\"").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[document.length - old.length + now.length];
        System.arraycopy(document, 0, out, 0, at);
        System.arraycopy(now, 0, out, at, now.length);
        System.arraycopy(document, at + old.length, out, at + now.length, document.length - at - old.length);
        return out;
    }

    private static int indexOf(byte[] in, byte[] what, int from, int to) {
        outer:
        for (int i = from; i + what.length <= to; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
