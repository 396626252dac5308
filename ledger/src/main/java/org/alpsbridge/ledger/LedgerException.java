package org.alpsbridge.ledger;

/**
 * The one unchecked failure of this module: bad input (nothing was written), a store that cannot be
 * reached, or a store whose journal and balances disagree. The message names the problem and the
 * values involved.
 */
public class LedgerException extends RuntimeException {

    public LedgerException(String message) {
        super(message);
    }

    public LedgerException(String message, Throwable cause) {
        super(message, cause);
    }
}
