package org.alpsbridge.emulator;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * Collects a response for {@link Emulator#handle(byte[])} without ever holding a large document twice:
 * up to {@code limit} bytes it buffers (and copies once at the end, cheap at that size); beyond that it
 * drops the buffer and only counts, so the writer can run again into an array of exactly the counted size.
 */
final class Spill extends OutputStream {

    /** Largest array the JVM reliably allocates. */
    static final long MAX_ARRAY = Integer.MAX_VALUE - 16;

    private final int limit;
    private byte[] buffer = new byte[4096];
    private long count;
    private boolean overflowed;
    private byte[] exact;
    private int position;

    Spill(int limit) {
        this.limit = limit;
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        if (exact != null) {
            if (position + len > exact.length) {
                throw new IllegalStateException("the second pass wrote more than the first counted (" + exact.length + " bytes)");
            }
            System.arraycopy(b, off, exact, position, len);
            position += len;
            return;
        }
        count += len;
        if (overflowed) {
            return;
        }
        if (count > limit) {
            overflowed = true;
            buffer = null;
            return;
        }
        if (count > buffer.length) {
            buffer = Arrays.copyOf(buffer, (int) Math.min(limit, Math.max(count, 2L * buffer.length)));
        }
        System.arraycopy(b, off, buffer, (int) (count - len), len);
    }

    /** True when the document outgrew the buffer and must be written again after {@link #exactPass()}. */
    boolean overflowed() {
        return overflowed && exact == null;
    }

    long count() {
        return count;
    }

    /** Switches to the second pass: the next writes fill an array of exactly the counted size. */
    void exactPass() {
        exact = new byte[(int) count];
        position = 0;
    }

    /** Forgets everything written, to write something else (a FAILURE) instead. */
    void reset() {
        buffer = new byte[4096];
        count = 0;
        overflowed = false;
        exact = null;
    }

    byte[] toByteArray() {
        if (exact != null) {
            if (position != exact.length) {
                throw new IllegalStateException("the second pass wrote " + position + " of " + exact.length + " bytes");
            }
            return exact;
        }
        return Arrays.copyOf(buffer, (int) count);
    }
}
