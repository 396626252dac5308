package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.junit.jupiter.api.Test;

/**
 * The idle timer of a cache no scheduler read since its fetch (pbs_mom asks INVENTORY only at its start) asks ALPS for
 * the reservations alone; the full-inventory listeners (the orphan watch, the ledger sweep) are given exactly what a
 * full inventory would have given them, and a reservation made behind the proxy's back still reaches them within one
 * interval, with its nodes.
 */
class IdleRefreshTest {

    private static final Duration INTERVAL = PolicySettings.DEFAULTS.refreshInterval();

    /** What one full-inventory listener call was given. */
    private record Given(List<NodeView> nodes, List<ReservationView> reservations) {
    }

    private static Given alps(EmulatedScheduler s) throws Exception {
        List<NodeView> nodes = new ArrayList<>();
        List<ReservationView> reservations = new ArrayList<>();
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(s.alpsInventory()))) {
            for (NodeView n; (n = r.nextNode()) != null; ) {
                nodes.add(n);
            }
            for (ReservationView v; (v = r.nextReservation()) != null; ) {
                reservations.add(v);
            }
        }
        return new Given(nodes, reservations);
    }

    private static long checks(EmulatedScheduler s, String outcome) {
        var c = s.stats.snapshot().counters().get("policy_reservation_checks");
        return c == null ? 0 : c.values().getOrDefault(outcome, 0L);
    }

    @Test
    void anUnreadCacheCostsAReservationsOnlyInventoryAndTheListenersStillSeeWhatAFullOneShows() throws Exception {
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> emulator::userIds)) {
            List<Given> given = new ArrayList<>();
            s.policy.onFullInventory((header, nodes, reservations, started) -> given.add(new Given(nodes, reservations)));
            s.reserve("alice", 0);
            s.inventory(); // pbs_mom's start: the only INVENTORY it asks
            s.reserve("alice", 1);
            long released = s.reserve("alice", 2);
            s.release(released);

            s.advance(INTERVAL);
            s.policy.refreshDue();
            assertEquals(Map.of("start", 1L), s.refreshes(), "no full inventory fetched for nobody");
            assertEquals(1, checks(s, "same"));
            assertEquals(alps(s), given.get(given.size() - 1), "the listeners were given what a full inventory shows");

            s.emulator.control().plantReservation("mallory", "990001", 3); // behind the proxy's back
            s.advance(INTERVAL);
            s.policy.refreshDue();
            assertEquals(1L, s.refreshes().get("interval"), "its reservations differ: a full fetch");
            assertEquals(1, checks(s, "changed"));
            Given last = given.get(given.size() - 1);
            assertEquals(alps(s), last, "the planted reservation reaches the listeners within the interval, with its nodes");
            assertTrue(last.reservations().stream().anyMatch(r -> "mallory".equals(r.userName())));

            s.advance(INTERVAL);
            s.policy.refreshDue();
            assertEquals(1L, s.refreshes().get("interval"), "unread again since that fetch: reservations alone");
            assertEquals(2, checks(s, "same"));
        }
    }

    @Test
    void aCacheASchedulerReadIsFetchedWholeByTheIdleTimer() throws Exception {
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> emulator::userIds)) {
            s.inventory();
            s.inventory(); // answered from the cache
            s.advance(INTERVAL);
            s.policy.refreshDue();
            assertEquals(Map.of("start", 1L, "interval", 1L), s.refreshes());
            assertEquals(0, checks(s, "same") + checks(s, "changed"));
            s.assertServedIsAlps("after the idle refresh");
        }
    }
}
