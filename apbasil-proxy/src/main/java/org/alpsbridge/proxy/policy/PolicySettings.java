package org.alpsbridge.proxy.policy;

import java.time.Duration;

/**
 * The SUMMARY/INVENTORY policy's knobs; {@link #DEFAULTS} documents each default (also in
 * {@code apbasil-proxy/README.md}).
 *
 * @param refreshInterval the oldest a cached inventory may get before the backend is asked for a full one
 *     (catches what SUMMARY cannot show: reservations made behind the proxy's back, label changes).
 *     Default 60 s. This is the staleness window for out-of-band reservations, and the orphan detection latency.
 * @param summaryInterval how long a SUMMARY check stays good: within it, INVENTORY is answered from the cache
 *     without asking SUMMARY again. Default 0: a SUMMARY before every INVENTORY answered from the cache, so a
 *     node state change is never missed.
 * @param fallbackInterval for backends without SUMMARY (BASIL below 1.3): the cache answers INVENTORY for at
 *     most this long after a full fetch, like Slurm's {@code inventory_interval}. Default 10 s.
 * @param patch apply forwarded RESERVE results to the cache; false fetches a full inventory after every
 *     RESERVE instead (for an ALPS whose placement the cache cannot predict; watch
 *     {@code alpsbridge_proxy_policy_patch_mismatches_total}). Default true.
 * @param enabled false passes every call straight through. Default true.
 * @param fullRefreshInterval the oldest a cached inventory that schedulers read may get while, at each refresh
 *     interval, a reservations-only INVENTORY finds ALPS's reservations exactly as the cache shows them (each such
 *     check renews the cache instead of a full fetch). What neither SUMMARY nor the reservations show (node labels,
 *     roles, attributes) reaches the scheduler within it. Default 600 s; at most the refresh interval turns the checks
 *     off for read caches (every refresh is a full fetch).
 */
public record PolicySettings(Duration refreshInterval, Duration summaryInterval, Duration fallbackInterval, boolean patch,
                             boolean enabled, Duration fullRefreshInterval) {

    public static final PolicySettings DEFAULTS = new PolicySettings(Duration.ofSeconds(60), Duration.ZERO,
            Duration.ofSeconds(10), true, true, Duration.ofSeconds(600));

    public PolicySettings {
        if (refreshInterval.isNegative() || refreshInterval.isZero() || summaryInterval.isNegative()
                || fallbackInterval.isNegative() || fullRefreshInterval.isNegative()) {
            throw new IllegalArgumentException("policy: the refresh interval must be positive, the others not negative");
        }
    }

    public PolicySettings withRefreshInterval(Duration d) {
        return new PolicySettings(d, summaryInterval, fallbackInterval, patch, enabled, fullRefreshInterval);
    }

    public PolicySettings withSummaryInterval(Duration d) {
        return new PolicySettings(refreshInterval, d, fallbackInterval, patch, enabled, fullRefreshInterval);
    }

    public PolicySettings withFallbackInterval(Duration d) {
        return new PolicySettings(refreshInterval, summaryInterval, d, patch, enabled, fullRefreshInterval);
    }

    public PolicySettings withPatch(boolean on) {
        return new PolicySettings(refreshInterval, summaryInterval, fallbackInterval, on, enabled, fullRefreshInterval);
    }

    public PolicySettings withEnabled(boolean on) {
        return new PolicySettings(refreshInterval, summaryInterval, fallbackInterval, patch, on, fullRefreshInterval);
    }

    public PolicySettings withFullRefreshInterval(Duration d) {
        return new PolicySettings(refreshInterval, summaryInterval, fallbackInterval, patch, enabled, d);
    }
}
