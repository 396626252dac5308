package org.alpsbridge.ledger;

import java.time.Instant;

/**
 * The balance of one allocation, in its resource's unit (core-minutes or GPU-minutes).
 * {@code available = granted − held − used}; it is negative only after a forced entry, and then every
 * RESERVE on the allocation is denied until it is back at zero or above.
 *
 * @param granted credits minus withdrawals, transfers out and base adjustments
 * @param held worst-case holds of reservations in flight
 * @param used settled charges (minus refunds), forced debits included
 */
public record Balance(String project, long allocationId, Resource resource, String category,
                      Instant from, Instant to, long granted, long held, long used, long available) {

    /** True when {@code at} is inside the allocation's half-open period {@code [from, to)}. */
    public boolean activeAt(Instant at) {
        return !at.isBefore(from) && at.isBefore(to);
    }
}
