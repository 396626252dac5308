package org.alpsbridge.ledger.service.console;

import static org.alpsbridge.ledger.service.console.Html.esc;
import static org.alpsbridge.ledger.service.console.Html.hours;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.ProjectShare;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.service.api.Requests;
import org.alpsbridge.ledger.service.api.Route;

/**
 * The bookkeepers' forms: new project, grant, credit, withdraw, transfer, refund, adjust base, expire. Each goes
 * form → confirm page (a GET that changes nothing and says what will change) → POST → the result page
 * (303, so a reload repeats nothing). The blank form fixes a request id and the time of the movement; the
 * ledger applies a request id once (the same id with the same request returns the first answer), and the
 * session remembers what it applied, so a double click, a reload or a stale form sent again applies once.
 * The API's {@code superuser-only} rule decides who may apply; the forms are only offered to superusers.
 */
final class Bookkeeping {

    /** One form field: its name, label, input type and hint. */
    record Field(String name, String label, String type, String hint) {
    }

    /** What a bookkeeping operation asks for, how it previews and how it is applied. */
    enum Op {
        NEW_PROJECT("new-project", "New project", "Adds a project (a workgroup with its Unix group and Slurm account).",
                List.of(new Field("name", "Project name", "text", "e.g. chem"),
                        new Field("gid", "Unix group id", "number", "members of this group read the project"),
                        new Field("account", "Slurm account", "text", "optional; defaults to none"))),
        GRANT("grant", "Grant", "Grants hours to the project's allocation for a period, creating it.",
                List.of(new Field("project", "Project", "project", ""), new Field("resource", "Resource", "resource", ""),
                        new Field("hours", "Hours", "text", "core-hours (cpu) or GPU-hours (gpu)"),
                        new Field("from", "From (first day)", "date", "UTC"),
                        new Field("to", "To (first day after the period)", "date", "UTC; the period is [from, to)"),
                        new Field("category", "Category", "text", "optional, e.g. research"))),
        CREDIT("credit", "Credit", "Adds hours to the allocation active now.",
                List.of(new Field("project", "Project", "project", ""), new Field("resource", "Resource", "resource", ""),
                        new Field("hours", "Hours", "text", ""), new Field("reason", "Reason", "text", ""))),
        WITHDRAW("withdraw", "Withdraw", "Takes hours away from the allocation active now.",
                List.of(new Field("project", "Project", "project", ""), new Field("resource", "Resource", "resource", ""),
                        new Field("hours", "Hours", "text", ""), new Field("reason", "Reason", "text", ""),
                        new Field("force", "Force (may overdraw; flagged)", "checkbox", ""))),
        TRANSFER("transfer", "Transfer", "Moves hours between two projects' active allocations in one transaction.",
                List.of(new Field("from_project", "From project", "project", ""),
                        new Field("to_project", "To project", "project", ""),
                        new Field("resource", "Resource", "resource", ""), new Field("hours", "Hours", "text", ""))),
        REFUND("refund", "Refund", "Gives back part of a settled job's charge (never more than it stands charged).",
                List.of(new Field("cluster", "Cluster", "text", "default: default"),
                        new Field("batch_id", "Batch job id", "text", ""),
                        new Field("res_id", "ALPS reservation id", "number", ""),
                        new Field("minutes", "Minutes to refund", "number", "core-minutes, as the job was charged"),
                        new Field("reason", "Reason", "text", "e.g. node failure"))),
        ADJUST("adjust", "Adjust base", "Sets the granted amount of the active allocation (the central server's new"
                + " base budget); recorded as an ADJUST entry of the difference.",
                List.of(new Field("project", "Project", "project", ""), new Field("resource", "Resource", "resource", ""),
                        new Field("hours", "New base (hours)", "text", ""))),
        EXPIRE("expire", "Expire", "Withdraws what is left available of the active allocation: nothing more can be"
                + " reserved on it; holds in flight still settle.",
                List.of(new Field("project", "Project", "project", ""), new Field("resource", "Resource", "resource", ""))),
        SHARE("share", "Share", "Sets what the project may use of the cluster and its explicit members, as slurm-sync"
                + " gives them to Slurm; each change is recorded with you as its actor.",
                List.of(new Field("project", "Project", "project", ""),
                        new Field("description", "Description", "text", "the Slurm account's"),
                        new Field("organization", "Organisation", "text", "the Slurm account's"),
                        new Field("partitions", "Partitions", "text", "comma-separated; empty: all"),
                        new Field("caps", "Caps (GrpTRES)", "text", "e.g. node=4,cpu=128,gres/gpu=8; empty: none"),
                        new Field("members", "Explicit members", "text", "user names, comma-separated, besides the"
                                + " Unix group's"),
                        new Field("nodes", "Nodes bought", "text", "Slurm node list for its workgroup partition, e.g."
                                + " r00n[00-17]; empty: none")));

        final String slug;
        final String title;
        final String purpose;
        final List<Field> fields;

        Op(String slug, String title, String purpose, List<Field> fields) {
            this.slug = slug;
            this.title = title;
            this.purpose = purpose;
            this.fields = fields;
        }

        static Op of(String slug) {
            for (Op o : values()) {
                if (o.slug.equals(slug)) {
                    return o;
                }
            }
            return null;
        }
    }

    private Bookkeeping() {
    }

    /** The list of forms. */
    static String index(Html.Frame frame) {
        StringBuilder out = new StringBuilder("<p class=\"note\">Each form shows what will change and asks you to"
                + " confirm. A form sent twice is applied once.</p><ul class=\"forms\">");
        for (Op o : Op.values()) {
            out.append("<li><a href=\"/book/").append(o.slug).append("\">").append(esc(o.title)).append("</a>: ")
                    .append(esc(o.purpose)).append("</li>");
        }
        return Html.page("Bookkeeping", frame, out.append("</ul>").toString());
    }

    /** The blank (or prefilled) form; it fixes the request id and the time of the movement. */
    static String form(Calls api, Op op, WebRequest q, Html.Frame frame, String requestId, Instant now) {
        List<String> projects = op.fields.stream().anyMatch(f -> f.type().equals("project"))
                ? api.list(Route.PROJECTS, Project.class).stream().map(Project::name).toList() : List.of();
        StringBuilder out = new StringBuilder("<p>").append(esc(op.purpose)).append("</p>")
                .append("<form method=\"get\" action=\"/book/").append(op.slug).append("/confirm\" class=\"book\">")
                .append("<input type=\"hidden\" name=\"request\" value=\"").append(esc(requestId)).append("\">")
                .append("<input type=\"hidden\" name=\"at\" value=\"")
                .append(esc(q.param("at") == null ? now.toString() : q.param("at"))).append("\">");
        for (Field f : op.fields) {
            String id = "f-" + f.name();
            String value = q.param(f.name());
            out.append("<p>");
            switch (f.type()) {
                case "checkbox" -> out.append("<input type=\"checkbox\" id=\"").append(id).append("\" name=\"")
                        .append(f.name()).append("\" value=\"true\"").append("true".equals(value) ? " checked" : "")
                        .append("> <label for=\"").append(id).append("\">").append(esc(f.label())).append("</label>");
                case "project" -> {
                    out.append("<label for=\"").append(id).append("\">").append(esc(f.label())).append("</label> ")
                            .append("<select id=\"").append(id).append("\" name=\"").append(f.name()).append("\">");
                    for (String p : projects) {
                        out.append("<option").append(p.equals(value) ? " selected" : "").append('>').append(esc(p))
                                .append("</option>");
                    }
                    out.append("</select>");
                }
                case "resource" -> {
                    out.append("<label for=\"").append(id).append("\">").append(esc(f.label())).append("</label> ")
                            .append("<select id=\"").append(id).append("\" name=\"").append(f.name()).append("\">");
                    for (Resource r : Resource.values()) {
                        String v = r.name().toLowerCase(Locale.ROOT);
                        out.append("<option").append(v.equals(value) ? " selected" : "").append('>').append(v)
                                .append("</option>");
                    }
                    out.append("</select>");
                }
                default -> out.append("<label for=\"").append(id).append("\">").append(esc(f.label()))
                        .append("</label> <input id=\"").append(id).append("\" name=\"").append(f.name())
                        .append("\" type=\"").append(f.type()).append("\" value=\"").append(esc(value == null ? ""
                                : value)).append('"').append(f.hint().isEmpty() ? "" : " aria-describedby=\"" + id
                                + "-hint\"").append(optional(f) ? "" : " required").append('>');
            }
            if (!f.hint().isEmpty() && !f.type().equals("checkbox")) {
                out.append(" <span class=\"hint\" id=\"").append(id).append("-hint\">").append(esc(f.hint()))
                        .append("</span>");
            }
            out.append("</p>");
        }
        out.append("<p><button type=\"submit\">Review the change</button></p></form>");
        return Html.page(op.title, frame, out.toString());
    }

    private static boolean optional(Field f) {
        return f.name().equals("account") || f.name().equals("category") || f.name().equals("reason")
                || f.name().equals("cluster");
    }

    /** The confirm page: what will change, and the POST form that does it. Changes nothing itself. */
    static String confirm(Calls api, Op op, WebRequest q, Html.Frame frame) {
        Map<String, String> v = q.query();
        String change = preview(api, op, q);
        StringBuilder out = new StringBuilder("<h2>What will change</h2>").append(change)
                .append("<form method=\"post\" action=\"/book/").append(op.slug).append("\" class=\"book\">")
                .append(Html.csrfField(frame.csrf()));
        if (op == Op.EXPIRE) {
            // the amount confirmed is the amount withdrawn: carried in the form, not recomputed when applied
            Balance b = active(api, required(v, "project"), resource(v), instant(v.get("at"), "at"));
            out.append("<input type=\"hidden\" name=\"minutes\" value=\"").append(b.available()).append("\">");
        }
        List<String> names = new ArrayList<>(List.of("request", "at"));
        op.fields.forEach(f -> names.add(f.name()));
        StringBuilder back = new StringBuilder("/book/" + op.slug + "?");
        for (String n : names) {
            if (v.get(n) != null) {
                out.append("<input type=\"hidden\" name=\"").append(n).append("\" value=\"").append(esc(v.get(n)))
                        .append("\">");
                back.append(n).append('=').append(Html.url(v.get(n))).append('&');
            }
        }
        out.append("<p><button type=\"submit\">Confirm: ").append(esc(op.title.toLowerCase(Locale.ROOT)))
                .append("</button> <a href=\"").append(esc(back.substring(0, back.length() - 1)))
                .append("\">Change the form</a></p></form>");
        return Html.page("Confirm: " + op.title, frame, out.toString());
    }

    /** Carries out a confirmed form; the answer is a sentence for the result page. */
    static String apply(Calls api, Op op, Map<String, String> v, String requestId) {
        String rid = "console:" + requestId;
        Instant at = instant(v.get("at"), "at");
        return switch (op) {
            case NEW_PROJECT -> {
                Project p = api.post(Route.ADD_PROJECT, new Requests.AddProject(required(v, "name"),
                        (int) whole(v, "gid"), blank(v.get("account"))), Project.class);
                yield "Added project " + p.name() + " (Unix group " + p.gid() + ", account "
                        + (p.account() == null ? "none" : p.account()) + ").";
            }
            case GRANT -> describe("Granted", api.post(Route.GRANT, new Requests.Grant(required(v, "project"),
                    resource(v), minutes(v, "hours"), date(v, "from"), date(v, "to"), blank(v.get("category")), rid),
                    Balance.class));
            case CREDIT -> describe("Credited", api.post(Route.CREDIT, new Requests.Credit(required(v, "project"),
                    resource(v), at, minutes(v, "hours"), blank(v.get("reason")), rid), Balance.class));
            case WITHDRAW -> describe("Withdrew", api.post(Route.WITHDRAW, new Requests.Withdraw(
                    required(v, "project"), resource(v), at, minutes(v, "hours"), "true".equals(v.get("force")),
                    blank(v.get("reason")), rid), Balance.class));
            case TRANSFER -> {
                List<Balance> both = api.postForList(Route.TRANSFER, new Requests.Transfer(required(v, "from_project"),
                        required(v, "to_project"), resource(v), at, minutes(v, "hours"), rid), Balance.class);
                yield "Transferred " + hours(minutes(v, "hours")) + ": " + String.join("; ",
                        both.stream().map(b -> b.project() + " now has " + hours(b.available()) + " available").toList())
                        + ".";
            }
            case REFUND -> {
                Outcome o = api.post(Route.REFUND, new Requests.Refund(lookup(v), whole(v, "minutes"),
                        blank(v.get("reason")), rid), Outcome.class);
                if (!o.ok()) {
                    throw new Calls.Refused(422, o.message() == null ? o.decision().toString() : o.message());
                }
                yield "Refunded " + whole(v, "minutes") + " min to job " + o.key() + "; it now stands charged "
                        + o.charge() + " min.";
            }
            case ADJUST -> describe("Adjusted the base of", api.post(Route.ADJUST, new Requests.Adjust(
                    required(v, "project"), resource(v), at, minutes(v, "hours"), rid), Balance.class));
            case SHARE -> {
                ProjectShare stored = api.post(Route.SET_SHARE, share(v), ProjectShare.class);
                yield "Set the share of " + stored.project() + ": partitions " + (stored.partitions().isEmpty() ? "all"
                        : String.join(",", stored.partitions())) + ", caps " + (stored.caps().isEmpty() ? "none"
                        : stored.grpTres()) + ", explicit members " + (stored.members().isEmpty() ? "none"
                        : String.join(",", stored.members())) + ".";
            }
            case EXPIRE -> describe("Expired", api.post(Route.WITHDRAW, new Requests.Withdraw(required(v, "project"),
                    resource(v), at, whole(v, "minutes"), false, "expired (web console)", rid), Balance.class));
        };
    }

    /** The share a form says (the ledger refuses a bad field, naming it). */
    private static ProjectShare share(Map<String, String> v) {
        try {
            return new ProjectShare(required(v, "project"), v.get("description"), v.get("organization"),
                    list(v.get("partitions")), ProjectShare.parseCaps(v.get("caps")), list(v.get("members")), v.get("nodes"));
        } catch (org.alpsbridge.ledger.LedgerException e) {
            throw new Calls.Refused(422, e.getMessage());
        }
    }

    private static List<String> list(String text) {
        return text == null || text.isBlank() ? List.of() : List.of(text.strip().split("\\s*,\\s*"));
    }

    private static String describe(String what, Balance b) {
        return what + " " + b.project() + " " + b.resource().name().toLowerCase(Locale.ROOT) + " " + Html.day(b.from())
                + " to " + Html.day(b.to()) + ": granted " + hours(b.granted()) + ", available "
                + hours(b.available()) + ".";
    }

    // ---- previews: what the ledger holds now, and what it will hold after

    private static String preview(Calls api, Op op, WebRequest q) {
        Map<String, String> v = q.query();
        Instant at = instant(v.get("at"), "at");
        return switch (op) {
            case NEW_PROJECT -> {
                String name = required(v, "name");
                long gid = whole(v, "gid");
                if (api.list(Route.PROJECTS, Project.class).stream().anyMatch(p -> p.name().equals(name))) {
                    throw new Calls.Refused(422, "a project named '" + name + "' exists already");
                }
                yield "<p>A new project <strong>" + esc(name) + "</strong>, Unix group " + gid + ", Slurm account "
                        + esc(blank(v.get("account")) == null ? "none" : v.get("account"))
                        + ". It has no allocation until you grant one; members of group " + gid + " will see it.</p>";
            }
            case GRANT -> {
                String project = required(v, "project");
                long minutes = minutes(v, "hours");
                Instant from = date(v, "from");
                Instant to = date(v, "to");
                if (!from.isBefore(to)) {
                    throw new Calls.Refused(422, "the period must end after it starts");
                }
                Balance same = balances(api, project).stream().filter(b -> b.resource() == resource(v)
                        && b.from().equals(from) && b.to().equals(to)).findFirst().orElse(null);
                long before = same == null ? 0 : same.granted();
                long avail = same == null ? 0 : same.available();
                yield changes(project + " " + v.get("resource") + " " + Html.day(from) + " to " + Html.day(to)
                        + (same == null ? " (a new allocation)" : ""), before, before + minutes, avail, avail + minutes);
            }
            case CREDIT, WITHDRAW, ADJUST, EXPIRE -> {
                String project = required(v, "project");
                Balance b = active(api, project, resource(v), at);
                long delta = switch (op) {
                    case CREDIT -> minutes(v, "hours");
                    case WITHDRAW -> -minutes(v, "hours");
                    case ADJUST -> minutes(v, "hours") - b.granted();
                    default -> -Math.max(0, b.available());
                };
                if (op == Op.EXPIRE && delta == 0) {
                    throw new Calls.Refused(422, "nothing to expire: " + project + " has " + hours(b.available())
                            + " available");
                }
                StringBuilder s = new StringBuilder(changes(label(b), b.granted(), b.granted() + delta, b.available(),
                        b.available() + delta));
                if (op == Op.EXPIRE) {
                    s.append("<p>").append(hours(b.held())).append(" held by jobs in flight stays held and"
                                    + " settles as usual.</p>");
                }
                if (b.available() + delta < 0 && !(op == Op.WITHDRAW && "true".equals(v.get("force")))) {
                    s.append("<p class=\"warn\" role=\"alert\">This would leave a negative balance: the ledger will"
                            + " refuse it").append(op == Op.WITHDRAW ? " unless you tick Force." : ".").append("</p>");
                }
                yield s.toString();
            }
            case TRANSFER -> {
                long minutes = minutes(v, "hours");
                Balance from = active(api, required(v, "from_project"), resource(v), at);
                Balance to = active(api, required(v, "to_project"), resource(v), at);
                if (from.allocationId() == to.allocationId()) {
                    throw new Calls.Refused(422, "a transfer needs two different projects");
                }
                String s = changes(label(from), from.granted(), from.granted() - minutes, from.available(),
                        from.available() - minutes) + changes(label(to), to.granted(), to.granted() + minutes,
                        to.available(), to.available() + minutes);
                yield from.available() < minutes ? s + "<p class=\"warn\" role=\"alert\">" + esc(from.project())
                        + " has only " + hours(from.available()) + " available: the ledger will refuse this.</p>" : s;
            }
            case REFUND -> {
                Lookup l = lookup(v);
                long minutes = whole(v, "minutes");
                Reservation r = api.get(Route.RESERVATION, Reservation.class, "cluster", l.cluster(), "res_id",
                        Long.toString(l.resId()), "batch_id", l.batchId());
                if (minutes > r.charge()) {
                    throw new Calls.Refused(422, "a refund of " + minutes + " min exceeds what job " + r.key()
                            + " stands charged (" + r.charge() + " min); at most " + r.charge() + " min can be refunded");
                }
                yield "<p>Job " + Html.jobLink(r.key()) + " of " + esc(r.owner()) + " in project " + esc(r.project())
                        + " (" + esc(r.state()) + ") stands charged " + r.charge() + " min, " + r.refunded()
                        + " min refunded before. After: charged " + (r.charge() - minutes) + " min; the project's"
                        + " allocation gets " + minutes + " min back.</p>";
            }
            case SHARE -> {
                ProjectShare now = api.list(Route.SHARES, ProjectShare.class, "project", required(v, "project")).get(0);
                ProjectShare next = share(v);
                yield "<p>Project <strong>" + esc(now.project()) + "</strong>: partitions "
                        + esc(String.join(",", now.partitions())) + " &rarr; " + esc(String.join(",", next.partitions()))
                        + "; caps " + esc(now.grpTres()) + " &rarr; " + esc(next.grpTres()) + "; explicit members "
                        + esc(String.join(",", now.members())) + " &rarr; " + esc(String.join(",", next.members()))
                        + ". Slurm follows at the next slurm-sync.</p>";
            }
        };
    }

    private static String label(Balance b) {
        return b.project() + " " + b.resource().name().toLowerCase(Locale.ROOT) + " " + Html.day(b.from()) + " to "
                + Html.day(b.to());
    }

    private static String changes(String what, long grantedBefore, long grantedAfter, long availBefore,
                                  long availAfter) {
        return "<table class=\"change\"><caption>" + esc(what) + "</caption><thead><tr><th scope=\"col\"></th>"
                + "<th scope=\"col\" class=\"num\">Now</th><th scope=\"col\" class=\"num\">After</th></tr></thead><tbody>"
                + "<tr><th scope=\"row\">Granted</th><td class=\"num\">" + hours(grantedBefore) + "</td><td class=\"num\">"
                + hours(grantedAfter) + "</td></tr><tr><th scope=\"row\">Available</th><td class=\"num\">"
                + hours(availBefore) + "</td><td class=\"num\">" + hours(availAfter) + "</td></tr></tbody></table>";
    }

    private static List<Balance> balances(Calls api, String project) {
        return api.list(Route.BALANCES, Balance.class, "project", project);
    }

    private static Balance active(Calls api, String project, Resource resource, Instant at) {
        return balances(api, project).stream().filter(b -> b.resource() == resource && b.activeAt(at)).findFirst()
                .orElseThrow(() -> new Calls.Refused(422, project + " has no " + resource.name().toLowerCase(Locale.ROOT)
                        + " allocation active at " + Html.minute(at)));
    }

    // ---- fields

    private static String required(Map<String, String> v, String name) {
        String s = blank(v.get(name));
        if (s == null) {
            throw new Calls.Refused(400, name + " is required");
        }
        return s;
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    private static long whole(Map<String, String> v, String name) {
        return parse(v, name, "a whole number", Long::parseLong);
    }

    /** Hours as minutes, exactly: a fraction of a minute is refused, not rounded. */
    static long minutes(Map<String, String> v, String name) {
        BigDecimal m = parse(v, name, "a number of hours", s -> new BigDecimal(s).multiply(BigDecimal.valueOf(60)));
        try {
            return m.longValueExact();
        } catch (ArithmeticException e) {
            throw new Calls.Refused(400, name + "=" + v.get(name) + " is not a whole number of minutes");
        }
    }

    private static Resource resource(Map<String, String> v) {
        return parse(v, "resource", "cpu or gpu", s -> Resource.valueOf(s.toUpperCase(Locale.ROOT)));
    }

    private static Instant date(Map<String, String> v, String name) {
        return parse(v, name, "a date (YYYY-MM-DD)", s -> LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant());
    }

    private static Instant instant(String s, String name) {
        return parse(Map.of(name, s == null ? "" : s), name, "a time", Instant::parse);
    }

    private static Lookup lookup(Map<String, String> v) {
        return new Lookup(blank(v.get("cluster")), whole(v, "res_id"), required(v, "batch_id"));
    }

    private static <T> T parse(Map<String, String> v, String name, String expected, Function<String, T> parser) {
        String s = required(v, name);
        try {
            return parser.apply(s);
        } catch (DateTimeParseException | IllegalArgumentException | ArithmeticException e) {
            throw new Calls.Refused(400, name + "=" + s + " is not " + expected);
        }
    }
}
