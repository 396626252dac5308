package org.alpsbridge.proxy.client;

import java.io.IOException;

/**
 * A proxied BASIL exchange did not produce a response document. The message says what happened;
 * {@link #requestSent()} tells whether the daemon may have run the request.
 */
public class ApbasilException extends IOException {

    private final boolean requestSent;
    private final boolean retryable;

    public ApbasilException(String message, boolean requestSent, boolean retryable, Throwable cause) {
        super(message, cause);
        this.requestSent = requestSent;
        this.retryable = retryable;
    }

    /**
     * False when no daemon can have run the request: it never left this process (connection refused, no
     * credential) or a standby proxy answered NOT_ACTIVE. Any retry, at any proxy, is then safe.
     */
    public boolean requestSent() {
        return requestSent;
    }

    /** True when trying again later may succeed (the BASIL failure class is then TRANSIENT). */
    public boolean isTransient() {
        return retryable;
    }
}
