package org.alpsbridge.ledger.service.server;

/**
 * A request the service will not carry out: 401 (no valid credential), 403 (an access rule, named in
 * {@link #rule()}), 400/404/405 (not a request of this API). Nothing was changed.
 */
final class Refusal extends RuntimeException {

    private final int status;
    private final String rule;

    Refusal(int status, String rule, String message) {
        super(message, null, false, false);
        this.status = status;
        this.rule = rule;
    }

    static Refusal forbidden(String rule, String message) {
        return new Refusal(403, rule, message + " (rule " + rule + ")");
    }

    int status() {
        return status;
    }

    String rule() {
        return rule;
    }
}
