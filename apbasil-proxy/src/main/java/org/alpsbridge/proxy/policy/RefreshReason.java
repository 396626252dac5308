package org.alpsbridge.proxy.policy;

/**
 * Why the policy fetched a full inventory instead of answering from its cache: the label of
 * {@code alpsbridge_proxy_policy_refreshes_total{reason=...}} and of {@code alpsbridge proxy stats}, which operators
 * and docs/proxy-internals.md know by these texts.
 */
enum RefreshReason {
    /** Nothing cached yet, e.g. after a restart. */
    START("start"),
    /** SUMMARY shows a node changed state or role. */
    SUMMARY_CHANGED("summary-changed"),
    /** SUMMARY failed or answered nothing readable. */
    SUMMARY_FAILED("summary-failed"),
    /** The cache reached the refresh interval (also the idle timer's reason). */
    INTERVAL("interval"),
    /** A backend without SUMMARY (BASIL &lt; 1.3, or one refusing it): the fallback interval passed. */
    FALLBACK_INTERVAL("fallback-interval"),
    /** A reservation change that failed to answer, or answered garbage. */
    UNKNOWN_OUTCOME("unknown-outcome"),
    /** A RELEASE refused for any reason but "No entry for resId N" (which proves the reservation gone). */
    RELEASE_FAILED("release-failed"),
    /** A RELEASE answer without {@code claims} (BASIL 1.0/1.1). */
    RELEASE_UNCLEAR("release-unclear"),
    /** A reservation released with claims outstanding whose end cannot be learnt: the backend refuses QUERY(STATUS). */
    DRAIN_UNKNOWN("drain-unknown"),
    /** {@link InventoryPolicy#refreshNow()}, e.g. {@code proxy orphans --refresh}. */
    OPERATOR("operator"),
    /**
     * A RESERVE whose effect the cache could not work out: e.g. the first reservation of a user whose uid and gid
     * neither an inventory nor the {@link UserIds} lookup has given.
     */
    RESERVE_UNPATCHED("reserve-unpatched"),
    /**
     * A reservation made behind the proxy's back: the reservations check before a cached answer (or the idle timer's)
     * found one ALPS holds and the cache does not, a RESERVE was refused on a node it holds, or a RESERVE answer's id
     * skips ids the cache never saw (the application ids they took, and with them this reservation's
     * pseudo-application id, are unknown). Only a full inventory says which nodes it holds.
     */
    UNSEEN_RESERVATION("unseen-reservation"),
    /**
     * A RESERVE that another RESERVE was at ALPS beside (pbs_mom's job starters reserve at once): which of them took
     * which application id is unknown, so neither pseudo-application id is inferred.
     */
    RESERVE_OVERLAPPED("reserve-overlapped"),
    /** A SWITCH (suspend or resume) was forwarded. */
    SWITCH("switch"),
    /** The previous fetch failed. */
    FETCH_FAILED("fetch-failed"),
    /** One of a pair of proxies took over: what it cached in an earlier active spell predates the other's RESERVEs. */
    TAKEOVER("takeover");

    private final String label;

    RefreshReason(String label) {
        this.label = label;
    }

    /** The metric label text. */
    String label() {
        return label;
    }
}
