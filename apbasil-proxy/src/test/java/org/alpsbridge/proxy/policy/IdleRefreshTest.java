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
 * The idle timer asks ALPS for the reservations alone before it fetches a full inventory. For a cache no scheduler read
 * since its fetch (pbs_mom asks INVENTORY only at its start) the full-inventory listeners (the orphan watch, the ledger
 * sweep) are given exactly what a full inventory would have given them, and a reservation made behind the proxy's back
 * still reaches them within one interval, with its nodes. A cache schedulers read is renewed only while ALPS shows
 * every reservation exactly as cached, and fetched whole at least once per full refresh interval.
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
    void aCacheASchedulerReadIsRenewedWhileAlpsShowsItsReservationsExactlyAndFetchedWholeOtherwise() throws Exception {
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> emulator::userIds)) {
            long first = s.reserve("alice", 0);
            s.inventory();
            s.reserve("bob", 1);
            s.inventory(); // answered from the cache: a scheduler reads it

            s.advance(INTERVAL);
            s.policy.refreshDue();
            assertEquals(Map.of("start", 1L), s.refreshes(), "the reservations as cached: renewed, no full fetch");
            assertEquals(1, checks(s, "same"));
            s.assertServedIsAlps("answered from the renewed cache past the refresh interval");
            assertEquals(Map.of("start", 1L), s.refreshes(), "the scheduler's INVENTORY past the interval is no full fetch");

            s.emulator.control().launch(first, "a.out"); // an aprun behind the proxy's back: same ids, one more application
            s.advance(INTERVAL);
            s.policy.refreshDue();
            assertEquals(1L, s.refreshes().get("interval"), "an application the cache does not show: a full fetch");
            assertEquals(1, checks(s, "changed"));
            s.assertServedIsAlps("after the full fetch");

            Duration full = PolicySettings.DEFAULTS.fullRefreshInterval();
            for (Duration waited = Duration.ZERO; waited.compareTo(full) < 0; waited = waited.plus(INTERVAL)) {
                s.advance(INTERVAL);
                s.policy.refreshDue();
                s.inventory();
            }
            assertEquals(2L, s.refreshes().get("interval"),
                    "renewed at each interval, and fetched whole once the full refresh interval had passed: " + s.refreshes());
            s.assertServedIsAlps("at the end");
        }
    }
}
