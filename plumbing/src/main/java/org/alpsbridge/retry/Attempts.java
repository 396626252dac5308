package org.alpsbridge.retry;

import java.util.concurrent.TimeUnit;

/**
 * One series of attempts under a {@link Backoff}: the caller makes an attempt, and on a failure it may retry asks
 * {@link #pauseForNext()}, which waits and says yes, or says no at once when the next attempt would break the
 * backoff's limits. Not thread-safe: one series belongs to one loop.
 */
public final class Attempts {

    private final Backoff backoff;
    private final long startNanos;
    private int attempt = 1;

    Attempts(Backoff backoff, long startNanos) {
        this.backoff = backoff;
        this.startNanos = startNanos;
    }

    /** The attempt now under way, from 1. */
    public int attempt() {
        return attempt;
    }

    /**
     * Waits the pause before the next attempt and returns true; or returns false without waiting when that
     * attempt would be one too many or its pause would end past the budget, and false as well when the wait is
     * interrupted (with the thread's interrupt flag set again, so the caller's next blocking call sees it).
     */
    public boolean pauseForNext() {
        if (attempt >= backoff.maxAttempts()) {
            return false;
        }
        long pause = backoff.pauseBefore(attempt + 1);
        if (backoff.budgetMillis() != Backoff.FOREVER) {
            long left = backoff.budgetMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            if (pause > left) {
                return false;
            }
        }
        try {
            Thread.sleep(pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        attempt++;
        return true;
    }
}
