package org.alpsbridge.basil.codec;

import java.nio.charset.StandardCharsets;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.ResponseData;

/**
 * BASIL FAILURE responses for the proxy and the emulator: the shape ALPS uses, in the caller's protocol
 * version, so a scheduler logs the reason and (for TRANSIENT) retries instead of choking on a broken pipe.
 */
public final class Failures {

    private Failures() {
    }

    /**
     * A FAILURE response document.
     *
     * @param protocol the request's protocol (echoed; null becomes "" as ALPS sends on failure)
     * @param method the request's method; anything BASIL does not define becomes {@code UNDEFINED}
     * @param errorClass TRANSIENT when a retry can help
     * @param source {@code INTERNAL}, {@code SYSTEM}, {@code PARSER}, {@code SYNTAX} or {@code BACKEND}
     * @param message what happened, for the scheduler's log
     */
    public static byte[] failure(String protocol, String method, ErrorClass errorClass, String source, String message) {
        return write(response(protocol, Method.parse(method), errorClass, source, message));
    }

    public static byte[] failure(String protocol, Method method, ErrorClass errorClass, String source, String message) {
        return write(response(protocol, method, errorClass, source, message));
    }

    public static BasilResponse response(String protocol, Method method, ErrorClass errorClass, String source, String message) {
        return new BasilResponse(protocol == null ? "" : protocol,
                ResponseData.failure(method == null ? Method.UNDEFINED : method, errorClass, source, message));
    }

    private static byte[] write(BasilResponse response) {
        try {
            return BasilCodec.standard().write(response);
        } catch (BasilException e) {
            // Only reachable if the JAXB runtime itself is broken; still answer something a parser accepts.
            String fallback = "<?xml version=\"1.0\"?>\n<BasilResponse protocol=\"\"><ResponseData status=\"FAILURE\""
                    + " method=\"UNDEFINED\" error_class=\"TRANSIENT\" error_source=\"INTERNAL\"><Message severity=\"ERROR\">"
                    + "internal error writing a BASIL failure</Message></ResponseData></BasilResponse>\n";
            return fallback.getBytes(StandardCharsets.US_ASCII);
        }
    }
}
