package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Outcome.Decision;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.Weights;

/**
 * Projects, allocations and credit: the administrative writes (grant, credit, withdraw, transfer,
 * base adjustment, refund) and partition weights. Each is one transaction, idempotent by its request id.
 */
final class Accounts {

    private final Executor executor;
    private final Lookups lookups;
    private final Journal journal;

    Accounts(Executor executor, Lookups lookups, Journal journal) {
        this.executor = executor;
        this.lookups = lookups;
        this.journal = journal;
    }

    Project addProject(String name, int gid, String account) {
        if (name == null || !name.matches("[A-Za-z0-9_.@-]{1,64}")) {
            throw new LedgerException("project name '" + name + "' must be 1-64 of letters, digits and _.@-");
        }
        if (gid < 0) {
            throw new LedgerException("gid must not be negative, got " + gid);
        }
        String acct = account == null || account.isBlank() ? null : account.trim();
        return executor.write(c -> {
            Project existing = Sql.one(c, "SELECT id, name, gid, account, active FROM project WHERE name = ? OR gid = ?"
                    + " OR account = ? OR name = ? OR account = ?", Lookups::project, name, gid, acct, acct, name);
            if (existing != null) {
                throw new LedgerException("project " + name + " (gid " + gid + (acct == null ? "" : ", account " + acct)
                        + ") clashes with existing project " + existing.name() + " (gid " + existing.gid()
                        + (existing.account() == null ? "" : ", account " + existing.account()) + ")");
            }
            long id = Sql.returning(c, "INSERT INTO project (name, gid, account, active, created_at) VALUES (?, ?, ?, 1, ?)"
                    + " RETURNING id", name, gid, acct, Journal.now());
            return new Project(id, name, gid, acct, true);
        });
    }

    List<Project> projects() {
        return executor.read(c -> Sql.list(c, "SELECT id, name, gid, account, active FROM project ORDER BY name",
                Lookups::project));
    }

    Balance grant(String project, Resource resource, long minutes, Instant from, Instant to, String category,
                         String requestId) {
        Objects.requireNonNull(resource, "resource");
        if (minutes < 0) {
            throw new LedgerException("a grant must not be negative, got " + minutes + " minutes");
        }
        bounded(minutes, "a grant");
        if (from == null || to == null || !to.isAfter(from)) {
            throw new LedgerException("allocation period must end after it starts: [" + from + ", " + to + ")");
        }
        String cat = category == null || category.isBlank() ? "research" : category;
        long start = from.getEpochSecond();
        long end = to.getEpochSecond();
        return executor.write(c -> {
            Project p = lookups.requireProject(c, project);
            boolean apply = journal.firstTime(c, requestId, "grant|" + p.name() + "|" + resource + "|" + minutes + "|" + start
                    + "|" + end + "|" + cat, Journal.now());
            Alloc a = lookups.allocationFor(c, p.id(), resource, start, end);
            if (a == null) {
                Long clash = Sql.one(c, "SELECT id FROM allocation WHERE project_id = ? AND resource = ?"
                        + " AND starts_at < ? AND ends_at > ?", rs -> rs.getLong(1), p.id(), resource.name(), end, start);
                if (clash != null) {
                    throw new LedgerException("project " + p.name() + ": period [" + from + ", " + to
                            + ") overlaps its " + resource.name().toLowerCase() + " allocation #" + clash
                            + "; periods of one project and resource must not overlap (adjacent is fine)");
                }
                long id = Sql.returning(c, "INSERT INTO allocation (project_id, resource, category, starts_at, ends_at)"
                        + " VALUES (?, ?, ?, ?, ?) RETURNING id", p.id(), resource.name(), cat, start, end);
                a = lookups.lockAllocation(c, id);
            }
            if (apply && minutes > 0) {
                journal.append(c, a.id(), Kind.CREDIT, minutes, null, "admin", "grant", Journal.now());
                a = lookups.lockAllocation(c, a.id());
            }
            return a.balance();
        });
    }

    Balance credit(String project, Resource resource, Instant at, long minutes, String reason,
                          String requestId) {
        positive(minutes, "a credit");
        long t = at.getEpochSecond();
        return executor.write(c -> {
            Alloc a = lookups.requireActive(c, project, resource, t);
            if (journal.firstTime(c, requestId, "credit|" + a.id() + "|" + minutes, Journal.now())) {
                journal.append(c, a.id(), Kind.CREDIT, minutes, null, "admin", reason == null ? "credit" : reason, Journal.now());
            }
            return lookups.lockAllocation(c, a.id()).balance();
        });
    }

    Balance withdraw(String project, Resource resource, Instant at, long minutes, boolean force,
                            String reason, String requestId) {
        positive(minutes, "a withdrawal");
        long t = at.getEpochSecond();
        return executor.write(c -> {
            Alloc a = lookups.requireActive(c, project, resource, t);
            if (journal.firstTime(c, requestId, "withdraw|" + a.id() + "|" + minutes + "|" + force, Journal.now())) {
                withdrawFrom(c, a, minutes, force, reason == null ? "withdraw" : reason);
            }
            return lookups.lockAllocation(c, a.id()).balance();
        });
    }

    private void withdrawFrom(Connection c, Alloc a, long minutes, boolean force, String reason) throws SQLException {
        if (minutes > a.available() && !force) {
            throw new LedgerException("project " + a.project() + ": cannot withdraw " + minutes + " "
                    + a.resource().unit() + ", only " + a.available() + " available (" + a.figures()
                    + "); use --force to overdraw");
        }
        journal.append(c, a.id(), Kind.WITHDRAW, -minutes, null, "admin", reason, Journal.now());
        if (minutes > a.available()) {
            journal.alert(c, Journal.now(), "FORCED_WITHDRAW", null, a.project(), "withdrawal of " + minutes + " leaves project "
                    + a.project() + " overdrawn by " + (minutes - a.available()) + "; RESERVEs are denied until it is back");
        }
    }

    List<Balance> transfer(String from, String to, Resource resource, Instant at, long minutes,
                                  String requestId) {
        positive(minutes, "a transfer");
        long t = at.getEpochSecond();
        return executor.write(c -> {
            Project pf = lookups.requireProject(c, from);
            Project pt = lookups.requireProject(c, to);
            if (pf.id() == pt.id()) {
                throw new LedgerException("transfer from " + from + " to itself");
            }
            // lock in allocation-id order so that two opposite transfers cannot deadlock
            Alloc[] pair = new Alloc[2];
            List<Project> ordered = new ArrayList<>(List.of(pf, pt));
            ordered.sort(Comparator.comparingLong(Project::id));
            for (Project p : ordered) {
                Alloc a = lookups.activeAllocation(c, p.id(), resource, t);
                if (a == null) {
                    throw new LedgerException("project " + p.name() + " has no " + resource.name().toLowerCase()
                            + " allocation active at " + at);
                }
                pair[p.id() == pf.id() ? 0 : 1] = a;
            }
            if (journal.firstTime(c, requestId, "transfer|" + pair[0].id() + "|" + pair[1].id() + "|" + minutes, Journal.now())) {
                withdrawFrom(c, pair[0], minutes, false, "transfer to " + pt.name());
                journal.append(c, pair[1].id(), Kind.CREDIT, minutes, null, "admin", "transfer from " + pf.name(), Journal.now());
            }
            return List.of(lookups.lockAllocation(c, pair[0].id()).balance(), lookups.lockAllocation(c, pair[1].id()).balance());
        });
    }

    Balance adjustBase(String project, Resource resource, Instant at, long newBase, String requestId) {
        if (newBase < 0) {
            throw new LedgerException("a base budget must not be negative, got " + newBase);
        }
        bounded(newBase, "a base budget");
        long t = at.getEpochSecond();
        return executor.write(c -> {
            Alloc a = lookups.requireActive(c, project, resource, t);
            if (journal.firstTime(c, requestId, "adjust|" + a.id() + "|" + newBase, Journal.now()) && newBase != a.credited()) {
                long delta = Math.subtractExact(newBase, a.credited());
                journal.append(c, a.id(), Kind.ADJUST, delta, null, "central", "base budget " + a.credited() + " -> " + newBase,
                        Journal.now());
                if (delta < 0 && -delta > a.available()) {
                    journal.alert(c, Journal.now(), "FORCED_ADJUST", null, a.project(), "base budget cut to " + newBase
                            + " leaves project " + a.project() + " overdrawn; RESERVEs are denied until it is back");
                }
            }
            return lookups.lockAllocation(c, a.id()).balance();
        });
    }

    Outcome refund(Lookup lookup, long amount, String reason, String requestId) {
        positive(amount, "a refund");
        return executor.write(c -> {
            Res r = lookups.findReservation(c, lookup);
            if (r == null) {
                throw new LedgerException("no reservation " + lookup + " to refund");
            }
            if (r.state() != State.SETTLED && r.state() != State.ORPHAN_SETTLED) {
                throw new LedgerException("reservation " + r.key() + " is " + r.state() + "; only settled jobs are refunded");
            }
            if (journal.firstTime(c, requestId, "refund|" + r.key() + "|" + amount, Journal.now())) {
                if (amount > r.charge()) {
                    throw new LedgerException("refund of " + amount + " exceeds what job " + r.key()
                            + " still stands charged (" + r.charge() + "); nothing changed");
                }
                lookups.lockAllocation(c, r.allocationId());
                journal.append(c, r.allocationId(), Kind.REFUND, amount, r.key(), "admin", reason == null ? "refund" : reason, Journal.now());
                Sql.update(c, "UPDATE reservation SET charge = charge - ?, refunded = refunded + ? WHERE id = ?",
                        amount, amount, r.id());
            }
            return lookups.reservationByKey(c, r.key()).outcome(Decision.OK, false);
        });
    }

    void setWeights(String partition, Weights w) {
        if (partition == null || partition.isBlank()) {
            throw new LedgerException("a partition needs a name");
        }
        executor.write(c -> {
            Sql.update(c, "DELETE FROM partition_weights WHERE name = ?", partition);
            Sql.update(c, "INSERT INTO partition_weights (name, cpu_milli, mem_milli, gpu_milli, mult_milli)"
                    + " VALUES (?, ?, ?, ?, ?)", partition, w.cpuMilli(), w.memPerGibMilli(), w.gpuMilli(),
                    w.multiplierMilli());
            return null;
        });
    }

    Weights weights(String partition) {
        return executor.read(c -> Lookups.weights(c, partition));
    }

    private static long positive(long minutes, String what) {
        if (minutes <= 0) {
            throw new LedgerException(what + " must be a positive number of minutes, got " + minutes);
        }
        return bounded(minutes, what);
    }

    /**
     * Every amount at most {@link Ledger#MAX_MINUTES}: the balance columns and the journal's sums stay far from
     * 64-bit overflow, which SQLite turned silently into a floating-point balance (found by ApiFuzzTest: two
     * grants near 2^63 left an allocation that check could no longer sum).
     */
    private static long bounded(long minutes, String what) {
        if (minutes > Ledger.MAX_MINUTES) {
            throw new LedgerException(what + " of " + minutes + " minutes exceeds the ledger's limit of "
                    + Ledger.MAX_MINUTES + " per amount");
        }
        return minutes;
    }
}
