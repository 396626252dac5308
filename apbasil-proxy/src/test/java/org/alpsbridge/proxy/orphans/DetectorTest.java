package org.alpsbridge.proxy.orphans;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.proxy.stats.ProxyMetric;
import org.junit.jupiter.api.Test;

class DetectorTest {

    @Test
    void everyReasonIsDeclaredWithTheFoundMetricInItsOrder() {
        assertEquals(java.util.Arrays.stream(Reason.values()).map(Reason::label).toList(),
                ProxyMetric.ORPHANS_FOUND.metric().values().get("reason"));
    }


    static Seen seen(long id, String batchId) {
        return new Seen(id, "alice", "DEFAULT", batchId, 1000, NidSet.range(12, 13), List.of());
    }

    /** A detector that has adopted an empty machine at time 0. */
    static Detector started() {
        Detector d = new Detector();
        d.judge(List.of(), 1000, 0, null);
        return d;
    }

    static void madeThroughProxy(Detector d, long id, long at) {
        d.reserveEnded(d.reserveStarted(), id, at);
    }

    @Test
    void aReservationMadeThroughTheProxyIsNotAnOrphan() {
        Detector d = started();
        madeThroughProxy(d, 5, 10);
        assertTrue(d.judge(List.of(seen(5, "100")), 1060, 20, Set.of("100")).isEmpty());
    }

    @Test
    void aReservationTheProxyNeverSawIsAnOrphanWithItsAge() {
        Detector d = started();
        Map<Long, Orphan> found = d.judge(List.of(seen(7, "200")), 1060, 20, null);
        assertEquals(List.of(Reason.NOT_CREATED_BY_PROXY), found.get(7L).reasons());
        assertEquals(60, found.get(7L).ageSeconds());
        assertEquals("12-13", found.get(7L).nids().toString());
    }

    @Test
    void anUnknownReservationWaitsForTheReservesInFlightAndIsAnOrphanWhenNoneNamedIt() {
        Detector d = started();
        long first = d.reserveStarted();
        assertTrue(d.judge(List.of(seen(7, "200")), 1060, 20, null).isEmpty());
        long later = d.reserveStarted();
        assertTrue(d.reserveEnded(later, 9L, 25).isEmpty(), "a RESERVE started after the inventory does not decide");
        List<Orphan> late = d.reserveEnded(first, null, 30);
        assertEquals(List.of(7L), late.stream().map(Orphan::reservationId).toList());
        assertEquals(List.of(Reason.NOT_CREATED_BY_PROXY), late.get(0).reasons());
        assertEquals(60, late.get(0).ageSeconds());
        assertEquals(Set.of(7L), d.judge(List.of(seen(7, "200")), 1070, 40, null).keySet());
    }

    @Test
    void anUnknownReservationThatTheReserveInFlightNamesIsNotAnOrphan() {
        Detector d = started();
        long ticket = d.reserveStarted();
        assertTrue(d.judge(List.of(seen(7, "200")), 1060, 20, null).isEmpty());
        assertTrue(d.reserveEnded(ticket, 7L, 30).isEmpty());
        assertTrue(d.judge(List.of(seen(7, "200")), 1070, 40, Set.of("200")).isEmpty());
    }

    @Test
    void reservationsPresentAtStartAreJudgedByTheirJobOnly() {
        Detector d = new Detector();
        assertTrue(d.judge(List.of(seen(1, "100"), seen(2, "101")), 1000, 0, null).isEmpty());
        Map<Long, Orphan> found = d.judge(List.of(seen(1, "100"), seen(2, "101")), 1060, 10, Set.of("100"));
        assertEquals(Set.of(2L), found.keySet());
        assertEquals(List.of(Reason.JOB_GONE), found.get(2L).reasons());
    }

    @Test
    void aPbsSubjobsReservationBelongsToItsListedArrayAndPbsIdsAreComparedWhole() {
        Detector d = new Detector();
        List<Seen> pbs = List.of(seen(1, "12[3].pbshost"), seen(2, "13[1].pbshost"), seen(3, "14.pbshost"),
                seen(4, "15[2].pbshost"));
        d.judge(pbs, 1000, 0, null);
        // plain qselect lists an array as 12[]; qselect -T lists the subjob itself; 14 is gone, 15[] ended
        Map<Long, Orphan> found = d.judge(pbs, 1060, 10, Set.of("12[].pbshost", "13[1].pbshost", "14.pbshost.other",
                "15[].otherhost"));
        assertEquals(Set.of(3L, 4L), found.keySet());
        assertEquals(List.of(Reason.JOB_GONE), found.get(3L).reasons());
        assertTrue(Detector.listed("12[3].pbshost", Set.of("12[].pbshost")));
        assertTrue(!Detector.listed("12[3].pbshost", Set.of("12.pbshost")), "a plain job 12 owns no subjob of 12[]");
    }

    /**
     * A RESERVE answered by a proxy that stopped before its answer reached the scheduler (so the pair recorded it and
     * the survivor adopted it): the scheduler reserves its job again, and the older reservation is an orphan though
     * its job lives, judged at once rather than when the job ends (OpenPBS, seed 37202: it held a node 4 minutes).
     */
    @Test
    void anOlderReservationOfABatchThatReservedAgainIsAnOrphan() {
        Detector d = new Detector();
        d.judge(List.of(seen(2, "5.pbshost"), seen(3, "6.pbshost")), 1000, 0, null); // adopted at the first inventory
        long ticket = d.reserveStarted();
        d.reserveEnded(ticket, 9L, 5);
        Map<Long, Orphan> found = d.judge(List.of(seen(2, "5.pbshost"), seen(9, "5.pbshost"), seen(3, "6.pbshost")),
                1060, 10, Set.of("5.pbshost", "6.pbshost"));
        assertEquals(Set.of(2L), found.keySet());
        assertEquals(List.of(Reason.SUPERSEDED), found.get(2L).reasons());
    }

    /** A requeued job's released reservation drains its claims while the job's next run holds a new one: no orphan. */
    @Test
    void aReleasedReservationDrainingBesideItsJobsNextOneIsNotSuperseded() {
        Detector d = started();
        long first = d.reserveStarted();
        d.reserveEnded(first, 4L, 20);
        d.releaseStarted(4);
        d.releaseEnded(4, true, 1, 30); // claims outstanding: ALPS keeps it for a while
        long second = d.reserveStarted();
        d.reserveEnded(second, 5L, 40);
        assertTrue(d.judge(List.of(seen(4, "300"), seen(5, "300")), 1070, 50, Set.of("300")).isEmpty());
    }

    @Test
    void interactiveReservationsAreNeverOrphans() {
        Detector d = started();
        assertTrue(d.judge(List.of(seen(9, "UNKNOWN")), 1060, 20, Set.of()).isEmpty());
    }

    @Test
    void aFailedReleaseLeavesAnOrphan() {
        Detector d = started();
        madeThroughProxy(d, 5, 10);
        d.releaseStarted(5);
        d.releaseEnded(5, false, 0, 20);
        Map<Long, Orphan> found = d.judge(List.of(seen(5, "100")), 1060, 30, Set.of("100"));
        assertEquals(List.of(Reason.RELEASE_FAILED), found.get(5L).reasons());
    }

    @Test
    void aReleasedReservationStillPresentInALaterInventoryIsAnOrphan() {
        Detector d = started();
        madeThroughProxy(d, 5, 10);
        d.releaseStarted(5);
        d.releaseEnded(5, true, 0, 20);
        assertEquals(List.of(Reason.RELEASED_STILL_PRESENT, Reason.JOB_GONE),
                d.judge(List.of(seen(5, "100")), 1060, 30, Set.of()).get(5L).reasons());
    }

    @Test
    void aReservationReleasedWithClaimsOutstandingDrainsWithoutBeingAnOrphanUntilSlurmsOwnWaitIsOver() {
        Detector d = started();
        madeThroughProxy(d, 5, 10);
        d.releaseStarted(5);
        d.releaseEnded(5, true, 1, 20); // slurmstepd's RELEASE while its session, the claim, lives
        d.releaseStarted(5);
        d.releaseEnded(5, true, 1, 25); // OpenPBS repeats it while claims > 0: the grace does not restart
        assertTrue(d.judge(List.of(seen(5, "100")), 1060, 30, Set.of()).isEmpty(), "draining, its job done");
        long after = 20 + Detector.DRAIN_GRACE_NANOS + 1;
        assertEquals(List.of(Reason.RELEASED_STILL_PRESENT, Reason.JOB_GONE),
                d.judge(List.of(seen(5, "100")), 1560, after, Set.of()).get(5L).reasons(), "stuck past 500 s");
    }

    @Test
    void anInventoryFetchedBeforeAReleaseCompletedDoesNotJudgeThatReservation() {
        Detector d = started();
        madeThroughProxy(d, 5, 10);
        d.releaseStarted(5);
        d.releaseEnded(5, true, 0, 50);
        assertTrue(d.judge(List.of(seen(5, "100")), 1060, 40, Set.of()).isEmpty(), "fetch started at 40, release at 50");
    }

    @Test
    void aReservationWithAReleaseInFlightIsNotJudged() {
        Detector d = started();
        madeThroughProxy(d, 5, 10);
        d.releaseStarted(5);
        assertTrue(d.judge(List.of(seen(5, "100")), 1060, 40, Set.of()).isEmpty());
    }

    @Test
    void whatAnInventoryShowsGoneIsForgotten() {
        Detector d = started();
        madeThroughProxy(d, 5, 10);
        madeThroughProxy(d, 6, 50);
        d.judge(List.of(), 1060, 40, null);
        assertEquals(1, d.knownCount(), "5 is gone; 6 was made after the fetch started and stays known");
    }
}
