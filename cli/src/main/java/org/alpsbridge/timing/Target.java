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

    @Override
    default void close() {
    }
}
