package org.alpsbridge.ledger.service.client;

import java.nio.file.Path;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.service.api.RequestDigest;
import org.alpsbridge.munge.Munge;
import org.alpsbridge.munge.MungeException;

/** Makes each request's {@code Authorization} header: a fresh MUNGE credential over the request's digest. */
final class Signer {

    /** No credential (a service run with {@code --auth none}). */
    static final Signer NONE = new Signer(null);

    private final Munge munge;

    private Signer(Munge munge) {
        this.munge = munge;
    }

    /** @param socket munged's socket; null: libmunge's default */
    static Signer munge(Path socket) {
        return new Signer(Munge.socket(socket));
    }

    /** The header value, or null when this signer sends none. */
    String authorization(String method, String pathAndQuery, byte[] body) {
        if (munge == null) {
            return null;
        }
        try {
            return RequestDigest.SCHEME + " " + munge.encode(RequestDigest.of(method, pathAndQuery, body), 0);
        } catch (MungeException e) {
            // A lab service run with --auth none needs no credential; say how to send none (the client cannot know).
            throw new LedgerException("cannot make a MUNGE credential for the ledger service: " + e.getMessage()
                    + " (a service run with --auth none takes requests without one: env ALPSBRIDGE_LEDGER_AUTH=none)");
        }
    }
}
