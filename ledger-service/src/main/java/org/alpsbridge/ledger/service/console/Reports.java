package org.alpsbridge.ledger.service.console;

import static org.alpsbridge.ledger.service.console.Html.esc;
import static org.alpsbridge.ledger.service.console.Html.hours;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.alpsbridge.ledger.Alert;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Usage;
import org.alpsbridge.ledger.service.api.Route;

/**
 * The read pages: projects with their balances, one project (allocations, burn-down, usage by user, its jobs),
 * jobs in flight, failures, alerts and one job's statement. Each reads through {@link Calls}, so a standard
 * user's pages hold only what the API lets that user read.
 */
final class Reports {

    private Reports() {
    }

    /** One row of the projects table: a project and its active allocation of one resource (or none). */
    record Row(Project project, Balance active) {
        /** The order of a column; rows without an active allocation come last in figures and expiry. */
        static Comparator<Row> by(String column) {
            return switch (column) {
                case "group" -> Comparator.comparingInt(r -> r.project().gid());
                case "account" -> Comparator.comparing(r -> r.project().account() == null ? "" : r.project().account());
                case "available" -> Comparator.comparing(r -> r.active() == null ? null : r.active().available(),
                        Comparator.nullsLast(Comparator.naturalOrder()));
                case "used" -> Comparator.comparing(r -> r.active() == null ? null : r.active().used(),
                        Comparator.nullsLast(Comparator.naturalOrder()));
                case "expiry" -> Comparator.comparing(r -> r.active() == null ? null : r.active().to(),
                        Comparator.nullsLast(Comparator.naturalOrder()));
                default -> Comparator.comparing(r -> r.project().name());
            };
        }
    }

    static final List<String> COLUMNS = List.of("name", "group", "account", "available", "used", "expiry");

    static String projects(Calls api, WebRequest q, Html.Frame frame, Instant now) {
        List<Project> projects = api.list(Route.PROJECTS, Project.class);
        List<Balance> balances = api.list(Route.BALANCES, Balance.class);
        List<Row> rows = new ArrayList<>();
        for (Project p : projects) {
            List<Balance> active = balances.stream()
                    .filter(b -> b.project().equals(p.name()) && b.activeAt(now)).toList();
            if (active.isEmpty()) {
                rows.add(new Row(p, null));
            }
            active.forEach(b -> rows.add(new Row(p, b)));
        }
        String filter = q.param("q");
        List<Row> shown = rows.stream().filter(r -> matches(r, filter)).toList();
        String sort = q.param("sort") != null && COLUMNS.contains(q.param("sort")) ? q.param("sort") : "name";
        boolean descending = "desc".equals(q.param("dir"));
        Comparator<Row> order = Row.by(sort);
        shown = shown.stream().sorted(descending ? order.reversed() : order).toList();

        StringBuilder out = new StringBuilder();
        out.append("<form method=\"get\" action=\"/\" role=\"search\" class=\"filter\">")
                .append("<label for=\"q\">Filter by project, account or group</label> ")
                .append("<input id=\"q\" name=\"q\" type=\"search\" value=\"").append(esc(filter == null ? "" : filter))
                .append("\"><input type=\"hidden\" name=\"sort\" value=\"").append(esc(sort))
                .append("\"><input type=\"hidden\" name=\"dir\" value=\"").append(descending ? "desc" : "asc")
                .append("\"> <button type=\"submit\">Filter</button></form>");
        out.append("<p class=\"note\">").append(shown.size()).append(" of ").append(rows.size())
                .append(" rows. Figures in hours (core-hours for cpu, GPU-hours for gpu) of the allocation active"
                        + " today; available = granted \u2212 held \u2212 used.")
                .append(frame.role().equals("standard") ? " You see the projects of your Unix groups." : "")
                .append("</p>");
        out.append("<table class=\"projects\"><caption>Projects and their active allocations</caption><thead><tr>");
        header(out, "Project", "name", sort, descending, filter);
        header(out, "Group", "group", sort, descending, filter);
        header(out, "Account", "account", sort, descending, filter);
        out.append("<th scope=\"col\">Allocation</th><th scope=\"col\" class=\"num\">Granted</th>")
                .append("<th scope=\"col\" class=\"num\">Held</th>");
        header(out, "Used", "used", sort, descending, filter);
        header(out, "Available", "available", sort, descending, filter);
        header(out, "Expiry", "expiry", sort, descending, filter);
        out.append("<th scope=\"col\">Use of the grant</th></tr></thead><tbody>");
        for (Row r : shown) {
            Balance b = r.active();
            out.append("<tr><th scope=\"row\">").append(Html.projectLink(r.project().name()))
                    .append(r.project().active() ? "" : " <span class=\"tag\">inactive</span>").append("</th><td>")
                    .append(r.project().gid()).append("</td><td>").append(esc(r.project().account())).append("</td>");
            if (b == null) {
                out.append("<td colspan=\"6\">no active allocation</td><td></td></tr>");
                continue;
            }
            out.append("<td>").append(esc(b.resource().name().toLowerCase(Locale.ROOT)))
                    .append(b.category() == null ? "" : " " + esc(b.category())).append(", ")
                    .append(Html.date(b.from())).append(" to ").append(Html.date(b.to())).append("</td>")
                    .append("<td class=\"num\">").append(hours(b.granted())).append("</td>")
                    .append("<td class=\"num\">").append(hours(b.held())).append("</td>")
                    .append("<td class=\"num\">").append(hours(b.used())).append("</td>")
                    .append("<td class=\"num").append(b.available() < 0 ? " negative" : "").append("\">")
                    .append(hours(b.available())).append("</td>")
                    .append("<td>").append(Html.date(b.to())).append("</td>")
                    .append("<td>").append(bar(b)).append("</td></tr>");
        }
        out.append("</tbody></table>");
        if (shown.isEmpty()) {
            out.append("<p>No project to show.</p>");
        }
        return Html.page("Projects", frame, out.toString());
    }

    private static boolean matches(Row r, String filter) {
        if (filter == null) {
            return true;
        }
        String f = filter.toLowerCase(Locale.ROOT);
        return r.project().name().toLowerCase(Locale.ROOT).contains(f)
                || (r.project().account() != null && r.project().account().toLowerCase(Locale.ROOT).contains(f))
                || Integer.toString(r.project().gid()).equals(f);
    }

    private static void header(StringBuilder out, String label, String column, String sort, boolean descending,
                               String filter) {
        boolean current = column.equals(sort);
        String dir = current && !descending ? "desc" : "asc";
        out.append("<th scope=\"col\"").append(column.equals("available") || column.equals("used")
                        ? " class=\"num\"" : "")
                .append(current ? " aria-sort=\"" + (descending ? "descending" : "ascending") + "\"" : "")
                .append("><a href=\"/?sort=").append(column).append("&amp;dir=").append(dir)
                .append(filter == null ? "" : "&amp;q=" + esc(Html.url(filter))).append("\">").append(esc(label))
                .append(current ? (descending ? " \u25bc" : " \u25b2") : "").append("</a></th>");
    }

    /** Used, held and available as shares of the grant: a bar, and the same as text for every reader. */
    static String bar(Balance b) {
        long granted = Math.max(1, b.granted());
        long used = Math.max(0, Math.min(b.used(), granted));
        long held = Math.max(0, Math.min(b.held(), granted - used));
        int w = 160;
        int uw = (int) Math.round((double) used * w / granted);
        int hw = (int) Math.round((double) held * w / granted);
        long pct = Math.round(100.0 * b.used() / granted);
        long heldPct = Math.round(100.0 * b.held() / granted);
        String text = pct + "% used, " + heldPct + "% held";
        return "<svg class=\"bar\" width=\"" + w + "\" height=\"14\" viewBox=\"0 0 " + w + " 14\" aria-hidden=\"true\">"
                + "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"14\" fill=\"#e3f0e6\" stroke=\"#5b7f63\"/>"
                + "<rect x=\"0\" y=\"0\" width=\"" + uw + "\" height=\"14\" fill=\"#1f5f99\"/>"
                + "<rect x=\"" + uw + "\" y=\"0\" width=\"" + hw + "\" height=\"14\" fill=\"#d98c1f\"/></svg>"
                + " <span class=\"bartext\">" + esc(text) + "</span>";
    }

    static String project(Calls api, WebRequest q, Html.Frame frame, Instant now) {
        String name = q.param("name");
        if (name == null) {
            throw new Calls.Refused(400, "which project? (/project?name=NAME)");
        }
        List<Balance> balances = api.list(Route.BALANCES, Balance.class, "project", name); // 403 for others' groups
        Project p = api.list(Route.PROJECTS, Project.class).stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new Calls.Refused(404, "no project named '" + name + "'"));
        StringBuilder out = new StringBuilder();
        out.append("<dl class=\"facts\"><dt>Unix group</dt><dd>").append(p.gid()).append("</dd><dt>Account</dt><dd>")
                .append(p.account() == null ? "\u2014" : esc(p.account())).append("</dd><dt>State</dt><dd>")
                .append(p.active() ? "active" : "inactive").append("</dd></dl>");

        Balance chosen = choose(balances, q.param("allocation"), now);
        out.append("<h2>Allocations</h2>");
        if (balances.isEmpty()) {
            out.append("<p>No allocation yet.</p>");
        } else {
            out.append("<table><caption>Allocations of ").append(esc(name)).append(" (hours)</caption><thead><tr>")
                    .append("<th scope=\"col\">Period</th><th scope=\"col\">Resource</th><th scope=\"col\">Category</th>")
                    .append("<th scope=\"col\" class=\"num\">Granted</th><th scope=\"col\" class=\"num\">Held</th>")
                    .append("<th scope=\"col\" class=\"num\">Used</th><th scope=\"col\" class=\"num\">Available</th>")
                    .append("<th scope=\"col\">Burn-down</th></tr></thead><tbody>");
            for (Balance b : balances) {
                boolean isChosen = b.allocationId() == chosen.allocationId();
                out.append("<tr><th scope=\"row\">").append(Html.date(b.from())).append(" to ")
                        .append(Html.date(b.to())).append(b.activeAt(now) ? " (active)" : "").append("</th><td>")
                        .append(esc(b.resource().name().toLowerCase(Locale.ROOT))).append("</td><td>")
                        .append(esc(b.category())).append("</td><td class=\"num\">").append(hours(b.granted()))
                        .append("</td><td class=\"num\">").append(hours(b.held())).append("</td><td class=\"num\">")
                        .append(hours(b.used())).append("</td><td class=\"num\">").append(hours(b.available()))
                        .append("</td><td>").append(isChosen ? "shown below" : "<a href=\"/project?name="
                                + esc(Html.url(name)) + "&amp;allocation=" + b.allocationId() + "\">show</a>")
                        .append("</td></tr>");
            }
            out.append("</tbody></table>");
            List<JournalEntry> history = api.list(Route.JOURNAL, JournalEntry.class, "allocation",
                    Long.toString(chosen.allocationId()));
            out.append("<h2>Burn-down, ").append(esc(chosen.resource().name().toLowerCase(Locale.ROOT))).append(' ')
                    .append(Html.date(chosen.from())).append(" to ").append(Html.date(chosen.to()))
                    .append("</h2><figure>").append(BurnDown.svg(chosen, history, now))
                    .append("<figcaption>Available balance after each journal entry; the dashed line is an even use"
                            + " of the ")
                    .append(hours(chosen.granted())).append(" granted up to the expiry on ")
                    .append(Html.date(chosen.to())).append(".</figcaption></figure>");
            journal(out, history);
        }

        List<Usage> usage = perUser(api.list(Route.USAGE, Usage.class, "project", name));
        out.append("<h2>Usage by user</h2>");
        if (usage.isEmpty()) {
            out.append("<p>No job has been charged or held yet.</p>");
        } else {
            out.append("<table><caption>Jobs, holds and charges per user (hours)</caption><thead><tr>")
                    .append("<th scope=\"col\">User</th><th scope=\"col\">Resource</th><th scope=\"col\" class=\"num\">")
                    .append("Jobs</th><th scope=\"col\" class=\"num\">Held</th><th scope=\"col\" class=\"num\">")
                    .append("Charged</th></tr></thead><tbody>");
            for (Usage u : usage) {
                out.append("<tr><th scope=\"row\">").append(esc(u.owner())).append("</th><td>")
                        .append(esc(u.resource().name().toLowerCase(Locale.ROOT))).append("</td><td class=\"num\">")
                        .append(u.jobs()).append("</td><td class=\"num\">").append(hours(u.held()))
                        .append("</td><td class=\"num\">").append(hours(u.charged())).append("</td></tr>");
            }
            out.append("</tbody></table>");
        }
        out.append("<h2>Jobs in flight</h2>")
                .append(reservations(api.list(Route.HOLDS, Reservation.class, "project", name), false));
        out.append("<h2>Recent failures</h2>").append(reservations(api.list(Route.FAILURES, Reservation.class,
                "project", name, "limit", "20"), true));
        return Html.page("Project " + name, frame, out.toString());
    }

    /**
     * The ledger answers per user, cluster and allocation; this page shows one row per user and resource, as
     * {@code ledger usage} does without {@code --by-cluster}.
     */
    private static List<Usage> perUser(List<Usage> rows) {
        Map<List<Object>, Usage> sums = new LinkedHashMap<>();
        for (Usage u : rows) {
            sums.merge(List.of(u.owner(), u.resource()), u, (a, b) -> new Usage(a.project(), a.resource(),
                    a.owner(), a.jobs() + b.jobs(), a.held() + b.held(), a.charged() + b.charged(), null, 0));
        }
        return List.copyOf(sums.values());
    }

    /** The allocation asked for, else the active one (cpu first), else the latest. */
    private static Balance choose(List<Balance> balances, String asked, Instant now) {
        if (asked != null) {
            Optional<Balance> b = balances.stream().filter(x -> Long.toString(x.allocationId()).equals(asked))
                    .findFirst();
            if (b.isPresent()) {
                return b.get();
            }
        }
        return balances.stream().filter(b -> b.activeAt(now))
                .min(Comparator.comparing(Balance::resource))
                .orElseGet(() -> balances.stream().max(Comparator.comparing(Balance::from)).orElse(null));
    }

    private static void journal(StringBuilder out, List<JournalEntry> history) {
        int shown = Math.min(history.size(), 100);
        long[] after = new long[history.size()];
        long sum = 0;
        for (int i = 0; i < history.size(); i++) {
            sum += history.get(i).amount();
            after[i] = sum;
        }
        out.append("<table class=\"journal\"><caption>Journal of this allocation, newest first").append(
                shown < history.size() ? " (last " + shown + " of " + history.size() + ")" : "")
                .append("</caption><thead><tr><th scope=\"col\">#</th><th scope=\"col\">When</th>")
                .append("<th scope=\"col\">Entry</th><th scope=\"col\" class=\"num\">Amount</th>")
                .append("<th scope=\"col\" class=\"num\">Available after</th><th scope=\"col\">Job</th>")
                .append("<th scope=\"col\">By</th><th scope=\"col\">Reason</th></tr></thead><tbody>");
        for (int i = history.size() - 1; i >= history.size() - shown; i--) {
            JournalEntry e = history.get(i);
            out.append("<tr><td>").append(e.allocationSeq()).append("</td><td>").append(Html.time(e.at()))
                    .append("</td><th scope=\"row\">").append(esc(e.kind())).append("</th><td class=\"num\">")
                    .append(hours(e.amount())).append("</td><td class=\"num\">").append(hours(after[i]))
                    .append("</td><td>").append(e.reservationKey() == null ? "" : Html.jobLink(e.reservationKey()))
                    .append("</td><td>").append(esc(e.actor())).append("</td><td>").append(esc(e.reason()))
                    .append("</td></tr>");
        }
        out.append("</tbody></table>");
    }

    /** A table of reservations: holds in flight, or failures with the reason the user saw. */
    static String reservations(List<Reservation> list, boolean failures) {
        if (list.isEmpty()) {
            return "<p>None.</p>";
        }
        StringBuilder out = new StringBuilder("<table><caption>").append(failures
                        ? "Denied reservations, newest first, with what the user was told"
                        : "Holds in flight, oldest first (hours)")
                .append("</caption><thead><tr><th scope=\"col\">Job</th><th scope=\"col\">Project</th>")
                .append("<th scope=\"col\">User</th><th scope=\"col\">When</th>");
        out.append(failures ? "<th scope=\"col\">Reason</th><th scope=\"col\">Message</th>"
                : "<th scope=\"col\">State</th><th scope=\"col\" class=\"num\">Held</th><th scope=\"col\""
                + " class=\"num\">Limit (min)</th>");
        out.append("</tr></thead><tbody>");
        for (Reservation r : list) {
            out.append("<tr><th scope=\"row\">").append(Html.jobLink(r.key())).append("</th><td>")
                    .append(r.project() == null ? "" : Html.projectLink(r.project())).append("</td><td>")
                    .append(esc(r.owner())).append("</td><td>").append(Html.time(r.reservedAt())).append("</td>");
            if (failures) {
                out.append("<td>").append(esc(r.reason())).append("</td><td>").append(esc(r.message())).append("</td>");
            } else {
                out.append("<td>").append(esc(r.state())).append(r.forced() ? " (forced)" : "")
                        .append("</td><td class=\"num\">").append(hours(r.hold())).append("</td><td class=\"num\">")
                        .append(r.limitSeconds() / 60).append("</td>");
            }
            out.append("</tr>");
        }
        return out.append("</tbody></table>").toString();
    }

    static String holds(Calls api, Html.Frame frame) {
        return Html.page("Jobs in flight", frame, reservations(api.list(Route.HOLDS, Reservation.class), false));
    }

    static String failures(Calls api, Html.Frame frame) {
        return Html.page("Failures", frame, reservations(api.list(Route.FAILURES, Reservation.class, "limit", "100"),
                true));
    }

    static String alerts(Calls api, Html.Frame frame) {
        List<Alert> alerts = api.list(Route.ALERTS, Alert.class, "limit", "100");
        StringBuilder out = new StringBuilder("<p class=\"note\">Forced charges, conflicting duplicates, unknown"
                + " releases and orphans charged in full: each wants a bookkeeper's look.</p>");
        if (alerts.isEmpty()) {
            return Html.page("Alerts", frame, out.append("<p>None.</p>").toString());
        }
        out.append("<table><caption>Alerts, newest first</caption><thead><tr><th scope=\"col\">When</th>")
                .append("<th scope=\"col\">Kind</th><th scope=\"col\">Job</th><th scope=\"col\">Project</th>")
                .append("<th scope=\"col\">Message</th></tr></thead><tbody>");
        for (Alert a : alerts) {
            out.append("<tr><td>").append(Html.time(a.at())).append("</td><th scope=\"row\">").append(esc(a.kind()))
                    .append("</th><td>").append(Html.jobLink(a.key())).append("</td><td>")
                    .append(a.project() == null ? "" : Html.projectLink(a.project())).append("</td><td>")
                    .append(esc(a.message())).append("</td></tr>");
        }
        return Html.page("Alerts", frame, out.append("</tbody></table>").toString());
    }

    /** One job's statement: its reservations and every journal entry of each. */
    static String job(Calls api, WebRequest q, Html.Frame frame) {
        String batch = q.param("batch_id");
        if (batch == null) {
            throw new Calls.Refused(400, "which job? (/job?cluster=C&batch_id=B)");
        }
        List<Reservation> job = api.list(Route.JOB, Reservation.class, "cluster", q.param("cluster"),
                "batch_id", batch);
        StringBuilder out = new StringBuilder();
        if (job.isEmpty()) {
            out.append("<p>The ledger has no reservation of this job.</p>");
        }
        for (Reservation r : job) {
            out.append("<h2>Reservation ").append(esc(r.key())).append("</h2><dl class=\"facts\">");
            fact(out, "Project", r.project() == null ? "\u2014" : Html.projectLink(r.project()));
            fact(out, "User", esc(r.owner()));
            fact(out, "State", esc(r.state()) + (r.forced() ? " (forced, flagged)" : ""));
            fact(out, "Held (worst case)", hours(r.hold()) + " (" + r.hold() + " min)");
            fact(out, "Charged", hours(r.charge()) + " (" + r.charge() + " min)");
            fact(out, "Refunded", hours(r.refunded()) + " (" + r.refunded() + " min)");
            fact(out, "Time limit", r.limitSeconds() / 60 + " min (" + esc(r.limitSource()) + ")");
            fact(out, "Reserved", Html.time(r.reservedAt()));
            fact(out, "Confirmed", Html.time(r.confirmedAt()));
            fact(out, "Released", Html.time(r.releasedAt()));
            if (r.reason() != null) {
                fact(out, "Reason", esc(r.reason()));
            }
            if (r.message() != null) {
                fact(out, "Message", esc(r.message()));
            }
            out.append("</dl>");
            List<JournalEntry> entries = api.list(Route.JOURNAL, JournalEntry.class, "key", r.key());
            if (entries.isEmpty()) {
                out.append("<p>No journal entry (nothing was held or charged).</p>");
                continue;
            }
            out.append("<table><caption>Journal entries of ").append(esc(r.key())).append("</caption><thead><tr>")
                    .append("<th scope=\"col\">#</th><th scope=\"col\">When</th><th scope=\"col\">Entry</th>")
                    .append("<th scope=\"col\" class=\"num\">Amount (min)</th><th scope=\"col\">By</th>")
                    .append("<th scope=\"col\">Reason</th></tr></thead><tbody>");
            for (JournalEntry e : entries) {
                out.append("<tr><td>").append(e.seq()).append("</td><td>").append(Html.time(e.at()))
                        .append("</td><th scope=\"row\">").append(esc(e.kind())).append("</th><td class=\"num\">")
                        .append(e.amount()).append("</td><td>").append(esc(e.actor())).append("</td><td>")
                        .append(esc(e.reason())).append("</td></tr>");
            }
            out.append("</tbody></table>");
        }
        return Html.page("Job " + batch, frame, out.toString());
    }

    private static void fact(StringBuilder out, String term, String html) {
        out.append("<dt>").append(esc(term)).append("</dt><dd>").append(html).append("</dd>");
    }
}
