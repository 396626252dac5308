package org.alpsbridge.affinity.exec;

import java.util.BitSet;

/** What the wrapper needs from the OS; JNA in production ({@link LibC}), a recording fake in tests. */
interface Kernel {

    /** The calling thread's CPU affinity. */
    BitSet getAffinity() throws KernelException;

    /** Sets the calling thread's CPU affinity; the program {@link #exec}'d from this thread inherits it. */
    void setAffinity(BitSet cpus) throws KernelException;

    /** Replaces this process with {@code argv[0]} (searched on PATH); returns only by throwing. */
    void exec(String[] argv) throws KernelException;

    /** A failed system call, with its errno. */
    final class KernelException extends Exception {
        private final int errno;

        KernelException(String message, int errno) {
            super(message, null, false, false);
            this.errno = errno;
        }

        int errno() {
            return errno;
        }
    }
}
