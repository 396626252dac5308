package org.alpsbridge.ledger;

import java.time.Instant;

/**
 * The range of times and durations a job event may carry. Outside it the ledger's own arithmetic (the start of a
 * job as its RELEASE time less its elapsed time) left the range of {@link Instant}: a RELEASE with an elapsed time
 * of 2^62 seconds failed the ledger service with a DateTimeException (found by ApiFuzzTest).
 */
final class Bounds {

    /** 9999-12-31T23:59:59Z. */
    static final long LATEST = 253_402_300_799L;
    /** A hundred years: longer than any job runs or any time limit a scheduler sets. */
    static final long MAX_SECONDS = 100L * 366 * 86_400;

    private Bounds() {
    }

    static void time(Instant at, String what) {
        if (at.getEpochSecond() < 0 || at.getEpochSecond() > LATEST) {
            throw new LedgerException(what + " " + at + " lies outside 1970 to 9999");
        }
    }

    static void seconds(long seconds, String what) {
        if (seconds > MAX_SECONDS) {
            throw new LedgerException(what + " of " + seconds + " s exceeds the ledger's limit of " + MAX_SECONDS
                    + " s (100 years)");
        }
    }
}
