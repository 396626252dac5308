package org.alpsbridge.ledger.service.client;

import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerOpener;

/**
 * Opens {@code http://HOST:PORT} ledgers: every {@link Ledger} call becomes a request to a ledger service
 * ({@code alpsbridge ledger serve}) signed with the calling user's MUNGE credential. munged's socket is
 * env {@code ALPSBRIDGE_MUNGE_SOCKET} (or system property {@code alpsbridge.munge_socket}; default: libmunge's); env {@code ALPSBRIDGE_LEDGER_AUTH=none} sends no
 * credential (for a service run with {@code --auth none}). {@code https://} trusts what {@link Trust} says.
 */
public final class ServiceOpener implements LedgerOpener {

    @Override
    public boolean accepts(String url) {
        return url != null && url.trim().matches("(?i)https?://.*");
    }

    @Override
    public Ledger open(String url, boolean verify) {
        // verify: the service opened its store verified; a client has nothing of its own to check
        return RemoteLedger.connect(url.trim(), Signer.fromEnvironment(),
                url.trim().regionMatches(true, 0, "https:", 0, 6) ? Trust.fromEnvironment() : null);
    }
}
