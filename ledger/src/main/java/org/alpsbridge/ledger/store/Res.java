package org.alpsbridge.ledger.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Outcome.Decision;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.State;

/** A reservation row. */
record Res(long id, String key, String cluster, String batchId, long resId, String project, String owner,
           Long allocationId, String params, long rate, long limit, String limitSource, State state,
           long hold, long charge, long refunded, long overrun, String releaseText, String reason,
           String message, long available, boolean forced, long tReserve, Long tConfirm, Long tRelease) {

    /** Every column of the reservation table, in the order replay copies them. */
    static final String COLUMNS = "id, rkey, cluster, batch_id, res_id, project, owner, allocation_id,"
            + " params, rate, limit_s, limit_source, state, hold, charge, refunded, overrun_s, release_text, reason,"
            + " message, available, forced, t_reserve, t_confirm, t_release";

    static Res of(ResultSet rs) throws SQLException {
        return new Res(rs.getLong("id"), rs.getString("rkey"), rs.getString("cluster"), rs.getString("batch_id"),
                rs.getLong("res_id"), rs.getString("project"), rs.getString("owner"),
                Sql.nullableLong(rs, "allocation_id"), rs.getString("params"), rs.getLong("rate"),
                rs.getLong("limit_s"), rs.getString("limit_source"), State.valueOf(rs.getString("state")),
                rs.getLong("hold"), rs.getLong("charge"), rs.getLong("refunded"), rs.getLong("overrun_s"),
                rs.getString("release_text"), rs.getString("reason"), rs.getString("message"),
                rs.getLong("available"), rs.getInt("forced") != 0, rs.getLong("t_reserve"),
                Sql.nullableLong(rs, "t_confirm"), Sql.nullableLong(rs, "t_release"));
    }

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
