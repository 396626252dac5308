package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.LedgerUnavailableException;
import org.alpsbridge.retry.Attempts;
import org.alpsbridge.retry.Backoff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL store's connections, and its failover. Write connections ({@link StoreSettings#PG_POOL}) are
 * kept open between transactions, each leader of a {@link GroupCommit} holding one for its transaction; read
 * connections are opened as needed, as many as write connections but at least 16 (reads share no commits, and a
 * service's readers should not wait for one another), and kept open.
 *
 * <p>A lost connection (the server killed, restarted, or a standby promoted behind a multi-host URL with
 * {@code targetServerType=primary}) is replaced by a new one, tried every 200 ms for up to
 * {@link StoreSettings#PG_RECONNECT_SECONDS}: {@link #reconnect}.
 */
final class PostgresPool {

    private static final Logger log = LoggerFactory.getLogger(PostgresPool.class);
    /** A lost server (or its standby taking over) is tried every 200 ms. */
    private static final Backoff RECONNECT = Backoff.constant(200);

    /** Write connections, i.e. transactions in progress at once. */
    final int writers;
    /** Read connections kept open at most. */
    final int readers;
    private final long reconnectSeconds;
    private final String url;
    private final BlockingQueue<Connection> idleWriters;
    private final BlockingQueue<Connection> idleReaders;
    private final AtomicInteger openReaders = new AtomicInteger();
    private volatile boolean closed;

    PostgresPool(String url, StoreSettings.Postgres settings) {
        this.url = url;
        this.writers = settings.writers();
        this.readers = Math.max(writers, 16);
        this.reconnectSeconds = settings.reconnectSeconds();
        this.idleWriters = new ArrayBlockingQueue<>(writers);
        this.idleReaders = new ArrayBlockingQueue<>(readers);
        Connection first = connect(false); // fail now, not at the first event, when the server is unreachable
        openReaders.incrementAndGet();
        releaseReader(first);
    }

    /** A new connection, or {@link LedgerUnavailableException} when the server does not answer. */
    Connection connect(boolean writer) {
        try {
            return open(writer);
        } catch (SQLException e) {
            throw new LedgerUnavailableException("cannot reach PostgreSQL ledger " + redacted() + ": " + e.getMessage(), e);
        }
    }

    /**
     * A write connection plans each statement once, for any arguments ({@code plan_cache_mode =
     * force_generic_plan}): every statement of a job event is planned on the indexes its shape names, not on its
     * values, and the statements events share take arrays whose length varies, which would make PostgreSQL plan
     * them anew at every execution instead (a hot allocation: 0.7 of pgbench's TPS with a plan per execution,
     * 0.9 with one plan, issue 21). The plan is made at a statement's first executions, perhaps on empty tables,
     * and kept until an ANALYZE: so every statement run on a write connection must look its rows up by an index
     * whatever the tables held then (no {@code EXISTS} or {@code IN} over a growing table for each of its rows, which
     * may be planned as one hashed scan of it all; check a new one with {@code auto_explain} on a fresh ledger).
     */
    private Connection open(boolean writer) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        if (writer) {
            try (var s = c.createStatement()) {
                s.execute("SET plan_cache_mode = force_generic_plan");
            }
        }
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return c;
    }

    /** A new connection, waiting up to {@link #reconnectSeconds} for the server (or its standby) to answer. */
    Connection reconnect(SQLException cause, boolean writer) {
        Attempts attempts = RECONNECT.within(TimeUnit.SECONDS.toMillis(reconnectSeconds)).start();
        SQLException last = cause;
        while (!closed) {
            try {
                Connection c = open(writer);
                log.info("ledger reconnected to {}", redacted());
                return c;
            } catch (SQLException e) {
                last = e;
            }
            if (!attempts.pauseForNext()) {
                break;
            }
        }
        throw new LedgerUnavailableException("PostgreSQL ledger " + redacted() + " unreachable for "
                + reconnectSeconds + " s; retry the same request (a retry returns its outcome if it was kept): "
                + (last == null ? "closed" : last.getMessage()), last);
    }

    /** An open write connection not in use, or null: its user then {@link #connect}s one. */
    Connection idleWriter() {
        return idleWriters.poll();
    }

    /** Back after a transaction (null: it had none); closed when the pool is closing or full. */
    void releaseWriter(Connection c) {
        if (c != null && (closed || !idleWriters.offer(c))) {
            discard(c);
        }
    }

    /** A read connection: an idle one, else a new one while fewer than {@link #readers} are open, else waits. */
    Connection acquireReader() {
        Connection c = idleReaders.poll();
        if (c != null) {
            return c;
        }
        if (openReaders.incrementAndGet() <= readers) {
            try {
                return connect(false);
            } catch (LedgerException e) {
                openReaders.decrementAndGet();
                throw e;
            }
        }
        openReaders.decrementAndGet();
        try {
            c = idleReaders.poll(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LedgerException("interrupted while waiting for a ledger connection");
        }
        if (c == null) {
            throw new LedgerUnavailableException("no ledger read connection free after 60 s (" + readers + ")", null);
        }
        return c;
    }

    void releaseReader(Connection c) {
        if (closed || !idleReaders.offer(c)) {
            discardReader(c);
        }
    }

    /** Replaces the lost read connection {@code c}, waiting for the server: {@link #reconnect}. */
    void replaceReader(Connection c, SQLException lost) {
        discardReader(c);
        Connection fresh = reconnect(lost, false);
        openReaders.incrementAndGet();
        releaseReader(fresh);
    }

    private void discardReader(Connection c) {
        openReaders.decrementAndGet();
        discard(c);
    }

    /**
     * The server went away: a connection exception (class 08), an administrator or crash shutdown
     * (57P01–57P03), or a server that is now read-only (25006: a restarted primary still recovering, or
     * a demoted one), or a connection the driver has closed.
     */
    static boolean isConnectionLost(SQLException e, Connection c) {
        String state = e.getSQLState();
        if (state != null && (state.startsWith("08") || state.startsWith("57P0") || state.equals("25006"))) {
            return true;
        }
        try {
            return c.isClosed();
        } catch (SQLException closed) {
            return true;
        }
    }

    static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            log.debug("rollback: {}", e.getMessage());
        }
    }

    static void discard(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("closing a ledger connection: {}", e.getMessage());
        }
    }

    /** The URL as messages show it: without its password. */
    String redacted() {
        return url.replaceAll("password=[^&]*", "password=***");
    }

    boolean closed() {
        return closed;
    }

    /**
     * From now on reconnecting gives up and connections given back are closed; the work in progress ends with
     * the connections it holds.
     */
    void closing() {
        closed = true;
    }

    /** Closes the idle connections (after {@link #closing} and the end of the work in progress). */
    void close() {
        closed = true;
        Connection c;
        while ((c = idleWriters.poll()) != null) {
            discard(c);
        }
        while ((c = idleReaders.poll()) != null) {
            discard(c);
        }
    }
}
