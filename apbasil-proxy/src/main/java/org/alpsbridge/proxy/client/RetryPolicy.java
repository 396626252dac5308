package org.alpsbridge.proxy.client;

/**
 * Which failed attempts may be tried again. A request that never left this process may always be
 * retried. One that reached the daemon may be retried only if running it twice is harmless: QUERY.
 * RESERVE, CONFIRM, RELEASE and SWITCH are not retried once sent; the daemon still remembers each
 * exchange id, so a duplicate that does reach it gets the first answer instead of a second run.
 */
enum RetryPolicy {
    UNSENT_ONLY {
        @Override
        boolean mayRetry(ApbasilException e) {
            return !e.requestSent();
        }
    },
    ANY_TRANSIENT {
        @Override
        boolean mayRetry(ApbasilException e) {
            return true;
        }
    };

    abstract boolean mayRetry(ApbasilException e);

    static RetryPolicy forRequest(byte[] request) {
        return FailureDocument.isQuery(request) ? ANY_TRANSIENT : UNSENT_ONLY;
    }
}
