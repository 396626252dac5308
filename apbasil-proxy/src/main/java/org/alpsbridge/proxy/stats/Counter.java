package org.alpsbridge.proxy.stats;

import java.util.List;
import java.util.Map;

import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A monotonic event counter with an optional label, e.g. full refreshes by reason. Thread-safe. Every series its
 * declaration knows of is there at 0 from the start (see {@link org.alpsbridge.metrics.Metric#series()}); counting a
 * value its closed label does not declare throws {@link IllegalArgumentException}.
 */
public final class Counter {

    private final ProxyMetric metric;
    private final String labelName;
    private final Map<String, LongAdder> series = new ConcurrentHashMap<>();

    Counter(ProxyMetric metric) {
        this.metric = metric;
        this.labelName = metric.labelName();
        for (List<String> start : metric.metric().series()) {
            series.put(start.isEmpty() ? "" : start.get(0), new LongAdder());
        }
    }

    /** Counts one event of an unlabelled counter. */
    public void increment() {
        add("", 1);
    }

    /** Counts one event under a label value, e.g. {@code summary-changed}. */
    public void increment(String labelValue) {
        add(labelValue, 1);
    }

    public void add(String labelValue, long delta) {
        String key = labelName == null ? "" : metric.metric().check(labelName, labelValue);
        series.computeIfAbsent(key, k -> new LongAdder()).add(delta);
    }

    /** The current value of one series, 0 if it never counted. */
    public long value(String labelValue) {
        LongAdder a = series.get(labelName == null ? "" : labelValue);
        return a == null ? 0 : a.sum();
    }

    /** The unlabelled value, or the total over all labels. */
    public long total() {
        return series.values().stream().mapToLong(LongAdder::sum).sum();
    }

    Snapshot.CounterFigures figures() {
        Map<String, Long> values = new TreeMap<>();
        series.forEach((k, v) -> values.put(k, v.sum()));
        return new Snapshot.CounterFigures(metric.metric(), labelName, values);
    }
}
