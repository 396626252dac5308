package org.alpsbridge.basil.inventory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A document written by its own thread and read through a pipe, so tests stream machine-sized documents without
 * ever holding them. {@link #close()} closes the read end, waits for the writer and rethrows what it failed with.
 */
public final class WrittenStream implements AutoCloseable {

    /** Writes the whole document to {@code out}. */
    public interface Writer {
        void write(OutputStream out) throws Exception;
    }

    private final PipedInputStream in;
    private final Thread thread;
    private final AtomicReference<Exception> failure = new AtomicReference<>();

    private WrittenStream(String name, Writer writer) throws IOException {
        in = new PipedInputStream(1 << 16);
        PipedOutputStream out = new PipedOutputStream(in);
        thread = new Thread(() -> {
            try (out) {
                writer.write(out);
            } catch (Exception e) {
                failure.set(e);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    public static WrittenStream start(String name, Writer writer) throws IOException {
        return new WrittenStream(name, writer);
    }

    public InputStream in() {
        return in;
    }

    @Override
    public void close() throws Exception {
        in.close();
        thread.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
