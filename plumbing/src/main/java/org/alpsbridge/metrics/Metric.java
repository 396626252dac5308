package org.alpsbridge.metrics;

import java.util.List;

/**
 * One Prometheus metric family, declared once: its full name, its type, its labels and its meaning. The
 * exporters write their {@code # HELP}/{@code # TYPE} lines from it, and the operator's guide's metrics table is
 * generated from the same declarations ({@link MetricsDocs}), so the two cannot drift.
 *
 * @param name the family's name as scraped, e.g. {@code alpsbridge_proxy_requests_total}
 * @param type counter, gauge, summary or histogram
 * @param labels the labels that tell its series apart (a summary's {@code quantile} and a histogram's {@code le}
 *               are implied by the type and not listed)
 * @param help one line for operators: what it counts or measures, in what unit
 */
public record Metric(String name, Type type, List<String> labels, String help) {

    /** The Prometheus metric types the daemons export. */
    public enum Type {
        COUNTER, GAUGE, SUMMARY, HISTOGRAM;

        /** The word of the {@code # TYPE} line. */
        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public Metric {
        if (!name.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("metric name " + name + ": expected lower-case letters, digits and _");
        }
        if (type == Type.COUNTER && !name.endsWith("_total")) {
            throw new IllegalArgumentException("counter " + name + ": its name must end in _total");
        }
        labels = List.copyOf(labels);
    }

    public static Metric counter(String name, String help, String... labels) {
        return new Metric(name, Type.COUNTER, List.of(labels), help);
    }

    public static Metric gauge(String name, String help, String... labels) {
        return new Metric(name, Type.GAUGE, List.of(labels), help);
    }

    public static Metric summary(String name, String help, String... labels) {
        return new Metric(name, Type.SUMMARY, List.of(labels), help);
    }

    public static Metric histogram(String name, String help, String... labels) {
        return new Metric(name, Type.HISTOGRAM, List.of(labels), help);
    }

    /** Appends the family's {@code # HELP} and {@code # TYPE} lines. */
    public StringBuilder header(StringBuilder p) {
        p.append("# HELP ").append(name).append(' ').append(help.replace("\\", "\\\\").replace("\n", "\\n")).append('\n');
        return p.append("# TYPE ").append(name).append(' ').append(type.word()).append('\n');
    }

    /**
     * A daemon's typed handle on one of its declarations ({@code ProxyMetric.REQUESTS}): an enum whose constants
     * each hold their {@link Metric}, as {@code org.alpsbridge.settings.Setting.Handle} for settings.
     */
    public interface Handle {

        Metric metric();

        /** The declarations of {@code handles} (an enum's {@code values()}), in their order. */
        static List<Metric> metrics(Handle[] handles) {
            return java.util.stream.Stream.of(handles).map(Handle::metric).toList();
        }
    }

    /** A label value in the exposition format's quoting. */
    public static String escapeLabel(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
