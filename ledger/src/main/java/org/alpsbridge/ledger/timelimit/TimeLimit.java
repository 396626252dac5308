package org.alpsbridge.ledger.timelimit;

/**
 * A job's time limit and where it came from ({@code squeue}, {@code file:PATH}, {@code partition
 * default}), which is logged and kept with the reservation.
 */
public record TimeLimit(long seconds, String source) {
}
