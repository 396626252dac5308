package org.alpsbridge.proxy.ha;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Properties;

/**
 * Connections to the pair's database, reused: a lost one is dropped, not returned. Every connection has
 * connect and socket time limits tied to the lease, so a database that hangs cannot hold the lease's
 * thread or a worker for longer than the lease it is meant to guard.
 */
final class Connections implements AutoCloseable {

    /** A statement run on a borrowed connection. */
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private final String url;
    private final Properties properties = new Properties();
    private final Deque<Connection> idle = new ArrayDeque<>();
    private boolean closed;

    Connections(String url, Duration lease) {
        this.url = url;
        long seconds = Math.max(2, (lease.toMillis() + 999) / 1000);
        properties.setProperty("connectTimeout", Long.toString(seconds));
        properties.setProperty("loginTimeout", Long.toString(seconds));
        properties.setProperty("socketTimeout", Long.toString(2 * seconds));
        properties.setProperty("ApplicationName", "alpsbridge-proxy");
    }

    /** Runs {@code work} in one transaction on a connection of the pool. */
    <T> T transaction(Work<T> work) throws SQLException {
        Connection c = borrow();
        boolean healthy = false;
        try {
            c.setAutoCommit(false);
            T out = work.run(c);
            c.commit();
            healthy = true;
            return out;
        } finally {
            if (!healthy) {
                try {
                    c.rollback();
                    healthy = c.isValid(1);
                } catch (SQLException lost) {
                    healthy = false;
                }
            }
            giveBack(c, healthy);
        }
    }

    private Connection borrow() throws SQLException {
        synchronized (this) {
            if (closed) {
                throw new SQLException("the connections to the pair's database are closed (the proxy is stopping)");
            }
            Connection c = idle.pollFirst();
            if (c != null) {
                return c;
            }
        }
        return DriverManager.getConnection(url, properties);
    }

    private void giveBack(Connection c, boolean healthy) {
        synchronized (this) {
            if (healthy && !closed && idle.size() < 8) {
                idle.addFirst(c);
                return;
            }
        }
        closeQuietly(c);
    }

    /** Closes every idle connection; connections in use are closed when given back. */
    @Override
    public void close() {
        Deque<Connection> drop;
        synchronized (this) {
            closed = true;
            drop = new ArrayDeque<>(idle);
            idle.clear();
        }
        drop.forEach(Connections::closeQuietly);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // the connection is being dropped anyway
        }
    }
}
