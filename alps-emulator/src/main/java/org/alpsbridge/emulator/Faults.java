package org.alpsbridge.emulator;

import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;

/**
 * The faults set through {@link Control}: at most one per method, replaced by the next one set for that
 * method, kept until cleared. Thread-safe; a hung call waits on this object until the fault is cleared.
 */
final class Faults {

    enum Kind { FAIL, GARBAGE, TRUNCATE, SLOW, HANG }

    /**
     * One fault. {@code millis}/{@code jitterMillis} are the delay of SLOW (a uniformly drawn extra of up
     * to {@code jitterMillis}); {@code errorClass}/{@code message}/{@code source} the FAILURE of FAIL.
     */
    record Fault(Kind kind, ErrorClass errorClass, String message, long millis, long jitterMillis, String source) {

        /** A fault whose FAILURE, if any, has error_source BACKEND. */
        Fault(Kind kind, ErrorClass errorClass, String message, long millis, long jitterMillis) {
            this(kind, errorClass, message, millis, jitterMillis, "BACKEND");
        }
    }

    private final Map<Method, Fault> byMethod = new EnumMap<>(Method.class);
    private final Random jitter = new Random(20131122L);
    private boolean loseNextRelease;
    private long generation;

    synchronized void set(Method method, Fault fault) {
        byMethod.put(method, fault);
        generation++;
        notifyAll();
    }

    synchronized Fault get(Method method) {
        return byMethod.get(method);
    }

    synchronized Map<Method, Fault> all() {
        return new EnumMap<>(byMethod);
    }

    synchronized void clear() {
        byMethod.clear();
        loseNextRelease = false;
        generation++;
        notifyAll();
    }

    synchronized void loseNextRelease(boolean lose) {
        loseNextRelease = lose;
    }

    synchronized boolean loseNextRelease() {
        return loseNextRelease;
    }

    /** True once: the caller loses this RELEASE. */
    synchronized boolean takeLostRelease() {
        boolean lose = loseNextRelease;
        loseNextRelease = false;
        return lose;
    }

    /** The delay of a SLOW fault for one call, drawn from this emulator's seeded jitter (in-process runs repeat). */
    synchronized long delayMillis(Fault f) {
        return delayMillis(f, jitter);
    }

    static long delayMillis(Fault f, Random random) {
        return f.millis() + (f.jitterMillis() > 0 ? (long) (random.nextDouble() * f.jitterMillis()) : 0);
    }

    /** Blocks while {@code method} is set to HANG, i.e. until the fault is cleared or replaced. */
    synchronized void hang(Method method) throws InterruptedException {
        Fault f = byMethod.get(method);
        while (f != null && f.kind() == Kind.HANG) {
            long seen = generation;
            while (seen == generation) {
                wait();
            }
            f = byMethod.get(method);
        }
    }
}
