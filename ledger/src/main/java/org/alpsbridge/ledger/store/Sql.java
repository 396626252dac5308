package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The few JDBC idioms the store repeats: bind positional arguments, map rows. */
final class Sql {

    @FunctionalInterface
    interface Row<T> {
        T map(ResultSet rs) throws SQLException;
    }

    /**
     * Prepared statements kept per connection, for connections used by one thread at a time (SQLite's
     * writer and reader): compiling SQL costs more than running it there. PostgreSQL's driver caches
     * server-side plans by itself.
     */
    private static final Map<Connection, Map<String, PreparedStatement>> CACHES = new ConcurrentHashMap<>();

    private Sql() {
    }

    static void cacheStatements(Connection c) {
        CACHES.put(c, new HashMap<>());
    }

    static void forget(Connection c) {
        Map<String, PreparedStatement> cache = CACHES.remove(c);
        if (cache != null) {
            for (PreparedStatement ps : cache.values()) {
                try {
                    ps.close();
                } catch (SQLException e) {
                    // closing the connection next releases it anyway
                }
            }
        }
    }

    static <T> List<T> list(Connection c, String sql, Row<T> row, Object... args) throws SQLException {
        PreparedStatement ps = prepare(c, sql, args);
        try (ResultSet rs = ps.executeQuery()) {
            List<T> out = new ArrayList<>();
            while (rs.next()) {
                out.add(row.map(rs));
            }
            return out;
        } finally {
            done(c, ps);
        }
    }

    /** The first row, or null when there is none. */
    static <T> T one(Connection c, String sql, Row<T> row, Object... args) throws SQLException {
        PreparedStatement ps = prepare(c, sql, args);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? row.map(rs) : null;
        } finally {
            done(c, ps);
        }
    }

    /** A statement with {@code RETURNING} one long column. */
    static long returning(Connection c, String sql, Object... args) throws SQLException {
        Long value = one(c, sql, rs -> rs.getLong(1), args);
        if (value == null) {
            throw new SQLException("no row returned by: " + sql);
        }
        return value;
    }

    static int update(Connection c, String sql, Object... args) throws SQLException {
        PreparedStatement ps = prepare(c, sql, args);
        try {
            return ps.executeUpdate();
        } finally {
            done(c, ps);
        }
    }

    /** {@link #update} of a statement kept with its arguments: the SQL first, then its arguments in order. */
    static int update(Connection c, Object[] statement) throws SQLException {
        return update(c, (String) statement[0], java.util.Arrays.copyOfRange(statement, 1, statement.length));
    }

    /** One column of rows passed to PostgreSQL as an array: its SQL element type, and its value in a row. */
    record Column<R>(String type, java.util.function.Function<R, Object> value) {
    }

    static <R> Column<R> bigint(java.util.function.Function<R, Object> value) {
        return new Column<>("bigint", value);
    }

    static <R> Column<R> text(java.util.function.Function<R, Object> value) {
        return new Column<>("text", value);
    }

    /**
     * {@code rows} as one SQL array per column, in the columns' order: the arguments of an
     * {@code unnest(?, ?, ...) WITH ORDINALITY} that reads them back as rows, in order (PostgreSQL).
     */
    @SafeVarargs
    static <R> Object[] columnArrays(Connection c, List<R> rows, Column<R>... columns) throws SQLException {
        Object[] arrays = new Object[columns.length];
        for (int j = 0; j < columns.length; j++) {
            Object[] values = new Object[rows.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = columns[j].value().apply(rows.get(i));
            }
            arrays[j] = c.createArrayOf(columns[j].type(), values);
        }
        return arrays;
    }

    static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
        Map<String, PreparedStatement> cache = CACHES.get(c);
        PreparedStatement ps = cache == null ? null : cache.get(sql);
        if (ps == null) {
            ps = c.prepareStatement(sql);
            if (cache != null) {
                cache.put(sql, ps);
            }
        } else {
            ps.clearParameters();
        }
        try {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            return ps;
        } catch (SQLException e) {
            done(c, ps);
            throw e;
        }
    }

    private static void done(Connection c, PreparedStatement ps) throws SQLException {
        if (!CACHES.containsKey(c)) {
            ps.close();
        }
    }
}
