package org.alpsbridge.proxy.client;

import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Failures;
import org.alpsbridge.basil.codec.Probe;
import org.alpsbridge.basil.model.ErrorClass;

/**
 * The client's own BASIL answers for when the proxy could not give one, and the one question the
 * client asks of a request (is it a QUERY?). Both need the XML codec, so this class is touched only
 * after something failed: the success path loads no XML classes at all.
 */
final class FailureDocument {

    /** {@code error_source} of failures the client reports itself (proxy unreachable, refused). */
    static final String SOURCE = "SYSTEM";

    private FailureDocument() {
    }

    /** True when the request is a QUERY, which is harmless to run twice. */
    static boolean isQuery(byte[] request) {
        try {
            Probe p = Probe.of(request);
            return p.request() && "QUERY".equals(p.method());
        } catch (BasilException e) {
            return false;
        }
    }

    /** A BASIL FAILURE in the request's protocol version (empty protocol if the request is unreadable). */
    static byte[] of(byte[] request, boolean retryable, String message) {
        String protocol = null;
        String method = null;
        try {
            Probe p = Probe.of(request);
            protocol = p.protocol();
            method = p.method();
        } catch (BasilException e) {
            // the request itself is unreadable; the failure still goes out, with protocol ""
        }
        return Failures.failure(protocol, method, retryable ? ErrorClass.TRANSIENT : ErrorClass.PERMANENT,
                SOURCE, message);
    }
}
