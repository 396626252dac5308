package org.alpsbridge.proxy.stats;

import org.HdrHistogram.Histogram;

/** The live, mutable counterpart of {@link MethodFigures}; one per method key, guarded by its own monitor. */
final class MethodRecord {

    /** Up to an hour, 3 significant digits: about 30 KiB a histogram, fixed whatever the traffic. */
    private static final long MAX_MICROS = 3_600_000_000L;

    private final Histogram client = new Histogram(MAX_MICROS, 3);
    private final Histogram cached = new Histogram(MAX_MICROS, 3);
    private final Histogram backend = new Histogram(MAX_MICROS, 3);
    private long clientSum;
    private long cachedSum;
    private long backendSum;
    private long errors;
    private long backendErrors;
    private long responseBytes;
    /** Failed backend calls by kind ({@link Stats#failureKind}), in a stable order. */
    private final java.util.Map<String, Long> failures = new java.util.TreeMap<>();

    synchronized void client(long nanos, long bytes, boolean failed, boolean fromCache) {
        long micros = record(client, nanos);
        clientSum += micros;
        if (fromCache) {
            cachedSum += record(cached, nanos);
        }
        responseBytes += bytes;
        if (failed) {
            errors++;
        }
    }

    /** @param failure the kind of failure, or null when the call succeeded */
    synchronized void backend(long nanos, String failure) {
        backendSum += record(backend, nanos);
        if (failure != null) {
            backendErrors++;
            failures.merge(ProxyMetric.BACKEND_FAILURES.metric().check("kind", failure), 1L, Long::sum);
        }
    }

    synchronized MethodFigures figures() {
        return new MethodFigures(client.getTotalCount(), backend.getTotalCount(), errors, backendErrors,
                cached.getTotalCount(), responseBytes, Latency.of(client, clientSum), Latency.of(cached, cachedSum),
                Latency.of(backend, backendSum), java.util.Map.copyOf(failures));
    }

    private static long record(Histogram h, long nanos) {
        long micros = Math.min(MAX_MICROS, Math.max(1, nanos / 1000));
        h.recordValue(micros);
        return micros;
    }
}
