package org.alpsbridge.ledger.service.server;

import java.nio.file.Path;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.service.console.Console;
import org.alpsbridge.munge.MungeDaemon;

/**
 * A ledger service for tests: a real, test-private munged, a SQLite ledger in {@code dir} and the
 * service on 127.0.0.1 (a free port), with extra settings. The test is skipped with the reason printed when
 * munged is not installed (failing under ALPSBRIDGE_REQUIRE_SERVICES=1).
 */
public final class RunningService implements AutoCloseable {

    private final MungeDaemon munged;
    private final Ledger ledger;
    private final LedgerServer server;

    private RunningService(MungeDaemon munged, Ledger ledger, LedgerServer server) {
        this.munged = munged;
        this.ledger = ledger;
        this.server = server;
    }

    public static RunningService start(Path dir, Map<String, String> settings) throws Exception {
        return start("sqlite:" + dir.resolve("service.db"), settings);
    }

    /** The service on the ledger at {@code db} (e.g. a replicated PostgreSQL's multi-host URL). */
    public static RunningService start(String db, Map<String, String> settings) throws Exception {
        MungeDaemon munged = MungeDaemon.start();
        Ledger ledger = null;
        try {
            ServiceSettings s = ServiceSettings.defaults().with(ServiceSettings.Key.LISTEN, "127.0.0.1:0")
                    .with(ServiceSettings.Key.MUNGE_SOCKET, munged.socket().toString());
            for (Map.Entry<String, String> e : settings.entrySet()) {
                s = s.with(ServiceSettings.Key.named(e.getKey()), e.getValue());
            }
            ledger = Ledger.open(db, true, s.store()); // as ledger serve opens it
            return new RunningService(munged, ledger, LedgerServer.start(ledger, s, "test", Console.of(s)));
        } catch (Exception | Error e) {
            if (ledger != null) {
                ledger.close();
            }
            munged.close();
            throw e;
        }
    }

    /** {@code http://127.0.0.1:PORT}. */
    public String url() {
        return "http://" + server.addresses().get(0);
    }

    /**
     * A web console sign-in link (its path) for any uid, as {@code POST /v1/web-login} would give that uid: for
     * browser tests that need a second user, whose MUNGE credential this process cannot make.
     */
    public String signInPath(int uid, int gid, String user) {
        return server.signIns.issue(uid, gid, user, "as configured").path();
    }

    public Path mungeSocket() {
        return munged.socket();
    }

    /** The served ledger itself, to check what the service did. */
    public Ledger ledger() {
        return ledger;
    }

    @Override
    public void close() throws Exception {
        server.close();
        ledger.close();
        munged.close();
    }
}
