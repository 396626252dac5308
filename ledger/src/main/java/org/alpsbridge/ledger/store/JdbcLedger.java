package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import org.alpsbridge.ledger.Alert;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Outcome.Decision;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.Usage;
import org.alpsbridge.ledger.cost.Cost;
import org.alpsbridge.ledger.cost.Weights;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger on a JDBC store (SQLite or PostgreSQL): every command is one transaction that does the
 * idempotency lookup, the decision, the journal entries, the balance-cache update and the stored
 * outcome together (SPEC §7).
 */
public final class JdbcLedger implements Ledger {

    private static final Logger log = LoggerFactory.getLogger(JdbcLedger.class);
    private static final String RES_COLUMNS = "id, rkey, cluster, batch_id, res_id, project, owner, allocation_id,"
            + " params, rate, limit_s, limit_source, state, hold, charge, refunded, overrun_s, release_text, reason,"
            + " message, available, forced, t_reserve, t_confirm, t_release";
    private static final String ALLOC_COLUMNS =
            "a.id, p.name, a.project_id, a.resource, a.category, a.starts_at, a.ends_at, a.credited, a.held, a.settled";

    private final String url;
    private final Dialect dialect;
    private final Executor executor;

    private JdbcLedger(String url, Dialect dialect, Executor executor) {
        this.url = url;
        this.dialect = dialect;
        this.executor = executor;
    }

    /** See {@link Ledger#open(String)}. */
    public static JdbcLedger open(String url) {
        return open(url, true);
    }

    /**
     * @param verify check the balances against the journal and refuse an inconsistent ledger; only
     *     {@code alpsbridge ledger check}, which reports the disagreements, opens without
     */
    public static JdbcLedger open(String url, boolean verify) {
        String jdbc = Dialect.jdbcUrl(url);
        Dialect dialect = Dialect.of(jdbc);
        Executor executor = dialect == Dialect.SQLITE ? new SqliteExecutor(jdbc) : new PostgresExecutor(jdbc);
        JdbcLedger ledger = new JdbcLedger(jdbc, dialect, executor);
        try {
            executor.write(c -> {
                dialect.migrate(c);
                return null;
            });
            List<String> problems = verify ? ledger.check() : List.of();
            if (!problems.isEmpty()) {
                throw new LedgerException("ledger " + url + " is inconsistent; refusing to use it until an "
                        + "operator looks (alpsbridge ledger check): " + String.join("; ", problems));
            }
        } catch (RuntimeException e) {
            executor.close();
            throw e;
        }
        return ledger;
    }

    @Override
    public void close() {
        executor.close();
    }

    /**
     * Events written per commit so far: SQLite's writer shares one commit (one fsync) among the events
     * waiting when it starts; PostgreSQL commits each event on its own (NaN here).
     */
    public double eventsPerCommit() {
        return executor instanceof SqliteExecutor s ? s.eventsPerCommit() : Double.NaN;
    }

    @Override
    public String toString() {
        return "ledger " + dialect.name().toLowerCase() + " " + url.replaceAll("password=[^&]*", "password=***");
    }

    // ------------------------------------------------------------------ rows

    /** An allocation row with its balance cache, read under the transaction's lock. */
    private record Alloc(long id, String project, long projectId, Resource resource, String category,
                         long starts, long ends, long credited, long held, long settled) {
        long available() {
            return credited - held - settled;
        }

        Balance balance() {
            return new Balance(project, id, resource, category, Instant.ofEpochSecond(starts),
                    Instant.ofEpochSecond(ends), credited, held, settled, available());
        }

        String figures() {
            return "granted " + credited + ", held " + held + ", used " + settled;
        }
    }

    private static Alloc alloc(ResultSet rs) throws SQLException {
        return new Alloc(rs.getLong(1), rs.getString(2), rs.getLong(3), Resource.valueOf(rs.getString(4)),
                rs.getString(5), rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9), rs.getLong(10));
    }

    /** A reservation row. */
    private record Res(long id, String key, String cluster, String batchId, long resId, String project, String owner,
                       Long allocationId, String params, long rate, long limit, String limitSource, State state,
                       long hold, long charge, long refunded, long overrun, String releaseText, String reason,
                       String message, long available, boolean forced, long tReserve, Long tConfirm, Long tRelease) {

        Outcome outcome(Decision decision, boolean replayed) {
            return new Outcome(decision, key, project, state, hold, charge, available, reason, message, forced,
                    replayed);
        }

        Reservation view() {
            return new Reservation(key, cluster, batchId, resId, project, owner, allocationId, state, hold, charge,
                    refunded, overrun, limitSource, limit, reason, message, forced, Instant.ofEpochSecond(tReserve),
                    tConfirm == null ? null : Instant.ofEpochSecond(tConfirm),
                    tRelease == null ? null : Instant.ofEpochSecond(tRelease));
        }
    }

    private static Res res(ResultSet rs) throws SQLException {
        return new Res(rs.getLong("id"), rs.getString("rkey"), rs.getString("cluster"), rs.getString("batch_id"),
                rs.getLong("res_id"), rs.getString("project"), rs.getString("owner"),
                Sql.nullableLong(rs, "allocation_id"), rs.getString("params"), rs.getLong("rate"),
                rs.getLong("limit_s"), rs.getString("limit_source"), State.valueOf(rs.getString("state")),
                rs.getLong("hold"), rs.getLong("charge"), rs.getLong("refunded"), rs.getLong("overrun_s"),
                rs.getString("release_text"), rs.getString("reason"), rs.getString("message"),
                rs.getLong("available"), rs.getInt("forced") != 0, rs.getLong("t_reserve"),
                Sql.nullableLong(rs, "t_confirm"), Sql.nullableLong(rs, "t_release"));
    }

    private static Project project(ResultSet rs) throws SQLException {
        return new Project(rs.getLong("id"), rs.getString("name"), rs.getInt("gid"), rs.getString("account"),
                rs.getInt("active") != 0);
    }

    // ------------------------------------------------------------------ lookups inside a transaction

    private Project findProject(Connection c, String nameOrAccount) throws SQLException {
        return Sql.one(c, "SELECT id, name, gid, account, active FROM project WHERE name = ? OR account = ?"
                + " ORDER BY CASE WHEN name = ? THEN 0 ELSE 1 END LIMIT 1", JdbcLedger::project, nameOrAccount,
                nameOrAccount, nameOrAccount);
    }

    private Project requireProject(Connection c, String nameOrAccount) throws SQLException {
        Project p = findProject(c, nameOrAccount);
        if (p == null) {
            throw new LedgerException("unknown project '" + nameOrAccount + "' (alpsbridge ledger project list)");
        }
        return p;
    }

    /** The allocation active at {@code at}, locked for the rest of the transaction; null if none. */
    private Alloc activeAllocation(Connection c, long projectId, Resource resource, long at) throws SQLException {
        return Sql.one(c, "SELECT " + ALLOC_COLUMNS + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + " WHERE a.project_id = ? AND a.resource = ? AND a.starts_at <= ? AND a.ends_at > ?"
                + (dialect == Dialect.POSTGRESQL ? " FOR UPDATE OF a" : ""),
                JdbcLedger::alloc, projectId, resource.name(), at, at);
    }

    private Alloc requireActive(Connection c, String project, Resource resource, long at) throws SQLException {
        Project p = requireProject(c, project);
        Alloc a = activeAllocation(c, p.id(), resource, at);
        if (a == null) {
            throw new LedgerException("project " + p.name() + " has no " + resource.name().toLowerCase()
                    + " allocation active at " + Instant.ofEpochSecond(at));
        }
        return a;
    }

    private Alloc lockAllocation(Connection c, long id) throws SQLException {
        return Sql.one(c, "SELECT " + ALLOC_COLUMNS + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + " WHERE a.id = ?" + (dialect == Dialect.POSTGRESQL ? " FOR UPDATE OF a" : ""),
                JdbcLedger::alloc, id);
    }

    private Res findReservation(Connection c, Lookup l) throws SQLException {
        if (l.batchId() != null) {
            return Sql.one(c, "SELECT " + RES_COLUMNS + " FROM reservation WHERE cluster = ? AND batch_id = ?"
                    + " AND res_id = ? ORDER BY id DESC LIMIT 1" + dialect.forUpdate(), JdbcLedger::res,
                    l.cluster(), l.batchId(), l.resId());
        }
        return Sql.one(c, "SELECT " + RES_COLUMNS + " FROM reservation WHERE cluster = ? AND res_id = ?"
                + " ORDER BY id DESC LIMIT 1" + dialect.forUpdate(), JdbcLedger::res, l.cluster(), l.resId());
    }

    private Res reservationByKey(Connection c, String key) throws SQLException {
        return Sql.one(c, "SELECT " + RES_COLUMNS + " FROM reservation WHERE rkey = ?" + dialect.forUpdate(),
                JdbcLedger::res, key);
    }

    // ------------------------------------------------------------------ journal

    /** One journal entry to append: what it adds to the available balance, and why. */
    private record Move(Kind kind, long amount, String reason) {
    }

    /**
     * Appends one journal entry and moves the balance cache with it. The allocation row must be locked.
     * {@code amount} is what the entry adds to the available balance.
     */
    private void append(Connection c, long allocationId, Kind kind, long amount, String key, String actor,
                        String reason, long at) throws SQLException {
        append(c, allocationId, key, actor, at, null, List.of(new Move(kind, amount, reason)));
    }

    /**
     * Appends entries of one allocation, in order, and moves its balance cache with them; {@code also}
     * (a reservation INSERT or UPDATE, with its arguments first) runs in the same statement on
     * PostgreSQL, where each round trip is paid while the allocation row is locked.
     */
    private void append(Connection c, long allocationId, String key, String actor, long at, Object[] also,
                        List<Move> moves) throws SQLException {
        long[] delta = new long[3]; // credited, held, settled
        for (Move m : moves) {
            int column = switch (m.kind().column()) {
                case "credited" -> 0;
                case "held" -> 1;
                default -> 2;
            };
            delta[column] = Math.addExact(delta[column], m.kind().columnDelta(m.amount()));
        }
        String bump = "UPDATE allocation SET last_seq = last_seq + ?, credited = credited + ?, held = held + ?,"
                + " settled = settled + ? WHERE id = ? RETURNING last_seq";
        if (dialect == Dialect.POSTGRESQL && !moves.isEmpty()) {
            List<Object> args = new ArrayList<>();
            StringBuilder sql = new StringBuilder("WITH ");
            if (also != null) {
                sql.append("r AS (").append(also[0]).append("), ");
                args.addAll(java.util.Arrays.asList(also).subList(1, also.length));
            }
            sql.append("a AS (").append(bump).append(") INSERT INTO entry (allocation_id, allocation_seq, kind, amount,"
                    + " rkey, actor, reason, created_at) SELECT ?, a.last_seq - ? + m.i, m.kind, m.amount, ?, ?, m.reason,"
                    + " ? FROM a, (VALUES ");
            args.addAll(java.util.Arrays.asList(moves.size(), delta[0], delta[1], delta[2], allocationId, allocationId,
                    moves.size(), key, actor, at));
            for (int i = 0; i < moves.size(); i++) {
                Move m = moves.get(i);
                sql.append(i == 0 ? "" : ", ").append("(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BIGINT),"
                        + " CAST(? AS TEXT))");
                args.addAll(java.util.Arrays.asList(i + 1L, m.kind().name(), m.amount(), m.reason()));
            }
            sql.append(") AS m (i, kind, amount, reason)");
            Sql.update(c, sql.toString(), args.toArray());
            return;
        }
        if (also != null) {
            Sql.update(c, (String) also[0], java.util.Arrays.copyOfRange(also, 1, also.length));
        }
        if (moves.isEmpty()) {
            return;
        }
        long seq = Sql.returning(c, bump, (long) moves.size(), delta[0], delta[1], delta[2], allocationId)
                - moves.size();
        for (Move m : moves) {
            Sql.update(c, "INSERT INTO entry (allocation_id, allocation_seq, kind, amount, rkey, actor, reason,"
                    + " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", allocationId, ++seq, m.kind().name(), m.amount(),
                    key, actor, m.reason(), at);
        }
    }

    private void alert(Connection c, long at, String kind, String key, String project, String message)
            throws SQLException {
        log.warn("ledger alert {} {}: {}", kind, key == null ? "" : key, message);
        Sql.update(c, "INSERT INTO alert (created_at, kind, rkey, project, message) VALUES (?, ?, ?, ?, ?)",
                at, kind, key, project, message);
    }

    /**
     * Administrative idempotency: false when this request id was already applied with the same payload
     * (the caller then only reports), true when it is new. A reused id with another payload is refused.
     */
    private boolean firstTime(Connection c, String requestId, String payload, long at) throws SQLException {
        if (requestId == null || requestId.isBlank()) {
            return true;
        }
        String stored = Sql.one(c, "SELECT payload FROM admin_request WHERE request_id = ?" + dialect.forUpdate(),
                rs -> rs.getString(1), requestId);
        if (stored == null) {
            Sql.update(c, "INSERT INTO admin_request (request_id, payload, created_at) VALUES (?, ?, ?)",
                    requestId, payload, at);
            return true;
        }
        if (stored.equals(payload)) {
            return false;
        }
        throw new LedgerException("request id '" + requestId + "' was already used for a different request ("
                + stored + "); nothing changed");
    }

    private static long positive(long minutes, String what) {
        if (minutes <= 0) {
            throw new LedgerException(what + " must be a positive number of minutes, got " + minutes);
        }
        return minutes;
    }

    private static long now() {
        return Instant.now().getEpochSecond();
    }

    // ------------------------------------------------------------------ projects and credit

    @Override
    public Project addProject(String name, int gid, String account) {
        if (name == null || !name.matches("[A-Za-z0-9_.@-]{1,64}")) {
            throw new LedgerException("project name '" + name + "' must be 1-64 of letters, digits and _.@-");
        }
        if (gid < 0) {
            throw new LedgerException("gid must not be negative, got " + gid);
        }
        String acct = account == null || account.isBlank() ? null : account.trim();
        return executor.write(c -> {
            Project existing = Sql.one(c, "SELECT id, name, gid, account, active FROM project WHERE name = ? OR gid = ?"
                    + " OR account = ? OR name = ? OR account = ?", JdbcLedger::project, name, gid, acct, acct, name);
            if (existing != null) {
                throw new LedgerException("project " + name + " (gid " + gid + (acct == null ? "" : ", account " + acct)
                        + ") clashes with existing project " + existing.name() + " (gid " + existing.gid()
                        + (existing.account() == null ? "" : ", account " + existing.account()) + ")");
            }
            long id = Sql.returning(c, "INSERT INTO project (name, gid, account, active, created_at) VALUES (?, ?, ?, 1, ?)"
                    + " RETURNING id", name, gid, acct, now());
            return new Project(id, name, gid, acct, true);
        });
    }

    @Override
    public List<Project> projects() {
        return executor.read(c -> Sql.list(c, "SELECT id, name, gid, account, active FROM project ORDER BY name",
                JdbcLedger::project));
    }

    @Override
    public Balance grant(String project, Resource resource, long minutes, Instant from, Instant to, String category,
                         String requestId) {
        Objects.requireNonNull(resource, "resource");
        if (minutes < 0) {
            throw new LedgerException("a grant must not be negative, got " + minutes + " minutes");
        }
        if (from == null || to == null || !to.isAfter(from)) {
            throw new LedgerException("allocation period must end after it starts: [" + from + ", " + to + ")");
        }
        String cat = category == null || category.isBlank() ? "research" : category;
        long start = from.getEpochSecond();
        long end = to.getEpochSecond();
        return executor.write(c -> {
            Project p = requireProject(c, project);
            boolean apply = firstTime(c, requestId, "grant|" + p.name() + "|" + resource + "|" + minutes + "|" + start
                    + "|" + end + "|" + cat, now());
            Alloc a = Sql.one(c, "SELECT " + ALLOC_COLUMNS + " FROM allocation a JOIN project p ON p.id = a.project_id"
                    + " WHERE a.project_id = ? AND a.resource = ? AND a.starts_at = ? AND a.ends_at = ?"
                    + (dialect == Dialect.POSTGRESQL ? " FOR UPDATE OF a" : ""),
                    JdbcLedger::alloc, p.id(), resource.name(), start, end);
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
                a = lockAllocation(c, id);
            }
            if (apply && minutes > 0) {
                append(c, a.id(), Kind.CREDIT, minutes, null, "admin", "grant", now());
                a = lockAllocation(c, a.id());
            }
            return a.balance();
        });
    }

    @Override
    public Balance credit(String project, Resource resource, Instant at, long minutes, String reason,
                          String requestId) {
        positive(minutes, "a credit");
        long t = at.getEpochSecond();
        return executor.write(c -> {
            Alloc a = requireActive(c, project, resource, t);
            if (firstTime(c, requestId, "credit|" + a.id() + "|" + minutes, now())) {
                append(c, a.id(), Kind.CREDIT, minutes, null, "admin", reason == null ? "credit" : reason, now());
            }
            return lockAllocation(c, a.id()).balance();
        });
    }

    @Override
    public Balance withdraw(String project, Resource resource, Instant at, long minutes, boolean force,
                            String reason, String requestId) {
        positive(minutes, "a withdrawal");
        long t = at.getEpochSecond();
        return executor.write(c -> {
            Alloc a = requireActive(c, project, resource, t);
            if (firstTime(c, requestId, "withdraw|" + a.id() + "|" + minutes + "|" + force, now())) {
                withdrawFrom(c, a, minutes, force, reason == null ? "withdraw" : reason);
            }
            return lockAllocation(c, a.id()).balance();
        });
    }

    private void withdrawFrom(Connection c, Alloc a, long minutes, boolean force, String reason) throws SQLException {
        if (minutes > a.available() && !force) {
            throw new LedgerException("project " + a.project() + ": cannot withdraw " + minutes + " "
                    + a.resource().unit() + ", only " + a.available() + " available (" + a.figures()
                    + "); use --force to overdraw");
        }
        append(c, a.id(), Kind.WITHDRAW, -minutes, null, "admin", reason, now());
        if (minutes > a.available()) {
            alert(c, now(), "FORCED_WITHDRAW", null, a.project(), "withdrawal of " + minutes + " leaves project "
                    + a.project() + " overdrawn by " + (minutes - a.available()) + "; RESERVEs are denied until it is back");
        }
    }

    @Override
    public List<Balance> transfer(String from, String to, Resource resource, Instant at, long minutes,
                                  String requestId) {
        positive(minutes, "a transfer");
        long t = at.getEpochSecond();
        return executor.write(c -> {
            Project pf = requireProject(c, from);
            Project pt = requireProject(c, to);
            if (pf.id() == pt.id()) {
                throw new LedgerException("transfer from " + from + " to itself");
            }
            // lock in allocation-id order so that two opposite transfers cannot deadlock
            Alloc[] pair = new Alloc[2];
            List<Project> ordered = new ArrayList<>(List.of(pf, pt));
            ordered.sort(Comparator.comparingLong(Project::id));
            for (Project p : ordered) {
                Alloc a = activeAllocation(c, p.id(), resource, t);
                if (a == null) {
                    throw new LedgerException("project " + p.name() + " has no " + resource.name().toLowerCase()
                            + " allocation active at " + at);
                }
                pair[p.id() == pf.id() ? 0 : 1] = a;
            }
            if (firstTime(c, requestId, "transfer|" + pair[0].id() + "|" + pair[1].id() + "|" + minutes, now())) {
                withdrawFrom(c, pair[0], minutes, false, "transfer to " + pt.name());
                append(c, pair[1].id(), Kind.CREDIT, minutes, null, "admin", "transfer from " + pf.name(), now());
            }
            return List.of(lockAllocation(c, pair[0].id()).balance(), lockAllocation(c, pair[1].id()).balance());
        });
    }

    @Override
    public Balance adjustBase(String project, Resource resource, Instant at, long newBase, String requestId) {
        if (newBase < 0) {
            throw new LedgerException("a base budget must not be negative, got " + newBase);
        }
        long t = at.getEpochSecond();
        return executor.write(c -> {
            Alloc a = requireActive(c, project, resource, t);
            if (firstTime(c, requestId, "adjust|" + a.id() + "|" + newBase, now()) && newBase != a.credited()) {
                long delta = Math.subtractExact(newBase, a.credited());
                append(c, a.id(), Kind.ADJUST, delta, null, "central", "base budget " + a.credited() + " -> " + newBase,
                        now());
                if (delta < 0 && -delta > a.available()) {
                    alert(c, now(), "FORCED_ADJUST", null, a.project(), "base budget cut to " + newBase
                            + " leaves project " + a.project() + " overdrawn; RESERVEs are denied until it is back");
                }
            }
            return lockAllocation(c, a.id()).balance();
        });
    }

    @Override
    public Outcome refund(Lookup lookup, long amount, String reason, String requestId) {
        positive(amount, "a refund");
        return executor.write(c -> {
            Res r = findReservation(c, lookup);
            if (r == null) {
                throw new LedgerException("no reservation " + lookup + " to refund");
            }
            if (r.state() != State.SETTLED && r.state() != State.ORPHAN_SETTLED) {
                throw new LedgerException("reservation " + r.key() + " is " + r.state() + "; only settled jobs are refunded");
            }
            if (firstTime(c, requestId, "refund|" + r.key() + "|" + amount, now())) {
                if (amount > r.charge()) {
                    throw new LedgerException("refund of " + amount + " exceeds what job " + r.key()
                            + " still stands charged (" + r.charge() + "); nothing changed");
                }
                lockAllocation(c, r.allocationId());
                append(c, r.allocationId(), Kind.REFUND, amount, r.key(), "admin", reason == null ? "refund" : reason, now());
                Sql.update(c, "UPDATE reservation SET charge = charge - ?, refunded = refunded + ? WHERE id = ?",
                        amount, amount, r.id());
            }
            return reservationByKey(c, r.key()).outcome(Decision.OK, false);
        });
    }

    @Override
    public void setWeights(String partition, Weights w) {
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

    @Override
    public Weights weights(String partition) {
        return executor.read(c -> weights(c, partition));
    }

    private static Weights weights(Connection c, String partition) throws SQLException {
        Weights w = Sql.one(c, "SELECT cpu_milli, mem_milli, gpu_milli, mult_milli FROM partition_weights WHERE name = ?",
                rs -> new Weights(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)), partition);
        if (w != null) {
            return w;
        }
        if (DEFAULT_PARTITION.equals(partition)) {
            return Weights.UNIT;
        }
        throw new LedgerException("unknown partition '" + partition + "': set its weights first"
                + " (alpsbridge ledger partition " + partition + " --cpu-weight W ...)");
    }

    // ------------------------------------------------------------------ the lifecycle

    @Override
    public Outcome reserve(ReserveRequest q) {
        return reserve(q, "request");
    }

    /**
     * @param limitSource where the request's time limit came from, kept with the reservation and logged
     */
    public Outcome reserve(ReserveRequest q, String limitSource) {
        String key = q.key();
        String params = q.paramsText();
        long t = q.at().getEpochSecond();
        return executor.write(c -> {
            Res existing = reservationByKey(c, key);
            if (existing != null) {
                if (existing.params().equals(params)) {
                    return existing.outcome(existing.state() == State.DENIED ? Decision.DENIED : Decision.OK, true);
                }
                alert(c, t, "CONFLICT", key, existing.project(), "RESERVE " + key + " repeated with different "
                        + "parameters (" + params + " vs " + existing.params() + "); refused, nothing changed");
                return existing.outcome(Decision.CONFLICT, false);
            }
            long rate = Cost.rate(q.resource(), q.nodes(), q.node(), weights(c, q.partition()));
            long hold = Cost.worst(rate, q.limitSeconds());
            Project p = findProject(c, q.project());
            String projectName = p == null ? q.project() : p.name();
            String what = "reservation " + key + " (" + q.nodes() + " nodes x " + q.node().cores() + " cores, "
                    + q.limitSeconds() / 60 + " min limit from " + limitSource + ")";
            Alloc a = p == null ? null : activeAllocation(c, p.id(), q.resource(), t);
            String reason = null;
            String message = null;
            if (p == null) {
                reason = "UNKNOWN_PROJECT";
                message = "no project or account '" + q.project() + "' in the ledger; " + what + " refused";
            } else if (!p.active()) {
                reason = "PROJECT_INACTIVE";
                message = "project " + p.name() + " is inactive; " + what + " refused";
            } else if (a == null) {
                reason = "NO_ACTIVE_ALLOCATION";
                message = "project " + p.name() + " has no " + q.resource().name().toLowerCase()
                        + " allocation active at " + q.at() + "; " + what + " refused";
            } else if (hold > a.available()) {
                reason = "INSUFFICIENT_BALANCE";
                message = "project " + p.name() + ": insufficient balance: " + what + " costs up to " + hold + " "
                        + q.resource().unit() + ", available " + a.available() + " (" + a.figures() + "), short by "
                        + (hold - a.available());
            }
            State state = reason == null ? State.HELD : State.DENIED;
            // (the figures stored are the ones the decision saw, in this transaction)
            long availableAfter = a == null ? 0 : state == State.HELD ? a.available() - hold : a.available();
            Object[] insert = {"INSERT INTO reservation (rkey, cluster, batch_id, res_id, project, owner, allocation_id,"
                    + " params, rate, limit_s, limit_source, state, hold, reason, message, available, t_reserve)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    key, q.cluster(), q.batchId(), q.resId(), projectName, q.owner(), a == null ? null : a.id(), params,
                    rate, q.limitSeconds(), limitSource, state.name(), state == State.HELD ? hold : 0, reason, message,
                    availableAfter, t};
            if (state == State.HELD) {
                append(c, a.id(), key, "reserve", t, insert, List.of(new Move(Kind.HOLD, -hold, null)));
                log.debug("held {} {} for {} (limit {} s from {})", hold, q.resource().unit(), key, q.limitSeconds(),
                        limitSource);
            } else {
                Sql.update(c, (String) insert[0], java.util.Arrays.copyOfRange(insert, 1, insert.length));
                log.info("denied {}: {}", key, message);
            }
            return new Outcome(state == State.HELD ? Decision.OK : Decision.DENIED, key, projectName, state,
                    state == State.HELD ? hold : 0, 0, availableAfter, reason, message, false, false);
        });
    }

    @Override
    public Outcome bind(String key, long resId) {
        if (resId <= 0) {
            throw new LedgerException("reservation id must be positive, got " + resId);
        }
        return executor.write(c -> {
            Res r = reservationByKey(c, key);
            if (r == null) {
                throw new LedgerException("no hold " + key + " to bind reservation " + resId + " to");
            }
            if (r.resId() == resId) {
                return r.outcome(Decision.OK, true);
            }
            if (r.resId() != 0) {
                alert(c, now(), "CONFLICT", key, r.project(), "hold " + key + " is bound to reservation " + r.resId()
                        + ", not " + resId);
                return r.outcome(Decision.CONFLICT, false);
            }
            Sql.update(c, "UPDATE reservation SET res_id = ? WHERE id = ?", resId, r.id());
            return reservationByKey(c, key).outcome(Decision.OK, false);
        });
    }

    @Override
    public Outcome voidHold(String key, String reason) {
        return executor.write(c -> {
            Res r = reservationByKey(c, key);
            if (r == null) {
                throw new LedgerException("no hold " + key + " to void");
            }
            return switch (r.state()) {
                case HELD, CONFIRMED -> {
                    voidIt(c, r, reason, now());
                    yield reservationByKey(c, key).outcome(Decision.OK, false);
                }
                case VOIDED, DENIED -> r.outcome(r.state() == State.DENIED ? Decision.DENIED : Decision.OK, true);
                default -> {
                    alert(c, now(), "CONFLICT", key, r.project(), "void of " + key + " which is already " + r.state());
                    yield r.outcome(Decision.CONFLICT, false);
                }
            };
        });
    }

    private void voidIt(Connection c, Res r, String reason, long t) throws SQLException {
        if (r.hold() > 0) {
            append(c, r.allocationId(), Kind.VOID, r.hold(), r.key(), "void", reason, t);
        }
        Sql.update(c, "UPDATE reservation SET state = ?, reason = ?, t_release = ? WHERE id = ?",
                State.VOIDED.name(), reason, t, r.id());
    }

    @Override
    public Outcome confirm(Lookup lookup, Instant at, ReserveRequest ifUnknown) {
        long t = at.getEpochSecond();
        return executor.write(c -> {
            Res r = findReservation(c, lookup);
            if (r == null) {
                return forcedForUnknown(c, lookup, ifUnknown, t, 0, true);
            }
            switch (r.state()) {
                case HELD -> {
                    Sql.update(c, "UPDATE reservation SET state = ?, t_confirm = ? WHERE id = ?",
                            State.CONFIRMED.name(), t, r.id());
                    return reservationByKey(c, r.key()).outcome(Decision.OK, false);
                }
                case DENIED -> {
                    if (r.allocationId() == null) {
                        alert(c, t, "CONFIRM_DENIED", r.key(), r.project(), "CONFIRM of denied " + r.key()
                                + " with no allocation to charge: the job runs unbilled");
                        return r.outcome(Decision.DENIED, true);
                    }
                    long hold = Cost.worst(r.rate(), r.limit());
                    lockAllocation(c, r.allocationId());
                    append(c, r.allocationId(), Kind.FORCED_HOLD, -hold, r.key(), "confirm", "CONFIRM after denial", t);
                    Sql.update(c, "UPDATE reservation SET state = ?, hold = ?, forced = 1, t_confirm = ? WHERE id = ?",
                            State.CONFIRMED.name(), hold, t, r.id());
                    alert(c, t, "FORCED_HOLD", r.key(), r.project(), "CONFIRM of denied " + r.key()
                            + ": the job runs, forced hold of " + hold);
                    return reservationByKey(c, r.key()).outcome(Decision.OK, false);
                }
                case CONFIRMED -> {
                    return r.outcome(Decision.OK, true);
                }
                default -> {
                    log.warn("CONFIRM of {} which is already {}: no-op", r.key(), r.state());
                    return r.outcome(Decision.OK, true);
                }
            }
        });
    }

    /**
     * CONFIRM or RELEASE of a reservation the ledger never saw: usage cannot be refused, so with the
     * reservation's parameters it is charged as a forced hold (CONFIRM) or forced debit (RELEASE) on the
     * allocation active when it started; without them only an alert is raised.
     */
    private Outcome forcedForUnknown(Connection c, Lookup lookup, ReserveRequest q, long t, long elapsed,
                                     boolean confirm) throws SQLException {
        String event = confirm ? "CONFIRM" : "RELEASE";
        if (q == null) {
            alert(c, t, "UNKNOWN_" + event, lookup.toString(), null, event + " of unknown reservation " + lookup
                    + " with no parameters to charge it by; an operator must charge it by hand");
            return new Outcome(Decision.OK, lookup.toString(), null, null, 0, 0, 0, "UNKNOWN_RESERVATION",
                    event + " of unknown reservation " + lookup, true, false);
        }
        long rate = Cost.rate(q.resource(), q.nodes(), q.node(), weights(c, q.partition()));
        long worst = Cost.worst(rate, q.limitSeconds());
        long started = t - elapsed;
        Project p = requireProject(c, q.project());
        Alloc a = activeAllocation(c, p.id(), q.resource(), started);
        if (a == null) {
            alert(c, t, "UNKNOWN_" + event, q.key(), p.name(), event + " of unknown reservation " + q.key()
                    + " and project " + p.name() + " has no allocation active at " + Instant.ofEpochSecond(started)
                    + "; an operator must charge it by hand");
            return new Outcome(Decision.OK, q.key(), p.name(), null, 0, 0, 0, "UNKNOWN_RESERVATION",
                    "no allocation to charge", true, false);
        }
        long charge = confirm ? 0 : Cost.actual(rate, elapsed, q.limitSeconds());
        State state = confirm ? State.CONFIRMED : State.SETTLED;
        Sql.update(c, "INSERT INTO reservation (rkey, cluster, batch_id, res_id, project, owner, allocation_id, params,"
                + " rate, limit_s, limit_source, state, hold, charge, reason, message, available, forced, t_reserve,"
                + " t_confirm, t_release) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
                q.key(), q.cluster(), q.batchId(), q.resId(), p.name(), q.owner(), a.id(), q.paramsText(), rate,
                q.limitSeconds(), "request", state.name(), confirm ? worst : 0, charge, event + "_WITHOUT_RESERVE",
                event + " without RESERVE: forced", a.available(), started, confirm ? t : null, confirm ? null : t);
        if (confirm) {
            append(c, a.id(), Kind.FORCED_HOLD, -worst, q.key(), "confirm", "CONFIRM without RESERVE", t);
        } else if (charge > 0) {
            append(c, a.id(), Kind.FORCED_DEBIT, -charge, q.key(), "release", "RELEASE without RESERVE", t);
        }
        alert(c, t, confirm ? "FORCED_HOLD" : "FORCED_DEBIT", q.key(), p.name(), event + " without RESERVE for "
                + q.key() + ": forced " + (confirm ? "hold of " + worst : "debit of " + charge) + " on project " + p.name());
        return reservationByKey(c, q.key()).outcome(Decision.OK, false);
    }

    @Override
    public Outcome release(ReleaseRequest q) {
        long t = q.at().getEpochSecond();
        String payload = q.payloadText();
        return executor.write(c -> {
            Res r = findReservation(c, q.lookup());
            if (r == null) {
                return forcedForUnknown(c, q.lookup(), q.ifUnknown(), t, Math.max(0, q.elapsedSeconds()), false);
            }
            if (r.releaseText() != null) {
                if (r.releaseText().equals(payload)) {
                    return r.outcome(Decision.OK, true);
                }
                alert(c, t, "CONFLICT", r.key(), r.project(), "RELEASE of " + r.key() + " repeated with a different"
                        + " report (" + payload + " vs " + r.releaseText() + "); refused, nothing changed");
                return r.outcome(Decision.CONFLICT, false);
            }
            boolean byClock = q.elapsedSeconds() == ReleaseRequest.BY_CLOCK;
            long elapsed = !byClock ? q.elapsedSeconds() : r.tConfirm() == null ? 0 : Math.max(0, t - r.tConfirm());
            boolean neverRan = q.neverRan() || byClock && r.tConfirm() == null;
            long limit = r.limit();
            long overrun = Math.max(0, elapsed - limit);
            long actual = q.nodeFailure() || neverRan ? 0 : Cost.actual(r.rate(), elapsed, limit);
            String reason = q.nodeFailure() ? "NODE_FAILURE" : neverRan ? "NEVER_RAN" : null;
            switch (r.state()) {
                case HELD, CONFIRMED -> {
                    if (neverRan) {
                        voidIt(c, r, "NEVER_RAN", t);
                    } else {
                        if (r.state() == State.HELD && actual > 0) {
                            log.debug("RELEASE of unconfirmed {} reports {} s of use: charged", r.key(), elapsed);
                        }
                        long charge = Math.min(actual, r.hold());
                        List<Move> moves = new ArrayList<>(2);
                        if (charge > 0) {
                            moves.add(new Move(Kind.SETTLE, -charge, reason));
                        }
                        if (r.hold() > 0) {
                            moves.add(new Move(Kind.RETURN, r.hold(), null));
                        }
                        // no SELECT ... FOR UPDATE: the balance is not consulted, and append's UPDATE locks the row
                        append(c, r.allocationId(), r.key(), "release", t, new Object[] {"UPDATE reservation SET state = ?,"
                                + " charge = ?, overrun_s = ?, reason = ?, t_release = ?, release_text = ? WHERE id = ?",
                                State.SETTLED.name(), charge, overrun, reason, t, payload, r.id()}, moves);
                        return new Outcome(Decision.OK, r.key(), r.project(), State.SETTLED, r.hold(), charge,
                                r.available(), reason, r.message(), r.forced(), false);
                    }
                }
                default -> lateRelease(c, r, actual, overrun, reason, t);
            }
            Sql.update(c, "UPDATE reservation SET release_text = ? WHERE id = ?", payload, r.id());
            return reservationByKey(c, r.key()).outcome(Decision.OK, false);
        });
    }

    /**
     * RELEASE of a reservation already resolved without one (voided or orphan-settled by the sweeper, or
     * denied but run anyway): usage cannot be refused, so the difference to what was charged is debited
     * (forced, flagged) or, when the sweeper charged more than the job used, refunded.
     */
    private void lateRelease(Connection c, Res r, long actual, long overrun, String reason, long t) throws SQLException {
        long diff = actual - r.charge();
        if (r.allocationId() == null) {
            if (actual > 0) {
                alert(c, t, "UNBILLED", r.key(), r.project(), "RELEASE of " + r.state() + " " + r.key() + " reports usage "
                        + actual + " but it has no allocation to charge");
            }
            return;
        }
        lockAllocation(c, r.allocationId());
        if (diff > 0) {
            append(c, r.allocationId(), Kind.FORCED_DEBIT, -diff, r.key(), "release", "RELEASE after " + r.state(), t);
            alert(c, t, "FORCED_DEBIT", r.key(), r.project(), "RELEASE of " + r.state() + " " + r.key()
                    + ": forced debit of " + diff);
        } else if (diff < 0) {
            append(c, r.allocationId(), Kind.REFUND, -diff, r.key(), "release", "RELEASE after " + r.state(), t);
        }
        Sql.update(c, "UPDATE reservation SET state = ?, charge = ?, overrun_s = ?, forced = ?, reason = ?, t_release = ?"
                + " WHERE id = ?", State.SETTLED.name(), actual, overrun, diff > 0 || r.forced() ? 1 : 0,
                reason == null ? "LATE_RELEASE_AFTER_" + r.state() : reason, t, r.id());
    }

    @Override
    public List<Outcome> sweep(Instant now, Duration unconfirmedGrace, Duration confirmedGrace,
                               Predicate<Reservation> stillPresent) {
        long t = now.getEpochSecond();
        List<Res> candidates = executor.read(c -> Sql.list(c, "SELECT " + RES_COLUMNS + " FROM reservation"
                + " WHERE (state = 'HELD' AND t_reserve + ? < ?) OR (state = 'CONFIRMED' AND t_confirm + limit_s + ? < ?)"
                + " ORDER BY id", JdbcLedger::res, unconfirmedGrace.toSeconds(), t, confirmedGrace.toSeconds(), t));
        List<Outcome> out = new ArrayList<>();
        for (Res candidate : candidates) {
            if (stillPresent.test(candidate.view())) {
                continue;
            }
            // each orphan in its own transaction: a crash mid-sweep leaves the processed ones processed
            Outcome o = executor.write(c -> {
                Res r = reservationByKey(c, candidate.key());
                if (r.state() != candidate.state()) {
                    return null; // resolved meanwhile (a RELEASE won the race)
                }
                if (r.state() == State.HELD) {
                    voidIt(c, r, "ORPHAN_UNCONFIRMED", t);
                } else {
                    lockAllocation(c, r.allocationId());
                    if (r.hold() > 0) {
                        append(c, r.allocationId(), Kind.SETTLE, -r.hold(), r.key(), "sweeper", "ORPHAN_CHARGE_FULL", t);
                        append(c, r.allocationId(), Kind.RETURN, r.hold(), r.key(), "sweeper", null, t);
                    }
                    Sql.update(c, "UPDATE reservation SET state = ?, charge = hold, reason = ?, t_release = ? WHERE id = ?",
                            State.ORPHAN_SETTLED.name(), "ORPHAN_CHARGE_FULL", t, r.id());
                    alert(c, t, "ORPHAN", r.key(), r.project(), "reservation " + r.key() + " confirmed at "
                            + Instant.ofEpochSecond(r.tConfirm()) + " was never released and is gone from ALPS:"
                            + " charged its full hold of " + r.hold() + " for review");
                }
                return reservationByKey(c, r.key()).outcome(Decision.OK, false);
            });
            if (o != null) {
                out.add(o);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ reports

    @Override
    public List<Balance> balances(String project) {
        return executor.read(c -> Sql.list(c, "SELECT " + ALLOC_COLUMNS
                + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + (project == null ? "" : " WHERE p.name = ? OR p.account = ?")
                + " ORDER BY p.name, a.resource, a.starts_at", JdbcLedger::alloc,
                project == null ? new Object[0] : new Object[] {project, project})).stream().map(Alloc::balance).toList();
    }

    @Override
    public Optional<Reservation> reservation(Lookup lookup) {
        return Optional.ofNullable(executor.read(c -> {
            Res r = Sql.one(c, "SELECT " + RES_COLUMNS + " FROM reservation WHERE cluster = ? AND res_id = ?"
                    + (lookup.batchId() == null ? "" : " AND batch_id = ?") + " ORDER BY id DESC LIMIT 1",
                    JdbcLedger::res, lookup.batchId() == null ? new Object[] {lookup.cluster(), lookup.resId()}
                            : new Object[] {lookup.cluster(), lookup.resId(), lookup.batchId()});
            return r == null ? null : r.view();
        }));
    }

    @Override
    public List<Reservation> holds(String project) {
        return reservationsWhere("state IN ('HELD', 'CONFIRMED')" + (project == null ? "" : " AND project = ?")
                + " ORDER BY t_reserve, id", project);
    }

    @Override
    public List<Reservation> failures(String project, int limit) {
        return reservationsWhere("state = 'DENIED'" + (project == null ? "" : " AND project = ?")
                + " ORDER BY id DESC LIMIT " + Math.max(1, limit), project);
    }

    @Override
    public List<Reservation> reservations(String cluster, String batchId) {
        return executor.read(c -> Sql.list(c, "SELECT " + RES_COLUMNS + " FROM reservation WHERE cluster = ?"
                + " AND batch_id = ? ORDER BY id", JdbcLedger::res, cluster == null ? DEFAULT_CLUSTER : cluster, batchId))
                .stream().map(Res::view).toList();
    }

    private List<Reservation> reservationsWhere(String where, String project) {
        return executor.read(c -> Sql.list(c, "SELECT " + RES_COLUMNS + " FROM reservation WHERE " + where,
                JdbcLedger::res, project == null ? new Object[0] : new Object[] {project})).stream().map(Res::view).toList();
    }

    @Override
    public List<JournalEntry> journal(String reservationKey) {
        return executor.read(c -> Sql.list(c, "SELECT seq, allocation_id, allocation_seq, kind, amount, rkey, actor,"
                + " reason, created_at FROM entry" + (reservationKey == null ? "" : " WHERE rkey = ?") + " ORDER BY seq",
                rs -> new JournalEntry(rs.getLong(1), rs.getLong(2), rs.getLong(3), Kind.valueOf(rs.getString(4)),
                        rs.getLong(5), rs.getString(6), rs.getString(7), rs.getString(8),
                        Instant.ofEpochSecond(rs.getLong(9))),
                reservationKey == null ? new Object[0] : new Object[] {reservationKey}));
    }

    @Override
    public List<Usage> usage(String project) {
        return executor.read(c -> Sql.list(c, "SELECT r.project, a.resource, r.owner, COUNT(*),"
                + " SUM(CASE WHEN r.state IN ('HELD', 'CONFIRMED') THEN r.hold ELSE 0 END), SUM(r.charge)"
                + " FROM reservation r JOIN allocation a ON a.id = r.allocation_id WHERE r.state <> 'DENIED'"
                + (project == null ? "" : " AND r.project = ?")
                + " GROUP BY r.project, a.resource, r.owner ORDER BY r.project, a.resource, r.owner",
                rs -> new Usage(rs.getString(1), Resource.valueOf(rs.getString(2)), rs.getString(3), rs.getLong(4),
                        rs.getLong(5), rs.getLong(6)),
                project == null ? new Object[0] : new Object[] {project}));
    }

    @Override
    public List<Alert> alerts(int limit) {
        return executor.read(c -> Sql.list(c, "SELECT id, created_at, kind, rkey, project, message FROM alert"
                + " ORDER BY id DESC LIMIT " + Math.max(1, limit),
                rs -> new Alert(rs.getLong(1), Instant.ofEpochSecond(rs.getLong(2)), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getString(6))));
    }

    @Override
    public List<String> check() {
        return executor.read(c -> {
            List<String> problems = new ArrayList<>();
            Sql.list(c, "SELECT a.id, a.credited, a.held, a.settled, a.last_seq,"
                    + " COALESCE(SUM(CASE WHEN e.kind IN ('CREDIT', 'WITHDRAW', 'ADJUST') THEN e.amount ELSE 0 END), 0),"
                    + " COALESCE(SUM(CASE WHEN e.kind IN ('HOLD', 'FORCED_HOLD', 'RETURN', 'VOID') THEN -e.amount ELSE 0 END), 0),"
                    + " COALESCE(SUM(CASE WHEN e.kind IN ('SETTLE', 'FORCED_DEBIT', 'REFUND') THEN -e.amount ELSE 0 END), 0),"
                    + " COUNT(e.seq), COALESCE(MAX(e.allocation_seq), 0),"
                    + " (SELECT COALESCE(SUM(r.hold), 0) FROM reservation r WHERE r.allocation_id = a.id"
                    + "   AND r.state IN ('HELD', 'CONFIRMED')),"
                    + " (SELECT COALESCE(SUM(r.charge), 0) FROM reservation r WHERE r.allocation_id = a.id)"
                    + " FROM allocation a LEFT JOIN entry e ON e.allocation_id = a.id"
                    + " GROUP BY a.id, a.credited, a.held, a.settled, a.last_seq ORDER BY a.id", rs -> {
                        long id = rs.getLong(1);
                        String[] names = {"granted", "held", "used"};
                        for (int i = 0; i < 3; i++) {
                            if (rs.getLong(2 + i) != rs.getLong(6 + i)) {
                                problems.add("allocation #" + id + ": " + names[i] + " is " + rs.getLong(2 + i)
                                        + " but the journal sums to " + rs.getLong(6 + i));
                            }
                        }
                        if (rs.getLong(9) != rs.getLong(5) || rs.getLong(10) != rs.getLong(5)) {
                            problems.add("allocation #" + id + ": journal has " + rs.getLong(9) + " entries up to #"
                                    + rs.getLong(10) + " but " + rs.getLong(5) + " were written (gap or loss)");
                        }
                        if (rs.getLong(3) != rs.getLong(11)) {
                            problems.add("allocation #" + id + ": held is " + rs.getLong(3)
                                    + " but reservations in flight hold " + rs.getLong(11));
                        }
                        if (rs.getLong(4) != rs.getLong(12)) {
                            problems.add("allocation #" + id + ": used is " + rs.getLong(4)
                                    + " but reservations are charged " + rs.getLong(12));
                        }
                        return null;
                    });
            Sql.list(c, "SELECT rkey, hold, charge FROM reservation WHERE forced = 0 AND charge > hold", rs -> {
                problems.add("reservation " + rs.getString(1) + " charged " + rs.getLong(3) + " above its hold "
                        + rs.getLong(2));
                return null;
            });
            return problems;
        });
    }

    // ------------------------------------------------------------------ replay

    /** Rows copied per target transaction while replaying. */
    private static final int REPLAY_BATCH = 2_000;

    @Override
    public Replay replayInto(Ledger into) {
        if (!(into instanceof JdbcLedger target)) {
            throw new LedgerException("can only replay into a JDBC ledger, not " + into);
        }
        if (target == this || target.url.equals(url)) {
            throw new LedgerException("cannot replay " + this + " into itself");
        }
        long present = target.executor.read(c -> Sql.returning(c, "SELECT (SELECT COUNT(*) FROM project)"
                + " + (SELECT COUNT(*) FROM reservation) + (SELECT COUNT(*) FROM entry)"));
        if (present > 0) {
            throw new LedgerException("cannot replay into " + target + ": it is not empty (" + present
                    + " projects, reservations and entries); replay needs a new, empty ledger");
        }
        return executor.read(c -> {
            if (dialect == Dialect.POSTGRESQL) {
                Sql.update(c, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"); // one snapshot for the whole copy
            }
            Map<Long, Long> projects = new HashMap<>();
            stream(c, "SELECT id, name, gid, account, active, created_at FROM project ORDER BY id", rows ->
                    target.executor.write(t -> {
                        for (Object[] r : rows) {
                            projects.put(number(r[0]), Sql.returning(t, "INSERT INTO project (name, gid, account,"
                                    + " active, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id", r[1], r[2], r[3], r[4],
                                    r[5]));
                        }
                        return null;
                    }));
            Map<Long, Long> allocations = new HashMap<>();
            List<Object[]> expected = new ArrayList<>();
            stream(c, "SELECT id, project_id, resource, category, starts_at, ends_at, credited, held, settled, last_seq"
                    + " FROM allocation ORDER BY id", rows -> {
                        expected.addAll(rows);
                        target.executor.write(t -> {
                            for (Object[] r : rows) {
                                allocations.put(number(r[0]), Sql.returning(t, "INSERT INTO allocation (project_id,"
                                        + " resource, category, starts_at, ends_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
                                        projects.get(number(r[1])), r[2], r[3], r[4], r[5]));
                            }
                            return null;
                        });
                    });
            copy(c, target, "name, cpu_milli, mem_milli, gpu_milli, mult_milli", "partition_weights", "name", null);
            copy(c, target, "request_id, payload, created_at", "admin_request", "request_id", null);
            copy(c, target, "created_at, kind, rkey, project, message", "alert", "id", null);
            long reservations = copy(c, target, RES_COLUMNS.substring("id, ".length()), "reservation", "id",
                    r -> r[6] = r[6] == null ? null : allocations.get(number(r[6])));
            long[] entries = {0};
            stream(c, "SELECT allocation_id, kind, amount, rkey, actor, reason, created_at FROM entry ORDER BY seq",
                    rows -> {
                        target.executor.write(t -> {
                            for (Object[] r : rows) {
                                target.append(t, allocations.get(number(r[0])), Kind.valueOf((String) r[1]),
                                        number(r[2]), (String) r[3], (String) r[4], (String) r[5], number(r[6]));
                            }
                            return null;
                        });
                        entries[0] += rows.size();
                    });
            List<String> problems = new ArrayList<>();
            String[] names = {"granted", "held", "used", "journal length"};
            for (Object[] r : expected) {
                long id = allocations.get(number(r[0]));
                long[] rebuilt = target.executor.read(t -> Sql.one(t, "SELECT credited, held, settled, last_seq"
                        + " FROM allocation WHERE id = ?", rs -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3),
                        rs.getLong(4)}, id));
                for (int i = 0; i < names.length; i++) {
                    if (rebuilt[i] != number(r[6 + i])) {
                        problems.add("allocation #" + r[0] + " (#" + id + " in the replay): " + names[i] + " is "
                                + number(r[6 + i]) + " but the replayed journal gives " + rebuilt[i]);
                    }
                }
            }
            target.check().forEach(p -> problems.add("replay: " + p));
            return new Replay(projects.size(), allocations.size(), reservations, entries[0], problems);
        });
    }

    /** Copies a table's rows in {@code order} into the same table of {@code target}; returns the count. */
    private static long copy(Connection c, JdbcLedger target, String columns, String table, String order,
                             java.util.function.Consumer<Object[]> adjust) throws SQLException {
        String insert = "INSERT INTO " + table + " (" + columns + ") VALUES ("
                + "?, ".repeat(columns.split(",").length - 1) + "?)";
        long[] n = {0};
        stream(c, "SELECT " + columns + " FROM " + table + " ORDER BY " + order, rows -> {
            if (adjust != null) {
                rows.forEach(adjust);
            }
            target.executor.write(t -> {
                for (Object[] r : rows) {
                    Sql.update(t, insert, r);
                }
                return null;
            });
            n[0] += rows.size();
        });
        return n[0];
    }

    private interface Batch {
        void accept(List<Object[]> rows) throws SQLException;
    }

    /** Runs a query and hands its rows on in batches, without holding the whole result in memory. */
    private static void stream(Connection c, String sql, Batch sink) throws SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setFetchSize(REPLAY_BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                List<Object[]> rows = new ArrayList<>();
                while (rs.next()) {
                    Object[] row = new Object[columns];
                    for (int i = 0; i < columns; i++) {
                        row[i] = rs.getObject(i + 1);
                    }
                    rows.add(row);
                    if (rows.size() == REPLAY_BATCH) {
                        sink.accept(rows);
                        rows = new ArrayList<>();
                    }
                }
                if (!rows.isEmpty()) {
                    sink.accept(rows);
                }
            }
        }
    }

    private static long number(Object o) {
        return ((Number) o).longValue();
    }
}
