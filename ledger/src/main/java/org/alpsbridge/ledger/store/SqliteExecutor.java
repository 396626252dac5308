package org.alpsbridge.ledger.store;

import org.alpsbridge.retry.Attempts;
import org.alpsbridge.retry.Backoff;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import org.alpsbridge.ledger.LedgerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SQLite: one writer thread applies queued work in order (SPEC §7 "one writer"). Work that arrives
 * while a commit is in progress is grouped into the next transaction, each unit inside its own
 * savepoint so that one failing unit rolls back alone; every unit is acknowledged only after the
 * group's commit. With {@code journal_mode=WAL} and {@code synchronous=FULL} each commit is one fsync,
 * so durability costs one fsync per group, not per event.
 *
 * <p>Writers take {@code BEGIN IMMEDIATE}: a deferred read-then-write transaction can fail with
 * SQLITE_BUSY_SNAPSHOT when another process (the CLI beside the proxy daemon) wrote in between.
 */
final class SqliteExecutor implements Executor {

    private static final Logger log = LoggerFactory.getLogger(SqliteExecutor.class);
    /** Most units grouped into one transaction. */
    static final int MAX_GROUP = 256;
    /** How long a writer waits for another process's write lock, in ms. */
    static final int BUSY_TIMEOUT_MS = 30_000;
    /** A group that still finds the database busy after SQLite's own wait is tried 5 times, 50 ms more apart each time. */
    private static final Backoff BUSY = Backoff.linear(50).attempts(5);
    private static final int SQLITE_BUSY = 5;
    private static final int SQLITE_LOCKED = 6;

    private final String url;
    private final Connection writer;
    private final Connection reader;
    private final BlockingQueue<Pending<?>> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closed;
    private final java.util.concurrent.atomic.AtomicLong commits = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong committed = new java.util.concurrent.atomic.AtomicLong();

    private record Pending<T>(Tx<T> work, CompletableFuture<T> result) {
    }

    private static final Pending<Void> STOP = new Pending<>(c -> null, new CompletableFuture<>());

    SqliteExecutor(String url) {
        this.url = url;
        try {
            this.writer = connect(url);
            this.reader = connect(url);
        } catch (SQLException e) {
            throw new LedgerException("cannot open SQLite ledger " + url + ": " + e.getMessage(), e);
        }
        thread = new Thread(this::run, "ledger-sqlite-writer");
        thread.setDaemon(true);
        thread.start();
    }

    static Connection connect(String url) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA busy_timeout=" + BUSY_TIMEOUT_MS);
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=FULL");
            s.execute("PRAGMA foreign_keys=ON");
            // Up to 64 MiB of page cache and a checkpoint every 16,384 WAL pages (64 MiB) instead of 1,000: the
            // committing writer runs the checkpoint, and fewer, larger ones cost it less. Durability is unchanged
            // (WAL, synchronous=FULL). Measured side by side, 16 clients: 1.12x charge events per second.
            s.execute("PRAGMA cache_size=-65536");
            s.execute("PRAGMA wal_autocheckpoint=16384");
        }
        Sql.cacheStatements(c);
        return c;
    }

    @Override
    public <T> T write(Tx<T> work) {
        if (closed) {
            throw new LedgerException("ledger " + url + " is closed");
        }
        Pending<T> p = new Pending<>(work, new CompletableFuture<>());
        queue.add(p);
        return await(p.result);
    }

    /** Events per commit so far: how well the group commit shares each fsync. */
    double eventsPerCommit() {
        long n = commits.get();
        return n == 0 ? 0 : (double) committed.get() / n;
    }

    @Override
    public <T> T read(Tx<T> work) {
        synchronized (reader) {
            try {
                exec(reader, "BEGIN"); // one snapshot for the whole read
                try {
                    return work.apply(reader);
                } finally {
                    exec(reader, "ROLLBACK");
                }
            } catch (SQLException e) {
                throw new LedgerException("ledger read failed on " + url + ": " + e.getMessage(), e);
            }
        }
    }

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LedgerException("interrupted while waiting for the ledger");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new LedgerException(cause.getMessage(), cause);
        }
    }

    private void run() {
        List<Pending<?>> group = new ArrayList<>();
        try {
            while (true) {
                group.clear();
                group.add(queue.take());
                queue.drainTo(group, MAX_GROUP - 1);
                boolean stop = group.remove(STOP);
                if (!group.isEmpty()) {
                    commitGroup(group);
                }
                if (stop) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void commitGroup(List<Pending<?>> group) throws InterruptedException {
        Object[] results = new Object[group.size()];
        RuntimeException[] failures = new RuntimeException[group.size()];
        Attempts attempts = BUSY.start();
        while (true) {
            try {
                // transactions are driven by statements, not the driver's auto-commit switch, which
                // would begin a deferred transaction and open the next one right after each commit
                exec(writer, "BEGIN IMMEDIATE");
                for (int i = 0; i < group.size(); i++) {
                    results[i] = null;
                    failures[i] = null;
                    applyInSavepoint(group.get(i), i, results, failures);
                }
                exec(writer, "COMMIT");
                commits.incrementAndGet();
                committed.addAndGet(group.size());
                break;
            } catch (SQLException e) {
                rollbackQuietly();
                if (isBusy(e) && attempts.attempt() < BUSY.maxAttempts()) {
                    log.warn("ledger {} busy (attempt {}), retrying the group of {}", url, attempts.attempt(), group.size());
                    if (attempts.pauseForNext()) {
                        continue;
                    }
                }
                LedgerException failure = new LedgerException("ledger write failed on " + url
                        + " (nothing of this event was kept): " + e.getMessage(), e);
                for (Pending<?> p : group) {
                    p.result.completeExceptionally(failure);
                }
                return;
            }
        }
        for (int i = 0; i < group.size(); i++) {
            complete(group.get(i), results[i], failures[i]);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void complete(Pending<T> p, Object result, RuntimeException failure) {
        if (failure != null) {
            p.result.completeExceptionally(failure);
        } else {
            p.result.complete((T) result);
        }
    }

    private void applyInSavepoint(Pending<?> p, int i, Object[] results, RuntimeException[] failures)
            throws SQLException {
        // through the writer's statement cache: compiled once, not twice per event
        Sql.update(writer, "SAVEPOINT unit");
        try {
            results[i] = p.work.apply(writer);
            Sql.update(writer, "RELEASE unit");
        } catch (RuntimeException | SQLException e) {
            Sql.update(writer, "ROLLBACK TO unit");
            Sql.update(writer, "RELEASE unit");
            if (e instanceof SQLException sql && (isBusy(sql) || isIoError(sql))) {
                throw sql; // the whole group is in doubt
            }
            failures[i] = e instanceof RuntimeException re ? re
                    : new LedgerException("ledger refused the event: " + e.getMessage(), e);
        }
    }

    private static boolean isBusy(SQLException e) {
        int code = e.getErrorCode() & 0xff;
        return code == SQLITE_BUSY || code == SQLITE_LOCKED;
    }

    private static boolean isIoError(SQLException e) {
        int code = e.getErrorCode() & 0xff;
        return code == 10 || code == 13; // SQLITE_IOERR, SQLITE_FULL
    }

    private void rollbackQuietly() {
        try {
            exec(writer, "ROLLBACK");
        } catch (SQLException e) {
            log.debug("rollback on {}: {}", url, e.getMessage()); // no transaction was open
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        queue.add(STOP);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Sql.forget(writer);
            Sql.forget(reader);
            writer.close();
            reader.close();
        } catch (SQLException e) {
            log.warn("closing {}: {}", url, e.getMessage());
        }
    }
}
