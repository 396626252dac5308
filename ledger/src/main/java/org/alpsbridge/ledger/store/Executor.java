package org.alpsbridge.ledger.store;

/**
 * Runs units of work in transactions. A write is acknowledged (returns) only after its commit is
 * durable; a write that throws changed nothing. Work may be run more than once (retries after a
 * serialization failure, a busy database or a lost connection), so it must decide from what it reads,
 * never from state kept between attempts.
 */
interface Executor extends AutoCloseable {

    <T> T write(Tx<T> work);

    /**
     * A job event: work of one {@code group} (the project it charges; null if not known) may share a
     * transaction with its neighbours, and the work is idempotent by its reservation key, so it may be
     * run again when a commit's outcome was lost with the connection (a retry returns the stored outcome).
     */
    default <T> T writeEvent(String group, Tx<T> work) {
        return write(work);
    }

    /**
     * A job event in steps whose usual case is read and decided together with the other events of its
     * transaction: {@code reads} reads the item {@code read} (with the other items of that kind of the
     * transaction's events: one statement, before the transaction locks anything; it must neither lock nor
     * write), {@code ask} turns what was read into the item to decide (null: none), {@code kind} decides the
     * group's items ({@link Asked#decideAll}: one statement on a store whose transactions hold several events,
     * after the group's work, the kinds of the group in the order of their {@link Asked#rank}), and {@code then}
     * finishes the event with what was read and its item's answer (null when it had no item or the item was not
     * decided) under the same locks; what was read may have changed since (another event of the transaction, or
     * of another), so {@code decideAll} must decide only on what it finds still so. A failure in {@code then} is
     * the event's own; one in {@code decideAll} fails every event of it, each then runs again alone. Read and
     * decided at once by default.
     */
    default <R, P, S, A, T> T writeEvent(String group, Asked<R, P> reads, R read, Asked<S, A> kind,
                                         java.util.function.Function<P, S> ask, Then<P, A, T> then) {
        return writeEvent(group, c -> {
            P prepared = reads.decideAll(c, java.util.List.of(read)).get(0);
            S item = ask.apply(prepared);
            return then.apply(c, prepared, item == null ? null : kind.decideAll(c, java.util.List.of(item)).get(0));
        });
    }

    /**
     * Items several events of one transaction read or decide together: {@link #writeEvent(String, Asked, Object,
     * Asked, java.util.function.Function, Then)}.
     */
    @FunctionalInterface
    interface Asked<S, A> {
        /** The answer to each of {@code items}, in their order; null for an item not decided. */
        java.util.List<A> decideAll(java.sql.Connection c, java.util.List<S> items) throws java.sql.SQLException;

        /**
         * Kinds of one group are decided in ascending rank (default 0): settlements before holds, so that what a
         * RELEASE returns is there for the RESERVEs of its transaction.
         */
        default int rank() {
            return 0;
        }
    }

    /** The last step of an event decided with others: what prepare read, and its item's answer. */
    @FunctionalInterface
    interface Then<P, A, T> {
        T apply(java.sql.Connection c, P prepared, A answer) throws java.sql.SQLException;
    }

    <T> T read(Tx<T> work);

    @Override
    void close();
}
