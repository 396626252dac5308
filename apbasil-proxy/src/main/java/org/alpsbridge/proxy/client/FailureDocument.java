package org.alpsbridge.proxy.client;

/**
 * The client's own BASIL answers when the proxy could not give one. Loaded only on the failure path,
 * so the XML machinery it needs costs nothing when the proxy answers.
 */
final class FailureDocument {

    private FailureDocument() {
    }

    /** True when the request is a QUERY (safe to run twice). */
    static boolean isQuery(byte[] request) {
        return false; // until the codec's Probe is on main: treat every request as not retryable once sent
    }

    static byte[] of(byte[] request, boolean retryable, String message) {
        return new byte[0]; // replaced by the codec's Failures once it lands on main
    }
}
