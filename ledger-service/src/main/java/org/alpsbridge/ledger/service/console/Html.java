package org.alpsbridge.ledger.service.console;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * HTML text: escaping (everything from the ledger or the browser goes through {@link #esc}), the figures'
 * formats, and the page frame with its navigation. Times are shown in UTC, as the ledger keeps them.
 */
final class Html {

    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
            .withZone(ZoneOffset.UTC);

    private Html() {
    }

    /** Escapes text for element content and quoted attribute values. */
    static String esc(Object value) {
        if (value == null) {
            return "";
        }
        String s = value.toString();
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** A query parameter value. */
    static String url(String value) {
        return URLEncoder.encode(value == null ? "" : value, StandardCharsets.UTF_8);
    }

    /** Minutes as hours, exact to the hundredth (the ledger's unit is the minute; bookkeepers think in hours). */
    static String hours(long minutes) {
        BigDecimal h = BigDecimal.valueOf(minutes).divide(BigDecimal.valueOf(60), 2, RoundingMode.HALF_EVEN)
                .stripTrailingZeros();
        String text = String.format("%,." + Math.max(0, h.scale()) + "f", h);
        return text.replace('-', '\u2212') + " h";
    }

    static String day(Instant t) {
        return t == null ? "" : DAY.format(t);
    }

    static String minute(Instant t) {
        return t == null ? "" : MINUTE.format(t) + " UTC";
    }

    /** A day as a {@code <time>} element (kept on one line). */
    static String date(Instant t) {
        return t == null ? "\u2014" : "<time datetime=\"" + t + "\">" + esc(day(t)) + "</time>";
    }

    /** A {@code <time>} element: readable text, machine-readable value. */
    static String time(Instant t) {
        return t == null ? "\u2014" : "<time datetime=\"" + t + "\">" + esc(minute(t)) + "</time>";
    }

    /** A link to one job's statement (its reservations and journal entries), from a reservation key. */
    static String jobLink(String key) {
        if (key == null) {
            return "\u2014";
        }
        String[] parts = key.split("/", 3);
        if (parts.length < 3 || parts[1].equals("*")) { // an alert about an unknown job names no batch job
            return esc(key);
        }
        return "<a href=\"/job?cluster=" + esc(url(parts[0])) + "&amp;batch_id=" + esc(url(parts[1])) + "\">"
                + esc(key) + "</a>";
    }

    static String projectLink(String name) {
        return "<a href=\"/project?name=" + esc(url(name)) + "\">" + esc(name) + "</a>";
    }

    /** A whole page: title, navigation (bookkeeping for superusers), sign-out form, content. */
    static String page(String title, Frame frame, String content) {
        StringBuilder nav = new StringBuilder();
        if (frame != null) {
            nav.append("<nav aria-label=\"Console\"><ul>");
            link(nav, frame, "/", "Projects");
            link(nav, frame, "/holds", "Jobs in flight");
            link(nav, frame, "/failures", "Failures");
            link(nav, frame, "/alerts", "Alerts");
            if (frame.superuser()) {
                link(nav, frame, "/book", "Bookkeeping");
            }
            nav.append("</ul><form method=\"post\" action=\"/sign-out\" class=\"who\">")
                    .append("<span>").append(esc(frame.user())).append(" (").append(esc(frame.role()))
                    .append(")</span> ").append(csrfField(frame.csrf()))
                    .append("<button type=\"submit\">Sign out</button></form></nav>");
        }
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<title>" + esc(title) + " \u2014 alpsbridge ledger</title>"
                + "<link rel=\"stylesheet\" href=\"/console.css\"><link rel=\"icon\" href=\"/favicon.svg\""
                + " type=\"image/svg+xml\"></head><body>"
                + "<a class=\"skip\" href=\"#main\">Skip to content</a>"
                + "<header><p class=\"brand\">alpsbridge ledger</p>" + nav + "</header>"
                + "<main id=\"main\"><h1>" + esc(title) + "</h1>\n" + content + "\n</main></body></html>\n";
    }

    private static void link(StringBuilder nav, Frame frame, String href, String text) {
        nav.append("<li><a href=\"").append(href).append('"')
                .append(href.equals(frame.section()) ? " aria-current=\"page\"" : "").append('>')
                .append(esc(text)).append("</a></li>");
    }

    static String csrfField(String token) {
        return "<input type=\"hidden\" name=\"csrf\" value=\"" + esc(token) + "\">";
    }

    /**
     * What every page of a signed-in browser shows around its content.
     *
     * @param section the navigation entry that is current ({@code /}, {@code /holds}, ...)
     */
    record Frame(String user, String role, String csrf, String section) {
        boolean superuser() {
            return "superuser".equals(role);
        }
    }
}
