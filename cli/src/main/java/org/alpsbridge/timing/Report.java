package org.alpsbridge.timing;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.alpsbridge.json.JsonText;
import org.alpsbridge.proxy.stats.Latency;

/** Renders recorders side by side: a table per method, JSON for scripts. The first recorder is the baseline of every ratio. */
public final class Report {

    private final List<Recorder> runs;

    public Report(List<Recorder> runs) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("report: nothing was measured");
        }
        this.runs = List.copyOf(runs);
    }

    /** Methods in the order ENGINE, INVENTORY, SUMMARY, RESERVE, CONFIRM, RELEASE, then anything else seen. */
    public List<String> methods() {
        Set<String> seen = new LinkedHashSet<>(List.of("QUERY/ENGINE", "QUERY/INVENTORY", "QUERY/SUMMARY", "RESERVE", "CONFIRM", "RELEASE"));
        runs.forEach(r -> seen.addAll(r.methods().keySet()));
        List<String> present = new ArrayList<>();
        for (String m : seen) {
            if (runs.stream().anyMatch(r -> r.methods().containsKey(m))) {
                present.add(m);
            }
        }
        return present;
    }

    public List<Recorder> runs() {
        return runs;
    }

    public void printTable(PrintWriter out) {
        int width = Math.max(24, runs.stream().mapToInt(r -> r.label().length()).max().orElse(0) + 2);
        String header = "%-" + width + "s %7s %9s %9s %9s %9s %9s %10s %7s %s%n";
        for (String method : methods()) {
            out.printf(Locale.ROOT, header, method, "count", "min", "p50", "p90", "p99", "max", "bytes", "errors",
                    runs.size() > 1 ? "p50 vs " + runs.get(0).label() : "");
            Recorder.MethodRecord base = runs.get(0).methods().get(method);
            for (Recorder run : runs) {
                Recorder.MethodRecord m = run.methods().get(method);
                if (m == null) {
                    out.printf(Locale.ROOT, "  %-" + (width - 2) + "s %7s%n", run.label(), "-");
                    continue;
                }
                String ratio = runs.size() > 1 && base != null && run != runs.get(0)
                        ? String.format(Locale.ROOT, "x%.2f", (double) m.percentileMicros(50) / Math.max(1, base.percentileMicros(50)))
                        : "";
                out.printf(Locale.ROOT, header, "  " + run.label(), m.count(), micros(m.minMicros()), micros(m.percentileMicros(50)),
                        micros(m.percentileMicros(90)), micros(m.percentileMicros(99)), micros(m.maxMicros()),
                        bytes(m.meanBytes()), m.failures(), ratio);
            }
            out.println();
        }
        out.flush();
    }

    public void printJson(PrintWriter out, Map<String, Object> extra) {
        StringBuilder json = new StringBuilder("{\"runs\":[");
        for (int i = 0; i < runs.size(); i++) {
            Recorder run = runs.get(i);
            json.append(i == 0 ? "" : ",").append("{\"label\":").append(quote(run.label())).append(",\"methods\":{");
            int j = 0;
            for (Map.Entry<String, Recorder.MethodRecord> e : run.methods().entrySet()) {
                Recorder.MethodRecord m = e.getValue();
                json.append(j++ == 0 ? "" : ",").append(quote(e.getKey())).append(":{")
                        .append("\"count\":").append(m.count())
                        .append(",\"errors\":").append(m.failures())
                        .append(",\"minMicros\":").append(m.minMicros())
                        .append(",\"p50Micros\":").append(m.percentileMicros(50))
                        .append(",\"p90Micros\":").append(m.percentileMicros(90))
                        .append(",\"p99Micros\":").append(m.percentileMicros(99))
                        .append(",\"maxMicros\":").append(m.maxMicros())
                        .append(",\"meanBytes\":").append(m.meanBytes()).append('}');
            }
            json.append("}}");
        }
        json.append(']');
        for (Map.Entry<String, Object> e : extra.entrySet()) {
            json.append(',').append(quote(e.getKey())).append(':').append(value(e.getValue()));
        }
        out.println(json.append('}'));
        out.flush();
    }

    private static String value(Object v) {
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        if (v instanceof List<?> list) {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < list.size(); i++) {
                b.append(i == 0 ? "" : ",").append(value(list.get(i)));
            }
            return b.append(']').toString();
        }
        return quote(String.valueOf(v));
    }

    static String quote(String s) {
        return JsonText.quote(s);
    }

    static String micros(long us) {
        return Latency.human(us);
    }

    static String bytes(long b) {
        if (b < 10_000) {
            return b + "B";
        }
        if (b < 10_000_000) {
            return (b / 1000) + "kB";
        }
        return String.format(Locale.ROOT, "%.1fMB", b / 1e6);
    }
}
