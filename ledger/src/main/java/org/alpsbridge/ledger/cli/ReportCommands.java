package org.alpsbridge.ledger.cli;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Alert;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Usage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Read-only reports; {@code --json} for scripts. */
final class ReportCommands {

    private ReportCommands() {
    }

    abstract static class Report extends LedgerTask {
        @Option(names = "--json", description = "Print JSON.")
        boolean json;
    }

    static Map<String, Object> json(Balance b) {
        Map<String, Object> m = Json.object();
        m.put("allocation", b.allocationId());
        m.put("resource", b.resource().name().toLowerCase());
        m.put("unit", b.resource().unit());
        m.put("category", b.category());
        m.put("from", b.from().toString());
        m.put("expiry", b.to().toString());
        m.put("granted", b.granted());
        m.put("held", b.held());
        m.put("used", b.used());
        m.put("available", b.available());
        return m;
    }

    static Map<String, Object> json(Reservation r) {
        Map<String, Object> m = Json.object();
        m.put("key", r.key());
        m.put("batch_id", r.batchId());
        m.put("res_id", r.resId());
        m.put("project", r.project());
        m.put("user", r.owner());
        m.put("state", r.state().name());
        m.put("hold", r.hold());
        m.put("charge", r.charge());
        m.put("refunded", r.refunded());
        m.put("time_limit_s", r.limitSeconds());
        m.put("time_limit_source", r.limitSource());
        m.put("overrun_s", r.overrunSeconds());
        m.put("reason", r.reason());
        m.put("message", r.message());
        m.put("forced", r.forced());
        m.put("reserved_at", r.reservedAt().toString());
        m.put("confirmed_at", r.confirmedAt() == null ? null : r.confirmedAt().toString());
        m.put("released_at", r.releasedAt() == null ? null : r.releasedAt().toString());
        return m;
    }

    @Command(name = "balance", mixinStandardHelpOptions = true,
            description = {"Balances: granted, held (worst cases of reservations in flight), used, available and",
                    "expiry, per allocation. The top-level figures of --json are the CPU allocation active now."})
    static final class BalanceReport extends Report {
        @Parameters(paramLabel = "NAME", arity = "0..1", description = "Project (default: all).")
        String project;
        @Option(names = "--at", description = "Which allocation is 'active' (default now).")
        String at;
        @Option(names = "--by-cluster", description = {"Also what each cluster holds and used of each allocation",
                "(the balance itself is one number across clusters)."})
        boolean byCluster;

        /** Held and used per cluster, per allocation id. */
        private Map<Long, Map<String, long[]>> clusters(Ledger ledger) {
            Map<Long, Map<String, long[]>> out = new LinkedHashMap<>();
            if (byCluster) {
                for (Usage u : ledger.usage(project)) {
                    long[] sums = out.computeIfAbsent(u.allocation(), k -> new java.util.TreeMap<>())
                            .computeIfAbsent(u.cluster(), k -> new long[2]);
                    sums[0] += u.held();
                    sums[1] += u.charged();
                }
            }
            return out;
        }

        private static List<Object> clustersJson(Map<String, long[]> of) {
            List<Object> list = new ArrayList<>();
            if (of != null) {
                of.forEach((cluster, v) -> {
                    Map<String, Object> m = Json.object();
                    m.put("cluster", cluster);
                    m.put("held", v[0]);
                    m.put("used", v[1]);
                    list.add(m);
                });
            }
            return list;
        }

        @Override
        int run(Ledger ledger) {
            List<Balance> all = ledger.balances(project);
            if (project != null && all.isEmpty() && ledger.projects().stream()
                    .noneMatch(p -> p.name().equals(project) || project.equals(p.account()))) {
                throw new LedgerException("unknown project '" + project + "'");
            }
            Instant when = time(at);
            Map<String, List<Balance>> byProject = new LinkedHashMap<>();
            all.forEach(b -> byProject.computeIfAbsent(b.project(), k -> new ArrayList<>()).add(b));
            Map<Long, Map<String, long[]>> clusters = clusters(ledger);
            if (json) {
                List<Object> projects = new ArrayList<>();
                byProject.forEach((name, list) -> {
                    Map<String, Object> m = Json.object();
                    m.put("project", name);
                    Balance active = list.stream()
                            .filter(b -> b.resource() == Resource.CPU && b.activeAt(when)).findFirst().orElse(null);
                    m.put("unit", Resource.CPU.unit());
                    m.put("granted", active == null ? 0 : active.granted());
                    m.put("held", active == null ? 0 : active.held());
                    m.put("used", active == null ? 0 : active.used());
                    m.put("available", active == null ? 0 : active.available());
                    m.put("expiry", active == null ? null : active.to().toString());
                    m.put("allocations", list.stream().map(b -> {
                        Map<String, Object> a = ReportCommands.json(b);
                        if (byCluster) {
                            a.put("clusters", clustersJson(clusters.get(b.allocationId())));
                        }
                        return a;
                    }).toList());
                    projects.add(m);
                });
                out().println(Json.write(project != null && projects.size() == 1 ? projects.get(0) : projects));
                return 0;
            }
            out().printf("%-16s %-4s %-10s %-10s %-10s %12s %12s %12s %12s%n", "PROJECT", "RES", "FROM", "EXPIRY",
                    "CATEGORY", "GRANTED", "HELD", "USED", "AVAILABLE");
            for (Balance b : all) {
                out().printf("%-16s %-4s %-10s %-10s %-10s %12d %12d %12d %12d%s%n", b.project(),
                        b.resource().name().toLowerCase(), b.from().toString().substring(0, 10),
                        b.to().toString().substring(0, 10), b.category(), b.granted(), b.held(), b.used(),
                        b.available(), b.activeAt(when) ? "  (active)" : "");
                clusters.getOrDefault(b.allocationId(), Map.of()).forEach((cluster, v) -> out().printf(
                        "  cluster %-43s %12d %12d%n", cluster, v[0], v[1]));
            }
            return 0;
        }
    }

    static int reservations(Report r, List<Reservation> list) {
        if (r.json) {
            r.out().println(Json.write(list.stream().map(ReportCommands::json).toList()));
            return 0;
        }
        for (Reservation x : list) {
            r.out().printf("%-28s %-14s %-10s %-8s hold %8d charge %8d  %s%s%n", x.key(), x.state(), x.project(),
                    x.owner(), x.hold(), x.charge(), x.reason() == null ? "" : x.reason(),
                    x.forced() ? " FORCED" : "");
            if (x.message() != null && x.state() == org.alpsbridge.ledger.State.DENIED) {
                r.out().println("    " + x.message());
            }
        }
        return 0;
    }

    @Command(name = "holds", mixinStandardHelpOptions = true, description = "Reservations in flight (held or running).")
    static final class Holds extends Report {
        @Parameters(paramLabel = "NAME", arity = "0..1")
        String project;

        @Override
        int run(Ledger ledger) {
            return reservations(this, ledger.holds(project));
        }
    }

    @Command(name = "failures", mixinStandardHelpOptions = true, description = "Denied RESERVEs and why, newest first.")
    static final class Failures extends Report {
        @Parameters(paramLabel = "NAME", arity = "0..1")
        String project;
        @Option(names = "--limit", defaultValue = "50")
        int limit;

        @Override
        int run(Ledger ledger) {
            return reservations(this, ledger.failures(project, limit));
        }
    }

    @Command(name = "usage", mixinStandardHelpOptions = true,
            description = "Jobs, held and charged per user (--by-cluster: per user and cluster).")
    static final class UsageReport extends Report {
        @Parameters(paramLabel = "NAME", arity = "0..1")
        String project;
        @Option(names = "--by-cluster", description = "One line per user and cluster the jobs came from.")
        boolean byCluster;

        @Override
        int run(Ledger ledger) {
            // the ledger answers per user, cluster and allocation; without --by-cluster clusters are added up
            Map<List<Object>, long[]> rows = new LinkedHashMap<>();
            for (Usage u : ledger.usage(project)) {
                List<Object> key = byCluster ? List.of(u.project(), u.resource(), u.owner(), u.cluster())
                        : List.of(u.project(), u.resource(), u.owner());
                long[] sums = rows.computeIfAbsent(key, k -> new long[3]);
                sums[0] += u.jobs();
                sums[1] += u.held();
                sums[2] += u.charged();
            }
            if (json) {
                out().println(Json.write(rows.entrySet().stream().map(e -> {
                    Map<String, Object> m = Json.object();
                    m.put("project", e.getKey().get(0));
                    m.put("resource", ((Resource) e.getKey().get(1)).name().toLowerCase());
                    m.put("user", e.getKey().get(2));
                    if (byCluster) {
                        m.put("cluster", e.getKey().get(3));
                    }
                    m.put("jobs", e.getValue()[0]);
                    m.put("held", e.getValue()[1]);
                    m.put("charged", e.getValue()[2]);
                    return m;
                }).toList()));
                return 0;
            }
            out().printf("%-16s %-4s %-12s %s%8s %12s %12s%n", "PROJECT", "RES", "USER",
                    byCluster ? String.format("%-12s ", "CLUSTER") : "", "JOBS", "HELD", "CHARGED");
            rows.forEach((k, v) -> out().printf("%-16s %-4s %-12s %s%8d %12d %12d%n", k.get(0),
                    ((Resource) k.get(1)).name().toLowerCase(), k.get(2),
                    byCluster ? String.format("%-12s ", k.get(3)) : "", v[0], v[1], v[2]));
            return 0;
        }
    }

    @Command(name = "job", mixinStandardHelpOptions = true,
            description = "The statement of one batch job: its reservations and their journal entries.")
    static final class Job extends Report {
        @Parameters(paramLabel = "BATCH_ID")
        String batchId;
        @Option(names = "--cluster")
        String cluster;

        @Override
        int run(Ledger ledger) {
            List<Reservation> list = ledger.reservations(cluster, batchId);
            if (list.isEmpty()) {
                throw new LedgerException("no reservation of batch job " + batchId);
            }
            List<Object> docs = new ArrayList<>();
            for (Reservation r : list) {
                List<JournalEntry> entries = ledger.journal(r.key());
                if (json) {
                    Map<String, Object> m = json(r);
                    m.put("journal", entries.stream().map(e -> {
                        Map<String, Object> x = Json.object();
                        x.put("seq", e.seq());
                        x.put("kind", e.kind().name());
                        x.put("amount", e.amount());
                        x.put("actor", e.actor());
                        x.put("reason", e.reason());
                        x.put("at", e.at().toString());
                        return x;
                    }).toList());
                    docs.add(m);
                } else {
                    reservations(this, List.of(r));
                    for (JournalEntry e : entries) {
                        out().printf("    #%d %-12s %+10d  %s %s%n", e.seq(), e.kind(), e.amount(), e.at(),
                                e.reason() == null ? "" : e.reason());
                    }
                }
            }
            if (json) {
                out().println(Json.write(docs));
            }
            return 0;
        }
    }

    @Command(name = "alerts", mixinStandardHelpOptions = true,
            description = "Forced entries, conflicting duplicates, unknown CONFIRM/RELEASE, orphans: newest first.")
    static final class Alerts extends Report {
        @Option(names = "--limit", defaultValue = "50")
        int limit;

        @Override
        int run(Ledger ledger) {
            List<Alert> alerts = ledger.alerts(limit);
            if (json) {
                out().println(Json.write(alerts.stream().map(a -> {
                    Map<String, Object> m = Json.object();
                    m.put("id", a.id());
                    m.put("at", a.at().toString());
                    m.put("kind", a.kind());
                    m.put("key", a.key());
                    m.put("project", a.project());
                    m.put("message", a.message());
                    return m;
                }).toList()));
                return 0;
            }
            alerts.forEach(a -> out().println(a.at() + " " + a.kind() + " " + a.message()));
            return 0;
        }
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Recompute every balance from the journal; exit 1 and list any disagreement.")
    static final class Check extends LedgerTask {
        @Override
        boolean verifyOnOpen() {
            return false;
        }

        @Override
        int run(Ledger ledger) {
            // opening the ledger already refuses an inconsistent one; this reports it explicitly
            List<String> problems = ledger.check();
            problems.forEach(p -> err().println(p));
            out().println(problems.isEmpty() ? "ledger consistent: balances equal the journal"
                    : problems.size() + " problem(s)");
            return problems.isEmpty() ? 0 : 1;
        }
    }

    @Command(name = "replay", mixinStandardHelpOptions = true,
            description = {"Rebuild this ledger (--db) in a new, empty one by re-applying its journal, and compare",
                    "every balance: exit 0 when the journal alone reproduces them all, 1 with each difference on",
                    "stderr. Also moves a ledger between stores, e.g. from SQLite to a site-wide PostgreSQL.",
                    "Reads one snapshot, so the source may stay in use; the copy takes no later events."})
    static final class Replay extends Report {
        @Option(names = "--into", required = true, paramLabel = "URL",
                description = "The empty ledger to build: sqlite:PATH or jdbc:postgresql://HOST:PORT/DB?user=U.")
        String into;

        @Override
        int run(Ledger ledger) {
            Ledger.Replay r;
            try (Ledger target = LedgerCommand.open(into, true)) {
                r = ledger.replayInto(target);
            }
            r.problems().forEach(p -> err().println(p));
            if (json) {
                Map<String, Object> m = Json.object();
                m.put("projects", r.projects());
                m.put("allocations", r.allocations());
                m.put("reservations", r.reservations());
                m.put("entries", r.entries());
                m.put("identical", r.problems().isEmpty());
                m.put("problems", r.problems());
                out().println(Json.write(m));
            } else {
                out().printf("replayed %d projects, %d allocations, %d reservations, %d journal entries: %s%n",
                        r.projects(), r.allocations(), r.reservations(), r.entries(), r.problems().isEmpty()
                                ? "every balance identical" : r.problems().size() + " difference(s)");
            }
            return r.problems().isEmpty() ? 0 : 1;
        }
    }
}
