package org.alpsbridge.timing;

import java.io.IOException;

/**
 * Something that answers BASIL as {@code apbasil} does: one request document in, one response
 * document out. Timing wraps {@link #call} as the caller sees it, start to last byte.
 */
public interface Target extends AutoCloseable {

    /** The name shown in tables and charts, e.g. {@code exec:/usr/bin/apbasil}. */
    String name();

    /** Runs one exchange; an I/O failure is recorded as an error of that method, not a crash of the replay. */
    byte[] call(byte[] request) throws IOException;

    /**
     * Latency the last {@link #call} stood for but did not spend (an emulator's modelled ALPS time left
     * unslept), in nanoseconds; timing adds it to what it measured. 0 for every real target.
     */
    default long takeModelledNanos() {
        return 0;
    }

    @Override
    default void close() {
    }
}
