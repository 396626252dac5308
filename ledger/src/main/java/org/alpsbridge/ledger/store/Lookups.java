package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Weights;

/**
 * The reads every event starts with, inside its transaction: a project by name or account, the
 * allocation a charge goes to (locked on PostgreSQL, where writers run concurrently), a reservation by
 * key or by ALPS id, a partition's weights.
 */
final class Lookups {

    private final Dialect dialect;

    Lookups(Dialect dialect) {
        this.dialect = dialect;
    }

    static Project project(ResultSet rs) throws SQLException {
        return new Project(rs.getLong("id"), rs.getString("name"), rs.getInt("gid"), rs.getString("account"),
                rs.getInt("active") != 0);
    }

    Project findProject(Connection c, String nameOrAccount) throws SQLException {
        return Sql.one(c, "SELECT id, name, gid, account, active FROM project WHERE name = ? OR account = ?"
                + " ORDER BY CASE WHEN name = ? THEN 0 ELSE 1 END LIMIT 1", Lookups::project, nameOrAccount,
                nameOrAccount, nameOrAccount);
    }

    Project requireProject(Connection c, String nameOrAccount) throws SQLException {
        Project p = findProject(c, nameOrAccount);
        if (p == null) {
            throw new LedgerException("unknown project '" + nameOrAccount + "' (alpsbridge ledger project list)");
        }
        return p;
    }

    /** The allocation active at {@code at}, locked for the rest of the transaction; null if none. */
    Alloc activeAllocation(Connection c, long projectId, Resource resource, long at) throws SQLException {
        return activeAllocation(c, projectId, resource, at, true);
    }

    /** {@link #activeAllocation}, locked or not (a read-only quote locks nothing). */
    Alloc activeAllocation(Connection c, long projectId, Resource resource, long at, boolean lock) throws SQLException {
        return Sql.one(c, "SELECT " + Alloc.COLUMNS + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + " WHERE a.project_id = ? AND a.resource = ? AND a.starts_at <= ? AND a.ends_at > ?"
                + (lock && dialect == Dialect.POSTGRESQL ? " FOR UPDATE OF a" : ""),
                Alloc::of, projectId, resource.name(), at, at);
    }

    /** The allocation of exactly the period {@code [starts, ends)}, locked; null if none. */
    Alloc allocationFor(Connection c, long projectId, Resource resource, long starts, long ends) throws SQLException {
        return Sql.one(c, "SELECT " + Alloc.COLUMNS + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + " WHERE a.project_id = ? AND a.resource = ? AND a.starts_at = ? AND a.ends_at = ?"
                + (dialect == Dialect.POSTGRESQL ? " FOR UPDATE OF a" : ""),
                Alloc::of, projectId, resource.name(), starts, ends);
    }

    Alloc requireActive(Connection c, String project, Resource resource, long at) throws SQLException {
        Project p = requireProject(c, project);
        Alloc a = activeAllocation(c, p.id(), resource, at);
        if (a == null) {
            throw new LedgerException("project " + p.name() + " has no " + resource.name().toLowerCase()
                    + " allocation active at " + Instant.ofEpochSecond(at));
        }
        return a;
    }

    Alloc lockAllocation(Connection c, long id) throws SQLException {
        return Sql.one(c, "SELECT " + Alloc.COLUMNS + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + " WHERE a.id = ?" + (dialect == Dialect.POSTGRESQL ? " FOR UPDATE OF a" : ""),
                Alloc::of, id);
    }

    Res findReservation(Connection c, Lookup l) throws SQLException {
        return Sql.one(c, "SELECT " + Res.COLUMNS + " FROM reservation WHERE " + latest(l) + dialect.forUpdate(),
                Res::of, latestArgs(l).toArray());
    }

    /**
     * {@link #findReservation} without the row lock, for a write that checks in its own condition that the row is
     * still as read (a RELEASE's settled row): a lock taken here would cost a write of its own (the lock is kept in
     * the row) only to be taken again by that write.
     */
    private Res readReservation(Connection c, Lookup l) throws SQLException {
        return Sql.one(c, "SELECT " + Res.COLUMNS + " FROM reservation WHERE " + latest(l), Res::of,
                latestArgs(l).toArray());
    }

    /**
     * The condition (and order) that picks lookup {@code l}'s latest reservation from {@code reservation}, with
     * {@link #latestArgs}: {@link #findReservation}'s, and the RELEASE's check that it settles that one still.
     * The shape is planned on reservation_res even on an empty table.
     */
    static String latest(Lookup l) {
        return "cluster = ?" + (l.batchId() == null ? "" : " AND batch_id = ?") + " AND res_id = ? ORDER BY id DESC LIMIT 1";
    }

    /** The arguments of {@link #latest}, in its order. */
    static List<Object> latestArgs(Lookup l) {
        List<Object> args = new java.util.ArrayList<>(List.of(l.cluster()));
        if (l.batchId() != null) {
            args.add(l.batchId());
        }
        args.add(l.resId());
        return args;
    }

    Res reservationByKey(Connection c, String key) throws SQLException {
        return Sql.one(c, "SELECT " + Res.COLUMNS + " FROM reservation WHERE rkey = ?" + dialect.forUpdate(),
                Res::of, key);
    }

    /**
     * What a RESERVE charges: the allocation (locked) and the partition's weights; {@code keyTaken} when a
     * reservation with the RESERVE's key exists already (read, not locked: the caller then locks it).
     */
    record Target(Alloc allocation, Weights weights, boolean keyTaken) {
    }

    /**
     * The usual RESERVE's reads in one round trip (on a hot allocation each round trip is paid while
     * its row is locked): whether reservation {@code key} exists, the active project named
     * {@code nameOrAccount} (by name, else by account), its allocation active at {@code at}, locked, and the
     * partition's weights. Null when there is no such active project or allocation: the caller then looks
     * each up to say which is missing.
     */
    Target chargeTarget(Connection c, String key, String nameOrAccount, Resource resource, long at, String partition)
            throws SQLException {
        return chargeTarget(c, key, nameOrAccount, resource, at, partition, true);
    }

    /**
     * What each RESERVE charges ({@link #chargeTarget}), read without locking the allocations, for RESERVEs read
     * together before their transaction locks anything on PostgreSQL (whose holds then check the balance in the
     * statement that takes the lock): one statement for all of them. Null for a RESERVE that finds no active
     * project and allocation or names an unknown partition (it then looks them up itself, to say which is
     * missing), and on SQLite, whose one writer has nothing to gain from it.
     */
    final Executor.Asked<ReserveRequest, Target> unlockedTargets = this::unlockedTargets;

    private List<Target> unlockedTargets(Connection c, List<ReserveRequest> reserves) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            return java.util.Arrays.asList(new Target[reserves.size()]);
        }
        if (reserves.size() == 1) {
            ReserveRequest q = reserves.get(0);
            Target t = null;
            try {
                t = chargeTarget(c, q.key(), q.project(), q.resource(), q.at().getEpochSecond(), q.partition(), false);
            } catch (LedgerException unknownPartition) {
                // decided by the RESERVE itself, which names it
            }
            return java.util.Collections.singletonList(t);
        }
        Target[] targets = new Target[reserves.size()];
        Sql.list(c, "SELECT " + Alloc.COLUMNS + ", w.cpu_milli, w.mem_milli, w.gpu_milli, w.mult_milli,"
                + " k.taken IS NOT NULL, q.i"
                + " FROM unnest(?, ?, ?, ?, ?) WITH ORDINALITY AS q (rkey, name, resource, at, partition, i)"
                // the project by name, else by account (each a unique index), then only if active, and its
                // allocation then; each a LATERAL with LIMIT, so that the plan looks each up once per RESERVE by its
                // index whatever the tables held when it was made (a join of the allocations to the RESERVEs first
                // would look the project up once per allocation)
                + " CROSS JOIN LATERAL (SELECT * FROM project WHERE name = q.name OR account = q.name"
                + " ORDER BY name = q.name DESC LIMIT 1) p"
                + " CROSS JOIN LATERAL (SELECT * FROM allocation WHERE project_id = p.id AND resource = q.resource"
                + " AND starts_at <= q.at AND ends_at > q.at LIMIT 1) a"
                + " LEFT JOIN partition_weights w ON w.name = q.partition"
                // (an EXISTS here may be planned as one scan of the whole table, hashed, on a table empty then)
                + " LEFT JOIN LATERAL (SELECT 1 AS taken FROM reservation WHERE rkey = q.rkey LIMIT 1) k ON true"
                + " WHERE p.active = 1", rs -> {
                    int i = rs.getInt(16) - 1;
                    Weights w = weightsAt(rs, 11);
                    if (w != null || Ledger.DEFAULT_PARTITION.equals(reserves.get(i).partition())) {
                        targets[i] = new Target(Alloc.of(rs), orDefault(w, reserves.get(i).partition()),
                                rs.getBoolean(15));
                    }
                    return null;
                }, Sql.columnArrays(c, reserves, Sql.text(ReserveRequest::key), Sql.text(ReserveRequest::project),
                        Sql.text(q -> q.resource().name()), Sql.bigint(q -> q.at().getEpochSecond()),
                        Sql.text(ReserveRequest::partition)));
        return java.util.Arrays.asList(targets);
    }

    /**
     * The lookup's latest reservation ({@link #findReservation}) for each RELEASE, read without locking it, for
     * RELEASEs read together before their transaction locks anything (a RELEASE's settlement is written only if
     * the row is still as read): on PostgreSQL one statement for all of them. Null where there is none.
     */
    final Executor.Asked<Lookup, Res> latestReservations = this::latestReservations;

    private List<Res> latestReservations(Connection c, List<Lookup> lookups) throws SQLException {
        if (dialect != Dialect.POSTGRESQL || lookups.size() == 1) {
            List<Res> found = new java.util.ArrayList<>(lookups.size());
            for (Lookup l : lookups) {
                found.add(readReservation(c, l));
            }
            return found;
        }
        Res[] found = new Res[lookups.size()];
        // ordered as reservation_res is, so that even a plan made on an empty table reads it backwards from the
        // lookup's newest row (ordered by id alone, it may walk the primary key back through the whole table)
        Sql.list(c, "SELECT r.*, q.i FROM unnest(?, ?, ?) WITH ORDINALITY AS q (cluster, batch_id, res_id, i)"
                + " CROSS JOIN LATERAL (SELECT " + Res.COLUMNS + " FROM reservation WHERE cluster = q.cluster"
                + " AND (q.batch_id IS NULL OR batch_id = q.batch_id) AND res_id = q.res_id"
                + " ORDER BY cluster DESC, res_id DESC, id DESC LIMIT 1) r",
                rs -> found[rs.getInt("i") - 1] = Res.of(rs), Sql.columnArrays(c, lookups, Sql.text(Lookup::cluster),
                        Sql.text(Lookup::batchId), Sql.bigint(Lookup::resId)));
        return java.util.Arrays.asList(found);
    }

    private Target chargeTarget(Connection c, String key, String nameOrAccount, Resource resource, long at,
                                String partition, boolean lock) throws SQLException {
        return Sql.one(c, "SELECT " + Alloc.COLUMNS + ", w.cpu_milli, w.mem_milli, w.gpu_milli, w.mult_milli,"
                + " EXISTS (SELECT 1 FROM reservation r WHERE r.rkey = ?)"
                + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + " LEFT JOIN partition_weights w ON w.name = ?"
                + " WHERE (p.name = ? OR p.account = ? AND NOT EXISTS (SELECT 1 FROM project n WHERE n.name = ?))"
                + " AND p.active = 1 AND a.resource = ? AND a.starts_at <= ? AND a.ends_at > ?"
                + (lock && dialect == Dialect.POSTGRESQL ? " FOR UPDATE OF a" : ""),
                rs -> new Target(Alloc.of(rs), orDefault(weightsAt(rs, 11), partition), rs.getBoolean(15)),
                key, partition, nameOrAccount, nameOrAccount, nameOrAccount, resource.name(), at, at);
    }

    /** The weights in the four columns from {@code column} on (a LEFT JOIN of partition_weights); null if none. */
    private static Weights weightsAt(ResultSet rs, int column) throws SQLException {
        rs.getLong(column);
        return rs.wasNull() ? null : new Weights(rs.getLong(column), rs.getLong(column + 1), rs.getLong(column + 2),
                rs.getLong(column + 3));
    }

    static Weights weights(Connection c, String partition) throws SQLException {
        Weights w = Sql.one(c, "SELECT cpu_milli, mem_milli, gpu_milli, mult_milli FROM partition_weights WHERE name = ?",
                rs -> new Weights(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)), partition);
        return orDefault(w, partition);
    }

    private static Weights orDefault(Weights w, String partition) {
        if (w != null) {
            return w;
        }
        if (Ledger.DEFAULT_PARTITION.equals(partition)) {
            return Weights.UNIT;
        }
        throw new LedgerException("unknown partition '" + partition + "': set its weights first"
                + " (alpsbridge ledger partition " + partition + " --cpu-weight W ...)");
    }
}
