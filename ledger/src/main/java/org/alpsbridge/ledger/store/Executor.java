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

    <T> T read(Tx<T> work);

    @Override
    void close();
}
