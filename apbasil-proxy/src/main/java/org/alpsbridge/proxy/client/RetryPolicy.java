package org.alpsbridge.proxy.client;

/**
 * Which failed attempts may be tried again. A request that never left this process may always be
 * retried. One that reached the daemon may be retried only if running it twice is harmless: QUERY.
 * RESERVE, CONFIRM, RELEASE and SWITCH are not retried once sent; the daemon still remembers each
 * exchange id, so a duplicate that does reach it gets the first answer instead of a second run.
 */
interface RetryPolicy {

    /** Operator commands and anything not known to be harmless twice. */
    RetryPolicy UNSENT_ONLY = e -> !e.requestSent();

    boolean mayRetry(ApbasilException e);

    /** Looks at the request only when a retry is in question, so the success path parses nothing. */
    static RetryPolicy forRequest(byte[] request) {
        return e -> !e.requestSent() || FailureDocument.isQuery(request);
    }
}
