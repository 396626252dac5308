package org.alpsbridge.proxy.server;

import org.alpsbridge.proxy.wire.Reply;

/**
 * Where the daemon meets the BASIL codec: what a request is (protocol, method, type) and the FAILURE
 * documents it answers with when the backend cannot.
 */
final class BasilDocuments {

    /** What the daemon needs to know about a request before running it. */
    record Request(String protocol, String method, String queryType) {
    }

    private BasilDocuments() {
    }

    static Request probe(byte[] request) {
        return new Request(null, null, null); // the codec's Probe replaces this once it is on main
    }

    /** Why {@code response} is not a complete BASIL response document, or null when it is one. */
    static String responseProblem(byte[] response) {
        return response.length == 0 ? "empty output" : null; // the codec's reader replaces this once it is on main
    }

    /** A BASIL FAILURE for the caller, in its protocol version. */
    static Reply failure(Request request, boolean retryable, String source, String message) {
        return Reply.rejected(message, retryable); // the codec's Failures replaces this once it is on main
    }
}
