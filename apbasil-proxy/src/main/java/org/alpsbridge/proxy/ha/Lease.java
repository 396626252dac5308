package org.alpsbridge.proxy.ha;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

/**
 * The pair's lease: one row that says which proxy is active, under which epoch, until when. Times are the
 * database's ({@code now()}), so the two hosts' clocks never need to agree. A proxy takes the lease only
 * once it has expired, and every takeover raises the epoch: whatever the previous holder does after that
 * carries an old epoch and is refused ({@link SharedJournal}).
 */
final class Lease {

    static final String TABLE = "alpsbridge_proxy_lease";

    /** What the lease row says. */
    record Holder(String instance, String address, long epoch, Instant expires, boolean expired) {
    }

    /** A takeover that succeeded: the new epoch and who held the lease before. */
    record Taken(long epoch, Holder previous) {
    }

    private final Connections db;
    private final String instance;
    private final String address;
    private final Duration length;

    Lease(Connections db, String instance, String address, Duration length) {
        this.db = db;
        this.instance = instance;
        this.address = address;
        this.length = length;
    }

    /** Creates the pair's tables if they are missing; both proxies may do it at once. */
    static void createTables(Connections db) throws SQLException {
        db.transaction(c -> {
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(7370601)"); // two proxies starting together create once
                s.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id int PRIMARY KEY CHECK (id = 1),"
                        + " instance text NOT NULL, address text NOT NULL, epoch bigint NOT NULL,"
                        + " expires timestamptz NOT NULL)");
                s.execute("INSERT INTO " + TABLE + " VALUES (1, '', '', 0, '-infinity') ON CONFLICT DO NOTHING");
                s.execute(SharedJournal.CREATE);
                s.execute(SharedJournal.ADD_COLUMNS);
                s.execute(EngineAnswers.CREATE);
            }
            return null;
        });
    }

    /** The row as it is now. */
    Holder read() throws SQLException {
        return db.transaction(c -> read(c, false));
    }

    private static Holder read(Connection c, boolean lock) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT instance, address, epoch, expires, expires <= now() FROM " + TABLE
                     + " WHERE id = 1" + (lock ? " FOR UPDATE" : ""))) {
            if (!r.next()) {
                throw new SQLException(TABLE + " has no lease row");
            }
            java.sql.Timestamp expires = r.getTimestamp(4);
            return new Holder(r.getString(1), r.getString(2), r.getLong(3),
                    expires == null || expires.getTime() < -1_000_000_000_000L ? Instant.EPOCH : expires.toInstant(),
                    r.getBoolean(5));
        }
    }

    /** Takes the lease if it has expired; null while another proxy holds it. */
    Taken takeOver() throws SQLException {
        return db.transaction(c -> {
            Holder before = read(c, true);
            if (!before.expired()) {
                return null;
            }
            try (PreparedStatement u = c.prepareStatement("UPDATE " + TABLE + " SET instance = ?, address = ?,"
                    + " epoch = epoch + 1, expires = now() + make_interval(secs => ?) WHERE id = 1 RETURNING epoch")) {
                u.setString(1, instance);
                u.setString(2, address);
                u.setDouble(3, length.toMillis() / 1000.0);
                try (ResultSet r = u.executeQuery()) {
                    r.next();
                    return new Taken(r.getLong(1), before);
                }
            }
        });
    }

    /** Extends the lease this proxy holds under {@code epoch}; false when it is no longer this proxy's. */
    boolean renew(long epoch) throws SQLException {
        return db.transaction(c -> {
            try (PreparedStatement u = c.prepareStatement("UPDATE " + TABLE + " SET expires = now()"
                    + " + make_interval(secs => ?) WHERE id = 1 AND instance = ? AND epoch = ?")) {
                u.setDouble(1, length.toMillis() / 1000.0);
                u.setString(2, instance);
                u.setLong(3, epoch);
                return u.executeUpdate() == 1;
            }
        });
    }

    /** Ends the lease at once (a graceful stop), so the other proxy need not wait for it to expire. */
    void release(long epoch) throws SQLException {
        db.transaction(c -> {
            try (PreparedStatement u = c.prepareStatement("UPDATE " + TABLE + " SET expires = '-infinity'"
                    + " WHERE id = 1 AND instance = ? AND epoch = ?")) {
                u.setString(1, instance);
                u.setLong(2, epoch);
                return u.executeUpdate();
            }
        });
    }

    /**
     * Locks the lease row for sharing within {@code c}'s transaction if this proxy holds it under {@code epoch}
     * and it has not expired: a takeover then waits for the transaction, so what it writes is seen by the
     * takeover's sweep of interrupted exchanges.
     */
    boolean holdFor(Connection c, long epoch) throws SQLException {
        try (PreparedStatement q = c.prepareStatement("SELECT 1 FROM " + TABLE
                + " WHERE id = 1 AND instance = ? AND epoch = ? AND expires > now() FOR SHARE")) {
            q.setString(1, instance);
            q.setLong(2, epoch);
            try (ResultSet r = q.executeQuery()) {
                return r.next();
            }
        }
    }
}
