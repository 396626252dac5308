package org.alpsbridge.proxy.stats;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.alpsbridge.json.JsonText;
import org.alpsbridge.metrics.Metric;

/**
 * The daemon's figures at one moment: per-method timing, counters and gauges. Rendered three ways:
 * {@link #toJson()} for scripts ({@code proxy stats --json}), {@link #table()} for operators, and
 * {@link #prometheus()} for the {@code /metrics} endpoint.
 *
 * @param taken when the snapshot was taken
 * @param uptimeSeconds seconds since the statistics started (daemon start)
 * @param methods figures per method key, in the order ENGINE, INVENTORY, SUMMARY, RESERVE, CONFIRM, RELEASE, SWITCH, others
 * @param counters event counters by name
 * @param gauges current values by name
 */
public record Snapshot(Instant taken, long uptimeSeconds, Map<String, MethodFigures> methods,
                       Map<String, CounterFigures> counters, Map<String, GaugeFigure> gauges) {

    private static final List<String> USUAL = List.of("QUERY/ENGINE", "QUERY/INVENTORY", "QUERY/SUMMARY", "RESERVE",
            "CONFIRM", "RELEASE", "SWITCH");

    /** Usual methods first, in the order a scheduler uses them; anything else after, alphabetically. */
    static final Comparator<String> METHOD_ORDER = Comparator
            .comparingInt((String m) -> USUAL.contains(m) ? USUAL.indexOf(m) : USUAL.size())
            .thenComparing(Function.identity());

    /**
     * @param metric the counter's declaration
     * @param labelName the label telling series apart, or null when there is one series (keyed "")
     * @param values value per label value
     */
    public record CounterFigures(Metric metric, String labelName, Map<String, Long> values) {

        /** The series that counted something: {@link #values} without the ones still at their starting 0. */
        public Map<String, Long> counted() {
            Map<String, Long> out = new TreeMap<>(values);
            out.values().removeIf(v -> v == 0);
            return out;
        }
    }

    /** A gauge's declaration and value. */
    public record GaugeFigure(Metric metric, long value) {
    }

    /**
     * One JSON object: {@code methods} keyed by method, each with {@code requests}, {@code backendCalls},
     * {@code errors}, {@code backendErrors}, {@code cacheHits}, {@code backendCallsSaved},
     * {@code responseBytes}, the client latency {@code minMicros}/{@code p50Micros}/{@code p90Micros}/
     * {@code p99Micros}/{@code maxMicros}, and {@code cached} and {@code backend} latency objects; then
     * {@code counters} and {@code gauges}.
     */
    public String toJson() {
        StringBuilder j = new StringBuilder(1024);
        j.append("{\"taken\":").append(JsonText.quote(taken.toString()))
                .append(",\"uptimeSeconds\":").append(uptimeSeconds)
                .append(",\"methods\":{");
        String sep = "";
        for (Map.Entry<String, MethodFigures> e : methods.entrySet()) {
            MethodFigures m = e.getValue();
            j.append(sep).append(JsonText.quote(e.getKey())).append(":{")
                    .append("\"requests\":").append(m.requests())
                    .append(",\"backendCalls\":").append(m.backendCalls())
                    .append(",\"errors\":").append(m.errors())
                    .append(",\"backendErrors\":").append(m.backendErrors())
                    .append(",\"cacheHits\":").append(m.cacheHits())
                    .append(",\"backendCallsSaved\":").append(m.backendCallsSaved())
                    .append(",\"responseBytes\":").append(m.responseBytes())
                    .append(",\"minMicros\":").append(m.client().minMicros())
                    .append(",\"p50Micros\":").append(m.client().p50Micros())
                    .append(",\"p90Micros\":").append(m.client().p90Micros())
                    .append(",\"p99Micros\":").append(m.client().p99Micros())
                    .append(",\"maxMicros\":").append(m.client().maxMicros())
                    .append(",\"sumMicros\":").append(m.client().sumMicros())
                    .append(",\"cached\":{");
            m.cached().appendJson(j);
            j.append("},\"backend\":{");
            m.backend().appendJson(j);
            j.append("}}");
            sep = ",";
        }
        j.append("},\"counters\":{");
        sep = "";
        for (Map.Entry<String, CounterFigures> e : counters.entrySet()) {
            j.append(sep).append(JsonText.quote(e.getKey())).append(':');
            CounterFigures c = e.getValue();
            if (c.labelName() == null) {
                j.append(c.values().getOrDefault("", 0L));
            } else {
                j.append('{');
                String inner = "";
                for (Map.Entry<String, Long> v : c.values().entrySet()) {
                    j.append(inner).append(JsonText.quote(v.getKey())).append(':').append(v.getValue());
                    inner = ",";
                }
                j.append('}');
            }
            sep = ",";
        }
        j.append("},\"gauges\":{");
        sep = "";
        for (Map.Entry<String, GaugeFigure> e : gauges.entrySet()) {
            j.append(sep).append(JsonText.quote(e.getKey())).append(':').append(e.getValue().value());
            sep = ",";
        }
        return j.append("}}").toString();
    }

    /**
     * A table per method: the client's view on the method's line (count, latency, errors, cache hits,
     * backend calls saved), then the backend's and the cache's latency on indented lines.
     */
    public String table() {
        StringBuilder t = new StringBuilder(1024);
        String row = "%-18s %8s %8s %8s %8s %8s %8s %8s %7s %8s %8s%n";
        t.append(String.format(Locale.ROOT, row, "method", "count", "min", "p50", "p90", "p99", "max", "backend", "errors",
                "cache", "saved"));
        for (Map.Entry<String, MethodFigures> e : methods.entrySet()) {
            MethodFigures m = e.getValue();
            Latency c = m.client();
            t.append(String.format(Locale.ROOT, row, e.getKey(), m.requests(), micros(c.minMicros()), micros(c.p50Micros()),
                    micros(c.p90Micros()), micros(c.p99Micros()), micros(c.maxMicros()), m.backendCalls(), m.errors(),
                    m.cacheHits(), m.backendCallsSaved()));
            latencyRow(t, row, "  backend", m.backend(), m.backendErrors());
            latencyRow(t, row, "  from cache", m.cached(), 0);
        }
        if (methods.isEmpty()) {
            t.append("(no calls yet)\n");
        }
        for (Map.Entry<String, CounterFigures> e : counters.entrySet()) {
            e.getValue().values().forEach((label, value) -> t.append(String.format(Locale.ROOT, "%-48s %d%n",
                    label.isEmpty() ? e.getKey() : e.getKey() + "{" + label + "}", value)));
        }
        gauges.forEach((name, g) -> t.append(String.format(Locale.ROOT, "%-48s %d%n", name, g.value())));
        t.append(String.format(Locale.ROOT, "uptime %ds, taken %s%n", uptimeSeconds, taken));
        return t.toString();
    }

    private static void latencyRow(StringBuilder t, String row, String label, Latency l, long errors) {
        if (l.count() == 0) {
            return;
        }
        t.append(String.format(Locale.ROOT, row, label, l.count(), micros(l.minMicros()), micros(l.p50Micros()),
                micros(l.p90Micros()), micros(l.p99Micros()), micros(l.maxMicros()), "", errors == 0 ? "" : errors, "", ""));
    }

    static String micros(long us) {
        return Latency.human(us);
    }

    /** Prometheus text exposition format 0.0.4: counters and summaries per method, then counters and gauges. */
    public String prometheus() {
        StringBuilder p = new StringBuilder(2048);
        perMethod(p, ProxyMetric.REQUESTS, MethodFigures::requests);
        perMethod(p, ProxyMetric.BACKEND_CALLS, MethodFigures::backendCalls);
        perMethod(p, ProxyMetric.ERRORS, MethodFigures::errors);
        perMethod(p, ProxyMetric.BACKEND_ERRORS, MethodFigures::backendErrors);
        Metric failures = ProxyMetric.BACKEND_FAILURES.metric();
        failures.header(p);
        // every kind at 0 once a method is seen: increase() needs a sample before the first failure
        methods.forEach((method, m) -> failures.values().get("kind").forEach(kind -> p.append(failures.name())
                .append("{method=\"").append(Metric.escapeLabel(method)).append("\",kind=\"").append(kind).append("\"} ")
                .append(m.backendFailures().getOrDefault(kind, 0L)).append('\n')));
        perMethod(p, ProxyMetric.CACHE_HITS, MethodFigures::cacheHits);
        perMethod(p, ProxyMetric.RESPONSE_BYTES, MethodFigures::responseBytes);
        summary(p, ProxyMetric.REQUEST_DURATION, MethodFigures::client);
        summary(p, ProxyMetric.BACKEND_DURATION, MethodFigures::backend);
        summary(p, ProxyMetric.CACHED_DURATION, MethodFigures::cached);
        for (CounterFigures c : counters.values()) {
            String name = c.metric().name();
            c.metric().header(p);
            c.values().forEach((label, value) -> p.append(name)
                    .append(c.labelName() == null ? "" : "{" + c.labelName() + "=\"" + Metric.escapeLabel(label) + "\"}")
                    .append(' ').append(value).append('\n'));
        }
        ProxyMetric.UPTIME.metric().header(p).append(ProxyMetric.UPTIME.metric().name()).append(' ')
                .append(uptimeSeconds).append('\n');
        gauges.values().forEach(g -> g.metric().header(p).append(g.metric().name()).append(' ').append(g.value())
                .append('\n'));
        return p.toString();
    }

    private void perMethod(StringBuilder p, ProxyMetric family, ToLongFunction<MethodFigures> value) {
        Metric metric = family.metric();
        metric.header(p);
        methods.forEach((method, m) -> p.append(metric.name()).append("{method=\"").append(Metric.escapeLabel(method))
                .append("\"} ").append(value.applyAsLong(m)).append('\n'));
    }

    private void summary(StringBuilder p, ProxyMetric family, Function<MethodFigures, Latency> latency) {
        Metric metric = family.metric();
        metric.header(p);
        String name = metric.name();
        methods.forEach((method, m) -> {
            Latency l = latency.apply(m);
            String label = "method=\"" + Metric.escapeLabel(method) + "\"";
            quantile(p, name, label, "0.5", l.p50Micros());
            quantile(p, name, label, "0.9", l.p90Micros());
            quantile(p, name, label, "0.99", l.p99Micros());
            p.append(name).append("_sum{").append(label).append("} ").append(seconds(l.sumMicros())).append('\n');
            p.append(name).append("_count{").append(label).append("} ").append(l.count()).append('\n');
        });
    }

    private static void quantile(StringBuilder p, String name, String label, String q, long micros) {
        p.append(name).append('{').append(label).append(",quantile=\"").append(q).append("\"} ")
                .append(seconds(micros)).append('\n');
    }

    private static String seconds(long micros) {
        return String.format(Locale.ROOT, "%.6f", micros / 1_000_000.0);
    }
}
