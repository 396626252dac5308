package org.alpsbridge.proxy.stats;

import java.util.Locale;
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

    /** Microseconds as an operator reads them: 850us, 12.3ms, 4.02s. */
    public static String human(long micros) {
        if (micros < 1_000) {
            return micros + "us";
        }
        if (micros < 1_000_000) {
            return String.format(Locale.ROOT, "%.1fms", micros / 1_000.0);
        }
        return String.format(Locale.ROOT, "%.2fs", micros / 1_000_000.0);
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
