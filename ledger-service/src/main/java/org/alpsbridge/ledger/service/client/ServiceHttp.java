package org.alpsbridge.ledger.service.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.service.api.RequestDigest;
import org.alpsbridge.ledger.service.api.Route;

/**
 * The one HTTP client of the ledger service's API, under both the ledger commands ({@link RemoteLedger}, which
 * maps JSON with Jackson on top) and the Slurm hooks (which start a JVM per call on slurmctld's dispatch path and
 * read the answers with {@link FlatJson}): the request signed with a MUNGE credential over its digest, the
 * service's CA trusted for https://, the timeouts, and what went wrong sorted into what callers act on: the
 * service cannot answer now ({@link Unavailable}: no connection, a timeout, a 5xx such as the 503 of a
 * failing-over database) or it refused the request ({@link Refused}: 4xx). Plain JDK classes only
 * ({@link HttpURLConnection}, no lambdas): nothing here may slow the hooks' start.
 */
public final class ServiceHttp {

    /** The service could not be reached or could not answer now; trying again later may work. */
    public static final class Unavailable extends Exception {
        /** The 5xx the service answered; 0 when there was no answer. */
        public final int status;
        /** The answer's text (the service's JSON problem), empty when there was none. */
        public final String answer;

        public Unavailable(String message) {
            this(message, 0, "", null);
        }

        Unavailable(String message, int status, String answer, Throwable cause) {
            super(message, cause);
            this.status = status;
            this.answer = answer;
        }
    }

    /** The service answered and refused the request (a 4xx): trying again will not help. */
    public static final class Refused extends Exception {
        /** The HTTP status (a 4xx); 0 when the answer itself was not what the caller expects. */
        public final int status;
        /** The answer's text (the service's JSON problem), empty when there was none. */
        public final String answer;

        public Refused(int status, String message) {
            this(status, message, "");
        }

        Refused(int status, String message, String answer) {
            super(message);
            this.status = status;
            this.answer = answer;
        }
    }

    /** Where a call's time went: its MUNGE credential, then the request and its answer. */
    public interface Timing {
        /** Times nothing. */
        Timing NONE = new Timing() { // not a lambda: the JVM hook would spin a class for it at run time
            @Override
            public void took(Route route, long signedNanos, long answeredNanos) {
            }
        };

        void took(Route route, long signedNanos, long answeredNanos);
    }

    private final URI base;
    private final Signer signer;
    private final Path tlsCa;
    private final int connectTimeoutMillis;
    private final int readTimeoutMillis;
    private final Timing timing;
    private volatile SSLContext tls;

    /**
     * @param base the service, {@code http(s)://HOST:PORT[/PATH]} without a trailing slash
     * @param mungeSocket munged's socket the requests are signed through; null: libmunge's default
     * @param sign false: no credential (a service run with {@code --auth none})
     * @param tlsCa PEM file of the CA the https:// service's certificate is trusted as; null: the JDK's trust store
     */
    public ServiceHttp(URI base, Path mungeSocket, boolean sign, Path tlsCa, int connectTimeoutMillis,
                       int readTimeoutMillis, Timing timing) {
        this.base = base;
        this.signer = sign ? Signer.munge(mungeSocket) : Signer.NONE;
        this.tlsCa = tlsCa;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.readTimeoutMillis = readTimeoutMillis;
        this.timing = timing;
    }

    /** A path of the environment's setting {@code name}; null when unset or blank. */
    public static Path pathOf(Map<String, String> env, String name) {
        String v = env.get(name);
        return v == null || v.isBlank() ? null : Path.of(v.strip());
    }

    public URI base() {
        return base;
    }

    /**
     * One request; the answer's text when the service answers 200.
     *
     * @param query the URL-encoded query, empty for none
     * @param body the JSON body; null: none (a GET, or a POST that takes none)
     * @throws LedgerException when no MUNGE credential can be made (munged is down or unreachable)
     */
    public String send(Route route, String query, byte[] body) throws Unavailable, Refused {
        String pathAndQuery = (base.getRawPath() == null ? "" : base.getRawPath()) + route.path()
                + (query.isEmpty() ? "" : "?" + query);
        int status;
        String answer;
        long start = System.nanoTime();
        String auth = signer.authorization(route.method(), pathAndQuery, body == null ? new byte[0] : body);
        long signed = System.nanoTime();
        try {
            HttpURLConnection c = (HttpURLConnection) new URL(base.getScheme() + "://" + base.getRawAuthority()
                    + pathAndQuery).openConnection();
            if (c instanceof HttpsURLConnection https && tlsCa != null) {
                https.setSSLSocketFactory(tls().getSocketFactory());
            }
            c.setConnectTimeout(connectTimeoutMillis);
            c.setReadTimeout(readTimeoutMillis);
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
        } catch (IOException e) {
            throw new Unavailable(ServiceOpener.unreachable(String.valueOf(base), e), 0, "", e);
        }
        timing.took(route, signed - start, System.nanoTime() - signed);
        if (status == 200) {
            return answer;
        }
        Map<String, String> fields = fieldsOf(answer);
        if (status >= 500) {
            throw new Unavailable("ledger service " + base + " answered " + status + ": " + fields.get("error"), status,
                    answer, null);
        }
        String rule = fields.get("rule");
        throw new Refused(status, "ledger service " + base + " refused " + route.method() + " " + route.path() + " ("
                + status + "): " + fields.get("error") + (rule == null ? "" : " [rule " + rule + "]"), answer);
    }

    /** An answer's top-level fields; one that is no JSON object is kept whole as its {@code error}. */
    public static Map<String, String> fieldsOf(String answer) {
        try {
            return FlatJson.fields(answer);
        } catch (IllegalArgumentException e) {
            return Map.of("error", answer.strip());
        }
    }

    private SSLContext tls() {
        SSLContext t = tls;
        if (t == null) {
            t = Trust.of(tlsCa);
            tls = t;
        }
        return t;
    }

    @Override
    public String toString() {
        return String.valueOf(base);
    }
}
