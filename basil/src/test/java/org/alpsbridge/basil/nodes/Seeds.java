package org.alpsbridge.basil.nodes;

import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Runs a property over seeded random trials. The base seed is fixed so every run checks the same cases; set
 * {@code -Dalpsbridge.seed=N} to replay one failing trial, whose seed the failure message prints.
 */
public final class Seeds {

    private static final long BASE = 0x5eed_a1b5L;

    private Seeds() {
    }

    public static void check(int trials, Consumer<SplittableRandom> property) {
        String replay = System.getProperty("alpsbridge.seed");
        if (replay != null) {
            run(Long.parseLong(replay), property);
            return;
        }
        for (int t = 0; t < trials; t++) {
            run(BASE + t, property);
        }
    }

    private static void run(long seed, Consumer<SplittableRandom> property) {
        try {
            property.accept(new SplittableRandom(seed));
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("property failed with seed " + seed + " (replay with -Dalpsbridge.seed=" + seed + "): "
                    + e.getMessage(), e);
        }
    }
}
