package org.alpsbridge.retry;

/**
 * How a series of attempts waits between tries, as data: the first pause, how pauses grow, the longest pause, and
 * how long the whole series or how many attempts it may take. Every retry loop of alpsbridge (the drop-in client's
 * rounds over its proxies, the ledger hooks' calls to the service, the proxy's recording of what ALPS already did,
 * the SQLite writer on a busy database, the PostgreSQL store's reconnect) is one of these plus its own rule of
 * which failures may be retried, which stays beside the loop.
 *
 * <p>Plain classes and no lambdas: the per-call programs load this at start-up, where each lambda costs a class
 * spun at run time.
 *
 * @param firstPauseMillis the pause before the second attempt
 * @param growth how each later pause follows from the one before
 * @param maxPauseMillis no pause is longer
 * @param budgetMillis a pause that would end past this much time since {@link #start()} is not taken; {@link #FOREVER}
 *     for none
 * @param maxAttempts attempts in all, the first included
 */
public record Backoff(long firstPauseMillis, Growth growth, long maxPauseMillis, long budgetMillis, int maxAttempts) {

    /** No limit of time. */
    public static final long FOREVER = Long.MAX_VALUE;

    /** How pauses grow from one attempt to the next. */
    public enum Growth {
        /** Every pause is the first. */
        CONSTANT,
        /** The n-th pause is n times the first. */
        LINEAR,
        /** Each pause is twice the one before. */
        DOUBLING
    }

    public Backoff {
        if (firstPauseMillis < 0 || maxPauseMillis < firstPauseMillis || budgetMillis < 0 || maxAttempts < 1) {
            throw new IllegalArgumentException("backoff: pauses " + firstPauseMillis + ".." + maxPauseMillis
                    + " ms, budget " + budgetMillis + " ms, " + maxAttempts + " attempts");
        }
        java.util.Objects.requireNonNull(growth, "growth");
    }

    /** Pauses of {@code firstMillis}, doubling up to {@code maxMillis}; no limit of time or attempts. */
    public static Backoff doubling(long firstMillis, long maxMillis) {
        return new Backoff(firstMillis, Growth.DOUBLING, maxMillis, FOREVER, Integer.MAX_VALUE);
    }

    /** Pauses of {@code millis} each; no limit of time or attempts. */
    public static Backoff constant(long millis) {
        return new Backoff(millis, Growth.CONSTANT, millis, FOREVER, Integer.MAX_VALUE);
    }

    /** Pauses of {@code stepMillis}, twice that, three times...; no limit of time or attempts. */
    public static Backoff linear(long stepMillis) {
        return new Backoff(stepMillis, Growth.LINEAR, Long.MAX_VALUE, FOREVER, Integer.MAX_VALUE);
    }

    /** The same pauses, the whole series within {@code millis} ({@link #FOREVER} for no limit). */
    public Backoff within(long millis) {
        return new Backoff(firstPauseMillis, growth, maxPauseMillis, millis, maxAttempts);
    }

    /** The same pauses, at most {@code attempts} attempts in all. */
    public Backoff attempts(int attempts) {
        return new Backoff(firstPauseMillis, growth, maxPauseMillis, budgetMillis, attempts);
    }

    /** The pause before attempt {@code attempt} (2 or more). */
    public long pauseBefore(int attempt) {
        long n = attempt - 1L;
        long pause = switch (growth) {
            case CONSTANT -> firstPauseMillis;
            case LINEAR -> n > maxPauseMillis / Math.max(1, firstPauseMillis) ? maxPauseMillis : firstPauseMillis * n;
            case DOUBLING -> n - 1 >= Long.numberOfLeadingZeros(Math.max(1, firstPauseMillis)) ? maxPauseMillis
                    : firstPauseMillis << (n - 1);
        };
        return Math.min(pause, maxPauseMillis);
    }

    /** A series of attempts starting now, the first of them under way. */
    public Attempts start() {
        return new Attempts(this, System.nanoTime());
    }
}
