package org.alpsbridge.ledger;

/**
 * Opens a ledger for the URLs it knows. {@link Ledger#open} asks each opener on the class path
 * ({@code META-INF/services/org.alpsbridge.ledger.LedgerOpener}), so this package names no implementation:
 * the JDBC store ({@code sqlite:}, {@code postgresql:}) ships with this module, the client of a ledger
 * service ({@code http://}) with {@code ledger-service}.
 */
public interface LedgerOpener {

    /** Whether {@code url} is for this opener; the first opener that accepts a URL opens it. */
    boolean accepts(String url);

    /**
     * @param verify refuse a ledger whose balances disagree with its journal (see {@link Ledger#open(String, boolean)})
     */
    Ledger open(String url, boolean verify);

    /**
     * As {@link #open(String, boolean)}, with the values of the store's settings ({@code
     * org.alpsbridge.ledger.store.StoreSettings.ALL}, by key); an opener whose ledgers have none (a service's
     * client: the service has its own) leaves them.
     */
    default Ledger open(String url, boolean verify, java.util.Map<String, String> storeSettings) {
        return open(url, verify);
    }

    /**
     * As {@link #open(String, boolean, java.util.Map)}, with the client settings of {@code environment} (a ledger
     * service's: its MUNGE socket, its CA) in place of the process's environment; a store has none.
     */
    default Ledger open(String url, boolean verify, java.util.Map<String, String> storeSettings,
                        java.util.Map<String, String> environment) {
        return open(url, verify, storeSettings);
    }
}
