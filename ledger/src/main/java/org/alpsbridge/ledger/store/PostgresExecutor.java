package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.alpsbridge.ledger.LedgerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL: each unit of work is one READ COMMITTED transaction on a pooled connection. Balances are
 * serialised by {@code SELECT … FOR UPDATE} on the allocation row (and the reservation row before it,
 * always in that order); a deadlock, a serialization failure or a concurrent insert of the same key
 * rolls back and runs the work again, which then sees the winner's row.
 */
final class PostgresExecutor implements Executor {

    private static final Logger log = LoggerFactory.getLogger(PostgresExecutor.class);
    /** Connections kept open at most (default 16: one per bench client). */
    static final int POOL_SIZE = Integer.getInteger("alpsbridge.ledger.pgPool", 16);
    /** Attempts of one unit of work before a transient failure is reported. */
    static final int MAX_ATTEMPTS = 20;

    private final String url;
    private final BlockingQueue<Connection> idle = new ArrayBlockingQueue<>(POOL_SIZE);
    private final AtomicInteger open = new AtomicInteger();
    private volatile boolean closed;

    PostgresExecutor(String url) {
        this.url = url;
        release(connect()); // fail now, not at the first event, when the server is unreachable
    }

    private Connection connect() {
        try {
            Connection c = DriverManager.getConnection(url);
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            open.incrementAndGet();
            return c;
        } catch (SQLException e) {
            throw new LedgerException("cannot reach PostgreSQL ledger " + redacted() + ": " + e.getMessage(), e);
        }
    }

    private Connection acquire() {
        Connection c = idle.poll();
        if (c != null) {
            return c;
        }
        if (open.get() < POOL_SIZE) {
            return connect();
        }
        try {
            c = idle.poll(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LedgerException("interrupted while waiting for a ledger connection");
        }
        if (c == null) {
            throw new LedgerException("no ledger connection free after 60 s (pool of " + POOL_SIZE + ")");
        }
        return c;
    }

    private void release(Connection c) {
        if (closed || !idle.offer(c)) {
            discard(c);
        }
    }

    private void discard(Connection c) {
        open.decrementAndGet();
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("closing a ledger connection: {}", e.getMessage());
        }
    }

    @Override
    public <T> T write(Tx<T> work) {
        return run(work, false);
    }

    @Override
    public <T> T read(Tx<T> work) {
        return run(work, true);
    }

    private <T> T run(Tx<T> work, boolean readOnly) {
        if (closed) {
            throw new LedgerException("ledger " + redacted() + " is closed");
        }
        List<SQLException> earlier = new ArrayList<>();
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            Connection c = acquire();
            boolean healthy = true;
            try {
                T result = work.apply(c);
                if (readOnly) {
                    c.rollback();
                } else {
                    c.commit();
                }
                return result;
            } catch (SQLException e) {
                healthy = rollback(c) && !isConnectionError(e);
                if (isRetryable(e) && attempt < MAX_ATTEMPTS) {
                    earlier.add(e);
                    continue;
                }
                LedgerException failure = new LedgerException("ledger " + (readOnly ? "read" : "write")
                        + " failed on " + redacted() + " after " + attempt + " attempt(s) (sqlstate="
                        + e.getSQLState() + "; nothing of this event was kept): " + e.getMessage(), e);
                earlier.forEach(failure::addSuppressed);
                throw failure;
            } catch (RuntimeException e) {
                healthy = rollback(c);
                throw e;
            } finally {
                if (healthy) {
                    release(c);
                } else {
                    discard(c);
                }
            }
        }
        throw new IllegalStateException("unreachable");
    }

    private boolean rollback(Connection c) {
        try {
            c.rollback();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** Deadlock, serialization failure, a concurrent insert of the same key, lock not available. */
    static boolean isRetryable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                switch (s.getSQLState()) {
                    case "40001", "40P01", "23505", "55P03" -> {
                        return true;
                    }
                    default -> {
                    }
                }
            }
        }
        return false;
    }

    private static boolean isConnectionError(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("08");
    }

    private String redacted() {
        return url.replaceAll("password=[^&]*", "password=***");
    }

    @Override
    public void close() {
        closed = true;
        Connection c;
        while ((c = idle.poll()) != null) {
            discard(c);
        }
    }
}
