package org.alpsbridge.ledger.service.console;

import io.netty.channel.ChannelHandler;
import io.netty.util.concurrent.EventExecutor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.alpsbridge.ledger.service.api.Requests;
import org.alpsbridge.ledger.service.server.LocalApi;
import org.alpsbridge.ledger.service.server.ServiceSettings;
import org.alpsbridge.ledger.service.server.ServiceSettings.Key;
import org.alpsbridge.ledger.service.server.WebFront;

/**
 * The bookkeepers' web console, served by the ledger service beside its API: server-rendered pages (no script),
 * built on the API's own routes and access rules through {@link LocalApi}. A browser signs in with a
 * single-use link that {@code alpsbridge ledger web-login} gets for its MUNGE-verified uid
 * ({@code POST /v1/web-login}, answered by {@link #issue}); the session lives in this process's memory.
 */
public final class Console implements WebFront {

    private final Sessions sessions;
    private final String consoleUrl;

    private Console(Sessions sessions, String consoleUrl) {
        this.sessions = sessions;
        this.consoleUrl = consoleUrl;
    }

    /** The console the settings ask for, or null with {@code console=false}. */
    public static Console of(ServiceSettings settings) {
        if (!settings.get(Key.CONSOLE).equals("true")) {
            return null;
        }
        String url = settings.get(Key.CONSOLE_URL);
        return new Console(new Sessions(Duration.ofSeconds(settings.number(Key.CONSOLE_LINK_SECONDS)),
                Duration.ofSeconds(settings.number(Key.CONSOLE_SESSION_SECONDS)),
                Duration.ofSeconds(settings.number(Key.CONSOLE_IDLE_SECONDS)), Clock.systemUTC()),
                url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    }

    /**
     * A new connection's handler: it answers the console's paths on {@code worker} and passes the API's on.
     *
     * @param tls whether this connection speaks TLS (a unix socket does not, even when TCP does): the session
     *     cookie is then {@code Secure} and {@code __Host-}
     */
    @Override
    public ChannelHandler handler(LocalApi api, EventExecutor worker, boolean tls) {
        return new ConsoleHandler(new Site(api, sessions, tls, Clock.systemUTC()), worker, tls);
    }

    @Override
    public Requests.SignInLink issue(int uid, int gid, String user, String role) {
        String token = sessions.issue(new Sessions.Identity(uid, gid, user));
        String path = "/sign-in?token=" + token;
        return new Requests.SignInLink(path, consoleUrl.isEmpty() ? null : consoleUrl + path,
                Instant.now().plus(sessions.linkLife()), user, role);
    }
}
