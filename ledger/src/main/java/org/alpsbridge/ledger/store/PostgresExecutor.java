package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.SQLException;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.LedgerUnavailableException;

/**
 * PostgreSQL: READ COMMITTED transactions; balances are serialised by {@code SELECT … FOR UPDATE} on the
 * allocation row (and the reservation row before it; only a RESERVE repeating a key that exists locks the
 * allocation first, and the rare deadlock that can give with that key's RELEASE is detected and retried).
 * Writes go through {@link GroupCommit} (job events share transactions and commits), on the connections of a
 * {@link PostgresPool}; reads run each in a transaction of its own on a read connection.
 *
 * <p><b>Failover.</b> A lost connection is replaced by a new one, tried every 200 ms for up to
 * {@link StoreSettings#PG_RECONNECT_SECONDS} ({@link PostgresPool#reconnect}). Work whose transaction was not
 * committed runs again on the new connection. When the connection died during COMMIT, the outcome is unknown:
 * job events (idempotent by their reservation key) run again and return the stored outcome if the first commit
 * had landed; any other write fails with {@link LedgerUnavailableException} ("retry with the same request id"),
 * as does everything once the window has passed.
 */
final class PostgresExecutor implements Executor {

    /** Attempts of one unit of work before a deadlock/serialization failure is reported. */
    static final int MAX_ATTEMPTS = 20;

    private final PostgresPool pool;
    private final GroupCommit writes;

    PostgresExecutor(String url, StoreSettings.Postgres settings) {
        this.pool = new PostgresPool(url, settings);
        this.writes = new GroupCommit(pool, settings.groupWriters());
    }

    /** Events per commit so far: how well the group commit shares each commit. */
    double eventsPerCommit() {
        return writes.eventsPerCommit();
    }

    @Override
    public <T> T write(Tx<T> work) {
        return writes.write(work);
    }

    @Override
    public <T> T writeEvent(String group, Tx<T> work) {
        return writes.writeEvent(group, work);
    }

    @Override
    public <R, P, S, A, T> T writeEvent(String group, Asked<R, P> reads, R read, Asked<S, A> kind,
                                        java.util.function.Function<P, S> ask, Then<P, A, T> then) {
        return writes.writeEvent(group, reads, read, kind, ask, then);
    }

    @Override
    public <T> T read(Tx<T> work) {
        if (pool.closed()) {
            throw new LedgerException("ledger " + pool.redacted() + " is closed");
        }
        for (int attempt = 1; ; attempt++) {
            Connection c = pool.acquireReader();
            try {
                T result = work.apply(c);
                c.rollback();
                pool.releaseReader(c);
                return result;
            } catch (SQLException e) {
                if (PostgresPool.isConnectionLost(e, c)) {
                    pool.replaceReader(c, e); // waits for the server; a read is safe to run again
                    continue;
                }
                PostgresPool.rollbackQuietly(c);
                pool.releaseReader(c);
                if (isRetryable(e) && attempt < MAX_ATTEMPTS) {
                    continue;
                }
                throw new LedgerException("ledger read failed on " + pool.redacted() + " (sqlstate=" + e.getSQLState()
                        + "): " + e.getMessage(), e);
            } catch (RuntimeException e) {
                PostgresPool.rollbackQuietly(c);
                pool.releaseReader(c);
                throw e;
            }
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

    @Override
    public void close() {
        if (writes.close()) {
            pool.close();
        }
    }
}
