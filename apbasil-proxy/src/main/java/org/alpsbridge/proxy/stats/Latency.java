package org.alpsbridge.proxy.stats;

import org.HdrHistogram.Histogram;

/**
 * A latency distribution frozen at snapshot time, in microseconds.
 *
 * @param count how many calls were timed
 * @param minMicros fastest call
 * @param p50Micros median
 * @param p90Micros 90th percentile
 * @param p99Micros 99th percentile
 * @param maxMicros slowest call
 * @param sumMicros total time, for Prometheus {@code _sum} and means
 */
public record Latency(long count, long minMicros, long p50Micros, long p90Micros, long p99Micros, long maxMicros,
                      long sumMicros) {

    static final Latency NONE = new Latency(0, 0, 0, 0, 0, 0, 0);

    static Latency of(Histogram h, long sumMicros) {
        if (h.getTotalCount() == 0) {
            return NONE;
        }
        return new Latency(h.getTotalCount(), h.getMinValue(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                h.getValueAtPercentile(99), h.getMaxValue(), sumMicros);
    }

    /**
     * Microseconds as an operator reads them, three significant digits in every unit so figures in one column
     * compare at a glance: 850us, 1.00ms, 12.3ms, 123ms, 4.02s, 10.0s.
     */
    public static String human(long micros) {
        if (micros < 1_000) {
            return micros + "us";
        }
        boolean seconds = micros >= 999_500; // 999.6 ms rounds to 1.00s, not 1000ms
        java.math.BigDecimal v = java.math.BigDecimal.valueOf(micros, seconds ? 6 : 3)
                .round(new java.math.MathContext(3, java.math.RoundingMode.HALF_EVEN));
        int integerDigits = v.precision() - v.scale();
        return v.setScale(Math.max(0, 3 - integerDigits), java.math.RoundingMode.HALF_EVEN).toPlainString()
                + (seconds ? "s" : "ms");
    }

    void appendJson(StringBuilder json) {
        json.append("\"count\":").append(count)
                .append(",\"minMicros\":").append(minMicros)
                .append(",\"p50Micros\":").append(p50Micros)
                .append(",\"p90Micros\":").append(p90Micros)
                .append(",\"p99Micros\":").append(p99Micros)
                .append(",\"maxMicros\":").append(maxMicros)
                .append(",\"sumMicros\":").append(sumMicros);
    }
}
