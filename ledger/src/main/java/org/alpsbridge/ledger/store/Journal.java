package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only way balances move: journal entries appended together with the balance cache they change,
 * plus alerts and the administrative request ids that make admin writes idempotent.
 */
final class Journal {

    private static final Logger log = LoggerFactory.getLogger(JdbcLedger.class); // one logger name for the whole store

    private final Dialect dialect;

    Journal(Dialect dialect) {
        this.dialect = dialect;
    }

    /** The start of every journal entry's INSERT: its columns, in the order of the values that follow. */
    static final String INSERT_ENTRY = "INSERT INTO entry (allocation_id, allocation_seq, kind, amount, rkey, actor,"
            + " reason, created_at)";

    /** One journal entry to append: what it adds to the available balance, and why. */
    record Move(Kind kind, long amount, String reason) {
    }

    /**
     * Appends one journal entry and moves the balance cache with it. The allocation row must be locked.
     * {@code amount} is what the entry adds to the available balance.
     */
    void append(Connection c, long allocationId, Kind kind, long amount, String key, String actor,
                        String reason, long at) throws SQLException {
        append(c, allocationId, key, actor, at, null, List.of(new Move(kind, amount, reason)));
    }

    /**
     * Appends entries of one allocation, in order, and moves its balance cache with them; {@code also}
     * (a reservation INSERT or UPDATE, with its arguments first) runs in the same statement on
     * PostgreSQL, where each round trip is paid while the allocation row is locked. {@code also} must change
     * one row: when it changes none (an UPDATE whose condition no longer holds) nothing is appended and this
     * throws, naming reservation {@code key}.
     */
    void append(Connection c, long allocationId, String key, String actor, long at, Object[] also,
                        List<Move> moves) throws SQLException {
        if (!appendIf(c, allocationId, key, actor, at, also, moves)) {
            throw unchanged(key);
        }
    }

    /** {@link #append}, but false (nothing appended) instead of a failure when {@code also} changes no row. */
    boolean appendIf(Connection c, long allocationId, String key, String actor, long at, Object[] also,
                     List<Move> moves) throws SQLException {
        long[] delta = new long[3]; // credited, held, settled
        for (Move m : moves) {
            delta[column(m)] = Math.addExact(delta[column(m)], m.kind().columnDelta(m.amount()));
        }
        String bump = "UPDATE allocation SET last_seq = last_seq + ?, credited = credited + ?, held = held + ?,"
                + " settled = settled + ? WHERE id = ? RETURNING last_seq";
        if (dialect == Dialect.POSTGRESQL && !moves.isEmpty()) {
            List<Object> args = new ArrayList<>();
            StringBuilder sql = new StringBuilder("WITH ");
            if (also != null) {
                sql.append("r AS (").append(also[0]).append(" RETURNING 1), ");
                args.addAll(java.util.Arrays.asList(also).subList(1, also.length));
            }
            sql.append("a AS (").append(also == null ? bump : bump.replace(" RETURNING", " AND EXISTS (SELECT 1 FROM r) RETURNING"))
                    .append(") " + INSERT_ENTRY + " SELECT ?, a.last_seq - ? + m.i, m.kind, m.amount, ?, ?, m.reason,"
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
            return Sql.update(c, sql.toString(), args.toArray()) == moves.size();
        }
        if (also != null && Sql.update(c, also) != 1) {
            return false;
        }
        if (moves.isEmpty()) {
            return true;
        }
        refuseOverflow(c, allocationId, delta);
        long seq = Sql.returning(c, bump, (long) moves.size(), delta[0], delta[1], delta[2], allocationId)
                - moves.size();
        for (Move m : moves) {
            Sql.update(c, INSERT_ENTRY + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", allocationId, ++seq, m.kind().name(),
                    m.amount(), key, actor, m.reason(), at);
        }
        return true;
    }

    /** The balance column move {@code m} changes: 0 credited (granted), 1 held, 2 settled (used). */
    static int column(Move m) {
        return switch (m.kind().column()) {
            case "credited" -> 0;
            case "held" -> 1;
            default -> 2;
        };
    }

    private static LedgerException unchanged(String key) {
        return new LedgerException("reservation " + key + " changed in this transaction after it was read"
                + " (another event of it, applied first); nothing of this event was kept, it runs again on its own");
    }

    /**
     * SQLite turns an integer overflow in {@code credited + ?} into a floating-point value and stores it: a
     * balance would be silently wrong (PostgreSQL refuses with "bigint out of range" instead). Each amount is at
     * most {@link Ledger#MAX_MINUTES}; this keeps each balance column within 1000 times that.
     */
    private static void refuseOverflow(Connection c, long allocationId, long[] delta) throws SQLException {
        long[] now = Sql.one(c, "SELECT credited, held, settled FROM allocation WHERE id = ?",
                rs -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}, allocationId);
        long limit = 1000 * Ledger.MAX_MINUTES;
        String[] names = {"granted", "held", "used"};
        for (int i = 0; i < 3; i++) {
            if (now != null && Math.abs(now[i] + delta[i]) > limit) {
                throw new LedgerException("allocation #" + allocationId + ": " + names[i]
                        + " would reach " + (now[i] + delta[i]) + ", beyond the ledger's limit of " + limit);
            }
        }
    }

    void alert(Connection c, long at, String kind, String key, String project, String message)
            throws SQLException {
        log.warn("ledger alert {} {}: {}", kind, key == null ? "" : key, message);
        Sql.update(c, "INSERT INTO alert (created_at, kind, rkey, project, message) VALUES (?, ?, ?, ?, ?)",
                at, kind, key, project, message);
    }

    /**
     * Administrative idempotency: false when this request id was already applied with the same payload
     * (the caller then only reports), true when it is new. A reused id with another payload is refused.
     */
    boolean firstTime(Connection c, String requestId, String payload, long at) throws SQLException {
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

    static long now() {
        return Instant.now().getEpochSecond();
    }
}
