package org.alpsbridge.ledger.service.server;

import java.util.Map;
import org.alpsbridge.ledger.service.api.Route;

/**
 * The API called in-process for a caller the service identified another way: the web console's signed-in
 * browser, known by the uid and gid its sign-in link was issued to. The caller's name, groups and role are
 * looked up again on every call (as for a MUNGE request, remembered for {@code group_cache_seconds}), and the
 * call goes through the same access rules, dispatch and JSON as one over HTTP: the console shows and does
 * nothing the API would not let that uid see or do.
 */
public final class LocalApi {

    /** An answer as the API gives it: HTTP status and JSON body. */
    public record Answer(int status, byte[] json) {
        public boolean ok() {
            return status == 200;
        }
    }

    private final Dispatcher dispatcher;
    private final Directory directory;
    private final Roles roles;
    private final boolean authenticated;

    LocalApi(Dispatcher dispatcher, Directory directory, Roles roles, boolean authenticated) {
        this.dispatcher = dispatcher;
        this.directory = directory;
        this.roles = roles;
        this.authenticated = authenticated;
    }

    /** Calls {@code route} for uid/gid; {@code body} is the route's JSON body (empty for reads). */
    public Answer call(int uid, int gid, Route route, Map<String, String> query, byte[] body) {
        Caller c = authenticated ? directory.caller(uid, gid, roles) : AuthenticationHandler.UNAUTHENTICATED;
        ApiRequest q = new ApiRequest(route, "console:" + route.path(), query, body, null, c, true);
        ApiResponse r = dispatcher.handle(q);
        return new Answer(r.status(), r.json());
    }
}
