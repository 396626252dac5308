package org.alpsbridge.timing;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Latency, bytes and outcomes per BASIL method key ({@code QUERY/INVENTORY}, {@code RESERVE}, ...) for one run. */
public final class Recorder {

    /** Latencies are recorded in microseconds, up to an hour, with 3 significant digits. */
    private static final long MAX_MICROS = 3_600_000_000L;

    private final String label;
    private final Map<String, MethodRecord> methods = new LinkedHashMap<>();

    public Recorder(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public void record(String methodKey, long nanos, long responseBytes, boolean failed) {
        methods.computeIfAbsent(methodKey, k -> new MethodRecord()).add(nanos, responseBytes, failed);
    }

    public Map<String, MethodRecord> methods() {
        return Collections.unmodifiableMap(methods);
    }

    /** One method's figures. Latencies in microseconds. */
    public static final class MethodRecord {
        private final Histogram histogram = new Histogram(MAX_MICROS, 3);
        private long bytes;
        private long failures;

        void add(long nanos, long responseBytes, boolean failed) {
            histogram.recordValue(Math.min(MAX_MICROS, Math.max(1, nanos / 1000)));
            bytes += responseBytes;
            if (failed) {
                failures++;
            }
        }

        public long count() {
            return histogram.getTotalCount();
        }

        public long minMicros() {
            return histogram.getMinValue();
        }

        public long maxMicros() {
            return histogram.getMaxValue();
        }

        public long percentileMicros(double p) {
            return histogram.getValueAtPercentile(p);
        }

        public long meanBytes() {
            return count() == 0 ? 0 : bytes / count();
        }

        public long failures() {
            return failures;
        }
    }
}
