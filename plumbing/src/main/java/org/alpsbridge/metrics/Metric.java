package org.alpsbridge.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One Prometheus metric family, declared once: its full name, its type, its labels and its meaning. The
 * exporters write their {@code # HELP}/{@code # TYPE} lines from it, and the operator's guide's metrics table is
 * generated from the same declarations ({@link MetricsDocs}), so the two cannot drift.
 *
 * <p>A label may be closed ({@link #withValues}): its values are declared with it, the generated table lists them,
 * counting any other value is a programming error ({@link #check}), and the exporter starts every series of a family
 * whose labels are all closed at 0 ({@link #series}) — Prometheus's {@code increase()} needs a sample before the first
 * event, or the first event never shows. A label left open (a method, a project) has a series per value seen.
 *
 * @param name the family's name as scraped, e.g. {@code alpsbridge_proxy_requests_total}
 * @param type counter, gauge, summary or histogram
 * @param labels the labels that tell its series apart (a summary's {@code quantile} and a histogram's {@code le}
 *               are implied by the type and not listed)
 * @param values the closed labels' values, in declaration order, by label; a label not here is open
 * @param help one line for operators: what it counts or measures, in what unit
 */
public record Metric(String name, Type type, List<String> labels, Map<String, List<String>> values, String help) {

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
        Map<String, List<String>> closed = new LinkedHashMap<>();
        for (String label : labels) {
            List<String> declared = values.get(label);
            if (declared != null) {
                if (declared.isEmpty() || new HashSet<>(declared).size() != declared.size()) {
                    throw new IllegalArgumentException(name + ": the values of label " + label
                            + " must be one or more, each once: " + declared);
                }
                closed.put(label, List.copyOf(declared));
            }
        }
        if (!labels.containsAll(values.keySet())) {
            throw new IllegalArgumentException(name + ": values declared for labels it does not have: " + values.keySet());
        }
        values = Collections.unmodifiableMap(closed);
    }

    /** A family whose labels are all open. */
    public Metric(String name, Type type, List<String> labels, String help) {
        this(name, type, labels, Map.of(), help);
    }

    /** This family with {@code label} closed: {@code allowed} are all the values it takes, in the order shown. */
    public Metric withValues(String label, String... allowed) {
        if (values.containsKey(label)) {
            throw new IllegalArgumentException(name + ": the values of label " + label + " are declared twice");
        }
        Map<String, List<String>> more = new LinkedHashMap<>(values);
        more.put(label, List.of(allowed));
        return new Metric(name, type, labels, more, help);
    }

    /**
     * {@code value}, when {@code label} is open or declares it.
     *
     * @throws IllegalArgumentException when {@code label} is not one of the family's, or is closed without
     *         {@code value}: a value counted that the declaration (hence the exporter's zeros and the docs) misses
     */
    public String check(String label, String value) {
        if (!labels.contains(label)) {
            throw new IllegalArgumentException(name + " has no label " + label);
        }
        List<String> allowed = values.get(label);
        if (allowed != null && !allowed.contains(value)) {
            throw new IllegalArgumentException(name + ": " + label + "=\"" + value + "\" is not declared (" + label
                    + " is one of " + allowed + ")");
        }
        return value;
    }

    /**
     * Every series the family has from the start, each as its label values in the order of {@link #labels}: all
     * combinations of the declared values when every label is closed (one series, of no label, when it has none),
     * else none (an open label's values are only known once seen).
     */
    public List<List<String>> series() {
        if (!values.keySet().containsAll(labels)) {
            return List.of();
        }
        List<List<String>> out = List.of(List.of());
        for (String label : labels) {
            List<List<String>> longer = new ArrayList<>();
            for (List<String> prefix : out) {
                for (String v : values.get(label)) {
                    List<String> s = new ArrayList<>(prefix);
                    s.add(v);
                    longer.add(List.copyOf(s));
                }
            }
            out = longer;
        }
        return out;
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
