package org.alpsbridge.proxy.ha;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The last QUERY(ENGINE) answer ALPS gave to each request through either proxy of a pair: what ALPS is, which a
 * survivor gives again while ALPS is unreachable although it never asked ALPS itself (Slurm's slurmstepd fatal()s
 * without an ENGINE answer). Not fenced: it describes ALPS, not an exchange, and any proxy's answer is ALPS's.
 */
final class EngineAnswers {

    static final String TABLE = "alpsbridge_proxy_engine";

    static final String CREATE = "CREATE TABLE IF NOT EXISTS " + TABLE + " (request text PRIMARY KEY,"
            + " answer bytea NOT NULL, answered timestamptz NOT NULL DEFAULT now())";

    private final Connections db;

    EngineAnswers(Connections db) {
        this.db = db;
    }

    byte[] get(String request) throws SQLException {
        return db.transaction(c -> {
            try (PreparedStatement q = c.prepareStatement("SELECT answer FROM " + TABLE + " WHERE request = ?")) {
                q.setString(1, request);
                try (ResultSet r = q.executeQuery()) {
                    return r.next() ? r.getBytes(1) : null;
                }
            }
        });
    }

    void put(String request, byte[] answer) throws SQLException {
        db.transaction(c -> {
            try (PreparedStatement u = c.prepareStatement("INSERT INTO " + TABLE + " (request, answer) VALUES (?, ?)"
                    + " ON CONFLICT (request) DO UPDATE SET answer = excluded.answer, answered = now()")) {
                u.setString(1, request);
                u.setBytes(2, answer);
                return u.executeUpdate();
            }
        });
    }
}
