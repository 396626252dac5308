package org.alpsbridge.ledger;

/**
 * The store could not be reached (a failover in progress, the server down or restarting) or a commit's
 * outcome was lost with its connection: TRANSIENT. Nothing is known to have changed beyond what a retry
 * of the same request (same reservation key or request id) returns, so callers retry it: the proxy
 * answers a BASIL TRANSIENT failure, the ledger service HTTP 503 with {@code Retry-After}.
 */
public class LedgerUnavailableException extends LedgerException {

    public LedgerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
