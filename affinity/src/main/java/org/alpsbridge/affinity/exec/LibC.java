package org.alpsbridge.affinity.exec;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.StringArray;
import java.util.BitSet;

/**
 * glibc through JNA direct mapping ({@code Native.register}): no interface proxy to generate at start-up, and
 * arguments the JNA dispatcher passes without conversion (a {@code long[]} is a {@code cpu_set_t}: bit n of the
 * set is bit n%64 of word n/64 whatever the byte order).
 *
 * <p>{@code pid 0} is the calling thread on Linux, so set the mask and exec from the same thread: the new image
 * inherits that thread's mask; the JVM's other threads die with the exec.
 */
final class LibC implements Kernel {

    /** 8192 CPUs, Linux's largest CONFIG_NR_CPUS; the kernel rejects a set smaller than its nr_cpu_ids. */
    private static final int WORDS = 128;

    static {
        // Without this property JNA's NativeLibrary initialiser runs "ldconfig -p" to learn the library path
        // (tens of milliseconds); libc is already mapped into the JVM, so its versioned name is all dlopen needs.
        if (System.getProperty("jna.platform.library.path") == null) {
            System.setProperty("jna.platform.library.path", "");
        }
        Native.register(Platform.C_LIBRARY_NAME);
    }

    private static native int sched_getaffinity(int pid, int cpusetsize, long[] mask) throws LastErrorException;

    private static native int sched_setaffinity(int pid, int cpusetsize, long[] mask) throws LastErrorException;

    private static native int execvp(String file, StringArray argv) throws LastErrorException;

    @Override
    public BitSet getAffinity() throws KernelException {
        long[] mask = new long[WORDS];
        try {
            sched_getaffinity(0, WORDS * 8, mask);
        } catch (LastErrorException e) {
            throw new KernelException("sched_getaffinity failed: errno " + e.getErrorCode(), e.getErrorCode());
        }
        return BitSet.valueOf(mask);
    }

    @Override
    public void setAffinity(BitSet cpus) throws KernelException {
        long[] words = cpus.toLongArray();
        if (words.length > WORDS) {
            throw new KernelException("CPU " + cpus.length() + " is beyond the " + WORDS * 64 + " CPUs a mask holds", 22);
        }
        long[] mask = new long[WORDS];
        System.arraycopy(words, 0, mask, 0, words.length);
        try {
            sched_setaffinity(0, WORDS * 8, mask);
        } catch (LastErrorException e) {
            throw new KernelException("sched_setaffinity failed: errno " + e.getErrorCode()
                    + (e.getErrorCode() == 22 ? " (EINVAL: no CPU of the mask is online and allowed)" : ""),
                    e.getErrorCode());
        }
    }

    @Override
    public void exec(String[] argv) throws KernelException {
        try {
            execvp(argv[0], new StringArray(argv));
        } catch (LastErrorException e) {
            int errno = e.getErrorCode();
            String why = errno == 2 ? "no such file or command on PATH" : errno == 13 ? "permission denied" : "errno " + errno;
            throw new KernelException("cannot execute " + argv[0] + ": " + why, errno);
        }
        throw new KernelException("execvp returned without error", 0);
    }
}
