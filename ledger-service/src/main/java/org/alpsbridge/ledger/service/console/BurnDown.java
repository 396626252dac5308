package org.alpsbridge.ledger.service.console;

import static org.alpsbridge.ledger.service.console.Html.esc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;

/**
 * The burn-down chart of one allocation as SVG: the available balance over its period, a step at every journal
 * entry (the running sum of the allocation's journal, as the ledger's balances are), the straight "even use"
 * line from the granted amount at the start to zero at expiry, the expiry date and today. Drawn with
 * presentation attributes only (no script, no inline style), so the page's Content-Security-Policy holds.
 */
final class BurnDown {

    static final int WIDTH = 760;
    static final int HEIGHT = 320;
    private static final int LEFT = 86;
    private static final int RIGHT = 24;
    private static final int TOP = 34;
    private static final int BOTTOM = 44;

    /** One step of the line: from {@code at} on, {@code available} minutes. */
    record Point(Instant at, long available) {
    }

    private BurnDown() {
    }

    /**
     * The available balance after each entry, in the journal's order, so every step is a balance the journal
     * shows ("available after"). An entry's time is clamped into the period and never drawn before the entry
     * it follows: job events carry the scheduler's time, which may precede the grant entered after them, and
     * summed in time order they drew a balance below zero that the ledger never had.
     */
    static List<Point> points(Balance b, List<JournalEntry> entries) {
        List<Point> out = new ArrayList<>();
        long available = 0;
        Instant previous = b.from();
        List<JournalEntry> inJournalOrder = entries.stream().sorted(Comparator.comparing(JournalEntry::allocationSeq))
                .toList();
        for (JournalEntry e : inJournalOrder) {
            available += e.amount();
            Instant at = clamp(e.at(), b.from(), b.to());
            previous = at.isBefore(previous) ? previous : at;
            out.add(new Point(previous, available));
        }
        return out;
    }

    static String svg(Balance b, List<JournalEntry> entries, Instant now) {
        List<Point> points = points(b, entries);
        if (points.isEmpty()) {
            points = List.of(new Point(b.from(), 0));
        }
        long max = Math.max(1, b.granted());
        long min = 0;
        for (Point p : points) {
            max = Math.max(max, p.available());
            min = Math.min(min, p.available());
        }
        long span = max - min;
        double top = max + span * 0.05;
        double bottom = min;
        Scale x = new Scale(b.from().getEpochSecond(), b.to().getEpochSecond(), LEFT, WIDTH - RIGHT);
        Scale y = new Scale(bottom, top, HEIGHT - BOTTOM, TOP);
        long last = points.get(points.size() - 1).available();
        Instant end = now.isAfter(b.to()) ? b.to() : now.isBefore(b.from()) ? b.from() : now;

        StringBuilder path = new StringBuilder();
        double px = x.at(points.get(0).at());
        double py = y.at(points.get(0).available());
        path.append("M").append(f(px)).append(' ').append(f(py));
        for (Point p : points.subList(1, points.size())) {
            double nx = x.at(p.at());
            path.append(" H").append(f(nx)).append(" V").append(f(y.at(p.available())));
        }
        path.append(" H").append(f(Math.max(x.at(end), x.at(points.get(points.size() - 1).at()))));

        String what = b.project() + " " + b.resource().name().toLowerCase(Locale.ROOT) + " " + Html.day(b.from())
                + " to " + Html.day(b.to());
        long evenNow = evenUse(b, end);
        String desc = "Available balance of " + what + ": " + Html.hours(last) + " of " + Html.hours(b.granted())
                + " granted; even use would leave " + Html.hours(evenNow) + " on " + Html.day(end)
                + "; expires " + Html.day(b.to()) + ".";

        StringBuilder s = new StringBuilder();
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"burndown\" viewBox=\"0 0 ").append(WIDTH)
                .append(' ').append(HEIGHT).append("\" width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT)
                .append("\" role=\"img\" aria-labelledby=\"bd-title bd-desc\" data-balances=\"")
                .append(points.stream().map(p -> Long.toString(p.available())).collect(java.util.stream.Collectors.joining(" ")))
                .append("\" data-available=\"").append(last)
                .append("\" data-steps=\"").append(entries.size()).append("\">")
                .append("<title id=\"bd-title\">Burn-down of ").append(esc(what)).append("</title>")
                .append("<desc id=\"bd-desc\">").append(esc(desc)).append("</desc>")
                .append("<rect x=\"0\" y=\"0\" width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT)
                .append("\" fill=\"#ffffff\"/>");
        // horizontal grid and the hour labels
        for (double v : ticks(bottom, top)) {
            double gy = y.at(v);
            s.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT).append("\" y1=\"")
                    .append(f(gy)).append("\" y2=\"").append(f(gy)).append("\" stroke=\"#d0d4d9\" stroke-width=\"1\"/>")
                    .append("<text x=\"").append(LEFT - 8).append("\" y=\"").append(f(gy + 4))
                    .append("\" text-anchor=\"end\" font-size=\"12\" fill=\"#333\">")
                    .append(esc(Html.hours(Math.round(v)))).append("</text>");
        }
        // time axis: start, quarters, expiry
        for (int i = 0; i <= 4; i++) {
            long t = b.from().getEpochSecond() + (b.to().getEpochSecond() - b.from().getEpochSecond()) * i / 4;
            double tx = x.at(Instant.ofEpochSecond(t));
            s.append("<text x=\"").append(f(tx)).append("\" y=\"").append(HEIGHT - BOTTOM + 18)
                    .append("\" text-anchor=\"").append(i == 0 ? "start" : i == 4 ? "end" : "middle")
                    .append("\" font-size=\"12\" fill=\"#333\">").append(esc(Html.day(Instant.ofEpochSecond(t))))
                    .append("</text>");
        }
        s.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT).append("\" y1=\"")
                .append(f(y.at(0))).append("\" y2=\"").append(f(y.at(0)))
                .append("\" stroke=\"#555\" stroke-width=\"1\"/>");
        // even use: granted at the start, nothing at expiry
        s.append("<line class=\"even\" x1=\"").append(f(x.at(b.from()))).append("\" y1=\"")
                .append(f(y.at(b.granted()))).append("\" x2=\"").append(f(x.at(b.to()))).append("\" y2=\"")
                .append(f(y.at(0))).append("\" stroke=\"#8a5a00\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>");
        // today and expiry
        if (!now.isBefore(b.from()) && now.isBefore(b.to())) {
            double tx = x.at(now);
            s.append("<line x1=\"").append(f(tx)).append("\" x2=\"").append(f(tx)).append("\" y1=\"").append(TOP)
                    .append("\" y2=\"").append(HEIGHT - BOTTOM).append("\" stroke=\"#6b6b6b\" stroke-width=\"1\""
                            + " stroke-dasharray=\"2 3\"/>")
                    .append("<text x=\"").append(f(tx + 4)).append("\" y=\"").append(TOP + 12)
                    .append("\" font-size=\"12\" fill=\"#333\">today</text>");
        }
        double ex = x.at(b.to());
        s.append("<line x1=\"").append(f(ex)).append("\" x2=\"").append(f(ex)).append("\" y1=\"").append(TOP - 6)
                .append("\" y2=\"").append(HEIGHT - BOTTOM).append("\" stroke=\"#b00020\" stroke-width=\"2\"/>")
                .append("<text x=\"").append(f(ex - 4)).append("\" y=\"").append(TOP - 10)
                .append("\" text-anchor=\"end\" font-size=\"12\" fill=\"#b00020\">expires ")
                .append(esc(Html.day(b.to()))).append("</text>");
        // the available balance
        s.append("<path class=\"available\" d=\"").append(path).append("\" fill=\"none\" stroke=\"#0b5cad\""
                + " stroke-width=\"2.5\"/>");
        // where it stands now
        double nx = Math.max(x.at(end), x.at(points.get(points.size() - 1).at()));
        double ny = y.at(last);
        boolean nearEnd = nx > WIDTH - RIGHT - 160;
        s.append("<circle cx=\"").append(f(nx)).append("\" cy=\"").append(f(ny))
                .append("\" r=\"4.5\" fill=\"#0b5cad\"/><text x=\"").append(f(nearEnd ? nx - 8 : nx + 8))
                .append("\" y=\"").append(f(ny - 8)).append("\" text-anchor=\"").append(nearEnd ? "end" : "start")
                .append("\" font-size=\"12\" font-weight=\"bold\" fill=\"#0b5cad\">")
                .append(esc(Html.hours(last))).append(" available</text>");
        // legend
        s.append("<g font-size=\"12\" fill=\"#333\"><line x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + 24)
                .append("\" y1=\"14\" y2=\"14\" stroke=\"#0b5cad\" stroke-width=\"2.5\"/><text x=\"")
                .append(LEFT + 30).append("\" y=\"18\">available</text><line x1=\"").append(LEFT + 110)
                .append("\" x2=\"").append(LEFT + 134).append("\" y1=\"14\" y2=\"14\" stroke=\"#8a5a00\""
                        + " stroke-width=\"2\" stroke-dasharray=\"6 4\"/><text x=\"").append(LEFT + 140)
                .append("\" y=\"18\">even use</text></g>");
        s.append("</svg>");
        return s.toString();
    }

    /** What an even use of the granted amount would have left at {@code t}. */
    static long evenUse(Balance b, Instant t) {
        double total = Duration.between(b.from(), b.to()).toSeconds();
        double gone = Duration.between(b.from(), clamp(t, b.from(), b.to())).toSeconds();
        return Math.round(b.granted() * (1 - gone / total));
    }

    private static Instant clamp(Instant t, Instant from, Instant to) {
        return t.isBefore(from) ? from : t.isAfter(to) ? to : t;
    }

    /** About five round values (in minutes that are whole hours) from {@code lo} to {@code hi}. */
    static List<Double> ticks(double lo, double hi) {
        double range = Math.max(60, hi - lo);
        double raw = range / 5;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw / 60))) * 60;
        double step = magnitude;
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (magnitude * m >= raw) {
                step = magnitude * m;
                break;
            }
        }
        List<Double> out = new ArrayList<>();
        for (double v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) {
            out.add(v);
        }
        return out;
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** A linear map from a domain to pixels. */
    private record Scale(double d0, double d1, double r0, double r1) {
        double at(double v) {
            return d1 == d0 ? r0 : r0 + (v - d0) * (r1 - r0) / (d1 - d0);
        }

        double at(Instant t) {
            return at(t.getEpochSecond());
        }
    }
}
