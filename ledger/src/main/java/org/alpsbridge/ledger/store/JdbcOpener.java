package org.alpsbridge.ledger.store;

import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerOpener;

/**
 * Opens {@link JdbcLedger}s: every URL but a service's ({@code http://}, {@code https://}), so that a
 * mistyped store URL is refused by {@link Dialect} with the forms it expects.
 */
public final class JdbcOpener implements LedgerOpener {

    @Override
    public boolean accepts(String url) {
        return url == null || !url.trim().matches("(?i)https?://.*");
    }

    @Override
    public Ledger open(String url, boolean verify) {
        return JdbcLedger.open(url, verify);
    }

    @Override
    public Ledger open(String url, boolean verify, java.util.Map<String, String> storeSettings) {
        return JdbcLedger.open(url, verify, storeSettings);
    }
}
