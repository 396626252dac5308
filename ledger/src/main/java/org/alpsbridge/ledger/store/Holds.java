package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.cost.Cost;

/**
 * PostgreSQL: the RESERVEs of one transaction held together, in one statement that locks their allocations and
 * holds, for each allocation, the longest run of them (in their order) whose holds fit its balance then, while
 * it still covers each RESERVE's time and its project is active. What it does not hold is decided one by one
 * after it, as usual, under the same lock: one round trip under a hot allocation's lock for all the
 * RESERVEs of a transaction instead of one each (issue 21).
 *
 * <p>The keys are not checked here: a RESERVE of a key inserted meanwhile fails the statement on the key's
 * uniqueness, and each RESERVE of it runs again alone.
 */
final class Holds {

    /** A RESERVE to hold on the allocation read (unlocked) before the transaction locked it. */
    record Hold(long allocationId, String project, ReserveRequest request, String limitSource, long rate, long hold) {

        /** The hold of {@code q} on {@code target}'s allocation, rated by the target's partition weights. */
        static Hold of(ReserveRequest q, Lookups.Target target, String limitSource) {
            long rate = Cost.rate(q.resource(), q.nodes(), q.node(), target.weights());
            return new Hold(target.allocation().id(), target.allocation().project(), q, limitSource, rate,
                    Cost.worst(rate, q.limitSeconds()));
        }
    }

    /** A hold made: the allocation's balance after it. */
    record Held(Hold hold, long available) {
    }

    /**
     * The RESERVEs of one transaction, decided together ({@link Executor#writeEvent(String, Executor.Asked, Object,
     * Executor.Asked, java.util.function.Function, Executor.Then)}): each answer is its hold made, or null.
     */
    static final Executor.Asked<Hold, Held> ALL = Holds::holdAll;

    private Holds() {
    }

    private static List<Held> holdAll(Connection c, List<Hold> holds) throws SQLException {
        if (holds.size() == 1) {
            return java.util.Collections.singletonList(holdOne(c, holds.get(0)));
        }
        Object[] columns = Sql.columnArrays(c, holds, Sql.bigint(Hold::allocationId), Sql.bigint(Hold::hold),
                Sql.bigint(h -> h.request().at().getEpochSecond()), Sql.text(h -> h.request().key()),
                Sql.text(h -> h.request().cluster()), Sql.text(h -> h.request().batchId()),
                Sql.bigint(h -> h.request().resId()), Sql.text(Hold::project), Sql.text(h -> h.request().owner()),
                Sql.text(h -> h.request().paramsText()), Sql.bigint(Hold::rate),
                Sql.bigint(h -> h.request().limitSeconds()), Sql.text(Hold::limitSource));
        // al: the allocations, locked in id order (the latest row versions, under READ COMMITTED); run: each hold with
        // the balance after it and all before it on its allocation, and whether it or one before it lies outside the
        // allocation's time; a: the balance moved by the holds that fit, only if they still fit (so that nothing can
        // overdraw even if the lock were not what was read); then the reservations and their journal entries, in order
        Held[] held = new Held[holds.size()];
        Sql.list(c, "WITH h AS (SELECT * FROM unnest(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WITH ORDINALITY AS h"
                + " (allocation_id, hold, at, rkey, cluster, batch_id, res_id, project, owner, params, rate, limit_s,"
                + " limit_source, i)),"
                + " al AS (SELECT a.id, a.credited - a.held - a.settled AS available, a.starts_at, a.ends_at"
                + " FROM allocation a WHERE a.id = ANY (?) AND EXISTS (SELECT 1 FROM project p"
                + " WHERE p.id = a.project_id AND p.active = 1) ORDER BY a.id FOR UPDATE),"
                + " run AS (SELECT h.*, al.available - CAST(sum(h.hold) OVER w AS BIGINT) AS after,"
                + " bool_or(h.at < al.starts_at OR h.at >= al.ends_at) OVER w AS outside"
                + " FROM h JOIN al ON al.id = h.allocation_id WINDOW w AS (PARTITION BY h.allocation_id ORDER BY h.i)),"
                + " fit AS (SELECT *, row_number() OVER (PARTITION BY allocation_id ORDER BY i) AS k FROM run"
                + " WHERE after >= 0 AND NOT outside),"
                + " d AS (SELECT allocation_id, count(*) AS n, CAST(sum(hold) AS BIGINT) AS total FROM fit"
                + " GROUP BY allocation_id),"
                + " a AS (UPDATE allocation SET last_seq = last_seq + d.n, held = held + d.total FROM d"
                + " WHERE allocation.id = d.allocation_id AND allocation.credited - allocation.held"
                + " - allocation.settled >= d.total RETURNING allocation.id, allocation.last_seq - d.n AS base),"
                + " f AS (SELECT fit.*, a.base + fit.k AS seq FROM fit JOIN a ON a.id = fit.allocation_id),"
                + " r AS (" + Charging.INSERT_RESERVATION + " SELECT rkey, cluster, batch_id, res_id, project, owner,"
                + " allocation_id, params, rate, limit_s, limit_source, '" + State.HELD.name() + "', hold, NULL, NULL,"
                + " after, at FROM f ORDER BY i),"
                + " e AS (" + Journal.INSERT_ENTRY + " SELECT allocation_id, seq, '" + Kind.HOLD.name() + "', -hold,"
                + " rkey, 'reserve', NULL, at FROM f ORDER BY i)"
                + " SELECT i, after FROM f", rs -> held[rs.getInt(1) - 1] = new Held(holds.get(rs.getInt(1) - 1),
                        rs.getLong(2)), withAllocations(columns));
        return Arrays.asList(held);
    }

    /**
     * The statement's arguments: its columns, then the allocations to lock again (their array, an index scan of each
     * by its key whatever the plan was made on; an {@code IN} of the holds could be planned as a scan of them all).
     */
    private static Object[] withAllocations(Object[] columns) {
        Object[] args = Arrays.copyOf(columns, columns.length + 1);
        args[columns.length] = columns[0];
        return args;
    }

    /**
     * One RESERVE alone (each project's only one of its transaction, as when every client charges its own): the
     * same decision in a lighter statement, a single-row UPDATE whose condition is checked on the locked row.
     */
    private static Held holdOne(Connection c, Hold h) throws SQLException {
        ReserveRequest q = h.request();
        long t = q.at().getEpochSecond();
        return Sql.one(c, "WITH a AS (UPDATE allocation SET last_seq = last_seq + 1, held = held + ?"
                + " WHERE id = ? AND credited - held - settled >= ? AND starts_at <= ? AND ends_at > ?"
                + " AND EXISTS (SELECT 1 FROM project p WHERE p.id = allocation.project_id AND p.active = 1)"
                + " RETURNING last_seq, credited - held - settled AS available),"
                + " r AS (" + Charging.INSERT_RESERVATION
                + " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, a.available, ? FROM a),"
                + " e AS (" + Journal.INSERT_ENTRY + " SELECT ?, a.last_seq, ?, ?, ?, 'reserve', NULL, ? FROM a)"
                + " SELECT available FROM a", rs -> new Held(h, rs.getLong(1)),
                h.hold(), h.allocationId(), h.hold(), t, t,
                q.key(), q.cluster(), q.batchId(), q.resId(), h.project(), q.owner(), h.allocationId(), q.paramsText(),
                h.rate(), q.limitSeconds(), h.limitSource(), State.HELD.name(), h.hold(), t,
                h.allocationId(), Kind.HOLD.name(), -h.hold(), q.key(), t);
    }
}
