package org.alpsbridge.proxy.policy;

import java.time.Duration;

/**
 * The SUMMARY/INVENTORY policy's knobs; {@link #DEFAULTS} documents each default (also in
 * {@code docs/admin-proxy.md} and {@code docs/proxy-internals.md}).
 *
 * @param refreshInterval the oldest a cached inventory may get, since its fetch or the last reservations-only check that
 *     renewed it, before the backend is asked for a full one; the idle timer checks before that, so this is the orphan
 *     detection latency when no scheduler asks. Default 60 s.
 * @param summaryInterval how long one check stays good (a SUMMARY, then a reservations-only INVENTORY): within it,
 *     INVENTORY is answered from the cache without asking again. Default 0: both before every INVENTORY answered from
 *     the cache, so neither a node state change nor a reservation made behind the proxy's back is missed.
 * @param fallbackInterval for backends without SUMMARY (BASIL below 1.3): the cache answers INVENTORY for at
 *     most this long after a full fetch, like Slurm's {@code inventory_interval}. Default 10 s.
 * @param patch apply forwarded RESERVE results to the cache; false fetches a full inventory after every
 *     RESERVE instead (for an ALPS whose placement the cache cannot predict; watch
 *     {@code alpsbridge_proxy_policy_patch_mismatches_total}). Default true.
 * @param enabled false passes every call straight through. Default true.
 * @param fullRefreshInterval the oldest a cached inventory may get while reservations-only INVENTORYs (before cached
 *     answers and from the idle timer) find no reservation it does not show, each renewing it instead of a full fetch.
 *     What neither SUMMARY nor the reservations show (node labels, roles, attributes) reaches the scheduler within it.
 *     Default 600 s; at most the refresh interval turns renewals off (a full fetch at every refresh interval).
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
