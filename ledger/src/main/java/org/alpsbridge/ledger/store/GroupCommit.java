package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.LedgerUnavailableException;
import org.alpsbridge.ledger.store.Executor.Asked;
import org.alpsbridge.ledger.store.Executor.Then;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL store's writes: group commit. A job event names its group (the project it charges). The
 * thread that submits work leads a transaction when a write connection is free and its group has fewer than
 * {@link StoreSettings#PG_groupWriters} transactions in progress: it takes, with its own, the job events
 * waiting then, of its group and of every other group below that limit (at most {@link #MAX_GROUP}), applies
 * them in one transaction on one of the pool's write connections, and acknowledges each unit only after that
 * commit; the other submitters just wait for their answer. Events on a hot allocation thus share one commit
 * instead of queueing on its row lock one commit at a time, and events of many projects share one commit (one
 * COMMIT round trip, one WAL flush) instead of one each. The units are applied in the order of their groups'
 * names, so that two transactions lock the allocations they share in the same order and do not deadlock. What
 * the units read together ({@link Executor#writeEvent(String, Asked, Object, Asked, java.util.function.Function,
 * Then)}: a RESERVE's project, allocation and weights, the reservation a RELEASE settles) is read in one
 * statement per kind before the first unit's work, so that it is not paid under an allocation's lock; what units
 * have decided together ({@link Asked}: the project's settlements, {@link Settlements}, then its RESERVEs,
 * {@link Holds}) is decided in one statement per kind after the work of their group, one round trip under the
 * lock for all of them, before each unit's last step. When a unit fails, the transaction is rolled back and run
 * again without it, and the failing unit runs alone: it fails alone, its neighbours commit. A deadlock, a
 * serialization failure or a concurrent insert of the same key rolls the transaction back and runs each unit
 * again on its own, retried.
 *
 * <p>A transaction whose connection was lost runs again on a new one ({@link PostgresPool#reconnect}). When the
 * connection died during COMMIT, the outcome is unknown: job events (idempotent by their reservation key) run
 * again and return the stored outcome if the first commit had landed; any other write fails with
 * {@link LedgerUnavailableException} ("retry with the same request id").
 */
final class GroupCommit {

    private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);
    /** Most units in one transaction. */
    static final int MAX_GROUP = 256;

    private final PostgresPool pool;
    /**
     * Transactions of one group in progress at once: the second prepares while the first commits, and takes
     * the allocation's lock as soon as that commit is done.
     */
    private final int groupWriters;
    /** Transactions being led now; guarded by {@link #queue}. */
    private int leaders;
    /** Work not yet taken by a writer, oldest first; guarded by itself. */
    private final java.util.ArrayDeque<Pending<?>> queue = new java.util.ArrayDeque<>();
    /** Groups writers are applying now, with how many writers each; guarded by {@link #queue}. */
    private final java.util.Map<String, Integer> busy = new java.util.HashMap<>();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong committed = new AtomicLong();

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

    GroupCommit(PostgresPool pool, int groupWriters) {
        this.pool = pool;
        this.groupWriters = groupWriters;
    }

    /** Events per commit so far: how well the group commit shares each commit. */
    double eventsPerCommit() {
        long n = commits.get();
        return n == 0 ? 0 : (double) committed.get() / n;
    }

    /** Work without a group: it goes alone, and is answered unavailable when its COMMIT's outcome was lost. */
    <T> T write(Tx<T> work) {
        return submit(new Pending<>(null, work, false));
    }

    /** A job event of {@code group}: see {@link Executor#writeEvent(String, Tx)}. */
    <T> T writeEvent(String group, Tx<T> work) {
        return submit(new Pending<>(group, work, true));
    }

    /**
     * The reads of a transaction's events are read in one {@link Asked#decideAll} per kind before the first
     * work step: on a hot allocation they cost no time under its lock (a RESERVE's and a RELEASE's lookups), and
     * the next transaction of a project does them while the one before holds the allocation. The items of a
     * group's events are decided in one per kind after the group's work: on a hot allocation one round trip
     * under its lock for all the RESERVEs of the transaction, one for all its settlements.
     */
    <R, P, S, A, T> T writeEvent(String group, Asked<R, P> reads, R read, Asked<S, A> kind,
                                 java.util.function.Function<P, S> ask, Then<P, A, T> then) {
        return submit(new Pending<>(group, reads, read, kind, ask, then));
    }

    private <T> T submit(Pending<T> p) {
        synchronized (queue) {
            if (pool.closed()) {
                throw new LedgerException("ledger " + pool.redacted() + " is closed");
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
     * or {@code p}'s group has {@link #groupWriters} transactions in progress. Work without a group goes
     * alone; a job event takes the job events waiting of every group below that limit, sorted by group
     * (stable: each group's events keep their order). Called holding {@link #queue}.
     */
    private List<Pending<?>> claim(Pending<?> p) {
        if (leaders >= pool.writers || p.group != null && busy.getOrDefault(p.group, 0) >= groupWriters) {
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
                        && (groups.contains(q.group) || busy.getOrDefault(q.group, 0) < groupWriters)) {
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
        Transaction t = new Transaction(pool.idleWriter());
        try {
            t.commitGroup(batch);
        } catch (RuntimeException e) { // never leave a caller waiting
            batch.forEach(q -> q.result.completeExceptionally(e));
        } finally {
            pool.releaseWriter(t.connection);
            synchronized (queue) {
                leaders--;
                batch.stream().map(q -> q.group).filter(java.util.Objects::nonNull).distinct()
                        .forEach(group -> busy.computeIfPresent(group, (g, n) -> n == 1 ? null : n - 1));
                queue.notifyAll();
            }
        }
    }

    /** One transaction led on a write connection, which it replaces when the server went away. */
    private final class Transaction {

        Connection connection;

        Transaction(Connection connection) {
            this.connection = connection;
        }

        private Connection connection() {
            if (connection == null) {
                connection = pool.connect(true);
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
                        c = connection = pool.reconnect(e.getCause() instanceof SQLException s ? s : null, true);
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
                    if (sql != null && PostgresPool.isConnectionLost(sql, c)) {
                        PostgresPool.discard(c);
                        connection = null;
                        log.warn("ledger connection to {} lost ({}{}); {} unit(s) wait for the server",
                                pool.redacted(), sql.getMessage(), committing ? ", during COMMIT" : "", todo.size());
                        if (committing) {
                            todo = rerunnableAfterLostCommit(todo, sql);
                        }
                        try {
                            connection = pool.reconnect(sql, true);
                        } catch (LedgerException unreachable) {
                            todo.forEach(p -> p.result.completeExceptionally(unreachable));
                            return;
                        }
                        continue;
                    }
                    PostgresPool.rollbackQuietly(c);
                    if (todo.size() > 1) {
                        if (!committing && !asks.deciding && !(sql != null && PostgresExecutor.isRetryable(sql))) { // the unit's own failure
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
                    if (sql != null && PostgresExecutor.isRetryable(sql) && attempt < PostgresExecutor.MAX_ATTEMPTS) {
                        earlier.add(sql);
                        continue;
                    }
                    RuntimeException failure = sql == null ? (RuntimeException) e
                            : new LedgerException("ledger write failed on " + pool.redacted() + " after " + attempt
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
                        + pool.redacted() + " was lost during COMMIT: whether this write was kept is unknown; retry it"
                        + " with the same request id: " + cause.getMessage(), cause));
            }
        }
        return again;
    }

    @SuppressWarnings("unchecked")
    private static <T> void complete(Pending<T> p, Object result) {
        p.result.complete((T) result);
    }

    /**
     * Lets the work already submitted complete, refusing more; the pool is {@link PostgresPool#closing} from
     * now on. False when it was closed already.
     */
    boolean close() {
        synchronized (queue) {
            if (pool.closed()) {
                return false;
            }
            pool.closing();
            while (leaders > 0 || !queue.isEmpty()) { // the work already submitted completes
                try {
                    queue.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return true;
    }
}
