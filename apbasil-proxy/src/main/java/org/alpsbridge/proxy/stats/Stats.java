package org.alpsbridge.proxy.stats;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Probe;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;

/**
 * Per-method timing of the daemon, in HdrHistogram histograms, and the named counters and gauges the
 * policy and the orphan detector report.
 *
 * <p>Timing takes two decorators: {@link #clientSide(Backend)} outermost (what clients asked and how
 * long they waited) and {@link #backendSide(Backend)} innermost (what reached the backend). A client
 * call during which no backend call of the same method key happened on the same thread was served from
 * the cache. The policy calls the backend on the caller's thread, which is what makes this exact.
 */
public final class Stats {

    private final Clock clock;
    private final Instant started;
    private final Map<String, MethodRecord> methods = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Gauge> gauges = new ConcurrentHashMap<>();
    private final ThreadLocal<ClientFrame> frame = new ThreadLocal<>();
    /** Whether the backend's last call got an answer back: what {@code backend_up} shows. */
    private volatile boolean backendAnswered = true;
    private final java.util.List<java.util.function.Supplier<String>> expositions =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    public Stats() {
        this(Clock.systemUTC());
    }

    public Stats(Clock clock) {
        this.clock = clock;
        this.started = clock.instant();
    }

    /** The outermost decorator: times every client call, its bytes and outcome, and notices cache hits. */
    public Backend clientSide(Backend inner) {
        return new Timed(inner, true);
    }

    /** The innermost decorator, right above the real backend: times the calls that actually reach it. */
    public Backend backendSide(Backend inner) {
        return new Timed(inner, false);
    }

    /** The counter {@code metric} declares, one series per value of its label (if it has one). */
    public Counter counter(ProxyMetric metric) {
        if (metric.metric().type() != org.alpsbridge.metrics.Metric.Type.COUNTER) {
            throw new IllegalArgumentException(metric + " is not a counter");
        }
        return counters.computeIfAbsent(metric.key(), n -> new Counter(metric));
    }

    /** The gauge {@code metric} declares, read at snapshot time. */
    public void gauge(ProxyMetric metric, LongSupplier value) {
        if (metric.metric().type() != org.alpsbridge.metrics.Metric.Type.GAUGE) {
            throw new IllegalArgumentException(metric + " is not a gauge");
        }
        gauges.put(metric.key(), new Gauge(metric, value));
    }

    /**
     * More metric families for the scrape endpoint, already in the Prometheus text format (e.g. the
     * ledger's call latency and refusals, {@code org.alpsbridge.ledger.metrics.LedgerMetrics}).
     */
    public void exposition(java.util.function.Supplier<String> text) {
        expositions.add(text);
    }

    /** The scrape endpoint's text: the snapshot's families, then the added ones. */
    public String prometheus() {
        StringBuilder p = new StringBuilder(snapshot().prometheus());
        expositions.forEach(e -> p.append(e.get()));
        return p.toString();
    }

    /**
     * The admin handler behind {@code alpsbridge proxy stats}: {@code format=json} answers the snapshot's
     * JSON, {@code format=prometheus} the metrics endpoint's text, anything else the table.
     */
    public byte[] admin(Map<String, String> args) {
        Snapshot snapshot = snapshot();
        String text = switch (args.getOrDefault("format", "table")) {
            case "json" -> snapshot.toJson() + "\n";
            case "prometheus" -> prometheus();
            default -> snapshot.table();
        };
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Everything as of now. */
    public Snapshot snapshot() {
        Map<String, MethodFigures> figures = new TreeMap<>(Snapshot.METHOD_ORDER);
        methods.forEach((k, v) -> figures.put(k, v.figures()));
        Map<String, Snapshot.CounterFigures> counted = new TreeMap<>();
        counters.forEach((k, v) -> counted.put(k, v.figures()));
        Map<String, Snapshot.GaugeFigure> measured = new TreeMap<>();
        gauges.forEach((k, v) -> measured.put(k, new Snapshot.GaugeFigure(v.metric().metric(), v.value().getAsLong())));
        Instant now = clock.instant();
        measured.put(ProxyMetric.BACKEND_UP.key(), new Snapshot.GaugeFigure(ProxyMetric.BACKEND_UP.metric(),
                backendAnswered ? 1 : 0));
        return new Snapshot(now, now.getEpochSecond() - started.getEpochSecond(), new LinkedHashMap<>(figures), counted, measured);
    }

    /**
     * How a backend call failed: {@code unreachable} (no answer), {@code transient} (a FAILURE ALPS says may pass),
     * {@code permanent} (any other FAILURE, or garbage); null when it succeeded.
     */
    static String failureKind(byte[] response) {
        if (response == null) {
            return "unreachable";
        }
        if (succeeded(response)) {
            return null;
        }
        // the attribute sits on ResponseData, near the top: no parse for a figure
        String head = new String(response, 0, Math.min(response.length, 1024), java.nio.charset.StandardCharsets.ISO_8859_1);
        return head.contains("error_class=\"TRANSIENT\"") ? "transient" : "permanent";
    }

    /** SUCCESS per the response's first two elements; garbage is a failure. */
    private static boolean succeeded(byte[] response) {
        try {
            return "SUCCESS".equals(Probe.of(response).status());
        } catch (BasilException e) {
            return false;
        }
    }

    private MethodRecord record(String methodKey) {
        return methods.computeIfAbsent(methodKey, k -> new MethodRecord());
    }

    /** What the client-side decorator knows about the call in progress on this thread. */
    private static final class ClientFrame {
        final String methodKey;
        final ClientFrame outer;
        int backendCallsOfSameMethod;

        ClientFrame(String methodKey, ClientFrame outer) {
            this.methodKey = methodKey;
            this.outer = outer;
        }
    }

    private record Gauge(ProxyMetric metric, LongSupplier value) {
    }

    private final class Timed implements Backend {
        private final Backend inner;
        private final boolean clientSide;

        Timed(Backend inner, boolean clientSide) {
            this.inner = inner;
            this.clientSide = clientSide;
        }

        @Override
        public byte[] call(Call call) throws BackendException {
            ClientFrame current = frame.get();
            ClientFrame mine = null;
            if (clientSide) {
                mine = new ClientFrame(call.methodKey(), current);
                frame.set(mine);
            } else if (current != null && current.methodKey.equals(call.methodKey())) {
                current.backendCallsOfSameMethod++;
            }
            long start = System.nanoTime();
            byte[] response = null;
            try {
                response = inner.call(call);
                return response;
            } finally {
                long nanos = System.nanoTime() - start;
                boolean failed = response == null || !succeeded(response);
                if (mine != null) {
                    frame.set(current);
                    record(call.methodKey()).client(nanos, response == null ? 0 : response.length, failed,
                            mine.backendCallsOfSameMethod == 0);
                } else {
                    backendAnswered = response != null;
                    record(call.methodKey()).backend(nanos, failureKind(response));
                }
            }
        }

        @Override
        public String describe() {
            return inner.describe();
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
