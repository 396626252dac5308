package org.alpsbridge.ledger;

import java.math.BigDecimal;

/**
 * Billing weights of one partition, as exact integers in thousandths (1.000 is 1000), so no cost is
 * ever computed in floating point.
 *
 * @param cpuMilli weight of one core (default 1.000)
 * @param memPerGibMilli weight of one GiB of memory, for MAX_TRES (default 0: memory is not billed)
 * @param gpuMilli weight of one GPU (default 1.000)
 * @param multiplierMilli partition/QoS multiplier applied once to the whole job (default 1.000)
 */
public record Weights(long cpuMilli, long memPerGibMilli, long gpuMilli, long multiplierMilli) {

    /** Every weight 1.000 and memory not billed: plain core-minutes. */
    public static final Weights UNIT = new Weights(1000, 0, 1000, 1000);

    public Weights {
        if (cpuMilli < 0 || memPerGibMilli < 0 || gpuMilli < 0) {
            throw new LedgerException("billing weights must not be negative: cpu=" + cpuMilli
                    + "m mem=" + memPerGibMilli + "m gpu=" + gpuMilli + "m");
        }
        if (multiplierMilli <= 0) {
            throw new LedgerException("partition multiplier must be positive, got " + multiplierMilli + "m");
        }
    }

    /**
     * Parses a decimal weight such as {@code 1.5} or {@code 0.125} into thousandths, exactly.
     *
     * @throws LedgerException when the text is not a non-negative decimal with at most 3 decimals
     */
    public static long milli(String decimal) {
        try {
            BigDecimal value = new BigDecimal(decimal.trim());
            if (value.signum() < 0) {
                throw new LedgerException("weight '" + decimal + "' is negative");
            }
            return value.movePointRight(3).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new LedgerException("weight '" + decimal + "' is not a decimal with at most 3 decimals");
        }
    }

    /** The weight as a decimal string, e.g. {@code 1.5}. */
    public static String decimal(long milli) {
        return BigDecimal.valueOf(milli, 3).stripTrailingZeros().toPlainString();
    }
}
