package org.alpsbridge.basil.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Failures;
import org.alpsbridge.basil.codec.Probe;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.InventoryWriter;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Confirmed;
import org.alpsbridge.basil.model.Engine;
import org.alpsbridge.basil.model.Message;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.basil.model.SystemInventory;

/**
 * Rewrites a BASIL document in another protocol version's shape. What the target cannot express is left out
 * and reported (one sentence per kind of loss, with how often it happened); a document that cannot exist at
 * all in the target (SWITCH before 1.2, QUERY SYSTEM before 1.7) is refused.
 */
final class Converter {

    private final String target;
    private final Map<String, Integer> losses = new LinkedHashMap<>();

    Converter(String target) {
        this.target = target;
    }

    /** Each loss with its count, e.g. {@code "accelerators do not exist before 1.2: left out (2256 nodes)"}. */
    List<String> losses() {
        List<String> out = new ArrayList<>();
        losses.forEach((what, n) -> out.add(n > 1 ? what + " (" + n + " times)" : what));
        return out;
    }

    private void lost(String what) {
        losses.merge(what, 1, Integer::sum);
    }

    private void lost(List<String> what) {
        what.forEach(this::lost);
    }

    /** Converts {@code document} ({@code head} is its first bytes, for sniffing) onto {@code out}. */
    void convert(byte[] head, InputStreamSource document, OutputStream out) throws BasilException, IOException {
        Probe p = Probe.of(head);
        if (!p.request() && "QUERY".equals(p.method()) && "SUCCESS".equals(p.status()) && isInventory(document)) {
            try (InputStream in = document.open()) {
                convertInventory(in, out);
            }
            return;
        }
        byte[] all;
        try (InputStream in = document.open()) {
            all = in.readAllBytes();
        }
        // What `basil check` refuses (a QUERY without a type, an unknown protocol version, ...) is refused here
        // too, with the same reason: converting it would write a document no ALPS takes. Found by
        // ConvertFuzzTest: a QUERY request without a type was converted, and check refused the result.
        Documents.describe(all);
        BasilCodec codec = BasilCodec.standard();
        out.write(p.request() ? codec.write(convert(codec.readRequest(all)))
                : codec.write(convert(codec.readResponse(all))));
    }

    /** Re-opens the document: the inventory path streams it, the rest reads it whole. */
    interface InputStreamSource {
        InputStream open() throws IOException;
    }

    private static boolean isInventory(InputStreamSource document) throws IOException, BasilException {
        try (InputStream in = document.open(); InventoryReader r = InventoryReader.open(in)) {
            return r.header().isSuccess() && r.hasInventory();
        }
    }

    private void convertInventory(InputStream in, OutputStream out) throws BasilException {
        try (InventoryReader r = InventoryReader.open(in)) {
            InventoryHeader h = r.header();
            // The streamed path is held to check's rules too: a 1.3 inventory whose schedchangecount exceeded its
            // changecount was written out as 1.4, which check refused (found by ConvertFuzzTest).
            Documents.checkInventoryHeader(h);
            lost(InventoryWriter.losses(h, target));
            InventoryHeader th = new InventoryHeader(target, h.status(), h.method(), h.errorClass(), h.errorSource(),
                    h.messages(), h.mppHost(), h.timestamp(), h.cpcu(), h.changecount(), h.schedchangecount());
            if (!h.messages().isEmpty()) {
                lost("Message elements of an inventory response are not carried over");
            }
            try (InventoryWriter w = InventoryWriter.open(out, th)) {
                for (NodeView n; (n = r.nextNode()) != null; ) {
                    lost(InventoryWriter.losses(n, target));
                    w.node(n);
                }
                for (ReservationView v; (v = r.nextReservation()) != null; ) {
                    lost(InventoryWriter.losses(v, target));
                    w.reservation(v);
                }
            }
            r.finish();
        }
    }

    BasilResponse convert(BasilResponse response) throws BasilException {
        ResponseData d = response.responseData();
        if (d == null) {
            throw new BasilException("a BasilResponse must hold a ResponseData");
        }
        if (!d.isSuccess()) {
            if (d.errorClass() == null || d.errorSource() == null) {
                lost("a FAILURE without error_class/error_source gets PERMANENT/INTERNAL");
            }
            return Failures.response(target, d.method(),
                    d.errorClass() == null ? org.alpsbridge.basil.model.ErrorClass.PERMANENT : d.errorClass(),
                    d.errorSource() == null ? "INTERNAL" : d.errorSource(), d.messageText());
        }
        Object content = d.contents().isEmpty() ? null : d.contents().get(0);
        if (d.contents().size() > 1) {
            lost("only the first content element of the ResponseData is carried over");
        }
        String type = d.type();
        if (content instanceof Engine e) {
            content = Engine.of(target, e.version(), e.supportedProtocols());
            type = "ENGINE";
        } else if (content instanceof Reserved r) {
            if (!Protocols.atLeast(target, "1.1") && !r.nodeIds().isEmpty()) {
                lost("ReservedNodeArray does not exist in 1.0: the reserved NIDs are left out");
            }
            if (Protocols.atLeast(target, "1.1") && r.nodeIds().isEmpty()) {
                lost("the source names no reserved nodes, so the ReservedNodeArray is empty");
            }
            content = Reserved.of(target, r.reservationId() == null ? 0 : r.reservationId(), r.nodeIds());
        } else if (content instanceof Confirmed c) {
            if (c.reservationId() != null && c.paggId() != null) {
                content = Confirmed.of(target, c.reservationId(), c.paggId());
            } else if (Protocols.atLeast(target, "1.1")) {
                lost("the source Confirmed carries no reservation_id/pagg_id for the target to echo: written bare");
            }
        } else if (content instanceof Released r) {
            if (Protocols.atLeast(target, "1.1") && r.reservationId() == null) {
                lost("the source Released carries no reservation_id for the target to echo: written bare");
            } else if (Protocols.atLeast(target, "1.2") && r.claims() == null) {
                lost("the source Released carries no claims (1.2+): written as 0 claims");
            }
            if (r.reservationId() != null) {
                content = Released.of(target, r.reservationId(), r.claims() == null ? 0 : r.claims());
            }
        } else if (content instanceof SystemInventory && !Protocols.atLeast(target, "1.7")) {
            throw new BasilException("QUERY SYSTEM exists from protocol 1.7 only; cannot convert to " + target);
        }
        ResponseData out = ResponseData.success(d.method(), content);
        if (Protocols.atLeast(target, "1.7") && type != null) {
            out = out.withType(type);
        }
        List<Message> messages = d.messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            out = out.withMessageFirst(messages.get(i));
        }
        return new BasilResponse(target, out);
    }

    BasilRequest convert(BasilRequest r) throws BasilException {
        Method m = r.method();
        switch (m) {
            case QUERY -> {
                String type = r.type();
                if ("SYSTEM".equals(type) && !Protocols.atLeast(target, "1.7")) {
                    throw new BasilException("QUERY SYSTEM exists from protocol 1.7 only; cannot convert to " + target);
                }
                if (r.changecount() != null && !Protocols.atLeast(target, "1.2")) {
                    lost("INVENTORY changecount does not exist before 1.2: a full inventory is asked for");
                    return BasilRequest.query(target, type);
                }
                return r.withProtocol(target);
            }
            case RESERVE -> {
                List<ReserveParam> params = new ArrayList<>();
                for (ReserveParam p : r.reserveParams()) {
                    params.add(convert(p));
                }
                if (!Protocols.atLeast(target, "1.1") && r.batchId() != null) {
                    lost("ReserveParamArray batch_id does not exist in 1.0: left out");
                }
                return BasilRequest.reserve(target, r.user(), r.batchId(), r.account(), params);
            }
            case CONFIRM -> {
                if (r.reservationId() == null || r.paggId() == null) {
                    throw new BasilException("a CONFIRM needs reservation_id and pagg_id (admin_cookie in 1.0)");
                }
                if (r.jobName() != null && !"1.0".equals(target)) {
                    lost("CONFIRM job_name exists in 1.0 only: left out");
                }
                return BasilRequest.confirm(target, r.reservationId(), r.paggId(), r.jobName());
            }
            case RELEASE -> {
                if (r.reservationId() == null) {
                    throw new BasilException("a RELEASE needs reservation_id");
                }
                return BasilRequest.release(target, r.reservationId());
            }
            case SWITCH -> {
                if (!Protocols.atLeast(target, "1.2")) {
                    throw new BasilException("SWITCH exists from protocol 1.2 only; cannot convert to " + target);
                }
                return r.withProtocol(target);
            }
            default -> throw new BasilException("unknown method \"" + r.methodText() + "\"");
        }
    }

    private ReserveParam convert(ReserveParam p) {
        ReserveParam.Builder b = ReserveParam.builder().architecture(p.architecture());
        if (p.width() != null) {
            b.width(p.width());
        }
        if (p.depth() != null) {
            b.depth(p.depth());
        }
        if (p.nppn() != null) {
            b.nppn(p.nppn());
        }
        if (p.npps() != null) {
            b.npps(p.npps());
        }
        if (p.nspn() != null) {
            b.nspn(p.nspn());
        }
        if (p.segments() != null) {
            b.segments(p.segments());
        }
        if (p.nppcu() != null) {
            if (Protocols.atLeast(target, "1.3")) {
                b.nppcu(p.nppcu());
            } else {
                lost("ReserveParam nppcu does not exist before 1.3: left out (ALPS then places on every hardware thread)");
            }
        }
        boolean v11 = Protocols.atLeast(target, "1.1");
        if (p.reservationMode() != null || p.gpcMode() != null) {
            if (v11) {
                if (p.reservationMode() != null) {
                    b.reservationMode(p.reservationMode());
                }
                if (p.gpcMode() != null) {
                    b.gpcMode(p.gpcMode());
                }
            } else {
                lost("ReserveParam reservation_mode/gpc_mode do not exist in 1.0: left out");
            }
        }
        if (p.pState() != null || p.pGovernor() != null) {
            if (Protocols.atLeast(target, "1.4")) {
                if (p.pState() != null) {
                    b.pState(p.pState());
                }
                if (p.pGovernor() != null) {
                    b.pGovernor(p.pGovernor());
                }
            } else {
                lost("ReserveParam p-state/p-governor do not exist before 1.4: left out");
            }
        }
        p.memoryParams().forEach(b::memory);
        p.labelParams().forEach(b::label);
        p.nodeParams().forEach(b::nodes);
        if (!p.accelParams().isEmpty()) {
            if (Protocols.atLeast(target, "1.2")) {
                p.accelParams().forEach(b::accel);
            } else {
                lost("AccelParamArray does not exist before 1.2: left out");
            }
        }
        p.otherAttributes().forEach((k, v) -> b.otherAttribute(k.getLocalPart(), v));
        return b.build();
    }
}
