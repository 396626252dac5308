package org.alpsbridge.proxy.stats;

import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.ledger.metrics.LedgerMetrics;
import org.alpsbridge.metrics.Metric;

/**
 * Every metric family the proxy exports on {@code /metrics}, declared once: the exporter writes its lines from these
 * and the operator's guide's table is generated from {@link #all()}. A counter's short name ({@link #key()}, e.g.
 * {@code policy_refreshes}) is what {@code proxy stats} shows.
 */
public enum ProxyMetric implements Metric.Handle {
    REQUESTS(Metric.counter(Names.P + "requests_total", "BASIL requests received from clients.", "method")),
    BACKEND_CALLS(Metric.counter(Names.P + "backend_calls_total", "BASIL calls sent to the backend, the policy's own included.",
            "method")),
    ERRORS(Metric.counter(Names.P + "errors_total", "Client requests answered with a FAILURE or no document.", "method")),
    BACKEND_ERRORS(Metric.counter(Names.P + "backend_errors_total", "Backend calls that failed.", "method")),
    BACKEND_FAILURES(Metric.counter(Names.P + "backend_failures_total", "Backend calls that failed, by kind: unreachable (no"
            + " answer: ALPS or the way to it is down), transient (ALPS answered TRANSIENT: asked again later),"
            + " permanent (any other FAILURE).", "method", "kind")
            .withValues("kind", "unreachable", "transient", "permanent")),
    CACHE_HITS(Metric.counter(Names.P + "cache_hits_total", "Client requests answered without a backend call.", "method")),
    RESPONSE_BYTES(Metric.counter(Names.P + "response_bytes_total", "Bytes of responses returned to clients.", "method")),
    REQUEST_DURATION(Metric.summary(Names.P + "request_duration_seconds", "Time clients waited for an answer.", "method")),
    BACKEND_DURATION(Metric.summary(Names.P + "backend_duration_seconds", "Time the backend took.", "method")),
    CACHED_DURATION(Metric.summary(Names.P + "cached_duration_seconds", "Time taken by answers served from the cache.",
            "method")),
    BACKEND_UP(Metric.gauge(Names.P + "backend_up", "1 while the backend's last answer came back (SUCCESS or FAILURE), 0 after"
            + " a call got no answer; 1 before the first call.")),
    UPTIME(Metric.gauge(Names.P + "uptime_seconds", "Seconds since the daemon started.")),
    POLICY_REFRESHES(Metric.counter(Names.P + "policy_refreshes_total", "Full inventories fetched from the backend, by reason.",
            "reason").withValues("reason", "start", "summary-changed", "summary-failed", "interval", "fallback-interval",
                    "unknown-outcome", "release-failed", "release-unclear", "drain-unknown", "operator", "reserve-unpatched",
                    "unseen-reservation", "reserve-overlapped", "switch", "fetch-failed", "takeover")),
    POLICY_ENGINE_ANSWERS(Metric.counter(Names.P + "policy_engine_answers_total", "QUERY(ENGINE) answers, by source: backend,"
            + " or memory (ALPS could not answer; the last answer given again).", "source")
            .withValues("source", "backend", "memory")),
    POLICY_PATCHES(Metric.counter(Names.P + "policy_patches_total", "Forwarded reservation changes applied to the cache, by"
            + " outcome: a RESERVE applied, seen (already in the cache), overlapped (beside another: not inferred) or"
            + " unpatched (a full fetch follows); a RELEASE applied, or a reservation dropped as gone (the RELEASE's"
            + " answer, the reservations check, or a drained release).", "outcome")
            .withValues("outcome", "reserve-applied", "reserve-seen", "reserve-overlapped", "reserve-unpatched",
                    "release-applied", "release-gone", "release-unseen", "release-drained")),
    POLICY_PATCH_MISMATCHES(Metric.counter(Names.P + "policy_patch_mismatches_total", "Refreshes that found a cached RESERVE"
            + " patch different from what ALPS shows.")),
    POLICY_UNSEEN_CHANGES(Metric.counter(Names.P + "policy_unseen_changes_total", "Refreshes that found changes the cache had"
            + " not seen (made behind the proxy's back, or mispatched).")),
    POLICY_DRAIN_CHECKS(Metric.counter(Names.P + "policy_drain_checks_total", "QUERY(STATUS) checks of reservations released"
            + " with claims outstanding, by outcome: gone, held, failed.", "outcome")
            .withValues("outcome", "gone", "held", "failed")),
    POLICY_RESERVATION_CHECKS(Metric.counter(Names.P + "policy_reservation_checks_total", "Reservations-only INVENTORYs, before"
            + " cached answers and from the idle timer, by outcome: same (ALPS holds no reservation the cache does not),"
            + " changed (it does: a full fetch for a scheduler), unsure (a RESERVE was at ALPS beside it), failed.",
            "outcome").withValues("outcome", "same", "changed", "unsure", "failed")),
    POLICY_INVENTORY_ANSWERS(Metric.counter(Names.P + "policy_inventory_answers_total", "Scheduler INVENTORY requests, by where"
            + " the answer came from.", "source").withValues("source", "cache", "backend")),
    POLICY_CACHE_AGE_SECONDS(Metric.gauge(Names.P + "policy_cache_age_seconds", "Age of the oldest cached full inventory.")),
    ORPHANS_FOUND(Metric.counter(Names.P + "orphans_found_total", "Orphan reservations found, by reason.", "reason")
            .withValues("reason", "not-created-by-proxy", "release-failed", "released-still-present", "interrupted-reserve",
                    "superseded", "job-gone")),
    ORPHANS_RELEASED(Metric.counter(Names.P + "orphans_released_total", "Orphan reservations released, by outcome:"
            + " released, release-failed (ALPS refused or did not answer), apkill-failed (released, an apkill failed).",
            "outcome").withValues("outcome", "released", "release-failed", "apkill-failed")),
    ORPHANS_DETECTION_SECONDS(Metric.counter(Names.P + "orphans_detection_seconds_total", "Sum of the ages (ALPS clock) at"
            + " which orphans made behind the proxy's back were found.")),
    ORPHANS_INTERRUPTED_RESERVES(Metric.counter(Names.P + "orphans_interrupted_reserves_total", "RESERVEs another proxy of the"
            + " pair forwarded and never answered, as this proxy settled them: released (the reservation they left),"
            + " release-failed (tried again at the next full inventory), not-found (no reservation of theirs in ALPS"
            + " yet).", "outcome").withValues("outcome", "released", "release-failed", "not-found")),
    ORPHANS(Metric.gauge(Names.P + "orphans", "Orphan reservations in the last full inventory.")),
    HA_TAKEOVERS(Metric.counter(Names.P + "ha_takeovers_total", "Leases this proxy took, by what became of the previous"
            + " holder's: expired (a failover: it died or was cut off), released (it stopped cleanly), none.",
            "previous").withValues("previous", "expired", "released", "none")),
    HA_STEPDOWNS(Metric.counter(Names.P + "ha_stepdowns_total", "Times this proxy stopped being active, by reason:"
            + " lost (another proxy holds the lease), unreachable (the pair's database did not answer before the lease ran out).", "reason")
            .withValues("reason", "lost", "unreachable")),
    HA_INTERRUPTED_EXCHANGES(Metric.counter(Names.P + "ha_interrupted_exchanges_total", "Exchanges an earlier active proxy"
            + " began and never finished, found at takeovers.")),
    HA_FENCED_WRITES(Metric.counter(Names.P + "ha_fenced_writes_total", "Exchange memory writes refused because this proxy's"
            + " lease had ended.")),
    HA_ACTIVE(Metric.gauge(Names.P + "ha_active", "1 while this proxy is the active one of its pair, 0 while standby.")),
    HA_EPOCH(Metric.gauge(Names.P + "ha_epoch", "The lease epoch this proxy holds or last held (0: never active)."));

    /** Every family name's prefix. */
    static final String PREFIX = Names.P;
    /** The prefix of the ledger's families in the proxy ({@code --ledger}). */
    public static final String LEDGER_PREFIX = PREFIX + "ledger";

    private final Metric metric;

    /** Holds the prefix for the constants' initialisers (an enum's own static fields come after them). */
    private static final class Names {
        static final String P = "alpsbridge_proxy_";
    }

    ProxyMetric(Metric metric) {
        this.metric = metric;
    }

    @Override
    public Metric metric() {
        return metric;
    }

    /** The name without prefix and {@code _total}: the counter's or gauge's key in {@code proxy stats}. */
    public String key() {
        String n = metric.name().substring(PREFIX.length());
        return n.endsWith("_total") ? n.substring(0, n.length() - "_total".length()) : n;
    }

    /** The one label of a counter's series, or null when it has none (the per-method families are not counters here). */
    String labelName() {
        return metric.labels().isEmpty() ? null : metric.labels().get(0);
    }

    /** Everything the proxy may export: its own families, then its ledger's. */
    public static List<Metric> all() {
        List<Metric> all = new ArrayList<>(Metric.Handle.metrics(values()));
        all.addAll(LedgerMetrics.declared(LEDGER_PREFIX));
        return all;
    }
}
