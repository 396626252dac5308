package org.alpsbridge.ledger.service.hook;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.service.api.Route;
import org.alpsbridge.ledger.service.client.FlatJson;
import org.alpsbridge.ledger.service.client.ServiceHttp;
import org.alpsbridge.ledger.service.client.ServiceHttp.Refused;
import org.alpsbridge.ledger.service.client.ServiceHttp.Unavailable;

/**
 * The hooks' requests to the ledger service over the one client ({@link ServiceHttp}, as the ledger commands'),
 * their answers read as flat fields ({@link FlatJson}: no JSON library to load on the dispatch path). A call that
 * cannot get a MUNGE credential is {@link Unavailable} (munged is down: try again later).
 */
final class ServiceCall {

    private final ServiceHttp http;
    private volatile StartBatch starts;

    ServiceCall(HookSettings settings) {
        this(settings, ServiceHttp.Timing.NONE);
    }

    ServiceCall(HookSettings settings, ServiceHttp.Timing timing) {
        String url = settings.service();
        String u = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        if (!u.matches("(?i)https?://[^/]+.*")) {
            throw new IllegalArgumentException("--db '" + url + "' is not a ledger service (http://HOST:PORT or https://HOST:PORT)");
        }
        this.http = new ServiceHttp(URI.create(u), settings.mungeSocket(), settings.sign(), settings.tlsCa(),
                settings.timeoutMillis(), settings.timeoutMillis(), timing);
    }

    URI base() {
        return http.base();
    }

    /**
     * These calls' STARTs go through {@code starts} (the agent's: the STARTs of a wave of prologs sent together);
     * null: each alone.
     */
    ServiceCall startingThrough(StartBatch starts) {
        this.starts = starts;
        return this;
    }

    /** POSTs a JSON body; the answer's top-level fields. */
    Map<String, String> post(Route route, String json) throws Unavailable, Refused {
        StartBatch batch = starts;
        if (route == Route.START && batch != null) {
            return batch.start(json);
        }
        return postAlone(route, json);
    }

    /** {@link #post} never through the agent's {@link StartBatch}. */
    Map<String, String> postAlone(Route route, String json) throws Unavailable, Refused {
        return ServiceHttp.fieldsOf(send(route, "", json.getBytes(StandardCharsets.UTF_8)));
    }

    /** POSTs a JSON body whose answer is a list of objects; their top-level fields, in order. */
    List<Map<String, String>> postForList(Route route, String json) throws Unavailable, Refused {
        String answer = send(route, "", json.getBytes(StandardCharsets.UTF_8));
        try {
            return FlatJson.objects(answer);
        } catch (IllegalArgumentException e) {
            throw new Refused(0, "ledger service " + base() + " answered " + route.path() + " with no list: " + answer.strip());
        }
    }

    /** A read; null when the service answers 404 (no such record). */
    Map<String, String> get(Route route, String query) throws Unavailable, Refused {
        try {
            return ServiceHttp.fieldsOf(send(route, query, null));
        } catch (Refused e) {
            if (e.status == 404) {
                return null;
            }
            throw e;
        }
    }

    private String send(Route route, String query, byte[] body) throws Unavailable, Refused {
        try {
            return http.send(route, query, body);
        } catch (LedgerException e) {
            throw new Unavailable(e.getMessage()); // no MUNGE credential: munged is down, try again later
        }
    }
}
