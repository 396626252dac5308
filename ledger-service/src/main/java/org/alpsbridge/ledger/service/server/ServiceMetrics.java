package org.alpsbridge.ledger.service.server;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.metrics.LedgerMetrics;
import org.alpsbridge.metrics.Metric;

/**
 * The ledger service's {@code /metrics}: the ledger's call latency and refusals ({@link LedgerMetrics}), whether its
 * store answers, and every allocation active now with its figures, for the bookkeepers' "runs dry before its
 * allocation ends" alert (Prometheus derives the burn rate from the available figure's slope). The store is
 * read every {@link #PROBE_SECONDS} s on a thread of its own, so a scrape never waits for PostgreSQL.
 */
final class ServiceMetrics implements AutoCloseable {

    static final String PREFIX = "alpsbridge_ledger_service_";
    /** How often the store is read for the figures (a balances query). */
    static final long PROBE_SECONDS = 15;
    /** A probe older than this (it hangs) counts as the store not answering. */
    private static final long STALE_NANOS = TimeUnit.SECONDS.toNanos(3 * PROBE_SECONDS);

    private static final String[] ALLOCATION = {"project", "resource", "allocation"};
    static final Metric STORE_UP = Metric.gauge(PREFIX + "store_up", "1 while the ledger's store (PostgreSQL or SQLite)"
            + " answered the service's last read of the balances (every " + PROBE_SECONDS + " s), else 0.");
    static final Metric GRANTED = Metric.gauge(PREFIX + "allocation_granted_minutes", "An allocation active now: what it"
            + " grants, in its resource's minutes (core-minutes, GPU-minutes).", ALLOCATION);
    static final Metric HELD = Metric.gauge(PREFIX + "allocation_held_minutes", "An allocation active now: worst-case"
            + " holds of reservations in flight.", ALLOCATION);
    static final Metric USED = Metric.gauge(PREFIX + "allocation_used_minutes", "An allocation active now: settled"
            + " charges.", ALLOCATION);
    static final Metric AVAILABLE = Metric.gauge(PREFIX + "allocation_available_minutes", "An allocation active now:"
            + " granted - held - used; its slope is the burn rate.", ALLOCATION);
    static final Metric ENDS = Metric.gauge(PREFIX + "allocation_end_timestamp_seconds", "An allocation active now: when"
            + " it ends (Unix time).", ALLOCATION);

    private final Ledger store;
    private final LedgerMetrics calls;
    private final ScheduledExecutorService probe = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ledger-metrics-probe");
        t.setDaemon(true);
        return t;
    });
    private volatile List<Balance> active = List.of();
    private volatile boolean answered;
    private volatile long probedAt = System.nanoTime();

    /**
     * @param store the ledger unmeasured (the probe's reads are not the callers')
     * @param calls the measuring in front of the callers' calls
     */
    ServiceMetrics(Ledger store, LedgerMetrics calls) {
        this.store = store;
        this.calls = calls;
        probe.scheduleWithFixedDelay(this::probe, 0, PROBE_SECONDS, TimeUnit.SECONDS);
    }

    /** Everything the service may export. */
    static List<Metric> declared() {
        List<Metric> all = new ArrayList<>(List.of(STORE_UP, GRANTED, HELD, USED, AVAILABLE, ENDS));
        all.addAll(LedgerMetrics.declared(PREFIX + "ledger"));
        return all;
    }

    private void probe() {
        try {
            Instant now = Instant.now();
            active = store.balances(null).stream().filter(b -> b.activeAt(now)).toList();
            answered = true;
        } catch (RuntimeException e) {
            answered = false; // the figures stay as last read: a balance does not vanish with the store
        }
        probedAt = System.nanoTime();
    }

    /** The scrape's text. */
    String prometheus() {
        StringBuilder p = new StringBuilder(calls.prometheus());
        boolean up = answered && System.nanoTime() - probedAt < STALE_NANOS;
        STORE_UP.header(p).append(STORE_UP.name()).append(' ').append(up ? 1 : 0).append('\n');
        List<Balance> figures = active;
        family(p, GRANTED, figures, Balance::granted);
        family(p, HELD, figures, Balance::held);
        family(p, USED, figures, Balance::used);
        family(p, AVAILABLE, figures, Balance::available);
        family(p, ENDS, figures, b -> b.to().getEpochSecond());
        return p.toString();
    }

    private static void family(StringBuilder p, Metric m, List<Balance> figures, ToLongFunction<Balance> value) {
        if (figures.isEmpty()) {
            return;
        }
        m.header(p);
        for (Balance b : figures) {
            p.append(m.name()).append("{project=\"").append(Metric.escapeLabel(b.project())).append("\",resource=\"")
                    .append(b.resource().name().toLowerCase(java.util.Locale.ROOT)).append("\",allocation=\"")
                    .append(b.allocationId()).append("\"} ").append(value.applyAsLong(b)).append('\n');
        }
    }

    @Override
    public void close() {
        probe.shutdownNow();
    }
}
