package org.alpsbridge.ledger.service.client;

import java.nio.file.Path;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.service.api.RequestDigest;
import org.alpsbridge.munge.Munge;
import org.alpsbridge.munge.MungeException;

/**
 * Makes each request's {@code Authorization} header: a fresh MUNGE credential over the request's digest.
 * Public for the Slurm hooks, which speak to the service without {@link RemoteLedger} (plain JDK classes
 * only, for a fast start) but sign exactly as it does.
 */
public final class Signer {

    private final Munge munge;

    /** {@code munge} null: no credential (a service run with {@code --auth none}). */
    Signer(Munge munge) {
        this.munge = munge;
    }

    public static Signer fromEnvironment() {
        if ("none".equals(System.getenv("ALPSBRIDGE_LEDGER_AUTH"))) {
            return new Signer(null);
        }
        String socket = System.getProperty("alpsbridge.munge_socket", System.getenv("ALPSBRIDGE_MUNGE_SOCKET"));
        return new Signer(Munge.socket(socket == null || socket.isBlank() ? null : Path.of(socket)));
    }

    /** The header value, or null when this signer sends none. */
    public String authorization(String method, String pathAndQuery, byte[] body) {
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
