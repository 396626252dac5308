package org.alpsbridge.ledger;

import java.time.Instant;

/**
 * One reservation as the ledger keeps it: a per-job statement (held, charged, returned, why).
 *
 * @param resId the ALPS reservation id, 0 while the proxy's hold awaits it
 * @param overrunSeconds run time past the time limit, not charged (recorded for review)
 * @param limitSource where the time limit came from (request, squeue, file, partition default)
 */
public record Reservation(String key, String cluster, String batchId, long resId, String project, String owner,
                          Long allocationId, State state, long hold, long charge, long refunded,
                          long overrunSeconds, String limitSource, long limitSeconds, String reason,
                          String message, boolean forced, Instant reservedAt, Instant confirmedAt,
                          Instant releasedAt) {
}
