package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.junit.jupiter.api.Test;

/**
 * Between full inventories the policy asks ALPS for its reservations alone: before each INVENTORY it answers from the
 * cache (after SUMMARY), and from the idle timer. What that check finds it follows without a full fetch where it can
 * (a reservation ALPS no longer has is dropped, applications aprun launched are taken as ALPS shows them) and with one
 * where it cannot (a reservation made behind the proxy's back: only a full inventory says which nodes it holds), so a
 * scheduler never places a job on its nodes. For a cache no scheduler read since its fetch (pbs_mom asks INVENTORY only
 * at its start) the idle check gives the full-inventory listeners (the orphan watch, the ledger sweep) what a full
 * inventory would have given them, and no full inventory is fetched for nobody. A cache schedulers read is renewed by
 * the checks only until the full refresh interval.
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

    private static long patches(EmulatedScheduler s, String outcome) {
        var c = s.stats.snapshot().counters().get("policy_patches");
        return c == null ? 0 : c.values().getOrDefault(outcome, 0L);
    }

    @Test
    void aReservationMadeBehindTheProxysBackIsInTheSchedulersNextInventoryAndCostsOneFullFetch() throws Exception {
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> emulator::userIds)) {
            s.reserve("alice", 0);
            s.inventory();
            s.inventory(); // from the cache
            long planted = s.emulator.control().plantReservation("mallory", "990001", 3); // an orphan, an interactive aprun
            s.advance(Duration.ofSeconds(1));
            s.assertServedIsAlps("the next INVENTORY shows it, as ALPS does");
            assertEquals(Map.of("start", 1L, "unseen-reservation", 1L), s.refreshes());
            assertEquals(1, checks(s, "changed"));
            s.advance(Duration.ofSeconds(1));
            s.assertServedIsAlps("from the cache again");
            assertEquals(Map.of("start", 1L, "unseen-reservation", 1L), s.refreshes(), "one full fetch per reservation made");
            assertTrue(s.reserveRefused("bob", 3).contains("resId " + planted), "its node is ALPS's to refuse, as the cache shows");
        }
    }

    @Test
    void whatAlpsReleasedAndWhatAprunLaunchedBehindTheProxysBackIsFollowedWithoutAFullFetch() throws Exception {
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> emulator::userIds)) {
            long first = s.reserve("alice", 0);
            long second = s.reserve("bob", 1);
            s.inventory();
            s.emulator.control().launch(first, "a.out"); // same ids, one more application
            s.advance(Duration.ofSeconds(1));
            s.assertServedIsAlps("the application as ALPS shows it");
            s.emulator.handle(BasilCodec.standard().write(BasilRequest.release("1.3", second))); // straight at ALPS
            s.advance(Duration.ofSeconds(1));
            s.assertServedIsAlps("the reservation ALPS released is gone, its node free");
            assertEquals(Map.of("start", 1L), s.refreshes(), "never a full fetch");
            assertEquals(1, patches(s, "release-unseen"));
        }
    }

    @Test
    void alpsClockIsJudgedFromTheSmallReservationsAnswerNotFromASlowFullOne() throws Exception {
        AtomicReference<EmulatedScheduler> ref = new AtomicReference<>();
        // a full inventory arrives 1.6 s after ALPS stamped it (82 MB at knl:4392); the reservations alone at once
        UnaryOperator<Backend> slowFull = below -> new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                byte[] answer = below.call(call);
                if ("INVENTORY".equals(call.queryType())) {
                    ref.get().advance(Duration.ofMillis(1600));
                }
                return answer;
            }

            @Override
            public String describe() {
                return "slow full inventories";
            }
        };
        try (EmulatedScheduler s = new EmulatedScheduler("xc30:16", emulator -> emulator::userIds, Duration.ZERO, slowFull)) {
            ref.set(s);
            s.advance(Duration.ofMillis(300));
            s.reserve("alice", 0);
            s.inventory(); // the full fetch: ALPS's clock judged a second or two behind
            s.inventory(); // its check: judged again from the small answer
            for (int nid = 1; nid < 6; nid++) {
                s.advance(Duration.ofMillis(450));
                s.reserve("alice", nid); // patched with ALPS's time_stamp
            }
            s.assertServedIsAlps("every patched time_stamp ALPS's");
            assertEquals(0, s.patchMismatches(), "the reservations check found no patch other than ALPS's");
        }
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

            long planted = s.emulator.control().plantReservation("mallory", "990001", 3); // behind the proxy's back
            s.advance(INTERVAL);
            s.policy.refreshDue();
            assertEquals(Map.of("start", 1L), s.refreshes(), "still nobody reads: no full fetch");
            assertEquals(1, checks(s, "changed"));
            Given last = given.get(given.size() - 1);
            assertEquals(alps(s).reservations(), last.reservations(), "the planted reservation reaches the listeners within the interval");
            assertTrue(last.reservations().stream().anyMatch(r -> r.reservationId() == planted));

            s.assertServedIsAlps("the mom's next INVENTORY (after a TRANSIENT RESERVE) is fetched whole");
            assertEquals(1L, s.refreshes().get("unseen-reservation"));
        }
    }

    @Test
    void aCacheASchedulerReadIsRenewedByItsChecksAndFetchedWholeAtTheFullRefreshInterval() throws Exception {
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> emulator::userIds)) {
            long first = s.reserve("alice", 0);
            s.inventory();
            s.reserve("bob", 1);
            s.inventory(); // answered from the cache: a scheduler reads it

            s.advance(INTERVAL);
            s.policy.refreshDue();
            assertEquals(Map.of("start", 1L), s.refreshes(), "the reservations as cached: renewed, no full fetch");
            assertEquals(2, checks(s, "same"), "one before the answer, one from the timer");
            s.assertServedIsAlps("answered from the renewed cache past the refresh interval");

            s.emulator.control().launch(first, "a.out"); // an aprun behind the proxy's back: same ids, one more application
            s.advance(INTERVAL);
            s.policy.refreshDue();
            assertEquals(Map.of("start", 1L), s.refreshes(), "its application taken from the check");
            s.assertServedIsAlps("with the application");

            Duration full = PolicySettings.DEFAULTS.fullRefreshInterval();
            for (Duration waited = INTERVAL.multipliedBy(2); waited.compareTo(full) < 0; waited = waited.plus(INTERVAL)) {
                s.advance(INTERVAL);
                s.policy.refreshDue();
                s.inventory();
            }
            assertEquals(1L, s.refreshes().get("interval"),
                    "renewed at each interval, and fetched whole once the full refresh interval had passed: " + s.refreshes());
            s.assertServedIsAlps("at the end");
        }
    }
}
