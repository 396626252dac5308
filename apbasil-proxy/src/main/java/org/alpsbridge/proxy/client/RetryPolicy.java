package org.alpsbridge.proxy.client;

/**
 * Which failed attempts may be tried again, at the same proxy or the next of the list. A request that no
 * daemon can have run (it never left this process, or a standby answered NOT_ACTIVE) may always be retried. One that reached the daemon may be retried only if running it twice is harmless: QUERY.
 * RESERVE, CONFIRM, RELEASE and SWITCH are not retried once sent; the daemon still remembers each
 * exchange id, so a duplicate that does reach it gets the first answer instead of a second run.
 */
final class RetryPolicy {

    /** Operator commands and anything not known to be harmless twice. */
    static final RetryPolicy UNSENT_ONLY = new RetryPolicy(null);

    // Plain classes rather than lambdas: a lambda's bootstrap costs the drop-in client milliseconds at start-up.
    private final byte[] request;

    private RetryPolicy(byte[] request) {
        this.request = request;
    }

    /** Looks at the request only when a retry is in question, so the success path parses nothing. */
    static RetryPolicy forRequest(byte[] request) {
        return new RetryPolicy(request);
    }

    boolean mayRetry(ApbasilException e) {
        return !e.requestSent() || (request != null && FailureDocument.isQuery(request));
    }
}
