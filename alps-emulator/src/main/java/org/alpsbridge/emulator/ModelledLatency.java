package org.alpsbridge.emulator;

import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link LatencyProfile} switched on in one emulator: draws each call's latency from a seeded generator,
 * sleeps the share of it the caller asked to wait, and keeps the rest as modelled time for the caller
 * to add to what it measured ({@link Control#takeModelledNanos()}). Thread-safe.
 */
final class ModelledLatency {

    private final LatencyProfile profile;
    private final long seed;
    private final double sleepShare;
    private final Random random;
    private final AtomicLong unslept = new AtomicLong();

    ModelledLatency(LatencyProfile profile, long seed, double sleepShare) {
        this.profile = profile;
        this.seed = seed;
        this.sleepShare = sleepShare;
        this.random = new Random(seed);
    }

    LatencyProfile profile() {
        return profile;
    }

    long seed() {
        return seed;
    }

    double sleepShare() {
        return sleepShare;
    }

    /** Draws one call's latency, sleeps its share and books the rest. */
    void apply(String methodKey, LatencyProfile.Load load) throws InterruptedException {
        long nanos;
        synchronized (random) {
            nanos = profile.drawNanos(methodKey, load, random);
        }
        long slept = Math.round(nanos * sleepShare);
        unslept.addAndGet(nanos - slept);
        if (slept > 0) {
            Thread.sleep(slept / 1_000_000, (int) (slept % 1_000_000));
        }
    }

    long takeUnslept() {
        return unslept.getAndSet(0);
    }
}
