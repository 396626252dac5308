package org.alpsbridge.proxy.backend;

/**
 * No response document could be had from a backend. The daemon turns it into a BASIL FAILURE
 * response in the caller's protocol version, TRANSIENT when {@link #isTransient()}.
 */
public final class BackendException extends Exception {

    private final boolean retryable;

    public BackendException(String message, boolean retryable, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
    }

    public BackendException(String message, boolean retryable) {
        this(message, retryable, null);
    }

    /** True when a retry may succeed (timeout, backend down), false when it cannot (e.g. refused by policy). */
    public boolean isTransient() {
        return retryable;
    }
}
