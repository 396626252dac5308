package org.alpsbridge.proxy.server;

import java.io.ByteArrayInputStream;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Failures;
import org.alpsbridge.basil.codec.Probe;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.proxy.wire.Reply;

/**
 * Where the daemon meets the BASIL codec: what a request is (protocol, method, type) and the FAILURE
 * documents it answers with when it or the backend cannot give a real answer.
 */
final class BasilDocuments {

    /** {@code error_source} of refusals by authentication or authorisation. */
    static final String SOURCE_SECURITY = "SYSTEM";
    /** {@code error_source} of failures of the backend (apbasil, emulator). */
    static final String SOURCE_BACKEND = "BACKEND";
    /** {@code error_source} of the daemon's own failures (busy, internal error). */
    static final String SOURCE_DAEMON = "INTERNAL";

    /**
     * What the daemon needs to know about a request before running it.
     *
     * @param problem why the request cannot be run at all (unreadable, not a request), or null
     */
    record Request(String protocol, String method, String queryType, String problem) {
    }

    private BasilDocuments() {
    }

    static Request probe(byte[] request) {
        try {
            Probe p = Probe.of(request);
            if (!p.request()) {
                return new Request(p.protocol(), p.method(), p.type(), "the document is a BasilResponse, not a BasilRequest");
            }
            if (p.method() == null) {
                return new Request(p.protocol(), null, null, "the BasilRequest has no method attribute");
            }
            String type = "QUERY".equals(p.method()) ? p.type() : null;
            // The probe read the root only. A document broken further on is refused here, by the proxy, instead of
            // being forwarded for ALPS (or the emulator) to refuse in its own name: the caller must learn who refused.
            String broken = wellFormednessProblem(request, "malformed request");
            return new Request(p.protocol(), p.method(), type, broken == null ? null : "unreadable request: " + broken);
        } catch (BasilException e) {
            return new Request(null, null, null, "unreadable request: " + e.getMessage());
        }
    }

    /** Why {@code document} is not well-formed XML to its end, or null: a streaming parse, no tree. */
    private static String wellFormednessProblem(byte[] document, String what) {
        try {
            XMLStreamReader r = BasilCodec.standard().openStream(new ByteArrayInputStream(document));
            try {
                while (r.hasNext()) {
                    r.next();
                }
            } finally {
                r.close();
            }
            return null;
        } catch (BasilException e) {
            return e.getMessage();
        } catch (XMLStreamException e) {
            return BasilCodec.streamFailure(what, e).getMessage();
        }
    }

    /**
     * The proxy's own refusal of a request it will not forward (unreadable, not a request): a rejection on the
     * wire, not a BASIL document, so that the client says the proxy refused it and exits 1, and no one mistakes
     * it for an answer from ALPS.
     */
    static Reply refusal(Request request) {
        return Reply.rejected(request.problem(), false);
    }

    /** A BASIL FAILURE for the caller, in its protocol version. */
    static Reply failure(Request request, boolean retryable, String source, String message) {
        return Reply.ok(Failures.failure(request.protocol(), request.method(),
                retryable ? ErrorClass.TRANSIENT : ErrorClass.PERMANENT, source, message));
    }

    /**
     * Why {@code response} is not a complete, well-formed BASIL response document, or null when it is one.
     * Streams through the document without binding it, so a big inventory costs a parse, not a tree.
     */
    static String responseProblem(byte[] response) {
        if (response.length == 0) {
            return "empty output";
        }
        try {
            if (Probe.of(response).request()) {
                return "a BasilRequest where a BasilResponse was expected";
            }
            return wellFormednessProblem(response, "malformed response");
        } catch (BasilException e) {
            return e.getMessage();
        }
    }
}
