package org.alpsbridge.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The operator's guide's metrics tables, generated from the declarations, and what a scrape says: a test holds the
 * guide's table between {@code <!-- metrics:NAME -->} and {@code <!-- /metrics:NAME -->} equal to {@link #table},
 * and every family a real daemon exports declared with its type and labels ({@link #undeclared}).
 */
public final class MetricsDocs {

    private static final Pattern TYPE_LINE = Pattern.compile("(?m)^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\\w+)$");
    private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{([^}]*)\\})? \\S+$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private MetricsDocs() {
    }

    /**
     * The markdown table of {@code metrics}: name, type, labels (a closed label with its values, e.g.
     * {@code `outcome`: `ok`, `failed`}; labels apart by {@code ;}), meaning.
     */
    public static String table(List<Metric> metrics) {
        StringBuilder t = new StringBuilder("| metric | type | labels | meaning |\n|---|---|---|---|\n");
        for (Metric m : metrics) {
            t.append("| `").append(m.name()).append("` | ").append(m.type().word()).append(" | ")
                    .append(m.labels().stream().map(l -> labelCell(m, l)).collect(Collectors.joining(m.values().isEmpty()
                            ? ", " : "; ")))
                    .append(" | ").append(m.help().replace("|", "\\|")).append(" |\n");
        }
        return t.toString();
    }

    private static String labelCell(Metric m, String label) {
        List<String> values = m.values().get(label);
        return "`" + label + "`" + (values == null ? ""
                : ": " + values.stream().map(v -> "`" + v + "`").collect(Collectors.joining(", ")));
    }

    /** The text between {@code <!-- metrics:NAME -->} and {@code <!-- /metrics:NAME -->} of {@code markdown}. */
    public static String section(Path markdown, String name) throws IOException {
        String doc = Files.readString(markdown);
        String open = "<!-- metrics:" + name + " -->\n";
        int from = doc.indexOf(open);
        int to = doc.indexOf("<!-- /metrics:" + name + " -->", from);
        if (from < 0 || to < 0) {
            throw new AssertionError(markdown + " has no section " + open.strip() + " ... <!-- /metrics:" + name + " -->");
        }
        return doc.substring(from + open.length(), to);
    }

    /**
     * Writes {@code table} into the section {@code name} of {@code markdown} (what {@code -Dalpsbridge.docs.write=true}
     * does in the tests that compare them).
     */
    public static void write(Path markdown, String name, String table) throws IOException {
        String doc = Files.readString(markdown);
        String old = section(markdown, name);
        String open = "<!-- metrics:" + name + " -->\n";
        int from = doc.indexOf(open) + open.length();
        Files.writeString(markdown, doc.substring(0, from) + table + doc.substring(from + old.length()));
    }

    /**
     * What in a scrape's text is not as declared: a family with no declaration, or of another type, or a sample
     * with a label its family does not declare, or with a value its closed label does not. Empty when all is declared.
     */
    public static List<String> undeclared(String exposition, List<Metric> declared) {
        Map<String, Metric> byName = new TreeMap<>();
        declared.forEach(m -> byName.put(m.name(), m));
        Map<String, String> problems = new TreeMap<>();
        Matcher type = TYPE_LINE.matcher(exposition);
        while (type.find()) {
            Metric m = byName.get(type.group(1));
            if (m == null) {
                problems.put(type.group(1), type.group(1) + " (" + type.group(2) + ") is exported but not declared");
            } else if (!m.type().word().equals(type.group(2))) {
                problems.put(m.name(), m.name() + " is exported as a " + type.group(2) + ", declared a " + m.type().word());
            }
        }
        Matcher sample = SAMPLE.matcher(exposition);
        while (sample.find()) {
            Metric m = family(byName, sample.group(1));
            if (m == null) {
                problems.putIfAbsent(sample.group(1), sample.group(1) + " is exported but not declared");
                continue;
            }
            Matcher label = LABEL.matcher(sample.group(2) == null ? "" : sample.group(2));
            while (label.find()) {
                String l = label.group(1);
                boolean implied = (m.type() == Metric.Type.SUMMARY && l.equals("quantile"))
                        || (m.type() == Metric.Type.HISTOGRAM && l.equals("le"));
                if (!implied && !m.labels().contains(l)) {
                    problems.putIfAbsent(m.name() + "/" + l, m.name() + " has a label " + l + " not declared");
                } else if (m.values().containsKey(l) && !m.values().get(l).contains(label.group(2))) {
                    problems.putIfAbsent(m.name() + "/" + l + "=" + label.group(2), m.name() + " has " + l + "=\""
                            + label.group(2) + "\", a value not declared");
                }
            }
        }
        return List.copyOf(problems.values());
    }

    /** The families of {@code exposition} (its {@code # TYPE} lines), by name. */
    public static Map<String, String> families(String exposition) {
        Map<String, String> out = new TreeMap<>();
        Matcher type = TYPE_LINE.matcher(exposition);
        while (type.find()) {
            out.put(type.group(1), type.group(2));
        }
        return out;
    }

    private static Metric family(Map<String, Metric> byName, String sample) {
        Metric m = byName.get(sample);
        if (m != null) {
            return m;
        }
        for (String suffix : new String[] {"_bucket", "_sum", "_count"}) {
            if (sample.endsWith(suffix)) {
                Metric f = byName.get(sample.substring(0, sample.length() - suffix.length()));
                if (f != null && f.type() != Metric.Type.COUNTER && f.type() != Metric.Type.GAUGE) {
                    return f;
                }
            }
        }
        return null;
    }
}
