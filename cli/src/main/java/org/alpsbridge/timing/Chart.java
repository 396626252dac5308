package org.alpsbridge.timing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * An SVG chart in the manner of the seed's figures: one group per BASIL method, one bar per target
 * showing the median, a whisker from p10 to p99, on a logarithmic time axis so a 50 µs SUMMARY and a
 * 2 s INVENTORY share one picture.
 */
public final class Chart {

    private static final String[] COLOURS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
    private static final int LEFT = 70;
    private static final int TOP = 50;
    private static final String Y_AXIS = "latency of one call (log scale)";
    private static final int PLOT_HEIGHT = 320;
    private static final int BAR = 22;
    private static final int GAP = 26;
    private static final int TEXT_SIZE = 11;
    private static final int TITLE_SIZE = 14;
    /**
     * Advance of a sans-serif character in em, with a margin: DejaVu Sans (Debian's default) and Liberation/Arial
     * average about 0.55 over words, digits and punctuation, so this over-estimates the titles and labels written
     * here rather than cut them off. ChartBrowserTest measures the real text in a real browser.
     */
    private static final double EM_PER_CHAR = 0.72;

    private Chart() {
    }

    public static void writeSvg(Report report, String title, Path file) throws IOException {
        List<String> methods = report.methods();
        List<Recorder> runs = report.runs();
        long lo = Long.MAX_VALUE;
        long hi = 1;
        for (Recorder r : runs) {
            for (Recorder.MethodRecord m : r.methods().values()) {
                lo = Math.min(lo, Math.max(1, m.percentileMicros(10)));
                hi = Math.max(hi, m.percentileMicros(99));
            }
        }
        double minDecade = Math.floor(Math.log10(Math.min(lo, hi)));
        double maxDecade = Math.max(minDecade + 1, Math.ceil(Math.log10(hi)));
        // The picture is as wide as its widest part: the plot, the title or a legend line (a demo with few
        // methods and a long title used to cut both off at the plot's edge); the groups then share all of it,
        // rather than huddle in the left third under a long title.
        int width = LEFT + methods.size() * (runs.size() * BAR + GAP) + 20;
        width = Math.max(width, LEFT + textWidth(title, TITLE_SIZE) + 20);
        for (Recorder r : runs) {
            width = Math.max(width, LEFT + 18 + textWidth(legend(r), TEXT_SIZE) + 20);
        }
        int groupWidth = (width - LEFT - 20) / Math.max(1, methods.size());
        int bar = Math.min(3 * BAR, (groupWidth - GAP) / runs.size());
        int height = TOP + PLOT_HEIGHT + 60 + runs.size() * 18;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"%d\">%n",
                width, height, TEXT_SIZE));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"20\" font-size=\"%d\">%s</text>%n", LEFT, TITLE_SIZE, escape(title)));
        svg.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\">%s</text>%n", TOP - 12, escape(Y_AXIS)));
        for (double d = minDecade; d <= maxDecade; d++) {
            double y = y(Math.pow(10, d), minDecade, maxDecade);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", LEFT, width - 20, y, y));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 6, y + 4,
                    Report.micros((long) Math.pow(10, d))));
        }
        for (int g = 0; g < methods.size(); g++) {
            int x0 = LEFT + g * groupWidth + (groupWidth - runs.size() * bar) / 2;
            for (int i = 0; i < runs.size(); i++) {
                Recorder.MethodRecord m = runs.get(i).methods().get(methods.get(g));
                if (m == null || m.count() == 0) {
                    continue;
                }
                int x = x0 + i * bar;
                double yMedian = y(Math.max(1, m.percentileMicros(50)), minDecade, maxDecade);
                double base = TOP + PLOT_HEIGHT;
                svg.append(String.format(Locale.ROOT,
                        "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s %s p50 %s</title></rect>%n",
                        x, yMedian, bar - 4, base - yMedian, COLOURS[i % COLOURS.length], escape(runs.get(i).label()),
                        escape(methods.get(g)), Report.micros(m.percentileMicros(50))));
                double yLow = y(Math.max(1, m.percentileMicros(10)), minDecade, maxDecade);
                double yHigh = y(Math.max(1, m.percentileMicros(99)), minDecade, maxDecade);
                int cx = x + (bar - 4) / 2;
                svg.append(String.format(Locale.ROOT,
                        "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>%n",
                        cx, cx, yLow, yHigh, cx - 4, cx + 4, yHigh, yHigh));
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x0 + runs.size() * bar / 2, TOP + PLOT_HEIGHT + 16, escape(methods.get(g).replace("QUERY/", ""))));
        }
        for (int i = 0; i < runs.size(); i++) {
            int y = TOP + PLOT_HEIGHT + 40 + i * 18;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", LEFT, y - 10, COLOURS[i % COLOURS.length]));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + 18, y, escape(legend(runs.get(i)))));
        }
        svg.append("</svg>\n");
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, svg, StandardCharsets.UTF_8);
    }

    private static String legend(Recorder run) {
        return run.label() + " (bar: median; whisker: p10 to p99)";
    }

    private static int textWidth(String text, int fontSize) {
        return (int) Math.ceil(text.length() * fontSize * EM_PER_CHAR);
    }

    private static double y(double micros, double minDecade, double maxDecade) {
        double f = (Math.log10(micros) - minDecade) / (maxDecade - minDecade);
        return TOP + PLOT_HEIGHT * (1 - Math.max(0, Math.min(1, f)));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
