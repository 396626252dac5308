package org.alpsbridge.ledger.store;

/**
 * Runs units of work in transactions. A write is acknowledged (returns) only after its commit is
 * durable; a write that throws changed nothing. Work may be run more than once (retries after a
 * serialization failure or a busy database), so it must decide from what it reads, never from state
 * kept between attempts.
 */
interface Executor extends AutoCloseable {

    <T> T write(Tx<T> work);

    <T> T read(Tx<T> work);

    @Override
    void close();
}
