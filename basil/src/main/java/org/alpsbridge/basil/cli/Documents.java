package org.alpsbridge.basil.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Probe;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.model.ApplicationStates;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Confirmed;
import org.alpsbridge.basil.model.Engine;
import org.alpsbridge.basil.model.Inventory;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.NodeGroup;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReservationStates;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.basil.model.Summary;
import org.alpsbridge.basil.model.SystemInventory;
import org.alpsbridge.basil.model.Topology;
import org.alpsbridge.basil.inventory.Inventories;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.basil.nodes.NodeSyntaxException;

/**
 * Reads a document named on the command line and describes it in one line, as {@code basil check} prints it.
 * Large QUERY responses are read through the streaming inventory reader, so a 230 MB inventory is checked in
 * bounded memory; everything else through the full model.
 */
final class Documents {

    /** Files at least this large that are QUERY responses are checked by streaming. */
    static final long STREAM_THRESHOLD = 16L << 20;
    private static final int PROBE_BYTES = 64 * 1024;

    private Documents() {
    }

    /** The whole of {@code name} ({@code -} is stdin). */
    static byte[] readAll(String name, InputStream stdin) throws IOException {
        return "-".equals(name) ? stdin.readAllBytes() : Files.readAllBytes(Path.of(name));
    }

    /** The one-line description of {@code name}, without the {@code FILE: OK} prefix. */
    static String describe(String name, InputStream stdin) throws IOException, BasilException {
        if (!"-".equals(name) && Files.size(Path.of(name)) >= STREAM_THRESHOLD) {
            byte[] head;
            try (InputStream in = Files.newInputStream(Path.of(name))) {
                head = in.readNBytes(PROBE_BYTES);
            }
            Probe p = Probe.of(head);
            if (!p.request() && "QUERY".equals(p.method())) {
                try (InputStream in = Files.newInputStream(Path.of(name))) {
                    return describeInventoryStream(in);
                }
            }
        }
        return describe(readAll(name, stdin));
    }

    /** Describes a whole document held in memory. */
    static String describe(byte[] document) throws BasilException {
        Probe p = Probe.of(document);
        if (p.request()) {
            return describe(BasilCodec.standard().readRequest(document));
        }
        return describe(BasilCodec.standard().readResponse(document));
    }

    static String describe(BasilRequest r) throws BasilException {
        String protocol = checkProtocol(r.protocol(), false);
        Method m = r.method();
        if (m == Method.UNDEFINED) {
            throw new BasilException("unknown method \"" + r.methodText() + "\"");
        }
        StringJoiner out = new StringJoiner(" ");
        out.add("protocol=" + protocol).add("request");
        switch (m) {
            case QUERY -> {
                if (r.type() == null || r.type().isBlank()) {
                    throw new BasilException("a QUERY request needs a type");
                }
                out.add("QUERY/" + r.type());
                if (r.changecount() != null) {
                    out.add("changecount=" + r.changecount());
                }
                for (BasilRequest.ReservationAction a : r.reservations()) {
                    out.add("reservation_id=" + a.reservationId());
                }
            }
            case RESERVE -> {
                out.add("RESERVE").add("user=" + r.user());
                if (r.batchId() != null) {
                    out.add("batch_id=" + r.batchId());
                }
                if (r.account() != null) {
                    out.add("account=" + r.account());
                }
                if (r.reserveParams().isEmpty()) {
                    throw new BasilException("a RESERVE request needs a ReserveParam");
                }
                for (ReserveParam p : r.reserveParams()) {
                    out.add(describe(p));
                }
            }
            case CONFIRM -> out.add("CONFIRM").add("reservation_id=" + required(r.reservationId(), "reservation_id"))
                    .add("pagg_id=" + required(r.paggId(), "pagg_id"));
            case RELEASE -> out.add("RELEASE").add("reservation_id=" + required(r.reservationId(), "reservation_id"));
            case SWITCH -> {
                out.add("SWITCH");
                for (BasilRequest.ReservationAction a : r.reservations()) {
                    out.add("reservation_id=" + a.reservationId() + "/" + a.action());
                }
                for (BasilRequest.ApplicationAction a : r.applications()) {
                    out.add("application_id=" + a.applicationId() + "/" + a.action());
                }
            }
            default -> throw new BasilException("unknown method");
        }
        return out.toString();
    }

    private static String describe(ReserveParam p) throws BasilException {
        StringJoiner s = new StringJoiner(" ");
        s.add("width=" + required(p.width(), "width"));
        add(s, "depth", p.depth());
        add(s, "nppn", p.nppn());
        add(s, "npps", p.npps());
        add(s, "nspn", p.nspn());
        add(s, "nppcu", p.nppcu());
        if (!p.memoryParams().isEmpty()) {
            s.add("memory=" + p.memoryParams().get(0).sizeMb() + "MB");
        }
        for (String nodes : p.nodeParams()) {
            try {
                s.add("nodes=" + NidSet.parse(nodes).size() + ":" + nodes.strip());
            } catch (NodeSyntaxException e) {
                throw new BasilException("NodeParam: " + e.getMessage());
            }
        }
        for (ReserveParam.LabelParam l : p.labelParams()) {
            s.add("label=" + l.name() + ":" + l.type() + ":" + l.disposition());
        }
        if (!p.accelParams().isEmpty()) {
            s.add("accelerators=" + p.accelParams().size());
        }
        return s.toString();
    }

    private static void add(StringJoiner s, String name, Long value) {
        if (value != null) {
            s.add(name + "=" + value);
        }
    }

    private static Long required(Long value, String attribute) throws BasilException {
        if (value == null) {
            throw new BasilException("missing " + attribute);
        }
        return value;
    }

    static String describe(BasilResponse response) throws BasilException {
        String protocol = checkProtocol(response.protocol(), true);
        ResponseData d = response.responseData();
        if (d == null) {
            throw new BasilException("a BasilResponse must hold a ResponseData");
        }
        if (d.status() == null) {
            throw new BasilException("ResponseData status must be SUCCESS or FAILURE");
        }
        StringJoiner out = new StringJoiner(" ");
        out.add("protocol=" + protocol).add("response");
        if (!d.isSuccess()) {
            out.add(d.method().name()).add("status=FAILURE");
            out.add("error=" + (d.errorClass() == null ? "-" : d.errorClass().name()) + "/"
                    + (d.errorSource() == null ? "-" : d.errorSource()));
            out.add("message=\"" + d.messageText() + "\"");
            return out.toString();
        }
        List<String> details = new ArrayList<>();
        String key = d.method().name();
        Object content = d.contents().isEmpty() ? null : d.contents().get(0);
        if (content instanceof Inventory inv) {
            key = "QUERY/INVENTORY";
            long processors = 0;
            List<NodeView> nodes = Inventories.nodes(inv);
            for (NodeView n : nodes) {
                processors += n.processorCount();
            }
            checkChangecounts(inv.nodeArray().flatMap(a -> a.changecount()).orElse(null),
                    inv.nodeArray().flatMap(a -> a.schedchangecount()).orElse(null));
            details.add("nodes=" + nodes.size());
            details.add("processors=" + processors);
            details.add("reservations=" + inv.reservations().size());
        } else if (content instanceof Engine e) {
            key = "QUERY/ENGINE";
            details.add("engine=" + e.name() + "/" + e.version());
            if (e.basilSupport() != null) {
                details.add("basil_support=" + e.basilSupport());
            }
        } else if (content instanceof Summary s) {
            key = "QUERY/SUMMARY";
            try {
                s.nodes().ifPresent(u -> {
                    details.add("up=" + u.up().size());
                    details.add("down=" + u.down().size());
                });
            } catch (NodeSyntaxException ex) {
                throw new BasilException("Summary: " + ex.getMessage());
            }
        } else if (content instanceof SystemInventory s) {
            key = "QUERY/SYSTEM";
            long nodes = 0;
            try {
                for (NodeGroup g : s.groups()) {
                    nodes += g.nids().size();
                }
            } catch (NodeSyntaxException ex) {
                throw new BasilException("System Nodes: " + ex.getMessage());
            }
            details.add("groups=" + s.groups().size());
            details.add("nodes=" + nodes);
        } else if (content instanceof Topology t) {
            key = "QUERY/TOPOLOGY";
            details.add("name=" + t.name());
        } else if (content instanceof ReservationStates rs) {
            key = d.method() == Method.SWITCH ? "SWITCH" : "QUERY/STATUS";
            details.add("reservations=" + rs.reservations().size());
        } else if (content instanceof ApplicationStates as) {
            key = d.method() == Method.SWITCH ? "SWITCH" : "QUERY/STATUS";
            details.add("applications=" + as.applications().size());
        } else if (content instanceof Reserved r) {
            details.add("reservation_id=" + r.reservationId());
            if (!r.nodeIds().isEmpty()) {
                details.add("nodes=" + r.nodeIds().size());
            }
        } else if (content instanceof Confirmed c) {
            if (c.reservationId() != null) {
                details.add("reservation_id=" + c.reservationId());
            }
        } else if (content instanceof Released r) {
            if (r.reservationId() != null) {
                details.add("reservation_id=" + r.reservationId());
            }
            if (r.claims() != null) {
                details.add("claims=" + r.claims());
            }
        } else if (content instanceof org.w3c.dom.Element e) {
            details.add("content=" + e.getTagName() + "(not modelled)");
        }
        if (d.method() == Method.UNDEFINED) {
            details.add("note=\"ResponseData method is not a BASIL method\"");
        }
        out.add(key).add("status=SUCCESS");
        details.forEach(out::add);
        return out.toString();
    }

    /** Describes an inventory response by streaming it. */
    static String describeInventoryStream(InputStream in) throws BasilException {
        try (InventoryReader r = InventoryReader.open(in)) {
            InventoryHeader h = r.header();
            String protocol = checkInventoryHeader(h);
            if (!h.isSuccess()) {
                return "protocol=" + protocol + " response " + h.method() + " status=" + h.status() + " error="
                        + h.errorClass() + "/" + h.errorSource() + " message=\"" + String.join("; ", h.messages()) + "\"";
            }
            long nodes = 0;
            long processors = 0;
            for (NodeView n; (n = r.nextNode()) != null; ) {
                nodes++;
                processors += n.processorCount();
            }
            long reservations = 0;
            while (r.nextReservation() != null) {
                reservations++;
            }
            r.finish();
            return "protocol=" + protocol + " response QUERY/INVENTORY status=SUCCESS nodes=" + nodes + " processors="
                    + processors + " reservations=" + reservations;
        }
    }

    /**
     * What check refuses in an inventory's header (an unknown protocol, a schedchangecount above the changecount),
     * for every reader of a streamed inventory: {@code basil convert} refuses the same documents with the same reason.
     *
     * @return the protocol as check prints it
     */
    static String checkInventoryHeader(InventoryHeader h) throws BasilException {
        String protocol = checkProtocol(h.protocol(), true);
        if (h.isSuccess()) {
            checkChangecounts(h.changecount(), h.schedchangecount());
        }
        return protocol;
    }

    private static void checkChangecounts(Long changecount, Long schedchangecount) throws BasilException {
        if (changecount != null && schedchangecount != null && schedchangecount > changecount) {
            throw new BasilException("NodeArray schedchangecount " + schedchangecount + " exceeds changecount "
                    + changecount);
        }
    }

    private static String checkProtocol(String protocol, boolean response) throws BasilException {
        if (protocol == null) {
            throw new BasilException("missing protocol attribute");
        }
        if (protocol.isEmpty() && response) {
            return "\"\"";   // ALPS sends an empty protocol on some failures
        }
        if (!Protocols.KNOWN.contains(protocol)) {
            throw new BasilException("unknown protocol version \"" + protocol + "\" (known: "
                    + String.join(", ", Protocols.KNOWN) + ")");
        }
        return protocol;
    }
}
