package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.stats.Stats;
import org.junit.jupiter.api.Test;

class InventoryPolicyTest {

    static final BasilCodec CODEC = BasilCodec.standard();

    /** A clock the test moves by hand. */
    static final class ManualClock extends Clock {
        long millis = 1_700_000_000_000L;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        void advance(Duration d) {
            millis += d.toMillis();
        }
    }

    final ManualClock clock = new ManualClock();
    final FakeAlps alps = new FakeAlps(() -> clock.millis / 1000, 4);
    final Stats stats = new Stats();
    final List<Integer> listened = new ArrayList<>();

    Backend chain(PolicySettings settings) {
        InventoryPolicy policy = new InventoryPolicy(settings, UserIds.NONE, clock, stats, Runnable::run);
        policy.onFullInventory((h, nodes, reservations, started) -> listened.add(reservations.size()));
        return policy.decorate(alps);
    }

    static Call query(String protocol, String type) throws Exception {
        return new Call(CODEC.write(BasilRequest.query(protocol, type)), protocol, "QUERY", type, Caller.UNAUTHENTICATED, null);
    }

    static Call call(BasilRequest r) throws Exception {
        return new Call(CODEC.write(r), r.protocol(), r.methodText(), r.type(), Caller.UNAUTHENTICATED, null);
    }

    static ReservationView reservation(long id) {
        return new ReservationView(id, "alice", "DEFAULT", 1L, "100", "EXCLUSIVE", "NONE", List.of());
    }

    @Test
    void aSecondInventoryWithNoChangeIsAnsweredFromTheCacheAfterASummary() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        byte[] first = b.call(query("1.3", "INVENTORY"));
        byte[] second = b.call(query("1.3", "INVENTORY"));
        assertArrayEquals(alps.inventory("1.3"), second);
        assertArrayEquals(first, second);
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
        assertEquals(1, alps.calls("QUERY/SUMMARY"));
        assertEquals(List.of(0), listened);
        assertEquals(1, stats.snapshot().counters().get("policy_refreshes").counted().get("start"));
    }

    @Test
    void aDistrustedCacheIsNeverAnsweredAndItsRefetchDoesNotHoldUpTheCallerWhileAlpsHangs() throws Exception {
        java.util.concurrent.CountDownLatch answers = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean();
        InventoryPolicy policy = new InventoryPolicy(PolicySettings.DEFAULTS, UserIds.NONE, clock, stats, Runnable::run);
        Backend b = policy.decorate(new Backend() {
            @Override
            public byte[] call(Call call) throws org.alpsbridge.proxy.backend.BackendException {
                if (down.get()) {
                    asked.countDown();
                    try {
                        answers.await(); // an unreachable ALPS: apbasil hangs until its timeout
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new org.alpsbridge.proxy.backend.BackendException("cannot reach ALPS", true);
                }
                return alps.call(call);
            }

            @Override
            public String describe() {
                return "alps";
            }
        });
        b.call(query("1.3", "INVENTORY"));
        down.set(true);
        // a takeover: returns at once although the refetch it starts hangs on ALPS
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> policy.distrustCache());
        assertTrue(asked.await(30, java.util.concurrent.TimeUnit.SECONDS), "the refetch asks ALPS");
        answers.countDown(); // the timeout: the background refetch fails
        down.set(false);
        clock.advance(Duration.ofSeconds(1));
        alps.nodes.set(2, FakeAlps.node(2, "DOWN")); // changed while this proxy was standby
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")), "a full fetch, not the old cache");
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(0, alps.calls("QUERY/SUMMARY"), "no SUMMARY can vouch for a distrusted cache");
        assertTrue(stats.snapshot().counters().get("policy_refreshes").counted().get("takeover") >= 1);
        b.call(query("1.3", "INVENTORY"));
        assertEquals(2, alps.calls("QUERY/INVENTORY"), "the fresh fetch is trusted again");
    }

    @Test
    void theCachedAnswerCarriesTheTimeTheBackendWouldHaveWritten() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        clock.advance(Duration.ofSeconds(7));
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
    }

    @Test
    void aChangedSchedchangecountFetchesAFullInventory() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        alps.nodes.set(2, FakeAlps.node(2, "DOWN"));
        alps.schedchangecount++;
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(1, stats.snapshot().counters().get("policy_refreshes").counted().get("summary-changed"));
    }

    @Test
    void aReservationMadeBehindTheProxysBackIsInTheSchedulersNextInventory() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        b.call(query("1.3", "INVENTORY"));
        alps.reservations.add(reservation(9)); // SUMMARY cannot show it; the reservations check before the answer does
        clock.advance(Duration.ofSeconds(1));
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(2, alps.calls(FakeAlps.RESERVATIONS_ONLY));
        assertEquals(1L, stats.snapshot().counters().get("policy_refreshes").counted().get("unseen-reservation"));
    }

    @Test
    void checksRenewTheCacheUntilTheFullRefreshIntervalAndNoLonger() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS.withRefreshInterval(Duration.ofSeconds(30))
                .withFullRefreshInterval(Duration.ofSeconds(120)));
        b.call(query("1.3", "INVENTORY"));
        for (int t = 20; t < 120; t += 20) {
            clock.advance(Duration.ofSeconds(20));
            b.call(query("1.3", "INVENTORY"));
            assertEquals(1, alps.calls("QUERY/INVENTORY"), "renewed by its check at " + t + " s");
        }
        clock.advance(Duration.ofSeconds(20));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(2, alps.calls("QUERY/INVENTORY"), "fetched whole at the full refresh interval");
    }

    @Test
    void theRefreshIntervalBoundsTheCachesAgeWhenNoCheckRenewsIt() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS.withRefreshInterval(Duration.ofSeconds(30)).withFullRefreshInterval(Duration.ZERO));
        b.call(query("1.3", "INVENTORY"));
        alps.reservationsOnlyAnswer = org.alpsbridge.basil.codec.Failures.failure("1.3", Method.QUERY,
                org.alpsbridge.basil.model.ErrorClass.TRANSIENT, "BACKEND", "ALPS error: apsched: busy");
        alps.reservations.add(reservation(9)); // made behind the proxy's back, and the check cannot see it
        clock.advance(Duration.ofSeconds(29));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
        clock.advance(Duration.ofSeconds(1));
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(1L, stats.snapshot().counters().get("policy_unseen_changes").counted().get(""));
    }

    @Test
    void aSummaryIntervalSparesSummariesWithinIt() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS.withSummaryInterval(Duration.ofSeconds(5)));
        b.call(query("1.3", "INVENTORY"));
        b.call(query("1.3", "INVENTORY"));
        clock.advance(Duration.ofSeconds(5));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(1, alps.calls("QUERY/SUMMARY"));
    }

    @Test
    void aReserveWithoutAnAnswerMakesTheNextInventoryAFullOne() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        alps.reserveThrows = new BackendException("apbasil timed out", true);
        assertThrows(BackendException.class, () -> b.call(call(reserve())));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(1, stats.snapshot().counters().get("policy_refreshes").counted().get("unknown-outcome"));
    }

    @Test
    void aRefusedReserveChangesNothingAndCostsNoRefresh() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        alps.reserveAnswer = org.alpsbridge.basil.codec.Failures.failure("1.3", Method.RESERVE,
                org.alpsbridge.basil.model.ErrorClass.TRANSIENT, "BACKEND", "ALPS error: apsched: resources not available");
        b.call(call(reserve()));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
    }

    /**
     * A reservation made behind the proxy's back on the node the scheduler asks for next: ALPS refuses that RESERVE
     * (and would refuse every retry until the refresh interval); the next INVENTORY is a full one and shows it.
     */
    @Test
    void aReserveRefusedOnANodeHeldByAReservationTheCacheDoesNotShowFetchesAFreshInventory() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        alps.reservations.add(reservation(9));
        alps.reserveAnswer = org.alpsbridge.basil.codec.Failures.failure("1.3", Method.RESERVE,
                org.alpsbridge.basil.model.ErrorClass.TRANSIENT, "BACKEND", "ALPS error: apsched: node 0 is already reserved (resId 9)");
        b.call(call(reserve()));
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(1, stats.snapshot().counters().get("policy_refreshes").counted().get("unseen-reservation"));
        // refused again on a node of a reservation the cache now shows: nothing new
        b.call(call(reserve()));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
    }

    @Test
    void aReserveTheCacheCannotWorkOutFetchesAFreshInventory() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        // nobody's uid is known yet: the BASIL pseudo-application cannot be written exactly
        alps.reserveAnswer = CODEC.write(BasilResponse.success("1.3", Method.RESERVE, Reserved.of("1.3", 1, List.of(0L))));
        b.call(call(reserve()));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(1, stats.snapshot().counters().get("policy_refreshes").counted().get("reserve-unpatched"));
    }

    @Test
    void aForwardedReleaseIsAppliedWithoutARefresh() throws Exception {
        alps.reservations.add(reservation(5));
        alps.reservations.add(reservation(6));
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        b.call(call(BasilRequest.release("1.3", 5)));
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
    }

    /**
     * slurmstepd's CONFIRM and RELEASE come beside slurmctld's calls: neither waits behind an INVENTORY the policy is
     * fetching (off-system, each waited for slurmctld's whole SUMMARY-STATUS-answer sequence, tripling its latency;
     * at knl:4392 a fetch takes seconds), and the RELEASE is still applied to the cache the fetch leaves.
     */
    @Test
    void aReleaseOrConfirmDoesNotWaitBehindAnInventoryBeingFetched() throws Exception {
        alps.reservations.add(reservation(5));
        java.util.concurrent.CountDownLatch fetching = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch releasedByAlps = new java.util.concurrent.CountDownLatch(1);
        Backend slowInventory = new Backend() {
            @Override
            public byte[] call(Call c) throws BackendException {
                if ("QUERY/INVENTORY".equals(c.methodKey())) {
                    fetching.countDown();
                    try {
                        finish.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                byte[] answer = alps.call(c);
                if ("RELEASE".equals(c.methodKey())) {
                    releasedByAlps.countDown();
                }
                return answer;
            }

            @Override
            public String describe() {
                return "ALPS whose INVENTORY waits for the test";
            }
        };
        InventoryPolicy policy = new InventoryPolicy(PolicySettings.DEFAULTS, UserIds.NONE, clock, stats, Runnable::run);
        Backend b = policy.decorate(slowInventory);
        java.util.concurrent.CompletableFuture<byte[]> inventory = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return b.call(query("1.3", "INVENTORY"));
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        assertTrue(fetching.await(10, java.util.concurrent.TimeUnit.SECONDS));
        // The CONFIRM is answered while the fetch holds the policy (before, it waited for the fetch: a timeout here).
        java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return b.call(call(BasilRequest.confirm("1.0", 5, 1234L)));
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }).get(10, java.util.concurrent.TimeUnit.SECONDS);
        java.util.concurrent.CompletableFuture<byte[]> release = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return b.call(call(BasilRequest.release("1.3", 5)));
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        // The RELEASE reached ALPS during the fetch and is answered during it; its patch waits for the lock's holder.
        assertTrue(releasedByAlps.await(10, java.util.concurrent.TimeUnit.SECONDS),
                "the RELEASE reached ALPS while the INVENTORY was being fetched");
        release.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertFalse(inventory.isDone(), "(the fetch was still held)");
        finish.countDown();
        inventory.get(10, java.util.concurrent.TimeUnit.SECONDS);
        // The cache answers without reservation 5, as ALPS now does, without another fetch.
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
    }

    @Test
    void aFailedReleaseMakesTheNextInventoryAFullOne() throws Exception {
        alps.reservations.add(reservation(77));
        assertAFullInventoryAfterARefusedRelease(77, "ALPS error: apsched: connection lost");
    }

    @Test
    void aReleaseAnsweredNoEntryForAReservationTheCacheShowsDropsItWithoutARefresh() throws Exception {
        alps.reservations.add(reservation(77));
        alps.reservations.add(reservation(78));
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        // ALPS removed 77 on its own (its job container ended): the RELEASE that follows finds no entry
        alps.reservations.removeIf(r -> r.reservationId() == 77);
        b.call(call(BasilRequest.release("1.3", 77)));
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")), "served without 77, as ALPS shows");
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
        assertEquals(null, stats.snapshot().counters().get("policy_refreshes").counted().get("release-failed"));
        assertEquals(1, stats.snapshot().counters().get("policy_patches").counted().get("release-gone"));
    }

    /** slurmstepd's RELEASE while its own session, the job's container, still lives: ALPS keeps 77 (claims 1). */
    private Backend releasedWithAClaimOutstanding(long id) throws Exception {
        return releasedWithAClaimOutstanding(id, PolicySettings.DEFAULTS);
    }

    private Backend releasedWithAClaimOutstanding(long id, PolicySettings settings) throws Exception {
        Backend b = chain(settings);
        b.call(query("1.3", "INVENTORY"));
        alps.releaseAnswer = CODEC.write(BasilResponse.success("1.3", Method.RELEASE,
                org.alpsbridge.basil.model.Released.of("1.3", id, 1)));
        b.call(call(BasilRequest.release("1.3", id)));
        alps.releaseAnswer = null;
        return b;
    }

    @Test
    void aReservationReleasedWithClaimsOutstandingIsShownFromTheCacheUntilTheReservationsCheckFindsItGone() throws Exception {
        alps.reservations.add(reservation(77));
        alps.reservations.add(reservation(78));
        Backend b = releasedWithAClaimOutstanding(77);
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")), "still held, as ALPS shows it");
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(2, alps.calls(FakeAlps.RESERVATIONS_ONLY), "one reservations check before each answer");
        alps.reservations.removeIf(r -> r.reservationId() == 77); // the stepd exited: ALPS removed 77 on its own
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")), "gone, as ALPS shows it");
        assertEquals(0, alps.calls("QUERY/STATUS"), "the check answers what STATUS would");
        assertEquals(1, alps.calls("QUERY/INVENTORY"), "never a full inventory");
        assertEquals(1, stats.snapshot().counters().get("policy_patches").counted().get("release-drained"));
        assertEquals(java.util.Map.of("start", 1L), stats.snapshot().counters().get("policy_refreshes").counted());
    }

    @Test
    void withinTheSummaryIntervalADrainingReservationIsShownUntilAStatusFindsItGone() throws Exception {
        alps.reservations.add(reservation(77));
        alps.reservations.add(reservation(78));
        Backend b = releasedWithAClaimOutstanding(77, PolicySettings.DEFAULTS.withSummaryInterval(Duration.ofMinutes(5)));
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")), "still held, as ALPS shows it");
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(2, alps.calls("QUERY/STATUS"), "one STATUS before each answer while 77 drains");
        alps.reservations.removeIf(r -> r.reservationId() == 77); // the stepd exited: ALPS removed 77 on its own
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")), "gone, as ALPS shows it");
        b.call(query("1.3", "INVENTORY"));
        assertEquals(3, alps.calls("QUERY/STATUS"), "nothing drains any more: no STATUS");
        assertEquals(1, alps.calls("QUERY/INVENTORY"), "never a full inventory");
        assertEquals(1, stats.snapshot().counters().get("policy_patches").counted().get("release-drained"));
        assertEquals(java.util.Map.of("held", 2L, "gone", 1L), stats.snapshot().counters().get("policy_drain_checks").counted());
        assertEquals(java.util.Map.of("start", 1L), stats.snapshot().counters().get("policy_refreshes").counted());
    }

    @Test
    void aStatusThatFailsLeavesTheDrainingReservationShownAndOneRefusedForGoodCostsAFullInventory() throws Exception {
        alps.reservations.add(reservation(77));
        Backend b = releasedWithAClaimOutstanding(77);
        alps.reservations.clear();
        alps.reservationsOnlyAnswer = org.alpsbridge.basil.codec.Failures.failure("1.3", Method.QUERY,
                org.alpsbridge.basil.model.ErrorClass.TRANSIENT, "BACKEND", "ALPS error: apsched: busy");
        alps.statusAnswer = org.alpsbridge.basil.codec.Failures.failure("1.3", Method.QUERY,
                org.alpsbridge.basil.model.ErrorClass.TRANSIENT, "BACKEND", "ALPS error: apsched: busy");
        byte[] served = b.call(query("1.3", "INVENTORY"));
        assertEquals(1, policyCachedReservations(served), "the safe side: 77 still holds its nodes");
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
        alps.statusAnswer = org.alpsbridge.basil.codec.Failures.failure("1.3", Method.QUERY,
                org.alpsbridge.basil.model.ErrorClass.PERMANENT, "SYNTAX", "ALPS error: QUERY type 'STATUS' is not supported");
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(1, stats.snapshot().counters().get("policy_refreshes").counted().get("drain-unknown"));
    }

    private static int policyCachedReservations(byte[] inventory) throws Exception {
        int n = 0;
        try (var r = org.alpsbridge.basil.inventory.InventoryReader.open(new java.io.ByteArrayInputStream(inventory))) {
            while (r.nextNode() != null) {
                // nodes first
            }
            while (r.nextReservation() != null) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aRepeatedReleaseAnsweredNoEntryEndsTheDrainWithoutAStatus() throws Exception {
        alps.reservations.add(reservation(77));
        Backend b = releasedWithAClaimOutstanding(77);
        alps.reservations.clear();
        b.call(call(BasilRequest.release("1.3", 77))); // OpenPBS repeats its RELEASE while claims > 0
        assertArrayEquals(alps.inventory("1.3"), b.call(query("1.3", "INVENTORY")));
        assertEquals(0, alps.calls("QUERY/STATUS"));
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
    }

    @Test
    void aReserveAlpsPlacedOnADrainingReservationsNodeProvesItGone() throws Exception {
        NodeView held = FakeAlps.node(0, "UP");
        NodeView.Segment seg = held.sockets().get(0).segments().get(0);
        NodeView.Segment heldSeg = new NodeView.Segment(0, List.of(new NodeView.Core(0, List.of(new NodeView.Thread(0, List.of(77L)),
                new NodeView.Thread(1, List.of(77L))))), List.of(new NodeView.Memory("OS", 4, 1024,
                List.of(new NodeView.MemoryAllocation(77, 1024)))), seg.labels());
        alps.nodes.set(0, new NodeView(0, held.name(), held.architecture(), held.role(), held.state(), held.routerId(),
                List.of(new NodeView.Socket(0, "x86_64", 2600, List.of(heldSeg))), List.of(), List.of(), List.of()));
        alps.reservations.add(reservation(77));
        Backend b = releasedWithAClaimOutstanding(77);
        alps.reservations.clear();
        alps.nodes.set(0, FakeAlps.node(0, "UP"));
        alps.reserveAnswer = CODEC.write(BasilResponse.success("1.3", Method.RESERVE, Reserved.of("1.3", 78, List.of(0L))));
        b.call(call(reserve()));
        assertEquals(1, stats.snapshot().counters().get("policy_patches").counted().get("release-drained"));
        assertEquals(0, alps.calls("QUERY/STATUS"), "learnt from the RESERVE's answer");
    }

    @Test
    void aReleaseAnsweredNoEntryForAnotherReservationIsNotTakenForThisOne() throws Exception {
        alps.reservations.add(reservation(77));
        // an answer about another id proves nothing about 77
        assertAFullInventoryAfterARefusedRelease(77, "ALPS error: apsched: No entry for resId 777");
    }

    private void assertAFullInventoryAfterARefusedRelease(long id, String message) throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        alps.releaseAnswer = org.alpsbridge.basil.codec.Failures.failure("1.3", Method.RELEASE,
                org.alpsbridge.basil.model.ErrorClass.PERMANENT, "BACKEND", message);
        b.call(call(BasilRequest.release("1.3", id)));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(1, stats.snapshot().counters().get("policy_refreshes").counted().get("release-failed"));
    }

    @Test
    void aReleaseAnsweredNoEntryForAReservationTheCacheDoesNotShowChangesNothing() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        for (int i = 0; i < 6; i++) { // Slurm 18.08's stepd retrying after slurmctld released the job
            b.call(call(BasilRequest.release("1.3", 77)));
            b.call(query("1.3", "INVENTORY"));
        }
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
        assertEquals(null, stats.snapshot().counters().get("policy_refreshes").counted().get("release-failed"));
    }

    @Test
    void belowBasil13TheInventoryIsRateLimitedLikeSlurmsInventoryInterval() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS.withFallbackInterval(Duration.ofSeconds(10)));
        b.call(query("1.2", "INVENTORY"));
        clock.advance(Duration.ofSeconds(9));
        b.call(query("1.2", "INVENTORY"));
        clock.advance(Duration.ofSeconds(1));
        b.call(query("1.2", "INVENTORY"));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
        assertEquals(0, alps.calls("QUERY/SUMMARY"));
        assertEquals(1, stats.snapshot().counters().get("policy_refreshes").counted().get("fallback-interval"));
    }

    @Test
    void aBackendThatRefusesSummaryFallsBackToTheInterval() throws Exception {
        alps.summaryRefused = true;
        Backend b = chain(PolicySettings.DEFAULTS.withFallbackInterval(Duration.ofSeconds(10)));
        b.call(query("1.3", "INVENTORY"));
        b.call(query("1.3", "INVENTORY"));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(1, alps.calls("QUERY/INVENTORY"));
        assertEquals(1, alps.calls("QUERY/SUMMARY"), "asked once, then not again");
    }

    @Test
    void whileAlpsCannotAnswerTheLastEngineAnswerIsGivenAgain() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        alps.engineAnswer = CODEC.write(BasilResponse.success("1.0", Method.QUERY,
                org.alpsbridge.basil.model.Engine.of("1.0", "5.2.44", List.of("1.0", "1.1", "1.2", "1.3"))));
        byte[] known = b.call(query("1.0", "ENGINE"));
        // ALPS down: slurmstepd starting now asks ENGINE first and fatal()s without an answer
        alps.engineAnswer = org.alpsbridge.basil.codec.Failures.failure("1.0", Method.QUERY,
                org.alpsbridge.basil.model.ErrorClass.TRANSIENT, "BACKEND", "apbasil exited with status 1");
        assertArrayEquals(known, b.call(query("1.0", "ENGINE")));
        alps.engineThrows = new BackendException("apbasil timed out", true);
        assertArrayEquals(known, b.call(query("1.0", "ENGINE")));
        alps.engineThrows = new BackendException("not BASIL", false);
        assertThrows(BackendException.class, () -> b.call(query("1.0", "ENGINE")), "only a transient failure");
        alps.engineThrows = null;
        alps.engineAnswer = org.alpsbridge.basil.codec.Failures.failure("1.0", Method.QUERY,
                org.alpsbridge.basil.model.ErrorClass.PERMANENT, "SYNTAX", "ALPS error: no");
        assertArrayEquals(alps.engineAnswer, b.call(query("1.0", "ENGINE")), "a permanent refusal is ALPS's answer");
        assertEquals(2, stats.snapshot().counters().get("policy_engine_answers").counted().get("memory"));
    }

    @Test
    void anEngineQueryNobodyAnsweredBeforeFailsAsTheBackendDid() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        alps.engineThrows = new BackendException("apbasil timed out", true);
        assertThrows(BackendException.class, () -> b.call(query("1.0", "ENGINE")));
    }

    @Test
    void selectiveInventoriesAndOtherQueriesPassThrough() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        b.call(call(BasilRequest.inventorySince("1.3", 3L, true)));
        b.call(query("1.3", "SUMMARY"));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
    }

    @Test
    void disabledPassesEverythingThrough() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS.withEnabled(false));
        b.call(query("1.3", "INVENTORY"));
        b.call(query("1.3", "INVENTORY"));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
    }

    @Test
    void eachProtocolVersionHasItsOwnCache() throws Exception {
        Backend b = chain(PolicySettings.DEFAULTS);
        b.call(query("1.3", "INVENTORY"));
        assertArrayEquals(alps.inventory("1.2"), b.call(query("1.2", "INVENTORY")));
        assertEquals(2, alps.calls("QUERY/INVENTORY"));
    }

    @Test
    void theTimerChecksAnIdleCacheEarlyEnoughThatOrphansAreSeenWithinTheIntervalAndFetchesWholeOnlyWhenTheCheckFails()
            throws Exception {
        InventoryPolicy policy = new InventoryPolicy(PolicySettings.DEFAULTS.withFullRefreshInterval(Duration.ZERO), UserIds.NONE,
                clock, stats, Runnable::run);
        List<Integer> seenByListeners = new ArrayList<>();
        policy.onFullInventory((header, nodes, reservations, started) -> seenByListeners.add(reservations.size()));
        Backend slowInventory = new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                if ("INVENTORY".equals(call.queryType())) {
                    clock.advance(Duration.ofSeconds(2)); // a 12 MB inventory takes its time; the reservations alone do not
                }
                return alps.call(call);
            }

            @Override
            public String describe() {
                return "slow";
            }
        };
        Backend b = policy.decorate(slowInventory);
        b.call(query("1.3", "INVENTORY"));
        policy.refreshDue();
        assertEquals(0, alps.calls(FakeAlps.RESERVATIONS_ONLY));
        clock.advance(Duration.ofMillis(55_749)); // 57.749 s since that fetch started
        policy.refreshDue();
        assertEquals(0, alps.calls(FakeAlps.RESERVATIONS_ONLY));
        alps.reservations.add(reservation(9)); // made behind the proxy's back
        clock.advance(Duration.ofMillis(1)); // + 2 s fetch + 0.25 s timer period = 60 s
        policy.refreshDue();
        assertEquals(1, alps.calls(FakeAlps.RESERVATIONS_ONLY));
        assertEquals(1, alps.calls("QUERY/INVENTORY"), "no full inventory for nobody");
        assertEquals(1, seenByListeners.get(seenByListeners.size() - 1), "the orphan watch sees the reservation");
        assertEquals(1, policyCachedReservations(b.call(query("1.3", "INVENTORY"))), "the scheduler's next INVENTORY shows it");
        assertEquals(2, alps.calls("QUERY/INVENTORY"), "fetched for that INVENTORY");
        assertEquals(1L, stats.snapshot().counters().get("policy_refreshes").counted().get("unseen-reservation"));

        alps.reservationsOnlyAnswer = org.alpsbridge.basil.codec.Failures.failure("1.3", Method.QUERY,
                org.alpsbridge.basil.model.ErrorClass.TRANSIENT, "BACKEND", "ALPS error: apsched: busy");
        clock.advance(Duration.ofSeconds(60));
        policy.refreshDue();
        assertEquals(3, alps.calls("QUERY/INVENTORY"), "a check that fails: the orphan watch needs the full one");
    }

    @Test
    void refreshNowFetchesEveryAskedForVersionAndReturnsAfterTheListenersSawIt() throws Exception {
        InventoryPolicy policy = new InventoryPolicy(PolicySettings.DEFAULTS, UserIds.NONE, stats);
        try {
            List<Integer> seen = java.util.Collections.synchronizedList(new ArrayList<>());
            policy.onFullInventory((h, nodes, reservations, started) -> {
                try {
                    Thread.sleep(50); // the listeners run on the policy's own thread: refreshNow must wait for them
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                seen.add(reservations.size());
            });
            Backend b = policy.decorate(alps);
            assertEquals(0, policy.refreshNow(), "nothing asked for yet");
            b.call(query("1.3", "INVENTORY"));
            b.call(query("1.2", "INVENTORY"));
            alps.reservations.add(reservation(44));
            assertEquals(2, policy.refreshNow());
            assertEquals(List.of(0, 0, 1, 1), seen);
            assertEquals(4, alps.calls("QUERY/INVENTORY"));
            assertEquals(2, stats.snapshot().counters().get("policy_refreshes").counted().get("operator"));
        } finally {
            policy.close();
        }
    }

    static BasilRequest reserve() {
        return BasilRequest.reserve("1.3", "alice", "100", null,
                List.of(ReserveParam.builder().architecture("XT").width(2).nppn(2).build()));
    }
}
