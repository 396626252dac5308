package org.alpsbridge.ledger;

import java.time.Instant;
import java.util.Objects;

/**
 * A RELEASE: settle the actual cost of a reservation and return the rest of its hold.
 *
 * @param elapsedSeconds wall time the job ran (suspended time excluded when the scheduler reports it)
 * @param nodeFailure the job ended by node failure: charged nothing (HADM's rule)
 * @param neverRan ALPS refused the reservation or the job never started: the hold is voided
 * @param ifUnknown the reservation's parameters, used only when the ledger has no record of it, to
 *     charge the usage as a forced debit instead of losing it; may be null
 */
public record ReleaseRequest(Lookup lookup, long elapsedSeconds, boolean nodeFailure, boolean neverRan,
                             Instant at, ReserveRequest ifUnknown) {

    /**
     * {@code elapsedSeconds} value meaning "measure it on the ledger's record": from CONFIRM to
     * {@code at}, or never ran when there was no CONFIRM. The proxy uses it: BASIL RELEASE carries no
     * usage. Retries of such a RELEASE are the same request whatever their {@code at}.
     */
    public static final long BY_CLOCK = -1;

    public ReleaseRequest {
        Objects.requireNonNull(lookup, "lookup");
        Objects.requireNonNull(at, "at");
        if (elapsedSeconds < 0 && elapsedSeconds != BY_CLOCK) {
            throw new LedgerException("elapsed time must not be negative, got " + elapsedSeconds + " s");
        }
        Bounds.seconds(elapsedSeconds, "elapsed time");
        Bounds.time(at, "RELEASE time");
    }

    public static ReleaseRequest of(long resId, long elapsedSeconds, Instant at) {
        return new ReleaseRequest(Lookup.of(resId), elapsedSeconds, false, false, at, null);
    }

    /** The same RELEASE for a reservation on another cluster. */
    public ReleaseRequest withCluster(String cluster) {
        return new ReleaseRequest(new Lookup(cluster, lookup.resId(), lookup.batchId()), elapsedSeconds, nodeFailure,
                neverRan, at, ifUnknown);
    }

    /** A RELEASE whose usage the ledger measures from its CONFIRM time (see {@link #BY_CLOCK}). */
    public static ReleaseRequest byClock(Lookup lookup, Instant at) {
        return new ReleaseRequest(lookup, BY_CLOCK, false, false, at, null);
    }

    /** What makes two RELEASEs of one reservation the same: a retry, not a conflicting report. */
    public String payloadText() {
        return (elapsedSeconds == BY_CLOCK ? "clock" : Long.toString(elapsedSeconds)) + "|" + nodeFailure + "|"
                + neverRan;
    }
}
