package org.alpsbridge.basil.inventory;

import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import javax.xml.stream.Location;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;

/**
 * Reads a QUERY(INVENTORY) response one node and one reservation at a time, without building the document
 * tree: memory stays bounded by one node, whatever the machine's size (a 9,688-node KNL inventory is about
 * 230 MB of 1.3 XML). Same hardened parser and limits as {@link BasilCodec}; every problem is a
 * {@link BasilException} naming its line:column.
 *
 * <pre>{@code
 * try (InventoryReader r = InventoryReader.open(in)) {
 *     for (NodeView n; (n = r.nextNode()) != null; ) { ... }
 *     for (ReservationView v; (v = r.nextReservation()) != null; ) { ... }
 *     r.finish();   // optional: checks the rest of the document is well-formed
 * }
 * }</pre>
 *
 * Every node shape (1.0 flat, 1.1/1.2 Segment, 1.3 Socket) maps into the same {@link NodeView} as
 * {@link Inventories} gives for the full model. Unknown elements are skipped with their content; junk text
 * (such as the {@code (Anker: )} a Cray sample has in LabelArray) is ignored. Not thread-safe.
 */
public final class InventoryReader implements AutoCloseable {

    private static final int START = XMLStreamConstants.START_ELEMENT;
    private static final int END = XMLStreamConstants.END_ELEMENT;

    private final XMLStreamReader r;
    private final Attributes attributes;
    private final NodeAssembler assembler = new NodeAssembler();
    private final Deque<ReservationView> bufferedReservations = new ArrayDeque<>();
    private final InventoryHeader header;
    // Where the cursor stands among the Inventory's children.
    private boolean inNodeArray;
    private boolean inReservationArray;
    private boolean inventoryDone;
    private boolean hasInventory;

    private InventoryReader(XMLStreamReader r) throws BasilException, XMLStreamException {
        this.r = r;
        this.attributes = new Attributes(r);
        this.header = readHeader();
    }

    /** Opens {@code in} with {@link BasilCodec#standard()}'s limits and reads up to the first node. */
    public static InventoryReader open(InputStream in) throws BasilException {
        return open(in, BasilCodec.standard());
    }

    /** Opens {@code in} with {@code codec}'s limits and reads up to the first node. */
    public static InventoryReader open(InputStream in, BasilCodec codec) throws BasilException {
        XMLStreamReader r = codec.openStream(in);
        try {
            return new InventoryReader(r);
        } catch (BasilException e) {
            closeQuietly(r);
            throw e;
        } catch (XMLStreamException | RuntimeException e) {
            BasilException failure = BasilCodec.streamFailure("invalid inventory response", e, r);
            closeQuietly(r);
            throw failure;
        }
    }

    /** The envelope and inventory attributes; for a FAILURE response there are no nodes or reservations. */
    public InventoryHeader header() {
        return header;
    }

    /** Whether the response holds an {@code Inventory} element (a SUCCESS of QUERY INVENTORY). */
    public boolean hasInventory() {
        return hasInventory;
    }

    /** The next node, or {@code null} when the NodeArray is done (or absent). */
    public NodeView nextNode() throws BasilException {
        try {
            while (!inventoryDone) {
                if (inNodeArray) {
                    if (nextStartOrEnd() == START) {
                        if ("Node".equals(r.getLocalName())) {
                            return readNode();
                        }
                        skipElement();
                    } else {
                        inNodeArray = false;
                    }
                } else if (inReservationArray) {
                    // ReservationArray before NodeArray: keep the reservations for later, find the nodes.
                    ReservationView v = readReservationOrNull();
                    if (v != null) {
                        bufferedReservations.add(v);
                    }
                } else if (!enterNextArray(true)) {
                    return null;
                }
            }
            return null;
        } catch (XMLStreamException | RuntimeException e) {
            throw failure(e);
        }
    }

    /** The next reservation, or {@code null} when there are no more; nodes not yet read are skipped. */
    public ReservationView nextReservation() throws BasilException {
        if (!bufferedReservations.isEmpty()) {
            return bufferedReservations.poll();
        }
        try {
            while (!inventoryDone) {
                if (inReservationArray) {
                    ReservationView v = readReservationOrNull();
                    if (v != null) {
                        return v;
                    }
                } else if (inNodeArray) {
                    if (nextStartOrEnd() == START) {
                        skipElement();
                    } else {
                        inNodeArray = false;
                    }
                } else if (!enterNextArray(false)) {
                    return null;
                }
            }
            return null;
        } catch (XMLStreamException | RuntimeException e) {
            throw failure(e);
        }
    }

    /** Reads the rest of the document, so a truncated or malformed tail is reported too. */
    public void finish() throws BasilException {
        try {
            while (r.hasNext()) {
                r.next();
            }
        } catch (XMLStreamException | RuntimeException e) {
            throw failure(e);
        }
    }

    @Override
    public void close() throws BasilException {
        try {
            r.close();
        } catch (XMLStreamException e) {
            throw failure(e);
        }
    }

    // ---- envelope ------------------------------------------------------------------------------------------

    private InventoryHeader readHeader() throws BasilException, XMLStreamException {
        if (r.getEventType() != START) {
            nextStartOrEnd();
        }
        if (!"BasilResponse".equals(r.getLocalName())) {
            throw problem("not a BASIL response: the root element is <" + r.getLocalName() + ">");
        }
        String protocol = r.getAttributeValue(null, "protocol");
        if (nextStartOrEnd() != START || !"ResponseData".equals(r.getLocalName())) {
            throw problem("a BasilResponse must hold a ResponseData");
        }
        String status = r.getAttributeValue(null, "status");
        String method = r.getAttributeValue(null, "method");
        String errorClass = r.getAttributeValue(null, "error_class");
        String errorSource = r.getAttributeValue(null, "error_source");
        List<String> messages = new ArrayList<>();
        String mppHost = null;
        Long timestamp = null;
        Long cpcu = null;
        Long changecount = null;
        Long schedchangecount = null;
        inventoryDone = true;
        while (nextStartOrEnd() == START) {
            String name = r.getLocalName();
            if ("Message".equals(name)) {
                messages.add(r.getElementText().strip());
            } else if ("Inventory".equals(name)) {
                mppHost = r.getAttributeValue(null, "mpp_host");
                timestamp = attributes.optionalNumber("timestamp");
                cpcu = attributes.optionalNumber("cpcu");
                inventoryDone = false;
                hasInventory = true;
                if (enterNextArray(true) && inNodeArray) {
                    changecount = attributes.optionalNumber("changecount");
                    schedchangecount = attributes.optionalNumber("schedchangecount");
                }
                break;
            } else {
                skipElement();
            }
        }
        return new InventoryHeader(protocol, status, method, errorClass, errorSource, messages, mppHost, timestamp,
                cpcu, changecount, schedchangecount);
    }

    /**
     * Moves to the next NodeArray or ReservationArray child of the Inventory. With {@code wantNodes}, a
     * ReservationArray met first is still entered (its reservations get buffered). False at the Inventory's end.
     */
    private boolean enterNextArray(boolean wantNodes) throws XMLStreamException {
        while (nextStartOrEnd() == START) {
            String name = r.getLocalName();
            if ("NodeArray".equals(name)) {
                inNodeArray = true;
                return true;
            }
            if ("ReservationArray".equals(name)) {
                inReservationArray = true;
                return true;
            }
            skipElement();
        }
        inventoryDone = true;
        return false;
    }

    // ---- nodes ---------------------------------------------------------------------------------------------

    private NodeView readNode() throws XMLStreamException {
        long nodeId = -1;
        String name = null;
        String architecture = null;
        String role = null;
        String state = null;
        Long routerId = null;
        Attributes at = attributes;
        for (int i = 0, n = at.count(); i < n; i++) {
            switch (at.name(i)) {
                case "node_id" -> nodeId = at.number(i);
                case "name" -> name = at.fresh(i);
                case "architecture" -> architecture = at.shared(i);
                case "role" -> role = at.shared(i);
                case "state" -> state = at.shared(i);
                case "router_id" -> routerId = at.number(i);
                default -> { }
            }
        }
        NodeAssembler a = assembler;
        a.begin(nodeId, name, architecture, role, state, routerId);
        // The elements open below the Node, as codes (one name lookup per start tag, none per end tag): an element
        // counts only where the model reads it (a Processor in a ProcessorArray, ...); one out of place is skipped,
        // as the model keeps it aside unread. Found by BasilCodecFuzzTest: Processors directly under a Node were
        // counted here and not in the model.
        int depth = 0;
        while (true) {
            if (nextStartOrEnd() == START) {
                int element = code(r.getLocalName());
                if (!belongs(element, depth == 0 ? NODE : open[depth - 1])) {
                    skipElement();
                    continue;
                }
                switch (element) {
                    case SOCKET_ARRAY, SEGMENT_ARRAY, COMPUTE_UNIT_ARRAY, PROCESSOR_ARRAY, MEMORY_ARRAY, LABEL_ARRAY,
                         ACCELERATOR_ARRAY -> depth = push(depth, element);
                    case SOCKET -> {
                        a.socket(ordinal(), at.shared("architecture"), at.numberOr("clock_mhz", 0));
                        depth = push(depth, element);
                    }
                    case SEGMENT -> {
                        a.segment(ordinal());
                        depth = push(depth, element);
                    }
                    case COMPUTE_UNIT -> {
                        a.computeUnit(ordinal());
                        depth = push(depth, element);
                    }
                    case PROCESSOR -> readProcessor(a);
                    case MEMORY -> readMemory(a);
                    case LABEL -> {
                        a.label(new NodeView.Label(at.shared("name"), at.shared("type"), at.shared("disposition")));
                        skipElement();
                    }
                    case ACCELERATOR -> readAccelerator(a);
                    default -> skipElement();
                }
            } else {
                // the parser matched every end tag to its start: with nothing open below the Node, it is the Node's
                if (depth == 0) {
                    return a.end();
                }
                switch (open[--depth]) {
                    case SOCKET -> a.endSocket();
                    case SEGMENT -> a.endSegment();
                    case COMPUTE_UNIT -> a.endComputeUnit();
                    default -> { }
                }
            }
        }
    }

    // The elements of a Node the reader knows, as codes; OTHER is skipped with its content.
    private static final int OTHER = 0;
    private static final int NODE = 1;
    private static final int SOCKET_ARRAY = 2;
    private static final int SOCKET = 3;
    private static final int SEGMENT_ARRAY = 4;
    private static final int SEGMENT = 5;
    private static final int COMPUTE_UNIT_ARRAY = 6;
    private static final int COMPUTE_UNIT = 7;
    private static final int PROCESSOR_ARRAY = 8;
    private static final int PROCESSOR = 9;
    private static final int MEMORY_ARRAY = 10;
    private static final int MEMORY = 11;
    private static final int LABEL_ARRAY = 12;
    private static final int LABEL = 13;
    private static final int ACCELERATOR_ARRAY = 14;
    private static final int ACCELERATOR = 15;

    /** The containers open below the current Node (the schema nests them at most 6 deep; grown if a document does). */
    private int[] open = new int[16];

    private int push(int depth, int element) {
        if (depth == open.length) {
            open = java.util.Arrays.copyOf(open, depth * 2);
        }
        open[depth] = element;
        return depth + 1;
    }

    private static int code(String element) {
        return switch (element) {
            case "SocketArray" -> SOCKET_ARRAY;
            case "Socket" -> SOCKET;
            case "SegmentArray" -> SEGMENT_ARRAY;
            case "Segment" -> SEGMENT;
            case "ComputeUnitArray" -> COMPUTE_UNIT_ARRAY;
            case "ComputeUnit" -> COMPUTE_UNIT;
            case "ProcessorArray" -> PROCESSOR_ARRAY;
            case "Processor" -> PROCESSOR;
            case "MemoryArray" -> MEMORY_ARRAY;
            case "Memory" -> MEMORY;
            case "LabelArray" -> LABEL_ARRAY;
            case "Label" -> LABEL;
            case "AcceleratorArray" -> ACCELERATOR_ARRAY;
            case "Accelerator" -> ACCELERATOR;
            default -> OTHER;
        };
    }

    /** Whether the model reads {@code element} inside {@code parent} (BASIL 1.0-1.7 together). */
    private static boolean belongs(int element, int parent) {
        return switch (element) {
            case SOCKET_ARRAY, ACCELERATOR_ARRAY -> parent == NODE;
            case SEGMENT_ARRAY -> parent == NODE || parent == SOCKET;
            case COMPUTE_UNIT_ARRAY -> parent == SEGMENT;
            case PROCESSOR_ARRAY -> parent == NODE || parent == SEGMENT || parent == COMPUTE_UNIT;
            case MEMORY_ARRAY, LABEL_ARRAY -> parent == NODE || parent == SEGMENT;
            case SOCKET, SEGMENT, COMPUTE_UNIT, PROCESSOR, MEMORY, LABEL, ACCELERATOR -> parent == element - 1; // its *Array
            default -> true; // unknown: skipped below
        };
    }

    private void readProcessor(NodeAssembler a) throws XMLStreamException {
        long ordinal = -1;
        String arch = null;
        long clock = 0;
        boolean wantsArchitecture = a.wantsProcessorArchitecture();
        Attributes at = attributes;
        for (int i = 0, n = at.count(); i < n; i++) {
            switch (at.name(i)) {
                case "ordinal" -> ordinal = at.number(i);
                case "architecture" -> arch = wantsArchitecture ? at.shared(i) : null;
                case "clock_mhz" -> clock = at.number(i);
                default -> { }
            }
        }
        a.processor(ordinal, arch, clock, allocations("ProcessorAllocation"));
    }

    private void readMemory(NodeAssembler a) throws XMLStreamException {
        String type = null;
        long pageSize = 0;
        long pages = 0;
        Attributes at = attributes;
        for (int i = 0, n = at.count(); i < n; i++) { // one pass, as readProcessor: no lookup by name
            switch (at.name(i)) {
                case "type" -> type = at.shared(i);
                case "page_size_kb" -> pageSize = at.number(i);
                case "page_count" -> pages = at.number(i);
                default -> { }
            }
        }
        List<NodeView.MemoryAllocation> allocations = List.of();
        while (nextStartOrEnd() == START) {
            if ("MemoryAllocation".equals(r.getLocalName())) {
                var allocation = new NodeView.MemoryAllocation(at.numberOr("reservation_id", 0), at.numberOr("page_count", 0));
                if (allocations.isEmpty()) {
                    allocations = List.of(allocation);   // the usual one, kept by the view as it is
                } else {
                    if (allocations.size() == 1) {
                        allocations = new ArrayList<>(allocations);
                    }
                    allocations.add(allocation);
                }
            }
            skipElement();
        }
        a.memory(new NodeView.Memory(type, pageSize, pages, allocations));
    }

    private void readAccelerator(NodeAssembler a) throws XMLStreamException {
        Attributes at = attributes;
        long ordinal = ordinal();
        String type = at.shared("type");
        String state = at.shared("state");
        String family = at.shared("family");
        long memory = at.numberOr("memory_mb", 0);
        long clock = at.numberOr("clock_mhz", 0);
        a.accelerator(new NodeView.Accelerator(ordinal, type, state, family, memory, clock,
                allocations("AcceleratorAllocation")));
    }

    /**
     * The reservation ids of the {@code element} children of the current element, which is consumed. Mostly none or
     * one: those are immutable lists already, which the views keep without copying.
     */
    private List<Long> allocations(String element) throws XMLStreamException {
        List<Long> ids = List.of();
        while (nextStartOrEnd() == START) {
            if (element.equals(r.getLocalName())) {
                long id = attributes.numberOr("reservation_id", 0);
                if (ids.isEmpty()) {
                    ids = single(id);
                } else {
                    if (ids.size() == 1) {
                        ids = new ArrayList<>(ids);
                    }
                    ids.add(id);
                }
            }
            skipElement();
        }
        return ids;
    }

    /** The last one-reservation list made: the threads of a reservation follow one another and share it. */
    private List<Long> lastSingle = List.of(0L);

    private List<Long> single(long id) {
        List<Long> last = lastSingle;
        return last.get(0) == id ? last : (lastSingle = List.of(id));
    }

    // ---- reservations --------------------------------------------------------------------------------------

    /** The next Reservation of the open ReservationArray, or null when the array ends. */
    private ReservationView readReservationOrNull() throws XMLStreamException {
        while (nextStartOrEnd() == START) {
            if ("Reservation".equals(r.getLocalName())) {
                return readReservation();
            }
            skipElement();
        }
        inReservationArray = false;
        return null;
    }

    private ReservationView readReservation() throws XMLStreamException {
        Attributes at = attributes;
        long id = at.numberOr("reservation_id", 0);
        String user = at.shared("user_name");
        String account = at.shared("account_name");
        Long timeStamp = at.optionalNumber("time_stamp");
        int batch = at.find("batch_id");
        String batchId = batch < 0 ? null : at.fresh(batch);
        String mode = at.shared("reservation_mode");
        String gpc = at.shared("gpc_mode");
        List<ReservationView.Application> apps = new ArrayList<>(2);
        List<ReservationView.Command> commands = null;
        long appId = 0;
        long uid = 0;
        long gid = 0;
        long appTime = 0;
        int depth = 1;
        while (depth > 0) {
            if (nextStartOrEnd() == START) {
                depth++;
                switch (r.getLocalName()) {
                    case "Application" -> {
                        appId = at.numberOr("application_id", 0);
                        uid = at.numberOr("user_id", 0);
                        gid = at.numberOr("group_id", 0);
                        appTime = at.numberOr("time_stamp", 0);
                        commands = new ArrayList<>(1);
                    }
                    case "Command" -> {
                        if (commands != null) {
                            commands.add(new ReservationView.Command(at.numberOr("width", 0), at.numberOr("depth", 0),
                                    at.numberOr("nppn", 0), at.numberOr("memory", 0), at.shared("architecture"),
                                    at.shared("cmd")));
                        }
                    }
                    case "ApplicationArray", "CommandArray" -> { }
                    default -> {
                        skipElement();
                        depth--;
                    }
                }
            } else {
                depth--;
                if ("Application".equals(r.getLocalName()) && commands != null) {
                    apps.add(new ReservationView.Application(appId, uid, gid, appTime, commands));
                    commands = null;
                }
            }
        }
        return new ReservationView(id, user, account, timeStamp, batchId, mode, gpc, apps);
    }

    // ---- cursor and attributes -----------------------------------------------------------------------------

    /** Advances to the next start or end tag, skipping text, comments and processing instructions. */
    private int nextStartOrEnd() throws XMLStreamException {
        while (true) {
            int e = r.next();
            if (e == START || e == END) {
                return e;
            }
            if (e == XMLStreamConstants.END_DOCUMENT) {
                throw new XMLStreamException("the document ends inside the inventory", r.getLocation());
            }
        }
    }

    /** Skips the current element with everything in it. */
    private void skipElement() throws XMLStreamException {
        int depth = 1;
        while (depth > 0) {
            if (nextStartOrEnd() == START) {
                depth++;
            } else {
                depth--;
            }
        }
    }

    private long ordinal() throws XMLStreamException {
        return attributes.numberOr("ordinal", -1);
    }

    private BasilException problem(String message) {
        Location at = r.getLocation();
        return new BasilException(message, at == null ? -1 : at.getLineNumber(), at == null ? -1 : at.getColumnNumber(),
                null);
    }

    private BasilException failure(Exception e) {
        return BasilCodec.streamFailure("invalid inventory response", e, r);
    }

    private static void closeQuietly(XMLStreamReader r) {
        try {
            r.close();
        } catch (XMLStreamException ignored) {
            // already failing; the original problem is what the caller needs
        }
    }
}
