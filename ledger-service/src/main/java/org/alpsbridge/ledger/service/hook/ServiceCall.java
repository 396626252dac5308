package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import javax.net.ssl.HttpsURLConnection;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.service.api.RequestDigest;
import org.alpsbridge.ledger.service.api.Route;
import org.alpsbridge.ledger.service.client.Signer;
import org.alpsbridge.ledger.service.client.Trust;

/**
 * One request to the ledger service, signed as every client's is ({@link Signer}), over the JDK's own
 * {@link HttpURLConnection} (no HTTP library to load on the dispatch path). Sorts what can go wrong into
 * what the hooks act on: the service cannot answer now ({@link Unavailable}: no connection, a timeout, a 5xx
 * such as the 503 of a failing-over database) or it refuses the request ({@link Refused}: 4xx).
 */
final class ServiceCall {

    /** The service could not be reached or could not answer now; trying again later may work. */
    static final class Unavailable extends Exception {
        Unavailable(String message) {
            super(message);
        }
    }

    /** The service answered and refused the request (a 4xx): trying again will not help. */
    static final class Refused extends Exception {
        /** The HTTP status (a 4xx); 0 when the answer itself was not what the hook expects. */
        final int status;

        Refused(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    /** Where a call's time went: its MUNGE credential, then the request and its answer. */
    interface Timing {
        /** Times nothing (the JVM hook, a process per call). */
        Timing NONE = new Timing() { // not a lambda: the JVM hook would spin a class for it at run time
            @Override
            public void took(Route route, long signedNanos, long answeredNanos) {
            }
        };

        void took(Route route, long signedNanos, long answeredNanos);
    }

    private final URI base;
    private final Signer signer;
    private final int timeoutMillis;
    private final Timing timing;
    private volatile StartBatch starts;

    ServiceCall(String url, int timeoutMillis) {
        this(url, timeoutMillis, Timing.NONE);
    }

    ServiceCall(String url, int timeoutMillis, Timing timing) {
        String u = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        if (!u.matches("(?i)https?://[^/]+.*")) {
            throw new IllegalArgumentException("--db '" + url + "' is not a ledger service (http://HOST:PORT or https://HOST:PORT)");
        }
        this.base = URI.create(u);
        this.signer = Signer.fromEnvironment();
        this.timeoutMillis = timeoutMillis;
        this.timing = timing;
    }

    URI base() {
        return base;
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
        return fieldsOf(send(route, "", json.getBytes(StandardCharsets.UTF_8)));
    }

    /** POSTs a JSON body whose answer is a list of objects; their top-level fields, in order. */
    List<Map<String, String>> postForList(Route route, String json) throws Unavailable, Refused {
        String answer = send(route, "", json.getBytes(StandardCharsets.UTF_8));
        try {
            return FlatJson.objects(answer);
        } catch (IllegalArgumentException e) {
            throw new Refused(0, "ledger service " + base + " answered " + route.path() + " with no list: " + answer.strip());
        }
    }

    /** A read; null when the service answers 404 (no such record). */
    Map<String, String> get(Route route, String query) throws Unavailable, Refused {
        String answer = send(route, query, null);
        return answer == null ? null : fieldsOf(answer);
    }

    /** An answer's top-level fields; one that is no JSON object is kept whole as its {@code error}. */
    private static Map<String, String> fieldsOf(String answer) {
        try {
            return FlatJson.fields(answer);
        } catch (IllegalArgumentException e) {
            return Map.of("error", answer.strip());
        }
    }

    /** The answer's text (200), null for a read answered 404; else what the hooks act on, thrown. */
    private String send(Route route, String query, byte[] body) throws Unavailable, Refused {
        String pathAndQuery = (base.getRawPath() == null ? "" : base.getRawPath()) + route.path()
                + (query.isEmpty() ? "" : "?" + query);
        HttpURLConnection c;
        int status;
        String answer;
        long start = System.nanoTime();
        long signed = start;
        try {
            String auth = signer.authorization(route.method(), pathAndQuery, body == null ? new byte[0] : body);
            signed = System.nanoTime();
            c = (HttpURLConnection) new URL(base.getScheme() + "://" + base.getRawAuthority() + pathAndQuery).openConnection();
            javax.net.ssl.SSLContext tls = c instanceof HttpsURLConnection ? Trust.fromEnvironment() : null;
            if (tls != null) {
                ((HttpsURLConnection) c).setSSLSocketFactory(tls.getSocketFactory());
            }
            c.setConnectTimeout(timeoutMillis);
            c.setReadTimeout(timeoutMillis);
            c.setRequestMethod(route.method());
            c.setRequestProperty("Accept", "application/json");
            if (auth != null) {
                c.setRequestProperty(RequestDigest.HEADER, auth);
            }
            if (body != null) {
                c.setDoOutput(true);
                c.setRequestProperty("Content-Type", "application/json");
                c.setFixedLengthStreamingMode(body.length);
                try (OutputStream out = c.getOutputStream()) {
                    out.write(body);
                }
            }
            status = c.getResponseCode();
            try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
                answer = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (LedgerException e) {
            throw new Unavailable(e.getMessage()); // no MUNGE credential: munged is down, try again later
        } catch (IOException e) {
            throw new Unavailable(org.alpsbridge.ledger.service.client.ServiceOpener.unreachable(String.valueOf(base), e));
        }
        timing.took(route, signed - start, System.nanoTime() - signed);
        if (status == 404 && body == null) {
            return null;
        }
        if (status == 200) {
            return answer;
        }
        Map<String, String> fields = fieldsOf(answer);
        if (status >= 500) {
            throw new Unavailable("ledger service " + base + " answered " + status + ": " + fields.get("error"));
        }
        String rule = fields.get("rule");
        throw new Refused(status, "ledger service " + base + " refused " + route.method() + " " + route.path() + " ("
                + status + "): " + fields.get("error") + (rule == null ? "" : " [rule " + rule + "]"));
    }
}
