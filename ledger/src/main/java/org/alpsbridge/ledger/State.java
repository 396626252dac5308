package org.alpsbridge.ledger;

/** Where a reservation is in its life (SPEC §3). The last four are terminal. */
public enum State {
    /** Worst case held, not yet bound to a running job. */
    HELD,
    /** Bound to a running job (ALPS CONFIRM). */
    CONFIRMED,
    /** Released: actual cost charged, the rest returned. */
    SETTLED,
    /** Hold returned whole: ALPS refused the RESERVE, the job never ran, or the sweeper found it abandoned. */
    VOIDED,
    /** RESERVE refused; remembered so that a retry gets the same answer. */
    DENIED,
    /** Never released; settled by the sweeper (charged the full hold) and flagged for review. */
    ORPHAN_SETTLED
}
