package org.alpsbridge.ledger;

/**
 * What a RESERVE, CONFIRM, RELEASE or refund did, or what it did the first time when it is a retry.
 *
 * @param decision OK, DENIED (RESERVE refused; {@code reason} and {@code message} say why) or CONFLICT
 *     (same key, different request: nothing changed)
 * @param key the reservation's idempotency key
 * @param state the reservation's state after the event
 * @param hold worst case held for it
 * @param charge what it has been charged (after refunds)
 * @param available the allocation's available balance right after the decision, in the same
 *     transaction (so a denial's figures explain it)
 * @param reason a short code: INSUFFICIENT_BALANCE, NO_ACTIVE_ALLOCATION, UNKNOWN_PROJECT, NODE_FAILURE, ...
 * @param message a sentence for the user naming the project and figures
 * @param forced the event broke the no-overdraft rule because usage could not be refused (flagged)
 * @param replayed this is the stored outcome of an earlier identical request
 */
public record Outcome(Decision decision, String key, String project, State state, long hold, long charge,
                      long available, String reason, String message, boolean forced, boolean replayed) {

    public enum Decision { OK, DENIED, CONFLICT }

    public boolean ok() {
        return decision == Decision.OK;
    }

    /** The unused part of the hold, once settled. */
    public long returned() {
        return state == State.SETTLED || state == State.VOIDED || state == State.ORPHAN_SETTLED
                ? Math.max(0, hold - charge) : 0;
    }
}
