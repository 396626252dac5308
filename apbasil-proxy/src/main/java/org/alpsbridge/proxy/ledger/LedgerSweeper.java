package org.alpsbridge.proxy.ledger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.proxy.policy.FullInventoryListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the ledger's orphans (SPEC §3.5) from the full inventories the proxy's policy already fetches,
 * so no extra INVENTORY reaches ALPS: a hold never confirmed for {@code unconfirmedGrace} is voided, and a
 * confirmed one past its time limit plus {@code confirmedGrace} is charged in full and flagged, in both
 * cases only when the inventory no longer lists its reservation. Holds of other clusters (a site-wide
 * ledger) are left to their own proxies. A late RELEASE still corrects the charge.
 */
public final class LedgerSweeper implements FullInventoryListener {

    private static final Logger log = LoggerFactory.getLogger(LedgerSweeper.class);

    private final Ledger ledger;
    private final String cluster;
    private final Duration unconfirmedGrace;
    private final Duration confirmedGrace;
    private final Duration interval;
    private final Clock clock;
    private Instant last = Instant.MIN;

    /**
     * @param interval least time between two sweeps (inventories may come far more often)
     */
    public LedgerSweeper(Ledger ledger, String cluster, Duration unconfirmedGrace, Duration confirmedGrace,
                         Duration interval, Clock clock) {
        this.ledger = ledger;
        this.cluster = cluster == null ? Ledger.DEFAULT_CLUSTER : cluster;
        this.unconfirmedGrace = unconfirmedGrace;
        this.confirmedGrace = confirmedGrace;
        this.interval = interval;
        this.clock = clock;
    }

    @Override
    public void fullInventory(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations,
                              long fetchStartedNanos) {
        Instant now = clock.instant();
        synchronized (this) {
            if (now.isBefore(last.plus(interval))) {
                return;
            }
            last = now;
        }
        Set<Long> present = new HashSet<>();
        reservations.forEach(r -> present.add(r.reservationId()));
        try {
            List<Outcome> resolved = ledger.sweep(now, unconfirmedGrace, confirmedGrace,
                    r -> !cluster.equals(r.cluster()) || present.contains(r.resId()));
            for (Outcome o : resolved) {
                log.warn("ledger sweep: {} {} ({}), charged {} of its hold {}", o.key(), o.state(), o.reason(),
                        o.charge(), o.hold());
            }
        } catch (LedgerException e) {
            log.warn("ledger sweep failed, retried at the next inventory: {}", e.getMessage());
        }
    }
}
