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
     * A job event in two steps: {@code prepare} (reads, row locks and writes of the event's own reservation) and
     * {@code work}, which gets what prepare read. A store whose transactions hold several events may run the
     * prepare steps of all of them first, before the first work locks an allocation, so that they cost no
     * time under that lock: work must then make sure that what prepare read is still so (an earlier event of
     * the same transaction may have changed it) and throw otherwise, and the event runs again on its own.
     */
    default <P, T> T writeEvent(String group, Tx<P> prepare, Step<P, T> work) {
        return writeEvent(group, c -> work.apply(c, prepare.apply(c)));
    }

    /**
     * A two-step job event whose usual case is decided together with the other events of its group in the
     * transaction: {@code ask} turns what prepare read into the item to decide (null: none), {@code kind} decides
     * the group's items ({@link Asked#decideAll}: one statement on a store whose transactions hold several
     * events, after the group's work, the kinds of the group in the order of their {@link Asked#rank}), and {@code then} finishes the event
     * with its item's answer (null when it had no item or the item was not decided) under the same locks. A
     * failure in {@code then} is the event's own; one in {@code decideAll} fails every event of it, each then
     * runs again alone. Decided at once by default.
     */
    default <P, S, A, T> T writeEvent(String group, Tx<P> prepare, Asked<S, A> kind, java.util.function.Function<P, S> ask,
                                      Then<P, A, T> then) {
        return writeEvent(group, prepare, (c, prepared) -> {
            S item = ask.apply(prepared);
            return then.apply(c, prepared, item == null ? null : kind.decideAll(c, java.util.List.of(item)).get(0));
        });
    }

    /** Items several events of one transaction have decided together: {@link #writeEvent(String, Tx, Asked, java.util.function.Function, Then)}. */
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

    /** The second step of a two-step event. */
    @FunctionalInterface
    interface Step<P, T> {
        T apply(java.sql.Connection c, P prepared) throws java.sql.SQLException;
    }

    <T> T read(Tx<T> work);

    @Override
    void close();
}
