package org.alpsbridge.ledger.metrics;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.LedgerUnavailableException;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.metrics.Metric;

/**
 * What a daemon holding a ledger (the proxy, the ledger service) shows an operator on {@code /metrics}:
 * the latency of every ledger call by operation (a Prometheus histogram; {@code histogram_quantile} gives
 * the quantiles) and the refusals by operation, reason and class — {@code transient} (the store was
 * unreachable: a failover shows as a burst of these and a latency spike), {@code permanent} (a denial,
 * a conflict, refused input). {@link #wrap} puts the measuring in front of a ledger.
 */
public final class LedgerMetrics {

    /** Upper bounds of the latency buckets, in seconds: from a fast commit to a failover's wait. */
    static final double[] BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

    private final Metric callSeconds;
    private final Metric refusalsTotal;
    private final Map<String, Histogram> latency = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();

    /** @param prefix metric name prefix, e.g. {@code alpsbridge_proxy_ledger} */
    public LedgerMetrics(String prefix) {
        List<Metric> families = declared(prefix);
        this.callSeconds = families.get(0);
        this.refusalsTotal = families.get(1);
    }

    /** The two families under {@code prefix}, declared once: the call latency histogram, then the refusals. */
    public static List<Metric> declared(String prefix) {
        return List.of(Metric.histogram(prefix + "_call_seconds", "Time ledger calls took, by operation.", "op"),
                Metric.counter(prefix + "_refusals_total", "Ledger calls refused, by operation, reason and class"
                        + " (transient: the store was unreachable, retry; permanent: denied, conflict or bad input).",
                        "op", "reason", "class").withValues("class", "transient", "permanent"));
    }

    private static final class Histogram {
        final LongAdder[] counts = new LongAdder[BUCKETS.length + 1];
        final LongAdder nanos = new LongAdder();

        Histogram() {
            for (int i = 0; i < counts.length; i++) {
                counts[i] = new LongAdder();
            }
        }

        void add(long ns) {
            double s = ns / 1e9;
            int i = 0;
            while (i < BUCKETS.length && s > BUCKETS[i]) {
                i++;
            }
            counts[i].increment();
            nanos.add(ns);
        }
    }

    /** {@code inner}, every call timed and every refusal counted; closing it closes {@code inner}. */
    public Ledger wrap(Ledger inner) {
        return (Ledger) Proxy.newProxyInstance(Ledger.class.getClassLoader(), new Class<?>[] {Ledger.class},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.getName().equals("toString") ? inner.toString() : method.invoke(inner, args);
                    }
                    String op = method.getName().toLowerCase(Locale.ROOT);
                    long start = System.nanoTime();
                    try {
                        Object result = method.invoke(inner, args);
                        if (result instanceof Outcome o && !o.ok()) {
                            refused(op, o.decision() == Outcome.Decision.CONFLICT ? "CONFLICT" : o.reason(), false);
                        }
                        return result;
                    } catch (InvocationTargetException e) {
                        Throwable cause = e.getCause();
                        if (cause instanceof LedgerUnavailableException) {
                            refused(op, "unavailable", true);
                        } else if (cause instanceof LedgerException) {
                            refused(op, "refused", false);
                        }
                        throw cause;
                    } finally {
                        if (!op.equals("close")) {
                            latency.computeIfAbsent(op, k -> new Histogram()).add(System.nanoTime() - start);
                        }
                    }
                });
    }

    private void refused(String op, String reason, boolean transientFailure) {
        String labels = "op=\"" + op + "\",reason=\"" + (reason == null ? "unknown" : Metric.escapeLabel(reason)) + "\",class=\""
                + refusalsTotal.check("class", transientFailure ? "transient" : "permanent") + "\"";
        refusals.computeIfAbsent(labels, k -> new LongAdder()).increment();
    }

    /** The Prometheus text exposition of both families (empty families are left out). */
    public String prometheus() {
        StringBuilder p = new StringBuilder(1024);
        Map<String, Histogram> byOp = new TreeMap<>(latency);
        if (!byOp.isEmpty()) {
            String name = callSeconds.name();
            callSeconds.header(p);
            byOp.forEach((op, h) -> {
                long cumulative = 0;
                for (int i = 0; i <= BUCKETS.length; i++) {
                    cumulative += h.counts[i].sum();
                    p.append(name).append("_bucket{op=\"").append(op).append("\",le=\"")
                            .append(i < BUCKETS.length ? Double.toString(BUCKETS[i]) : "+Inf").append("\"} ")
                            .append(cumulative).append('\n');
                }
                p.append(name).append("_sum{op=\"").append(op).append("\"} ").append(h.nanos.sum() / 1e9).append('\n');
                p.append(name).append("_count{op=\"").append(op).append("\"} ").append(cumulative).append('\n');
            });
        }
        Map<String, LongAdder> sorted = new TreeMap<>(refusals);
        if (!sorted.isEmpty()) {
            refusalsTotal.header(p);
            sorted.forEach((labels, n) -> p.append(refusalsTotal.name()).append('{').append(labels).append("} ")
                    .append(n.sum()).append('\n'));
        }
        return p.toString();
    }
}
