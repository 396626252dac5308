package org.alpsbridge.ledger.cost;

import java.math.BigInteger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Weights;

/**
 * The cost formula: integer service units (core-minutes, or GPU-minutes for GPU allocations), rounded
 * up once per job from seconds, never per node, never in floating point.
 *
 * <p>A reservation's {@linkplain #rate rate} is its billing rate in millionths of a unit-second
 * (weights are thousandths, the multiplier is thousandths): {@code q × nodes × b}, where the per-node
 * rate {@code b} is {@code max(cores × w_cpu, mem × w_mem, gpus × w_gpu)} for CPU allocations (Slurm's
 * MAX_TRES: a job holding all the memory of a node pays for the node) and {@code gpus × w_gpu} for GPU
 * allocations. A cost is {@code ceil(rate × seconds / 60,000,000)}.
 */
public final class Cost {

    private static final BigInteger MICRO_MINUTE = BigInteger.valueOf(60_000_000L);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private Cost() {
    }

    /**
     * The billing rate of a reservation, in millionths of a unit per second.
     *
     * @throws LedgerException when {@code nodes < 1}, when a GPU allocation is charged for nodes without
     *     GPUs, or when the product does not fit in 63 bits (rejected, never wrapped)
     */
    public static long rate(Resource resource, int nodes, NodeShape node, Weights weights) {
        if (nodes < 1) {
            throw new LedgerException("a reservation needs at least 1 node, got " + nodes);
        }
        try {
            long perNode;
            if (resource == Resource.GPU) {
                if (node.gpus() == 0) {
                    throw new LedgerException("a GPU allocation cannot be charged for nodes without GPUs");
                }
                perNode = Math.multiplyExact((long) node.gpus(), weights.gpuMilli());
            } else {
                perNode = Math.max(Math.multiplyExact((long) node.cores(), weights.cpuMilli()),
                        Math.max(Math.multiplyExact(node.memGib(), weights.memPerGibMilli()),
                                Math.multiplyExact((long) node.gpus(), weights.gpuMilli())));
            }
            return Math.multiplyExact(Math.multiplyExact(perNode, (long) nodes), weights.multiplierMilli());
        } catch (ArithmeticException e) {
            throw new LedgerException("billing rate overflows: " + nodes + " nodes of " + node + " at " + weights);
        }
    }

    /** The worst case: the whole time limit, {@code ceil(rate × limit / 60e6)}. */
    public static long worst(long rate, long limitSeconds) {
        if (limitSeconds <= 0) {
            throw new LedgerException("time limit must be positive, got " + limitSeconds + " s");
        }
        return units(rate, limitSeconds);
    }

    /**
     * What a job that ran {@code elapsedSeconds} costs, bounded by its worst case (usage past the time
     * limit is not charged; the caller records it as overrun).
     */
    public static long actual(long rate, long elapsedSeconds, long limitSeconds) {
        if (elapsedSeconds < 0) {
            throw new LedgerException("elapsed time must not be negative, got " + elapsedSeconds + " s");
        }
        return units(rate, Math.min(elapsedSeconds, limitSeconds));
    }

    /** Grants are entered in hours and kept as exact minutes. */
    public static long hoursToMinutes(long hours) {
        if (hours < 0) {
            throw new LedgerException("hours must not be negative, got " + hours);
        }
        try {
            return Math.multiplyExact(hours, 60L);
        } catch (ArithmeticException e) {
            throw new LedgerException(hours + " hours overflow as minutes");
        }
    }

    private static long units(long rate, long seconds) {
        BigInteger product = BigInteger.valueOf(rate).multiply(BigInteger.valueOf(seconds));
        BigInteger[] qr = product.divideAndRemainder(MICRO_MINUTE);
        BigInteger up = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        if (up.compareTo(LONG_MAX) > 0) {
            throw new LedgerException("cost overflows: rate " + rate + " µunits/s for " + seconds + " s");
        }
        return up.longValueExact();
    }
}
