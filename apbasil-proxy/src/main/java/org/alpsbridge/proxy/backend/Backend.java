package org.alpsbridge.proxy.backend;

/**
 * Whatever answers BASIL requests behind the daemon: the real {@code apbasil}, the emulator, or a
 * decorator over another backend (the SUMMARY/INVENTORY policy, per-method timing, the ledger hook).
 *
 * <p>Decorators compose in one place, the daemon's start-up, so each one does a single job and can be
 * tested over the emulator alone.
 *
 * <p>Implementations block; the daemon calls them on its worker pool, never on an event loop, and
 * from many threads at once.
 */
public interface Backend extends AutoCloseable {

    /**
     * Runs one BASIL exchange.
     *
     * @return the response document exactly as the backend wrote it (a BASIL FAILURE document is a
     *     normal return, not an exception)
     * @throws BackendException when no response document could be had: timeout, crash, garbage,
     *     over-limit output, backend unreachable
     */
    byte[] call(Call call) throws BackendException;

    /** One line for logs and {@code --help}: what this backend is, e.g. {@code exec:/usr/bin/apbasil}. */
    String describe();

    @Override
    default void close() {
    }
}
