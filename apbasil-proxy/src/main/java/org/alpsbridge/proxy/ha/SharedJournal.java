package org.alpsbridge.proxy.ha;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The exchange memory of a pair of proxies, in their database: one row per RESERVE/CONFIRM/RELEASE/SWITCH
 * by (uid, exchange id), written before the backend is called and completed with its answer or failure.
 * Every write names the writer's lease epoch and is refused unless that lease is still the writer's, so a
 * proxy that lost its lease (paused past it, cut off) can neither start an exchange nor record one.
 */
final class SharedJournal {

    static final String TABLE = "alpsbridge_proxy_exchange";

    static final String CREATE = "CREATE TABLE IF NOT EXISTS " + TABLE + " (uid int NOT NULL, exchange_id text NOT NULL,"
            + " method text NOT NULL, digest bytea NOT NULL, epoch bigint NOT NULL,"
            + " started timestamptz NOT NULL DEFAULT now(), answer bytea, failure text,"
            + " failure_transient boolean NOT NULL DEFAULT false, interrupted boolean NOT NULL DEFAULT false,"
            + " PRIMARY KEY (uid, exchange_id))";

    /**
     * Added after the first release (a pair's database may predate them): what a RESERVE was for and which proxy
     * ran it, so that a survivor can find the reservation of one interrupted between forward and answer, and
     * what became of that reservation once a survivor settled it.
     */
    static final String ADD_COLUMNS = "ALTER TABLE " + TABLE + " ADD COLUMN IF NOT EXISTS batch_id text,"
            + " ADD COLUMN IF NOT EXISTS user_name text, ADD COLUMN IF NOT EXISTS proxy text,"
            + " ADD COLUMN IF NOT EXISTS settled text";

    private static final String LEASE_HELD = "EXISTS (SELECT 1 FROM " + Lease.TABLE
            + " WHERE id = 1 AND instance = ? AND epoch = ? AND expires > now())";

    private final Connections db;
    private final Lease lease;
    private final String instance;

    SharedJournal(Connections db, Lease lease, String instance) {
        this.db = db;
        this.lease = lease;
        this.instance = instance;
    }

    /**
     * Records an exchange about to run, unless it is known already.
     *
     * @return null when it is new (run it), else what the journal holds for it
     * @throws NotActiveException when {@code epoch} is no longer this proxy's lease
     */
    Availability.Recorded begin(long epoch, int uid, String exchangeId, String methodKey, byte[] digest,
            Availability.ReserveOf reserve, String proxy) throws SQLException, NotActiveException {
        Object out = db.transaction(c -> {
            if (!lease.holdFor(c, epoch)) {
                return null;
            }
            try (PreparedStatement i = c.prepareStatement("INSERT INTO " + TABLE
                    + " (uid, exchange_id, method, digest, epoch, batch_id, user_name, proxy)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
                i.setInt(1, uid);
                i.setString(2, exchangeId);
                i.setString(3, methodKey);
                i.setBytes(4, digest);
                i.setLong(5, epoch);
                i.setString(6, reserve == null ? null : reserve.batchId());
                i.setString(7, reserve == null ? null : reserve.user());
                i.setString(8, proxy);
                if (i.executeUpdate() == 1) {
                    return Boolean.TRUE;
                }
            }
            try (PreparedStatement q = c.prepareStatement("SELECT digest, answer, failure, failure_transient, epoch,"
                    + " method FROM " + TABLE + " WHERE uid = ? AND exchange_id = ? FOR UPDATE")) {
                q.setInt(1, uid);
                q.setString(2, exchangeId);
                try (ResultSet r = q.executeQuery()) {
                    r.next();
                    if (r.getBytes(2) == null && r.getString(3) == null && r.getLong(5) < epoch) {
                        // Begun under an older lease and never finished: a takeover's sweep missed it.
                        String why = interruptedMessage(r.getString(6), exchangeId, "an earlier active proxy");
                        markInterrupted(c, uid, exchangeId, why);
                        return new Availability.Recorded(r.getBytes(1), null, why, true);
                    }
                    return new Availability.Recorded(r.getBytes(1), r.getBytes(2), r.getString(3), r.getBoolean(4));
                }
            }
        });
        if (out == null) {
            throw new NotActiveException("this proxy's lease (epoch " + epoch + ") has ended");
        }
        return out instanceof Availability.Recorded recorded ? recorded : null;
    }

    private static void markInterrupted(java.sql.Connection c, int uid, String exchangeId, String why) throws SQLException {
        try (PreparedStatement u = c.prepareStatement("UPDATE " + TABLE
                + " SET failure = ?, failure_transient = true, interrupted = true WHERE uid = ? AND exchange_id = ?")) {
            u.setString(1, why);
            u.setInt(2, uid);
            u.setString(3, exchangeId);
            u.executeUpdate();
        }
    }

    /** Records an answer; false when this proxy's lease has ended (nothing is written). */
    boolean finish(long epoch, int uid, String exchangeId, byte[] answer) throws SQLException {
        return complete(epoch, uid, exchangeId, "answer = ?", u -> u.setBytes(1, answer));
    }

    /** Records a failure; false when this proxy's lease has ended (nothing is written). */
    boolean fail(long epoch, int uid, String exchangeId, String message, boolean retryable) throws SQLException {
        return complete(epoch, uid, exchangeId, "failure = ?, failure_transient = " + retryable,
                u -> u.setString(1, message));
    }

    private interface Binder {
        void bind(PreparedStatement u) throws SQLException;
    }

    private boolean complete(long epoch, int uid, String exchangeId, String set, Binder value) throws SQLException {
        return db.transaction(c -> {
            try (PreparedStatement u = c.prepareStatement("UPDATE " + TABLE + " SET " + set
                    + " WHERE uid = ? AND exchange_id = ? AND epoch = ? AND answer IS NULL AND failure IS NULL AND "
                    + LEASE_HELD)) {
                value.bind(u);
                u.setInt(2, uid);
                u.setString(3, exchangeId);
                u.setLong(4, epoch);
                u.setString(5, instance);
                u.setLong(6, epoch);
                return u.executeUpdate() == 1;
            }
        });
    }

    /**
     * After a takeover under {@code epoch}: every exchange an earlier lease began and never finished is
     * answered "outcome unknown" from now on. Returns them, for the log.
     */
    List<Availability.Interrupted> sweep(long epoch, String previous) throws SQLException {
        return db.transaction(c -> {
            List<Availability.Interrupted> found = new ArrayList<>();
            try (PreparedStatement u = c.prepareStatement("UPDATE " + TABLE + " SET failure = method || ' exchange ' ||"
                    + " exchange_id || ?, failure_transient = true, interrupted = true"
                    + " WHERE answer IS NULL AND failure IS NULL AND epoch < ? RETURNING started, uid, method, exchange_id,"
                    + " epoch")) {
                u.setString(1, interruptedTail(previous));
                u.setLong(2, epoch);
                try (ResultSet r = u.executeQuery()) {
                    while (r.next()) {
                        found.add(new Availability.Interrupted(r.getTimestamp(1).toInstant(), r.getInt(2), r.getString(3),
                                r.getString(4), r.getLong(5)));
                    }
                }
            }
            return found;
        });
    }

    /** Exchanges found interrupted within the retention, oldest first. */
    List<Availability.Interrupted> interrupted() throws SQLException {
        return db.transaction(c -> {
            List<Availability.Interrupted> found = new ArrayList<>();
            try (PreparedStatement q = c.prepareStatement("SELECT started, uid, method, exchange_id, epoch FROM " + TABLE
                    + " WHERE interrupted ORDER BY started");
                 ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    found.add(new Availability.Interrupted(r.getTimestamp(1).toInstant(), r.getInt(2), r.getString(3),
                            r.getString(4), r.getLong(5)));
                }
            }
            return found;
        });
    }

    /**
     * RESERVEs found interrupted (by any takeover) that named a batch id and that no active proxy has settled yet:
     * a reservation each may have left in ALPS that no scheduler was told of. Oldest first.
     */
    List<Availability.LeftReserve> unsettledReserves() throws SQLException {
        return db.transaction(c -> {
            List<Availability.LeftReserve> found = new ArrayList<>();
            try (PreparedStatement q = c.prepareStatement("SELECT uid, exchange_id, batch_id, user_name, started, proxy"
                    + " FROM " + TABLE + " WHERE interrupted AND method = 'RESERVE' AND batch_id IS NOT NULL"
                    + " AND settled IS NULL ORDER BY started");
                 ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    found.add(new Availability.LeftReserve(r.getInt(1), r.getString(2), r.getString(3), r.getString(4),
                            r.getTimestamp(5).toInstant(), r.getString(6)));
                }
            }
            return found;
        });
    }

    /** The answers of the RESERVEs of {@code batchId} the pair recorded: what schedulers were told. */
    List<byte[]> reserveAnswers(String batchId) throws SQLException {
        return db.transaction(c -> {
            List<byte[]> found = new ArrayList<>();
            try (PreparedStatement q = c.prepareStatement("SELECT answer FROM " + TABLE
                    + " WHERE method = 'RESERVE' AND batch_id = ? AND answer IS NOT NULL")) {
                q.setString(1, batchId);
                try (ResultSet r = q.executeQuery()) {
                    while (r.next()) {
                        found.add(r.getBytes(1));
                    }
                }
            }
            return found;
        });
    }

    /** Records what became of an interrupted RESERVE's reservation; false when this proxy's lease has ended. */
    boolean settle(long epoch, int uid, String exchangeId, String outcome) throws SQLException {
        return db.transaction(c -> {
            try (PreparedStatement u = c.prepareStatement("UPDATE " + TABLE + " SET settled = ?"
                    + " WHERE uid = ? AND exchange_id = ? AND " + LEASE_HELD)) {
                u.setString(1, outcome);
                u.setInt(2, uid);
                u.setString(3, exchangeId);
                u.setString(4, instance);
                u.setLong(5, epoch);
                return u.executeUpdate() == 1;
            }
        });
    }

    /** Drops finished exchanges older than {@code keep}. */
    void expire(Duration keep) throws SQLException {
        db.transaction(c -> {
            try (PreparedStatement d = c.prepareStatement("DELETE FROM " + TABLE + " WHERE started < now()"
                    + " - make_interval(secs => ?) AND (answer IS NOT NULL OR failure IS NOT NULL)")) {
                d.setDouble(1, keep.toMillis() / 1000.0);
                return d.executeUpdate();
            }
        });
    }

    static String interruptedMessage(String methodKey, String exchangeId, String where) {
        return methodKey + " exchange " + exchangeId + interruptedTail(where);
    }

    private static String interruptedTail(String where) {
        return " was running on " + where + " when it stopped; its outcome is unknown, so it is not run again"
                + " (a reservation it made, if any, is listed by the orphan scan)";
    }
}
