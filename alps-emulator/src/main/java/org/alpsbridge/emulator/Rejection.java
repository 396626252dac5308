package org.alpsbridge.emulator;

/**
 * Why the emulated ALPS refused a request, as it goes into a FAILURE response. TRANSIENT means "may
 * succeed later" (nodes busy or down), PERMANENT "will never succeed as asked".
 */
final class Rejection extends Exception {

    enum Source { BACKEND, SYNTAX, PARSER, INTERNAL, SYSTEM }

    private final boolean permanent;
    private final Source source;

    private Rejection(boolean permanent, Source source, String message) {
        super(message, null, false, false);
        this.permanent = permanent;
        this.source = source;
    }

    static Rejection permanent(String message) {
        return new Rejection(true, Source.BACKEND, message);
    }

    static Rejection transientFailure(String message) {
        return new Rejection(false, Source.BACKEND, message);
    }

    static Rejection syntax(String message) {
        return new Rejection(true, Source.SYNTAX, message);
    }

    boolean permanent() {
        return permanent;
    }

    Source source() {
        return source;
    }
}
