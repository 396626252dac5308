package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Outcome.Decision;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.cost.Cost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RELEASEs that settle a hold in progress: the reservation's settled row, the journal entries that move the
 * balance, and the allocation's balance cache, written together only while the reservation is still as its
 * RELEASE read it (unlocked, before the transaction locked anything). On PostgreSQL the settlements of one
 * project in a transaction are written in one statement, after the project's other work (issue 21): one round trip
 * under the allocation's lock for all of them, and none before it.
 */
final class Settlements implements Executor.Asked<Settlements.Settlement, Settlements.Settlement> {

    private static final Logger log = LoggerFactory.getLogger(JdbcLedger.class); // one logger name for the whole store

    /**
     * What RELEASE {@code q} of reservation {@code r} (the lookup's latest, as read) writes when it settles r's
     * hold in progress, and what it answers.
     */
    record Settlement(Res reservation, ReleaseRequest request, long charge, long overrun, String reason, long at,
                      String payload, List<Journal.Move> moves, Outcome outcome) {

        /** The settlement of {@code r} by {@code q} at {@code t}; r must be {@link #settles settled} by q. */
        static Settlement of(Res r, ReleaseRequest q, long t, String payload) {
            boolean byClock = q.elapsedSeconds() == ReleaseRequest.BY_CLOCK;
            long elapsed = byClock ? Math.max(0, t - r.tConfirm()) : q.elapsedSeconds();
            long actual = q.nodeFailure() ? 0 : Cost.actual(r.rate(), elapsed, r.limit());
            String reason = q.nodeFailure() ? "NODE_FAILURE" : null;
            if (r.state() == State.HELD && actual > 0) {
                log.debug("RELEASE of unconfirmed {} reports {} s of use: charged", r.key(), elapsed);
            }
            long charge = Math.min(actual, r.hold());
            List<Journal.Move> moves = new ArrayList<>(2);
            if (charge > 0) {
                moves.add(new Journal.Move(Kind.SETTLE, -charge, reason));
            }
            if (r.hold() > 0) {
                moves.add(new Journal.Move(Kind.RETURN, r.hold(), null));
            }
            long overrun = Math.max(0, elapsed - r.limit());
            return new Settlement(r, q, charge, overrun, reason, t, payload, moves, new Outcome(Decision.OK, r.key(),
                    r.project(), State.SETTLED, r.hold(), charge, r.available(), reason, r.message(), r.forced(),
                    false));
        }

        /**
         * The reservation's settled row: an UPDATE, with its arguments after it, that changes the row only if it is
         * still as read and still the lookup's latest reservation. No lock of the allocation before it: the balance is
         * not consulted, and the journal's UPDATE of the balance locks the row. The latest is found as
         * {@link Lookups#findReservation} finds it: a query of that shape is planned on reservation_res even while
         * the table is empty, which a generic plan keeps.
         */
        Object[] update() {
            Res r = reservation;
            List<Object> update = new ArrayList<>(List.of("UPDATE reservation SET state = ?, charge = ?,"
                    + " overrun_s = ?, reason = ?, t_release = ?, release_text = ? WHERE id = ? AND state = ?"
                    + " AND release_text IS NULL AND hold = ? AND t_confirm IS NOT DISTINCT FROM ?"
                    + " AND id = (SELECT id FROM reservation WHERE " + Lookups.latest(request.lookup()) + ")"));
            update.addAll(Arrays.asList(State.SETTLED.name(), charge, overrun, reason, at, payload, r.id(),
                    r.state().name(), r.hold(), r.tConfirm()));
            update.addAll(Lookups.latestArgs(request.lookup()));
            return update.toArray();
        }
    }

    /** Whether RELEASE {@code q} of {@code r} as read settles a hold in progress (not a repeat, a void or a late one). */
    static boolean settles(Res r, ReleaseRequest q) {
        boolean inProgress = r.state() == State.HELD || r.state() == State.CONFIRMED;
        boolean byClock = q.elapsedSeconds() == ReleaseRequest.BY_CLOCK;
        return inProgress && r.releaseText() == null && !q.neverRan() && !(byClock && r.tConfirm() == null);
    }

    private final Dialect dialect;
    private final Journal journal;

    Settlements(Dialect dialect, Journal journal) {
        this.dialect = dialect;
        this.journal = journal;
    }

    /** Before the transaction's RESERVEs of the same project: what a settlement returns, they may hold. */
    @Override
    public int rank() {
        return -1;
    }

    /**
     * Writes each of {@code all} whose reservation is still as read, in order; the answer is the settlement
     * written, or null (nothing written: its RELEASE then decides on what it reads again). Of several RELEASEs of one
     * reservation only the first is written here.
     */
    @Override
    public List<Settlement> decideAll(Connection c, List<Settlement> all) throws SQLException {
        if (dialect != Dialect.POSTGRESQL || all.size() == 1) {
            List<Settlement> written = new ArrayList<>(all.size());
            for (Settlement s : all) {
                Res r = s.reservation();
                written.add(journal.appendIf(c, r.allocationId(), r.key(), "release", s.at(), s.update(), s.moves())
                        ? s : null);
            }
            return written;
        }
        List<Integer> firsts = new ArrayList<>(all.size()); // the place of each reservation's first settlement
        java.util.Set<Long> seen = new java.util.HashSet<>();
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (seen.add(all.get(i).reservation().id())) {
                firsts.add(i);
                for (Journal.Move m : all.get(i).moves()) {
                    long[] delta = new long[3];
                    delta[Journal.column(m)] = m.kind().columnDelta(m.amount());
                    entries.add(new Entry(firsts.size(), m, delta));
                }
            }
        }
        List<Settlement> rows = firsts.stream().map(all::get).toList();
        Object[] args = concat(Sql.columnArrays(c, rows, Sql.bigint(s -> s.reservation().id()),
                        Sql.text(s -> s.reservation().state().name()), Sql.bigint(s -> s.reservation().hold()),
                        Sql.bigint(s -> s.reservation().tConfirm()), Sql.text(s -> s.request().lookup().batchId()),
                        Sql.bigint(Settlement::charge), Sql.bigint(Settlement::overrun), Sql.text(Settlement::reason),
                        Sql.bigint(Settlement::at), Sql.text(Settlement::payload),
                        Sql.bigint(s -> s.reservation().allocationId()), Sql.text(s -> s.reservation().key())),
                Sql.columnArrays(c, entries, Sql.bigint(Entry::settlement), Sql.text(e -> e.move().kind().name()),
                        Sql.bigint(e -> e.move().amount()), Sql.text(e -> e.move().reason()),
                        Sql.bigint(e -> e.delta()[0]), Sql.bigint(e -> e.delta()[1]), Sql.bigint(e -> e.delta()[2])));
        // s: the settlements; u: the reservations still as read and still their lookup's latest (no newer one of the
        // lookup's cluster, ALPS id and, when it named one, batch id), settled; m: the entries of those; a: each
        // allocation's balance and sequence moved once by its entries, which are numbered in their order
        Settlement[] written = new Settlement[all.size()];
        long[] appended = {-1};
        Sql.list(c, "WITH s AS (SELECT * FROM unnest(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WITH ORDINALITY AS s (id, was,"
                + " hold, t_confirm, batch_id, charge, overrun_s, reason, t_release, release_text, allocation_id, rkey,"
                + " i)),"
                + " u AS (UPDATE reservation r SET state = '" + State.SETTLED.name() + "', charge = s.charge,"
                + " overrun_s = s.overrun_s, reason = s.reason, t_release = s.t_release, release_text = s.release_text"
                + " FROM s WHERE r.id = s.id AND r.state = s.was AND r.release_text IS NULL AND r.hold = s.hold"
                + " AND r.t_confirm IS NOT DISTINCT FROM s.t_confirm AND NOT EXISTS (SELECT 1 FROM reservation n"
                + " WHERE n.cluster = r.cluster AND n.res_id = r.res_id AND (s.batch_id IS NULL OR n.batch_id = r.batch_id)"
                + " AND n.id > r.id) RETURNING s.i, s.allocation_id, s.rkey, s.t_release),"
                + " m AS (SELECT u.allocation_id, u.rkey, u.t_release, x.* FROM unnest(?, ?, ?, ?, ?, ?, ?) WITH ORDINALITY"
                + " AS x (settlement, kind, amount, reason, credited, held, settled, k) JOIN u ON u.i = x.settlement),"
                + " d AS (SELECT allocation_id, count(*) AS n, CAST(sum(credited) AS BIGINT) AS credited,"
                + " CAST(sum(held) AS BIGINT) AS held, CAST(sum(settled) AS BIGINT) AS settled FROM m"
                + " GROUP BY allocation_id),"
                + " a AS (UPDATE allocation SET last_seq = last_seq + d.n, credited = allocation.credited + d.credited,"
                + " held = allocation.held + d.held, settled = allocation.settled + d.settled FROM d"
                + " WHERE allocation.id = d.allocation_id RETURNING allocation.id, allocation.last_seq - d.n AS base),"
                + " e AS (" + Journal.INSERT_ENTRY + " SELECT m.allocation_id,"
                + " a.base + row_number() OVER (PARTITION BY m.allocation_id ORDER BY m.k), m.kind, m.amount, m.rkey,"
                + " 'release', m.reason, m.t_release FROM m JOIN a ON a.id = m.allocation_id RETURNING 1)"
                + " SELECT i, (SELECT count(*) FROM e) FROM u", rs -> {
                    int i = firsts.get(rs.getInt(1) - 1);
                    written[i] = all.get(i);
                    appended[0] = rs.getLong(2);
                    return null;
                }, args);
        long expected = Arrays.stream(written).filter(java.util.Objects::nonNull).mapToLong(s -> s.moves().size()).sum();
        if (appended[0] >= 0 && appended[0] != expected) { // an allocation not found: the statement must not count
            throw new LedgerException("journal: " + appended[0] + " of " + expected + " entries appended for "
                    + all.size() + " settlements; nothing of them was kept, each runs again on its own");
        }
        return Arrays.asList(written);
    }

    /** One journal entry of a settlement (its 1-based place among the settlements): its move, and its deltas. */
    private record Entry(long settlement, Journal.Move move, long[] delta) {
    }

    private static Object[] concat(Object[] a, Object[] b) {
        Object[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
