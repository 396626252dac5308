package org.alpsbridge.ledger.service.client;

import java.io.IOException;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.LedgerOpener;
import org.alpsbridge.ledger.service.api.Requests;

/**
 * Opens {@code http://HOST:PORT} ledgers: every {@link Ledger} call becomes a request to a ledger service
 * ({@code alpsbridge ledger serve}) signed with the calling user's MUNGE credential. The client's settings come
 * from the environment: munged's socket is env {@code ALPSBRIDGE_MUNGE_SOCKET} (default: libmunge's), env
 * {@code ALPSBRIDGE_LEDGER_AUTH=none} sends no credential (for a service run with {@code --auth none}), and
 * {@code https://} trusts the CA of env {@code ALPSBRIDGE_LEDGER_TLS_CA} (default: the JDK's trust store).
 */
public final class ServiceOpener implements LedgerOpener {

    @Override
    public boolean accepts(String url) {
        return url != null && url.trim().matches("(?i)https?://.*");
    }

    /**
     * Asks the ledger service at {@code url} for a single-use web console sign-in link for the calling user
     * (MUNGE-signed like every request); {@code url()} of the answer is the address to open.
     */
    public static Requests.SignInLink webLogin(String url, Map<String, String> env) {
        if (!new ServiceOpener().accepts(url)) {
            throw new LedgerException("web-login needs the ledger service's address (--db http://HOST:PORT or"
                    + " https://...), not '" + url + "'");
        }
        return ((RemoteLedger) open(url, env)).webLogin();
    }

    @Override
    public Ledger open(String url, boolean verify) {
        // verify: the service opened its store verified; a client has nothing of its own to check
        return open(url, System.getenv());
    }

    /** The store's settings are the service's own (its settings file): a client has none. */
    @Override
    public Ledger open(String url, boolean verify, Map<String, String> storeSettings, Map<String, String> environment) {
        return open(url, environment);
    }

    /** The service at {@code url}, with the client settings of {@code env} (the variables above). */
    public static Ledger open(String url, Map<String, String> env) {
        return RemoteLedger.connect(url.trim(), ServiceHttp.pathOf(env, "ALPSBRIDGE_MUNGE_SOCKET"),
                !"none".equals(env.get("ALPSBRIDGE_LEDGER_AUTH")), ServiceHttp.pathOf(env, "ALPSBRIDGE_LEDGER_TLS_CA"));
    }

    /**
     * Why the service at {@code base} did not answer, in words, with what to check: the HTTP client's exceptions
     * often carry no message ({@code java.net.ConnectException}).
     */
    public static String unreachable(String base, IOException e) {
        return "ledger service " + base + " cannot be reached: " + org.alpsbridge.failure.Failures.describe(e)
                + " (the service is 'alpsbridge ledger serve', unit alpsbridge-ledger; its address comes from --db,"
                + " env ALPSBRIDGE_LEDGER or db= in the settings file)";
    }
}
