package org.alpsbridge.ledger;

import java.time.Instant;

/**
 * One append-only journal entry. {@code amount} is signed: what it adds to the allocation's available
 * balance. The balances are the sums of these; the store checks that at start-up.
 *
 * @param seq global order of entries
 * @param allocationSeq gapless position within its allocation
 * @param reservationKey the reservation it belongs to, or null for administrative entries
 */
public record JournalEntry(long seq, long allocationId, long allocationSeq, Kind kind, long amount,
                           String reservationKey, String actor, String reason, Instant at) {

    /** Entry kinds. Each changes exactly one of granted, held or used. */
    public enum Kind {
        CREDIT, WITHDRAW, ADJUST, HOLD, FORCED_HOLD, RETURN, VOID, SETTLE, FORCED_DEBIT, REFUND;

        /** The column of the balance this kind moves: granted, held or used. */
        public String column() {
            return switch (this) {
                case CREDIT, WITHDRAW, ADJUST -> "credited";
                case HOLD, FORCED_HOLD, RETURN, VOID -> "held";
                case SETTLE, FORCED_DEBIT, REFUND -> "settled";
            };
        }

        /**
         * How much the column moves for an entry of {@code amount}: granted moves with the amount,
         * held and used move against it (a HOLD of −h raises held by h).
         */
        public long columnDelta(long amount) {
            return "credited".equals(column()) ? amount : Math.negateExact(amount);
        }
    }
}
