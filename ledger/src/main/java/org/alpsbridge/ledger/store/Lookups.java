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
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.cost.Weights;

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
        return Sql.one(c, "SELECT " + Alloc.COLUMNS + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + " WHERE a.project_id = ? AND a.resource = ? AND a.starts_at <= ? AND a.ends_at > ?"
                + (dialect == Dialect.POSTGRESQL ? " FOR UPDATE OF a" : ""),
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
    Res readReservation(Connection c, Lookup l) throws SQLException {
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
     * {@link #chargeTarget} read without locking the allocation, for a RESERVE's prepare step on PostgreSQL
     * (whose hold then checks the balance in the statement that takes the lock); null on SQLite, whose one
     * writer has nothing to gain from it.
     */
    Target unlockedChargeTarget(Connection c, String key, String nameOrAccount, Resource resource, long at,
                                String partition) throws SQLException {
        return dialect == Dialect.POSTGRESQL ? chargeTarget(c, key, nameOrAccount, resource, at, partition, false) : null;
    }

    private Target chargeTarget(Connection c, String key, String nameOrAccount, Resource resource, long at,
                                String partition, boolean lock) throws SQLException {
        return Sql.one(c, "SELECT " + Alloc.COLUMNS + ", w.cpu_milli, w.mem_milli, w.gpu_milli, w.mult_milli,"
                + " EXISTS (SELECT 1 FROM reservation r WHERE r.rkey = ?)"
                + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + " LEFT JOIN partition_weights w ON w.name = ?"
                + " WHERE (p.name = ? OR p.account = ? AND NOT EXISTS (SELECT 1 FROM project n WHERE n.name = ?))"
                + " AND p.active = 1 AND a.resource = ? AND a.starts_at <= ? AND a.ends_at > ?"
                + (lock && dialect == Dialect.POSTGRESQL ? " FOR UPDATE OF a" : ""), rs -> {
                    rs.getLong(11);
                    Weights w = rs.wasNull() ? null
                            : new Weights(rs.getLong(11), rs.getLong(12), rs.getLong(13), rs.getLong(14));
                    return new Target(Alloc.of(rs), orDefault(w, partition), rs.getBoolean(15));
                }, key, partition, nameOrAccount, nameOrAccount, nameOrAccount, resource.name(), at, at);
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
