package org.alpsbridge.ledger.store;

import org.alpsbridge.retry.Attempts;
import org.alpsbridge.retry.Backoff;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.LedgerUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL: READ COMMITTED transactions; balances are serialised by {@code SELECT … FOR UPDATE} on the
 * allocation row (and the reservation row before it; only a RESERVE repeating a key that exists locks the
 * allocation first, and the rare deadlock that can give with that key's RELEASE is detected and retried).
 *
 * <p><b>Group commit.</b> A job event names its group (the project it charges). The thread that submits
 * work leads a transaction when a write connection is free and its group has fewer than
 * {@link #GROUP_WRITERS} transactions in progress: it takes, with its own, the job events waiting then,
 * of its group and of every other group below that limit (at most {@link #MAX_GROUP}), applies them in one
 * transaction on one of at most {@link #WRITERS} write connections, and acknowledges each unit only after
 * that commit; the other submitters just wait for their answer. Events on a hot allocation thus share one
 * commit instead of queueing on its row lock one commit at a time, and events of many projects share one
 * commit (one COMMIT round trip, one WAL flush) instead of one each. The units are applied in the order of
 * their groups' names, so that two transactions lock the allocations they share in the same order and do
 * not deadlock. What the units read together ({@link #writeEvent(String, Asked, Object, Asked,
 * java.util.function.Function, Then)}: a RESERVE's project, allocation and weights, the reservation a RELEASE
 * settles) is read in one statement per kind before the first unit's work, so that it is not paid under an
 * allocation's lock; what units have decided together
 * ({@link Asked}: the project's settlements, {@link Settlements}, then its RESERVEs, {@link Holds}) is decided
 * in one statement per kind after the work of their group, one round trip under the lock for all of them, before
 * each unit's last step. When a unit fails, the transaction is rolled back and run again without it, and the
 * failing unit runs alone: it fails alone, its neighbours commit. A deadlock, a serialization failure or a
 * concurrent insert of the same key rolls the transaction back and runs each unit again on its own, retried.
 *
 * <p><b>Failover.</b> A lost connection (the server killed, restarted, or a standby promoted behind a
 * multi-host URL with {@code targetServerType=primary}) is replaced by a new one, tried every 200 ms for
 * up to {@code alpsbridge.ledger.pgReconnectSeconds}. Work whose transaction was not committed runs again on the new
 * connection. When the connection died during COMMIT, the outcome is unknown: job events (idempotent by
 * their reservation key) run again and return the stored outcome if the first commit had landed; any
 * other write fails with {@link LedgerUnavailableException} ("retry with the same request id"), as does
 * everything once the window has passed.
 */
final class PostgresExecutor implements Executor {

    private static final Logger log = LoggerFactory.getLogger(PostgresExecutor.class);
    /**
     * Write connections, i.e. transactions in progress at once (default 4, property
     * {@code alpsbridge.ledger.pgPool}). Fewer connections than callers is what makes events share commits:
     * with one connection per caller every event waited for a WAL flush of its own (16 callers on 16
     * connections: 1.0 event per commit and 0.3–0.5 of pgbench's TPS on 2 cores; on 8 connections 1.7 per
     * commit and 0.7–0.9; on 4, 3.0 per commit and about 0.9, issue 21). A transaction applies its events one
     * round trip after another, so 4 of them still carry thousands of events per second.
     */
    static final int WRITERS = Math.max(1, Integer.getInteger("alpsbridge.ledger.pgPool", 4));
    /**
     * Read connections kept open at most, opened as needed: as many as write connections, at least 16 (reads
     * share no commits, and a service's readers should not wait for one another).
     */
    static final int READERS = Math.max(WRITERS, 16);
    /**
     * Transactions of one group in progress at once (default 2, property
     * {@code alpsbridge.ledger.pgGroupWriters}): the second prepares while the first commits, and takes
     * the allocation's lock as soon as that commit is done.
     */
    static final int GROUP_WRITERS = Math.max(1, Integer.getInteger("alpsbridge.ledger.pgGroupWriters", 2));
    /** Most units in one transaction. */
    static final int MAX_GROUP = 256;
    /** Attempts of one unit of work before a deadlock/serialization failure is reported. */
    static final int MAX_ATTEMPTS = 20;
    /**
     * How long a lost server is waited for before work fails as unavailable (default 30 s, property
     * {@code alpsbridge.ledger.pgReconnectSeconds}, read when a ledger is opened): long enough for a
     * standby to be promoted.
     */
    private final long reconnectSeconds = Long.getLong("alpsbridge.ledger.pgReconnectSeconds", 30);
    /** A lost server (or its standby taking over) is tried every 200 ms. */
    private static final Backoff RECONNECT = Backoff.constant(200);

    private final String url;
    private final BlockingQueue<Connection> idleWriters = new ArrayBlockingQueue<>(WRITERS);
    /** Transactions being led now; guarded by {@link #queue}. */
    private int leaders;
    /** Work not yet taken by a writer, oldest first; guarded by itself. */
    private final java.util.ArrayDeque<Pending<?>> queue = new java.util.ArrayDeque<>();
    /** Groups writers are applying now, with how many writers each; guarded by {@link #queue}. */
    private final java.util.Map<String, Integer> busy = new java.util.HashMap<>();
    private final BlockingQueue<Connection> idleReaders = new ArrayBlockingQueue<>(READERS);
    private final AtomicInteger openReaders = new AtomicInteger();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong committed = new AtomicLong();
    private volatile boolean closed;

    private static final class Pending<T> {
        final String group;
        /** The work of a unit that is not read and decided with others; null for one that is. */
        final Tx<T> work;
        /**
         * For an event read and decided with the others of its transaction: the kind of its read and its item,
         * the kind of its decision, its item from what was read, and its last step.
         */
        final Asked<Object, Object> reads;
        final Object read;
        final Asked<Object, Object> kind;
        final java.util.function.Function<Object, Object> ask;
        final Then<Object, Object, T> then;
        final boolean event;
        final CompletableFuture<T> result = new CompletableFuture<>();
        /** A leader has it; guarded by {@link #queue}. */
        boolean taken;

        Pending(String group, Tx<T> work, boolean event) {
            this.group = group;
            this.work = work;
            this.reads = null;
            this.read = null;
            this.kind = null;
            this.ask = null;
            this.then = null;
            this.event = event;
        }

        @SuppressWarnings("unchecked")
        <R, P, S, A> Pending(String group, Asked<R, P> reads, R read, Asked<S, A> kind,
                             java.util.function.Function<P, S> ask, Then<P, A, T> then) {
            this.group = group;
            this.work = null;
            this.reads = (Asked<Object, Object>) reads;
            this.read = read;
            this.kind = (Asked<Object, Object>) kind;
            this.ask = (java.util.function.Function<Object, Object>) ask;
            this.then = (Then<Object, Object, T>) then;
            this.event = true;
        }
    }

    PostgresExecutor(String url) {
        this.url = url;
        Connection first = connect(false); // fail now, not at the first event, when the server is unreachable
        openReaders.incrementAndGet();
        releaseReader(first);
    }

    private Connection connect(boolean writer) {
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

    /** A new connection, waiting up to {@code alpsbridge.ledger.pgReconnectSeconds} for the server (or its standby) to answer. */
    private Connection reconnect(SQLException cause, boolean writer) {
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

    /** Events per commit so far: how well the group commit shares each commit. */
    double eventsPerCommit() {
        long n = commits.get();
        return n == 0 ? 0 : (double) committed.get() / n;
    }

    @Override
    public <T> T write(Tx<T> work) {
        return submit(new Pending<>(null, work, false));
    }

    @Override
    public <T> T writeEvent(String group, Tx<T> work) {
        return submit(new Pending<>(group, work, true));
    }

    /**
     * The reads of a transaction's events are read in one {@link Asked#decideAll} per kind before the first
     * work step: on a hot allocation they cost no time under its lock (a RESERVE's and a RELEASE's lookups), and
     * the next transaction of a project does them while the one before holds the allocation. The items of a
     * group's events are decided in one per kind after the group's work: on a hot allocation one round trip
     * under its lock for all the RESERVEs of the transaction, one for all its settlements.
     */
    @Override
    public <R, P, S, A, T> T writeEvent(String group, Asked<R, P> reads, R read, Asked<S, A> kind,
                                        java.util.function.Function<P, S> ask, Then<P, A, T> then) {
        return submit(new Pending<>(group, reads, read, kind, ask, then));
    }

    private <T> T submit(Pending<T> p) {
        synchronized (queue) {
            if (closed) {
                throw new LedgerException("ledger " + redacted() + " is closed");
            }
            queue.add(p);
        }
        try {
            while (true) {
                List<Pending<?>> batch;
                synchronized (queue) {
                    if (p.taken) {
                        break;
                    }
                    batch = claim(p);
                    if (batch == null) {
                        queue.wait();
                        continue;
                    }
                }
                lead(batch);
            }
            return p.result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LedgerException("interrupted while waiting for the ledger");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new LedgerException(e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * The transaction {@code p}'s submitter may lead now, or null while all write connections are in use
     * or {@code p}'s group has {@link #GROUP_WRITERS} transactions in progress. Work without a group goes
     * alone; a job event takes the job events waiting of every group below that limit, sorted by group
     * (stable: each group's events keep their order). Called holding {@link #queue}.
     */
    private List<Pending<?>> claim(Pending<?> p) {
        if (leaders >= WRITERS || p.group != null && busy.getOrDefault(p.group, 0) >= GROUP_WRITERS) {
            return null;
        }
        List<Pending<?>> batch = new ArrayList<>();
        batch.add(p);
        if (p.group != null) {
            java.util.Set<String> groups = new java.util.HashSet<>();
            groups.add(p.group);
            for (Pending<?> q : queue) {
                if (batch.size() >= MAX_GROUP) {
                    break;
                }
                if (q != p && q.group != null
                        && (groups.contains(q.group) || busy.getOrDefault(q.group, 0) < GROUP_WRITERS)) {
                    batch.add(q);
                    groups.add(q.group);
                }
            }
            groups.forEach(g -> busy.merge(g, 1, Integer::sum));
            batch.sort(java.util.Comparator.comparing(q -> q.group));
        }
        for (Pending<?> q : batch) {
            q.taken = true;
            queue.remove(q);
        }
        leaders++;
        return batch;
    }

    /** Applies and commits {@code batch} on a write connection, then lets the next leaders go. */
    private void lead(List<Pending<?>> batch) {
        Transaction t = new Transaction(idleWriters.poll());
        try {
            t.commitGroup(batch);
        } catch (RuntimeException e) { // never leave a caller waiting
            batch.forEach(q -> q.result.completeExceptionally(e));
        } finally {
            if (t.connection != null && (closed || !idleWriters.offer(t.connection))) {
                discard(t.connection);
            }
            synchronized (queue) {
                leaders--;
                batch.stream().map(q -> q.group).filter(java.util.Objects::nonNull).distinct()
                        .forEach(group -> busy.computeIfPresent(group, (g, n) -> n == 1 ? null : n - 1));
                queue.notifyAll();
            }
        }
    }

    @Override
    public <T> T read(Tx<T> work) {
        if (closed) {
            throw new LedgerException("ledger " + redacted() + " is closed");
        }
        for (int attempt = 1; ; attempt++) {
            Connection c = acquireReader();
            try {
                T result = work.apply(c);
                c.rollback();
                releaseReader(c);
                return result;
            } catch (SQLException e) {
                if (isConnectionLost(e, c)) {
                    discardReader(c);
                    Connection fresh = reconnect(e, false); // waits for the server; a read is safe to run again
                    openReaders.incrementAndGet();
                    releaseReader(fresh);
                    continue;
                }
                rollbackQuietly(c);
                releaseReader(c);
                if (isRetryable(e) && attempt < MAX_ATTEMPTS) {
                    continue;
                }
                throw new LedgerException("ledger read failed on " + redacted() + " (sqlstate=" + e.getSQLState()
                        + "): " + e.getMessage(), e);
            } catch (RuntimeException e) {
                rollbackQuietly(c);
                releaseReader(c);
                throw e;
            }
        }
    }

    private Connection acquireReader() {
        Connection c = idleReaders.poll();
        if (c != null) {
            return c;
        }
        if (openReaders.incrementAndGet() <= READERS) {
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
            throw new LedgerUnavailableException("no ledger read connection free after 60 s (" + READERS + ")", null);
        }
        return c;
    }

    private void releaseReader(Connection c) {
        if (closed || !idleReaders.offer(c)) {
            discardReader(c);
        }
    }

    private void discardReader(Connection c) {
        openReaders.decrementAndGet();
        discard(c);
    }

    /** One transaction led on a write connection, which it replaces when the server went away. */
    private final class Transaction {

        Connection connection;

        Transaction(Connection connection) {
            this.connection = connection;
        }

        private Connection connection() {
            if (connection == null) {
                connection = connect(true);
            }
            return connection;
        }

        /**
         * All of {@code group} in one transaction. When a unit fails, the rest again without it and the
         * failing one alone; after a retryable failure (a deadlock, ...) or one at COMMIT, each unit alone.
         */
        private void commitGroup(List<Pending<?>> group) {
            List<Pending<?>> todo = new ArrayList<>(group);
            List<SQLException> earlier = new ArrayList<>();
            for (int attempt = 1; !todo.isEmpty(); attempt++) {
                Object[] results = new Object[todo.size()];
                boolean committing = false;
                int applying = -1;
                Connection c;
                try {
                    c = connection();
                } catch (LedgerException e) {
                    connection = null;
                    try {
                        c = connection = reconnect(e.getCause() instanceof SQLException s ? s : null, true);
                    } catch (LedgerException unreachable) {
                        todo.forEach(p -> p.result.completeExceptionally(unreachable));
                        return;
                    }
                }
                Asks asks = new Asks();
                try {
                    Object[] prepared = new Object[todo.size()];
                    for (int i = 0; i < todo.size(); i++) {
                        if (todo.get(i).reads != null) {
                            asks.ask(todo.get(i).reads, todo.get(i).read, i);
                        }
                    }
                    asks.decide(c, prepared);
                    Object[] answers = new Object[todo.size()];
                    for (int next = 0, start = 0; next <= todo.size(); next++) {
                        if (next == todo.size() || next > 0 && !java.util.Objects.equals(todo.get(next).group,
                                todo.get(next - 1).group)) {
                            // the group before, before the next group's allocations are locked: what its units
                            // asked, then the last step of those that asked
                            asks.decide(c, answers);
                            for (applying = start; applying < next; applying++) {
                                Pending<?> p = todo.get(applying);
                                if (p.then != null) {
                                    results[applying] = p.then.apply(c, prepared[applying], answers[applying]);
                                }
                            }
                            start = next;
                        }
                        if (next < todo.size()) {
                            applying = next;
                            Pending<?> p = todo.get(next);
                            if (p.work != null) {
                                results[next] = p.work.apply(c);
                            } else {
                                Object item = p.ask.apply(prepared[next]);
                                if (item != null) {
                                    asks.ask(p.kind, item, next);
                                }
                            }
                        }
                    }
                    committing = true;
                    c.commit();
                    commits.incrementAndGet();
                    committed.addAndGet(todo.size());
                    for (int i = 0; i < todo.size(); i++) {
                        complete(todo.get(i), results[i]);
                    }
                    return;
                } catch (SQLException | RuntimeException e) {
                    SQLException sql = e instanceof SQLException s ? s : null;
                    if (sql != null && isConnectionLost(sql, c)) {
                        discard(c);
                        connection = null;
                        log.warn("ledger connection to {} lost ({}{}); {} unit(s) wait for the server",
                                redacted(), sql.getMessage(), committing ? ", during COMMIT" : "", todo.size());
                        if (committing) {
                            todo = rerunnableAfterLostCommit(todo, sql);
                        }
                        try {
                            connection = reconnect(sql, true);
                        } catch (LedgerException unreachable) {
                            todo.forEach(p -> p.result.completeExceptionally(unreachable));
                            return;
                        }
                        continue;
                    }
                    rollbackQuietly(c);
                    if (todo.size() > 1) {
                        if (!committing && !asks.deciding && !(sql != null && isRetryable(sql))) { // the unit's own failure
                            Pending<?> failing = todo.get(applying);
                            List<Pending<?>> rest = new ArrayList<>(todo);
                            rest.remove(applying);
                            commitGroup(rest);
                            commitGroup(List.of(failing)); // it fails alone, with its own answer
                            return;
                        }
                        for (Pending<?> p : todo) {
                            commitGroup(List.of(p));
                        }
                        return;
                    }
                    if (sql != null && isRetryable(sql) && attempt < MAX_ATTEMPTS) {
                        earlier.add(sql);
                        continue;
                    }
                    RuntimeException failure = sql == null ? (RuntimeException) e
                            : new LedgerException("ledger write failed on " + redacted() + " after " + attempt
                                    + " attempt(s) (sqlstate=" + sql.getSQLState() + "; nothing of this event was"
                                    + " kept): " + sql.getMessage(), sql);
                    earlier.forEach(failure::addSuppressed);
                    todo.get(0).result.completeExceptionally(failure);
                    return;
                }
            }
        }
    }

    /**
     * What the events of a transaction ask to have read together before its first work, or those of one of its
     * groups to have decided together when it moves to the next group and before it commits ({@link Asked}), by
     * kind, in the order they came; the kinds in the order of their {@link Asked#rank} (a settlement's returned
     * hold is there for the RESERVEs decided after it).
     */
    private static final class Asks {

        private final java.util.Map<Asked<Object, Object>, List<Object>> items = new java.util.HashMap<>();
        /** The unit (index in its transaction) of each asked item, in the same order. */
        private final java.util.Map<Asked<Object, Object>, List<Integer>> askers = new java.util.HashMap<>();
        /** Being decided: a failure now is none of one unit's own. */
        boolean deciding;

        void ask(Asked<Object, Object> kind, Object item, int unit) {
            items.computeIfAbsent(kind, k -> new ArrayList<>()).add(item);
            askers.computeIfAbsent(kind, k -> new ArrayList<>()).add(unit);
        }

        /** Decides the asked items, kind by kind, each answer into {@code answers} at its unit. */
        void decide(Connection c, Object[] answers) throws SQLException {
            if (items.isEmpty()) {
                return;
            }
            deciding = true;
            List<Asked<Object, Object>> kinds = new ArrayList<>(items.keySet());
            kinds.sort(java.util.Comparator.comparingInt(Asked::rank));
            for (Asked<Object, Object> kind : kinds) {
                List<Object> decided = kind.decideAll(c, items.get(kind));
                List<Integer> units = askers.get(kind);
                if (decided.size() != units.size()) {
                    throw new LedgerException(decided.size() + " answers to " + units.size() + " items decided together");
                }
                for (int i = 0; i < units.size(); i++) {
                    answers[units.get(i)] = decided.get(i);
                }
            }
            items.clear();
            askers.clear();
            deciding = false;
        }
    }

    /**
     * The connection died while COMMIT was on its way: the transaction may or may not have landed. Job
     * events run again (their key makes a repeat return the stored outcome); other work is answered
     * unavailable, so that its caller retries with the same request id rather than apply it twice.
     */
    private List<Pending<?>> rerunnableAfterLostCommit(List<Pending<?>> todo, SQLException cause) {
        List<Pending<?>> again = new ArrayList<>();
        for (Pending<?> p : todo) {
            if (p.event) {
                again.add(p);
            } else {
                p.result.completeExceptionally(new LedgerUnavailableException("the connection to PostgreSQL ledger "
                        + redacted() + " was lost during COMMIT: whether this write was kept is unknown; retry it"
                        + " with the same request id: " + cause.getMessage(), cause));
            }
        }
        return again;
    }

    @SuppressWarnings("unchecked")
    private static <T> void complete(Pending<T> p, Object result) {
        p.result.complete((T) result);
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            log.debug("rollback: {}", e.getMessage());
        }
    }

    private static void discard(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("closing a ledger connection: {}", e.getMessage());
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

    private String redacted() {
        return url.replaceAll("password=[^&]*", "password=***");
    }

    @Override
    public void close() {
        synchronized (queue) {
            if (closed) {
                return;
            }
            closed = true;
            while (leaders > 0 || !queue.isEmpty()) { // the work already submitted completes
                try {
                    queue.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        Connection c;
        while ((c = idleWriters.poll()) != null) {
            discard(c);
        }
        while ((c = idleReaders.poll()) != null) {
            discard(c);
        }
    }
}
