package org.alpsbridge.basil.inventory;

import com.ctc.wstx.stax.WstxOutputFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.Protocols;

/**
 * Writes a QUERY(INVENTORY) SUCCESS response from version-neutral views, node by node (memory stays bounded),
 * in the shape of the header's protocol version:
 * <ul>
 *   <li>1.0: Processor (ordinal numbered across the node, with the socket's architecture and clock),
 *       Memory and Label arrays directly on the node; reservations with id, user and account only;</li>
 *   <li>1.1/1.2: SegmentArray (ordinals numbered across the node; Processor ordinals restart per segment),
 *       {@code router_id} kept; from 1.2 AcceleratorArray and {@code changecount};</li>
 *   <li>1.3+: SocketArray → Segment → ComputeUnit → Processor, {@code schedchangecount}; 1.7 adds
 *       {@code ResponseData type="INVENTORY"} and {@code cpcu}.</li>
 * </ul>
 * Memory and labels the view holds at node level go into the first segment when the version puts them on
 * segments (the placement of CLE 5.1 and of CLE 5.2 UP03 and later). What a version cannot express is left
 * out; {@link #losses(NodeView, String)} and its siblings say what. Output is US-ASCII (anything else as character references) with the
 * declaration ALPS writes, one space of indentation per level as in real captures.
 */
public final class InventoryWriter implements AutoCloseable {

    private static final XMLOutputFactory OUTPUT = new WstxOutputFactory();
    private static final byte[] DECLARATION = "<?xml version=\"1.0\"?>\n".getBytes(StandardCharsets.US_ASCII);

    private final XMLStreamWriter w;
    private final String protocol;
    private final boolean v11;
    private final boolean v12;
    private final boolean v13;
    private boolean inNodeArray;
    private boolean inReservationArray;
    private boolean closed;
    private boolean memoryOnNode;
    private int depth;

    private InventoryWriter(OutputStream out, InventoryHeader header) throws XMLStreamException, IOException {
        this.protocol = header.protocol();
        this.v11 = Protocols.atLeast(protocol, "1.1");
        this.v12 = Protocols.atLeast(protocol, "1.2");
        this.v13 = Protocols.atLeast(protocol, "1.3");
        out.write(DECLARATION);
        this.w = OUTPUT.createXMLStreamWriter(out, "US-ASCII");
        start("BasilResponse");
        attribute("protocol", protocol);
        start("ResponseData");
        attribute("status", "SUCCESS");
        attribute("method", "QUERY");
        if (Protocols.atLeast(protocol, "1.7")) {
            attribute("type", "INVENTORY");
        }
        start("Inventory");
        if (v11) {
            attribute("mpp_host", header.mppHost());
            attribute("timestamp", header.timestamp());
        }
        if (Protocols.atLeast(protocol, "1.7")) {
            attribute("cpcu", header.cpcu());
        }
        start("NodeArray");
        if (v12) {
            attribute("changecount", header.changecount());
        }
        if (v13) {
            attribute("schedchangecount", header.schedchangecount());
        }
        inNodeArray = true;
    }

    /** Starts the document; write the nodes, then the reservations, then close. Does not close {@code out}. */
    public static InventoryWriter open(OutputStream out, InventoryHeader header) throws BasilException {
        try {
            return new InventoryWriter(out, header);
        } catch (XMLStreamException | IOException e) {
            throw failure(e);
        }
    }

    /** The whole document at once. */
    public static byte[] write(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations)
            throws BasilException {
        return write(header, nodes, reservations, 4096 + nodes.size() * 2048L);
    }

    /**
     * The whole document at once, into a buffer of about {@code expectedBytes} (e.g. the size of the last document
     * written from these views): a 180-MB KNL inventory written into a buffer that starts small is copied at every
     * doubling, a gigabyte allocated for one document.
     */
    public static byte[] write(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations,
                               long expectedBytes) throws BasilException {
        long room = Math.max(4096, expectedBytes + expectedBytes / 64 + 4096);
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 16, room));
        try (InventoryWriter w = open(out, header)) {
            for (NodeView n : nodes) {
                w.node(n);
            }
            for (ReservationView r : reservations) {
                w.reservation(r);
            }
        }
        return out.toByteArray();
    }

    /**
     * From 1.3 on, writes the memory a view holds at node level as a MemoryArray child of the Node, after the
     * SocketArray, as ALPS of CLE 5.2 before UP03 (engine 5.2.0–5.2.2) did (PROTOCOL.md §4.5), instead of into the
     * first segment; segments then carry no MemoryArray of their own when they hold no memory. Default: off.
     */
    public InventoryWriter memoryOnNode(boolean on) {
        memoryOnNode = on;
        return this;
    }

    public void node(NodeView n) throws BasilException {
        if (!inNodeArray) {
            throw new IllegalStateException("nodes come before reservations");
        }
        try {
            start("Node");
            attribute("node_id", n.nodeId());
            attribute("name", n.name());
            attribute("architecture", n.architecture());
            attribute("role", n.role());
            attribute("state", n.state());
            if (v11 && !v13) {
                attribute("router_id", n.routerId());
            }
            if (v13) {
                sockets(n);
                if (memoryOnNode && !n.memory().isEmpty()) {
                    memoryArray(n.memory());
                }
            } else if (v11) {
                segments(n);
            } else {
                flat(n);
            }
            if (v12 && !n.accelerators().isEmpty()) {
                start("AcceleratorArray");
                for (NodeView.Accelerator a : n.accelerators()) {
                    start("Accelerator");
                    attribute("ordinal", a.ordinal());
                    attribute("type", a.type());
                    attribute("state", a.state());
                    attribute("family", a.family());
                    attribute("memory_mb", a.memoryMb());
                    attribute("clock_mhz", a.clockMhz());
                    allocations("AcceleratorAllocation", a.reservations());
                    end();
                }
                end();
            }
            end();
        } catch (XMLStreamException e) {
            throw failure(e);
        }
    }

    public void reservation(ReservationView r) throws BasilException {
        try {
            if (inNodeArray) {
                end();
                inNodeArray = false;
            }
            if (!inReservationArray) {
                start("ReservationArray");
                inReservationArray = true;
            }
            start("Reservation");
            attribute("reservation_id", r.reservationId());
            attribute("user_name", r.userName());
            attribute("account_name", r.accountName());
            if (v11) {
                attribute("time_stamp", r.timeStamp());
                attribute("batch_id", r.batchId());
                attribute("reservation_mode", r.reservationMode());
                attribute("gpc_mode", r.gpcMode());
                if (!r.applications().isEmpty()) {
                    start("ApplicationArray");
                    for (ReservationView.Application a : r.applications()) {
                        start("Application");
                        attribute("application_id", a.applicationId());
                        attribute("user_id", a.userId());
                        attribute("group_id", a.groupId());
                        attribute("time_stamp", a.timeStamp());
                        start("CommandArray");
                        for (ReservationView.Command c : a.commands()) {
                            start("Command");
                            attribute("width", c.width());
                            attribute("depth", c.depth());
                            attribute("nppn", c.nppn());
                            attribute("memory", c.memory());
                            attribute("architecture", c.architecture());
                            attribute("cmd", c.cmd());
                            end();
                        }
                        end();
                        end();
                    }
                    end();
                }
            }
            end();
        } catch (XMLStreamException e) {
            throw failure(e);
        }
    }

    /** Ends the arrays and the document and flushes; the output stream stays open. */
    @Override
    public void close() throws BasilException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (inNodeArray) {
                end();
                start("ReservationArray");
                end();
            } else if (inReservationArray) {
                end();
            }
            end(); // Inventory
            end(); // ResponseData
            end(); // BasilResponse
            w.writeCharacters("\n");
            w.flush();
            w.close();
        } catch (XMLStreamException e) {
            throw failure(e);
        }
    }

    // ---- what a version cannot express -------------------------------------------------------------------

    /** What writing {@code header} in {@code protocol} leaves out, one sentence each; empty when nothing. */
    public static List<String> losses(InventoryHeader h, String protocol) {
        List<String> out = new java.util.ArrayList<>();
        if (!Protocols.atLeast(protocol, "1.1") && (h.mppHost() != null || h.timestamp() != null)) {
            out.add("Inventory mpp_host/timestamp do not exist before 1.1: left out");
        }
        if (!Protocols.atLeast(protocol, "1.2") && h.changecount() != null) {
            out.add("NodeArray changecount does not exist before 1.2: left out");
        }
        if (!Protocols.atLeast(protocol, "1.3") && h.schedchangecount() != null) {
            out.add("NodeArray schedchangecount does not exist before 1.3: left out");
        }
        if (!Protocols.atLeast(protocol, "1.7") && h.cpcu() != null) {
            out.add("Inventory cpcu does not exist before 1.7: left out");
        }
        return out;
    }

    /** What writing {@code n} in {@code protocol} leaves out or flattens, one sentence each. */
    public static List<String> losses(NodeView n, String protocol) {
        List<String> out = new java.util.ArrayList<>();
        boolean v11 = Protocols.atLeast(protocol, "1.1");
        boolean v13 = Protocols.atLeast(protocol, "1.3");
        if (!v13) {
            boolean hyperthreads = n.segments().stream().flatMap(g -> g.cores().stream())
                    .anyMatch(c -> c.threads().size() > 1);
            if (hyperthreads) {
                out.add("compute units (which Processors are hardware threads of one core) do not exist before 1.3:"
                        + " each thread becomes a Processor");
            }
            if (n.sockets().size() > 1) {
                out.add("sockets do not exist before 1.3: their segments are listed on the node");
            }
        }
        if (!v11 && n.segments().size() > 1) {
            out.add("NUMA segments do not exist in 1.0: processors, memory and labels are listed on the node");
        }
        if (!Protocols.atLeast(protocol, "1.2") && !n.accelerators().isEmpty()) {
            out.add("accelerators do not exist before 1.2: left out");
        }
        if (n.routerId() != null && (!v11 || v13)) {
            out.add("router_id exists only in 1.1 and 1.2: left out");
        }
        if (v11 && !n.memory().isEmpty() && !n.segments().isEmpty()) {
            out.add("memory on the node itself is written into the first segment");
        }
        return out;
    }

    /** What writing {@code r} in {@code protocol} leaves out, one sentence each. */
    public static List<String> losses(ReservationView r, String protocol) {
        List<String> out = new java.util.ArrayList<>();
        if (!Protocols.atLeast(protocol, "1.1")) {
            if (r.timeStamp() != null || r.batchId() != null || r.reservationMode() != null || r.gpcMode() != null) {
                out.add("Reservation time_stamp, batch_id, reservation_mode and gpc_mode do not exist in 1.0: left out");
            }
            if (!r.applications().isEmpty()) {
                out.add("reservation applications do not exist in 1.0: left out");
            }
        }
        return out;
    }

    // ---- node shapes ---------------------------------------------------------------------------------------

    private void flat(NodeView n) throws XMLStreamException {
        start("ProcessorArray");
        long ordinal = 0;
        for (NodeView.Socket s : n.sockets()) {
            for (NodeView.Segment g : s.segments()) {
                ordinal = processors(s, g, ordinal);
            }
        }
        end();
        memoryArray(n.allMemory());
        labelArray(n.allLabels());
    }

    private void segments(NodeView n) throws XMLStreamException {
        start("SegmentArray");
        long ordinal = 0;
        for (NodeView.Socket s : n.sockets()) {
            for (NodeView.Segment g : s.segments()) {
                start("Segment");
                attribute("ordinal", ordinal);
                start("ProcessorArray");
                processors(s, g, 0);
                end();
                segmentMemoryAndLabels(n, g, ordinal == 0);
                end();
                ordinal++;
            }
        }
        end();
    }

    private long processors(NodeView.Socket s, NodeView.Segment g, long firstOrdinal) throws XMLStreamException {
        long ordinal = firstOrdinal;
        for (NodeView.Core c : g.cores()) {
            for (NodeView.Thread t : c.threads()) {
                start("Processor");
                attribute("ordinal", ordinal++);
                attribute("architecture", s.architecture());
                attribute("clock_mhz", s.clockMhz());
                allocations("ProcessorAllocation", t.reservations());
                end();
            }
        }
        return ordinal;
    }

    private void sockets(NodeView n) throws XMLStreamException {
        start("SocketArray");
        boolean first = true;
        for (NodeView.Socket s : n.sockets()) {
            start("Socket");
            attribute("ordinal", s.ordinal());
            attribute("architecture", s.architecture());
            attribute("clock_mhz", s.clockMhz());
            start("SegmentArray");
            for (NodeView.Segment g : s.segments()) {
                start("Segment");
                attribute("ordinal", g.ordinal());
                start("ComputeUnitArray");
                for (NodeView.Core c : g.cores()) {
                    start("ComputeUnit");
                    attribute("ordinal", c.ordinal());
                    start("ProcessorArray");
                    for (NodeView.Thread t : c.threads()) {
                        start("Processor");
                        attribute("ordinal", t.ordinal());
                        allocations("ProcessorAllocation", t.reservations());
                        end();
                    }
                    end();
                    end();
                }
                end();
                segmentMemoryAndLabels(n, g, first);
                first = false;
                end();
            }
            end();
            end();
        }
        end();
    }

    private void segmentMemoryAndLabels(NodeView n, NodeView.Segment g, boolean firstSegment)
            throws XMLStreamException {
        if (memoryOnNode && v13) {
            if (!g.memory().isEmpty()) {
                memoryArray(g.memory());
            }
            labelArray(firstSegment ? concat(n.labels(), g.labels()) : g.labels());
        } else if (firstSegment && !(n.memory().isEmpty() && n.labels().isEmpty())) {
            memoryArray(concat(n.memory(), g.memory()));
            labelArray(concat(n.labels(), g.labels()));
        } else {
            memoryArray(g.memory());
            labelArray(g.labels());
        }
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        return b.isEmpty() ? a : java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    private void memoryArray(List<NodeView.Memory> memory) throws XMLStreamException {
        start("MemoryArray");
        for (NodeView.Memory m : memory) {
            start("Memory");
            attribute("type", m.type());
            attribute("page_size_kb", m.pageSizeKb());
            attribute("page_count", m.pageCount());
            for (NodeView.MemoryAllocation a : m.allocations()) {
                start("MemoryAllocation");
                attribute("reservation_id", a.reservationId());
                attribute("page_count", a.pageCount());
                end();
            }
            end();
        }
        end();
    }

    private void labelArray(List<NodeView.Label> labels) throws XMLStreamException {
        start("LabelArray");
        for (NodeView.Label l : labels) {
            start("Label");
            attribute("name", l.name());
            attribute("type", l.type());
            attribute("disposition", l.disposition());
            end();
        }
        end();
    }

    private void allocations(String element, List<Long> reservations) throws XMLStreamException {
        for (long id : reservations) {
            start(element);
            attribute("reservation_id", id);
            end();
        }
    }

    // ---- indentation: one space per level, empty elements self-closed ------------------------------------

    private boolean open; // the last start tag has no content yet

    private void start(String name) throws XMLStreamException {
        if (depth > 0) {
            newline(depth);
        }
        w.writeStartElement(name);
        open = true;
        depth++;
    }

    private void end() throws XMLStreamException {
        depth--;
        if (!open) {
            newline(depth);
        }
        w.writeEndElement();
        open = false;
    }

    private static final char[] NEWLINE_AND_SPACES = ("\n" + " ".repeat(32)).toCharArray();

    private void newline(int indent) throws XMLStreamException {
        w.writeCharacters(NEWLINE_AND_SPACES, 0, 1 + Math.min(indent, NEWLINE_AND_SPACES.length - 1));
    }

    private void attribute(String name, String value) throws XMLStreamException {
        if (value != null) {
            w.writeAttribute(name, value);
        }
    }

    private void attribute(String name, Long value) throws XMLStreamException {
        if (value != null) {
            w.writeAttribute(name, Long.toString(value));
        }
    }

    private void attribute(String name, long value) throws XMLStreamException {
        w.writeAttribute(name, Long.toString(value));
    }

    private static BasilException failure(Exception e) {
        return new BasilException("cannot write the inventory: " + e.getMessage(), -1, -1, e);
    }
}
