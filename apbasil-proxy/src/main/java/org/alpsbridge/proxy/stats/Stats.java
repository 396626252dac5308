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

    /**
     * A monotonic counter exported as {@code alpsbridge_proxy_NAME_total}, one series per label value.
     *
     * @param name lower-case metric name without prefix or {@code _total}, e.g. {@code policy_refreshes}
     * @param help one line for operators
     * @param labelName the label that tells series apart (e.g. {@code reason}), or null for one series
     */
    public Counter counter(String name, String help, String labelName) {
        return counters.computeIfAbsent(name, n -> new Counter(n, help, labelName));
    }

    /** A value read at snapshot time, exported as {@code alpsbridge_proxy_NAME}. */
    public void gauge(String name, String help, LongSupplier value) {
        gauges.put(name, new Gauge(help, value));
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
        gauges.forEach((k, v) -> measured.put(k, new Snapshot.GaugeFigure(v.help(), v.value().getAsLong())));
        Instant now = clock.instant();
        return new Snapshot(now, now.getEpochSecond() - started.getEpochSecond(), new LinkedHashMap<>(figures), counted, measured);
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

    private record Gauge(String help, LongSupplier value) {
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
                    record(call.methodKey()).backend(nanos, failed);
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
