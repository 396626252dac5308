package org.alpsbridge.ledger.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.ledger.LedgerException;

/** What differs between the two stores: how to connect, lock and migrate. The SQL is otherwise shared. */
enum Dialect {
    SQLITE("sqlite"),
    POSTGRESQL("postgresql");

    /** Schema versions shipped as {@code <dialect>-V<n>.sql} beside this class. */
    static final int LATEST = 4;

    private final String prefix;

    Dialect(String prefix) {
        this.prefix = prefix;
    }

    /** Appended to a SELECT of a row the transaction is about to change. SQLite's writer is already exclusive. */
    String forUpdate() {
        return this == POSTGRESQL ? " FOR UPDATE" : "";
    }

    /** Accepts {@code sqlite:PATH}, {@code jdbc:sqlite:PATH}, {@code postgresql://…}, {@code jdbc:postgresql://…}. */
    static String jdbcUrl(String url) {
        if (url == null || url.isBlank()) {
            throw new LedgerException("no ledger URL given");
        }
        String u = url.trim();
        if (u.startsWith("jdbc:sqlite:") || u.startsWith("jdbc:postgresql:")) {
            return u;
        }
        if (u.startsWith("sqlite:") || u.startsWith("postgresql:")) {
            return "jdbc:" + u;
        }
        if (u.startsWith("postgres://")) {
            return "jdbc:postgresql://" + u.substring("postgres://".length());
        }
        String hint = u.startsWith("/") || u.startsWith("./") || u.endsWith(".db") ? "did you mean sqlite:" + u + "? " : "";
        throw new LedgerException("'" + url + "' is not a ledger store's URL; " + hint
                + "expected sqlite:PATH or jdbc:postgresql://HOST:PORT/DB?user=U&password=P");
    }

    static Dialect of(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:sqlite:") ? SQLITE : POSTGRESQL;
    }

    /** Brings the schema to {@link #LATEST}, once, even with several processes starting together. */
    void migrate(Connection c) throws SQLException {
        migrate(c, LATEST);
    }

    /** Brings the schema to version {@code target} (tests make a ledger of an earlier version with it). */
    void migrate(Connection c, int target) throws SQLException {
        if (this == POSTGRESQL) {
            Sql.one(c, "SELECT pg_advisory_xact_lock(7406551)", rs -> null); // serialises concurrent migrations
        }
        Sql.update(c, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
        Long current = Sql.one(c, "SELECT MAX(version) FROM schema_version", rs -> rs.getLong(1));
        long from = current == null ? 0 : current;
        if (from > LATEST) {
            throw new LedgerException("ledger schema is version " + from + ", newer than this build knows ("
                    + LATEST + "): upgrade alpsbridge");
        }
        for (int v = (int) from + 1; v <= target; v++) {
            for (String statement : statements(v)) {
                Sql.update(c, statement);
            }
            Sql.update(c, "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", v,
                    Instant.now().getEpochSecond());
        }
    }

    private List<String> statements(int version) {
        String name = prefix + "-V" + version + ".sql";
        try (InputStream in = Dialect.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new LedgerException("migration " + name + " is missing from the build");
            }
            List<String> out = new ArrayList<>();
            StringBuilder current = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.strip().startsWith("--")) {
                    continue;
                }
                current.append(line).append('\n');
                if (line.strip().endsWith(";")) {
                    String s = current.toString().strip();
                    out.add(s.substring(0, s.length() - 1));
                    current.setLength(0);
                }
            }
            return out;
        } catch (IOException e) {
            throw new LedgerException("cannot read migration " + name, e);
        }
    }
}
