package org.alpsbridge.proxy.stats;

/**
 * One BASIL method's figures since the daemon started.
 *
 * @param requests calls received from clients
 * @param backendCalls calls sent to the backend under this method key, including the policy's own
 *     (a SUMMARY poll, a refresh INVENTORY) that no client asked for
 * @param errors client calls answered with a BASIL FAILURE or no answer at all
 * @param backendErrors backend calls that failed (FAILURE document or no document)
 * @param cacheHits client calls answered without any backend call of the same method
 * @param responseBytes bytes of response documents returned to clients
 * @param client latency as the client saw it (everything the daemon did for the call)
 * @param cached latency of the calls answered from the cache
 * @param backend latency of the backend calls alone
 * @param backendFailures the failed backend calls by kind: unreachable, transient, permanent
 */
public record MethodFigures(long requests, long backendCalls, long errors, long backendErrors, long cacheHits,
                            long responseBytes, Latency client, Latency cached, Latency backend,
                            java.util.Map<String, Long> backendFailures) {

    /** Backend calls the clients' requests would have cost and did not: never negative. */
    public long backendCallsSaved() {
        return Math.max(0, requests - backendCalls);
    }
}
