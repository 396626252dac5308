package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Outcome.Decision;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.Weights;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ledger's rules, run against every store (SQLite always, PostgreSQL when one can be started).
 * Each test opens a fresh, empty ledger; after each, the journal must agree with the balances.
 */
abstract class LedgerContractTest {

    static final Instant JAN = Instant.parse("2026-01-01T00:00:00Z");
    static final Instant JUL = Instant.parse("2026-07-01T00:00:00Z");
    static final Instant JAN27 = Instant.parse("2027-01-01T00:00:00Z");
    static final Instant T = Instant.parse("2026-03-01T12:00:00Z");

    Ledger ledger;

    /** A URL of a new, empty store. */
    abstract String newStoreUrl();

    @BeforeEach
    void open() {
        ledger = Ledger.open(newStoreUrl());
        ledger.addProject("chem", 5001, "chem_acct");
        ledger.grant("chem", Resource.CPU, 10_000, JAN, JUL, "research", null);
    }

    /** A URL of a new, empty store to replay into: by default one of the same kind. */
    String replayTargetUrl() {
        return newStoreUrl();
    }

    /** After every test: the balances agree with the journal, and the journal alone rebuilds them elsewhere. */
    @AfterEach
    void consistent() {
        if (ledger != null) {
            assertEquals(List.of(), ledger.check());
            try (Ledger copy = Ledger.open(replayTargetUrl())) {
                assertEquals(List.of(), ledger.replayInto(copy).problems(), "replay into an empty store");
                assertEquals(picture(ledger), picture(copy), "the replayed ledger");
            }
            ledger.close();
        }
    }

    /** What a user can see of a ledger, without the store's row ids. */
    static List<String> picture(Ledger l) {
        List<String> out = new java.util.ArrayList<>();
        l.balances(null).forEach(b -> out.add(b.project() + " " + b.resource() + " " + b.category() + " [" + b.from()
                + ", " + b.to() + ") granted " + b.granted() + " held " + b.held() + " used " + b.used()
                + " available " + b.available()));
        l.holds(null).forEach(r -> out.add("hold " + r.key() + " " + r.state() + " " + r.hold()));
        l.failures(null, 10_000).forEach(r -> out.add("failure " + r.key() + " " + r.reason() + " " + r.message()));
        l.usage(null).forEach(u -> out.add("usage " + u));
        l.alerts(10_000).forEach(a -> out.add("alert " + a.at() + " " + a.kind() + " " + a.key() + " " + a.message()));
        return out;
    }

    Balance chem() {
        return ledger.balances("chem").stream().filter(b -> b.activeAt(T)).findFirst().orElseThrow();
    }

    static ReserveRequest reserve(long resId, String job, int nodes, int cores, long minutes) {
        return ReserveRequest.of(resId, job, "chem", "alice", nodes, cores, minutes, T);
    }

    static ReserveRequest reserveFor(String project, long resId, String job, int nodes, int cores, long minutes) {
        return ReserveRequest.of(resId, job, project, "alice", nodes, cores, minutes, T);
    }

    @Test
    void startHoldsAndConfirmsInOneEventAndARetryIsAReplayThatConfirms() {
        Outcome started = ledger.start(reserve(12, "j12", 2, 32, 120));
        assertEquals(Decision.OK, started.decision());
        assertEquals(7_680, started.hold());
        assertEquals(2_320, started.available());
        assertFalse(started.replayed());
        Reservation r = ledger.reservation(Lookup.of(12)).orElseThrow();
        assertEquals(State.CONFIRMED, r.state());
        assertEquals(T, r.confirmedAt(), "confirmed at the request's time, as CONFIRM would have");
        assertTrue(ledger.start(reserve(12, "j12", 2, 32, 120)).replayed(), "a retried START");
        assertEquals(7_680, chem().held(), "held once");

        // a hold made by a plain RESERVE (a START whose first try was two events) is confirmed by the retry
        ledger.reserve(reserve(13, "j13", 1, 10, 60));
        Outcome retried = ledger.start(reserve(13, "j13", 1, 10, 60));
        assertTrue(retried.replayed());
        assertEquals(State.CONFIRMED, ledger.reservation(Lookup.of(13)).orElseThrow().state());

        // a denial is remembered, not confirmed; with different parameters the key is a conflict
        Outcome denied = ledger.start(reserve(14, "j14", 4, 32, 120));
        assertEquals(Decision.DENIED, denied.decision());
        assertEquals(State.DENIED, ledger.reservation(Lookup.of(14)).orElseThrow().state());
        assertEquals(Decision.CONFLICT, ledger.start(reserve(12, "j12", 1, 32, 120)).decision());

        assertEquals(State.SETTLED, ledger.release(ReleaseRequest.of(12, 60, T.plusSeconds(60))).state());
        assertEquals(State.SETTLED, ledger.release(ReleaseRequest.of(13, 60, T.plusSeconds(60))).state());
    }

    @Test
    void reserveHoldsTheWorstCaseAndReleaseSettlesTheActualAndReturnsTheRest() {
        Outcome held = ledger.reserve(reserve(11, "j1", 2, 32, 120));
        assertEquals(Decision.OK, held.decision());
        assertEquals(State.HELD, held.state());
        assertEquals(7_680, held.hold());
        assertEquals(2_320, chem().available());
        assertEquals(7_680, chem().held());

        assertEquals(State.CONFIRMED, ledger.confirm(Lookup.of(11), T.plusSeconds(5), null).state());
        Outcome settled = ledger.release(ReleaseRequest.of(11, 4_990, T.plusSeconds(5_000)));
        assertEquals(State.SETTLED, settled.state());
        assertEquals(5_323, settled.charge());
        assertEquals(2_357, settled.returned());
        Balance b = chem();
        assertEquals(10_000, b.granted());
        assertEquals(0, b.held());
        assertEquals(5_323, b.used());
        assertEquals(4_677, b.available());
    }

    @Test
    void anInsufficientBalanceIsDeniedWithTheProjectCostAndAvailableFigures() {
        ledger.reserve(reserve(1, "j1", 1, 32, 120)); // holds 3840
        Outcome denied = ledger.reserve(reserve(2, "j2", 2, 32, 120)); // costs 7680 > 6160
        assertEquals(Decision.DENIED, denied.decision());
        assertEquals("INSUFFICIENT_BALANCE", denied.reason());
        assertTrue(denied.message().contains("chem"), denied.message());
        assertTrue(denied.message().contains("7680"), denied.message());
        assertTrue(denied.message().contains("available 6160"), denied.message());
        assertTrue(denied.message().contains("held 3840"), denied.message());
        assertEquals(6_160, chem().available());
        assertEquals(1, ledger.failures("chem", 10).size());
        assertEquals("INSUFFICIENT_BALANCE", ledger.failures(null, 10).get(0).reason());
    }

    @Test
    void aQuoteAnswersAsTheReserveWouldWithTheSameFiguresAndWritesNothing() {
        ledger.setWeights("double", new Weights(1_000, 0, 0, 2_000));
        ledger.reserve(reserve(1, "j1", 1, 32, 120)); // holds 3840, leaves 6160
        List<String> before = picture(ledger);
        // fits: the worst case the RESERVE would hold, the balance available now
        Outcome fits = ledger.quote(reserve(2, "j2", 1, 32, 60));
        assertEquals(Decision.OK, fits.decision());
        assertEquals(1_920, fits.hold());
        assertEquals(6_160, fits.available());
        assertEquals("chem", fits.project());
        // the partition's weights and multiplier price it as the RESERVE would (2 x 32 cores x 60 min)
        ReserveRequest doubled = new ReserveRequest(null, "j3", 3, null, "chem_acct", "alice", "double", Resource.CPU, 1,
                NodeShape.cores(32), 3_600, T);
        assertEquals(3_840, ledger.quote(doubled).hold());
        // too big: denied with the RESERVE's reason and figures, and how to ask for more
        ReserveRequest big = reserve(4, "j4", 2, 32, 120);
        Outcome no = ledger.quote(big);
        assertEquals(Decision.DENIED, no.decision());
        assertEquals("INSUFFICIENT_BALANCE", no.reason());
        assertEquals(7_680, no.hold());
        assertEquals(6_160, no.available());
        for (String figure : List.of("project chem", "7680", "available 6160", "held 3840", "short by 1520",
                "ask the project's PI")) {
            assertTrue(no.message().contains(figure), figure + " missing from " + no.message());
        }
        assertEquals("UNKNOWN_PROJECT", ledger.quote(reserveFor("nope", 5, "j5", 1, 1, 1)).reason());
        assertEquals(before, picture(ledger), "a quote writes nothing");
        assertEquals(1, ledger.journal(null).stream().filter(e -> e.kind() == JournalEntry.Kind.HOLD).count());
        // the RESERVE the quote advised on decides the same way, with the same figures
        Outcome denied = ledger.reserve(big);
        assertEquals(no.reason(), denied.reason());
        assertEquals(no.message().substring(no.message().indexOf("costs up to")),
                denied.message().substring(denied.message().indexOf("costs up to")));
    }

    @Test
    void aDenialWithoutAnAllocationSaysWhenToTheSecondWhatWasAskedAndWhomToAsk() {
        // a RESERVE stamped as the proxy stamps it (nanoseconds), after chem's allocation ended
        Instant late = Instant.parse("2026-08-01T10:20:30.123456789Z");
        Outcome no = ledger.reserve(ReserveRequest.of(7, "j7", "chem", "alice", 2, 32, 60, late));
        assertEquals("NO_ACTIVE_ALLOCATION", no.reason());
        for (String said : List.of("project chem has no cpu allocation active at 2026-08-01T10:20:30Z;", "job j7",
                "2 nodes x 32 cores for up to 60 min", "up to 3840", "ask the project's PI or the allocation office")) {
            assertTrue(no.message().contains(said), said + " missing from " + no.message());
        }
        assertFalse(no.message().contains(".123"), "no fraction of a second: " + no.message());
        Outcome unknown = ledger.reserve(reserveFor("nope", 8, "j8", 1, 1, 1));
        assertTrue(unknown.message().endsWith("ask the allocation office to add it"), unknown.message());
    }

    @Test
    void aRetriedDenialStaysDeniedEvenAfterCreditIsAddedButAFreshKeySucceeds() {
        assertEquals(Decision.DENIED, ledger.reserve(reserve(3, "j3", 4, 32, 120)).decision());
        ledger.credit("chem", Resource.CPU, T, 50_000, "supplement", null);
        Outcome retry = ledger.reserve(reserve(3, "j3", 4, 32, 120));
        assertEquals(Decision.DENIED, retry.decision());
        assertTrue(retry.replayed());
        assertEquals(Decision.OK, ledger.reserve(reserve(4, "j3", 4, 32, 120)).decision());
    }

    @Test
    void aNeverRanReleaseOfADeniedReservationLeavesItDeniedWithNothingToSettle() {
        Outcome denied = ledger.reserve(reserve(30, "j30", 4, 32, 120)); // costs 15360 > 10000
        assertEquals(Decision.DENIED, denied.decision());
        Balance before = chem();
        ReleaseRequest neverRan = new ReleaseRequest(Lookup.of(30), 0, false, true, T.plusSeconds(60), null);
        Outcome o = ledger.release(neverRan);
        assertEquals(Decision.OK, o.decision());
        assertEquals(State.DENIED, o.state());
        assertEquals(0, o.charge());
        assertFalse(o.replayed());
        assertTrue(o.message().contains("nothing to settle"), o.message());
        assertEquals(State.DENIED, ledger.reservation(Lookup.of(30)).orElseThrow().state());
        assertEquals(1, ledger.failures("chem", 10).size(), "still remembered as a denial");
        assertEquals(List.of(), ledger.journal(denied.key()), "nothing moved");
        assertEquals(before, chem());

        Outcome again = ledger.release(neverRan);
        assertTrue(again.replayed());
        assertEquals(o.message(), again.message());
        assertEquals(State.DENIED, again.state());
        assertEquals(Decision.DENIED, ledger.reserve(reserve(30, "j30", 4, 32, 120)).decision(), "a retried RESERVE");
    }

    @Test
    void aNeverRanReleaseOfASweptHoldLeavesItVoided() {
        ledger.reserve(reserve(31, "j31", 1, 10, 60));
        Instant later = T.plus(Duration.ofHours(3));
        assertEquals(State.VOIDED, ledger.sweep(later, Duration.ofHours(1), Duration.ofMinutes(10), r -> false)
                .get(0).state());
        Outcome o = ledger.release(new ReleaseRequest(Lookup.of(31), 0, false, true, later, null));
        assertEquals(State.VOIDED, o.state());
        assertEquals(0, o.charge());
        assertEquals(State.VOIDED, ledger.reservation(Lookup.of(31)).orElseThrow().state());
        assertEquals(10_000, chem().available());
    }

    @Test
    void aDuplicateReserveReturnsTheFirstOutcomeAndAConflictingOneChangesNothing() {
        Outcome first = ledger.reserve(reserve(5, "j5", 1, 32, 60));
        Outcome again = ledger.reserve(reserve(5, "j5", 1, 32, 60));
        assertTrue(again.replayed());
        assertEquals(first.hold(), again.hold());
        long available = chem().available();
        Outcome conflict = ledger.reserve(reserve(5, "j5", 2, 32, 60));
        assertEquals(Decision.CONFLICT, conflict.decision());
        assertEquals(available, chem().available());
        assertEquals(1, ledger.journal(first.key()).size());
        assertEquals("CONFLICT", ledger.alerts(5).get(0).kind());
    }

    @Test
    void aDuplicateReleaseIsSettledOnceAndADifferentOneIsAConflict() {
        ledger.reserve(reserve(6, "j6", 1, 32, 60));
        ledger.confirm(Lookup.of(6), T, null);
        Outcome first = ledger.release(ReleaseRequest.of(6, 600, T.plusSeconds(600)));
        Balance after = chem();
        Outcome again = ledger.release(ReleaseRequest.of(6, 600, T.plusSeconds(900)));
        assertTrue(again.replayed());
        assertEquals(first.charge(), again.charge());
        Outcome conflict = ledger.release(ReleaseRequest.of(6, 1_200, T.plusSeconds(1_200)));
        assertEquals(Decision.CONFLICT, conflict.decision());
        assertEquals(after, chem());
        assertEquals(3, ledger.journal(first.key()).size(), "HOLD, SETTLE, RETURN: once");
    }

    @Test
    void aNodeFailureEndingCostsNothing() {
        ledger.reserve(reserve(7, "j7", 2, 32, 120));
        ledger.confirm(Lookup.of(7), T, null);
        Outcome o = ledger.release(new ReleaseRequest(Lookup.of(7), 3_000, true, false, T.plusSeconds(3_000), null));
        assertEquals(0, o.charge());
        assertEquals("NODE_FAILURE", o.reason());
        assertEquals(10_000, chem().available());
    }

    @Test
    void usagePastTheTimeLimitIsCappedAtTheHoldAndRecordedAsOverrun() {
        ledger.reserve(reserve(8, "j8", 1, 10, 60));
        ledger.confirm(Lookup.of(8), T, null);
        Outcome o = ledger.release(ReleaseRequest.of(8, 4_000, T.plusSeconds(4_000)));
        assertEquals(600, o.charge());
        assertEquals(400, ledger.reservations(null, "j8").get(0).overrunSeconds());
    }

    @Test
    void aReleaseOfAnUnknownReservationIsAForcedDebitWhenItsParametersAreKnown() {
        Outcome o = ledger.release(new ReleaseRequest(Lookup.of(99), 600, false, false, T.plusSeconds(600),
                reserve(99, "j99", 1, 10, 60)));
        assertTrue(o.forced());
        assertEquals(100, o.charge());
        assertEquals(9_900, chem().available());
        assertEquals("FORCED_DEBIT", ledger.alerts(1).get(0).kind());
        Outcome blind = ledger.release(ReleaseRequest.of(98, 600, T.plusSeconds(600)));
        assertTrue(blind.forced());
        assertEquals("UNKNOWN_RELEASE", ledger.alerts(1).get(0).kind());
        assertEquals(9_900, chem().available());
    }

    @Test
    void aConfirmWithoutReserveMakesAForcedHoldThatMayOverdraw() {
        Outcome o = ledger.confirm(Lookup.of(40), T, reserve(40, "j40", 10, 32, 120));
        assertTrue(o.forced());
        assertEquals(State.CONFIRMED, o.state());
        assertEquals(38_400, chem().held());
        assertTrue(chem().available() < 0);
        Outcome denied = ledger.reserve(reserve(41, "j41", 1, 1, 1));
        assertEquals(Decision.DENIED, denied.decision(), "an overdrawn allocation denies every RESERVE");
        ledger.release(ReleaseRequest.of(40, 60, T.plusSeconds(60)));
        assertEquals(9_680, chem().available());
    }

    @Test
    void aJobStraddlingTwoPeriodsIsChargedToTheEarlierOne() {
        ledger.grant("chem", Resource.CPU, 1_000, JUL, JAN27, "research", null);
        Instant justBefore = JUL.minusSeconds(1);
        ledger.reserve(ReserveRequest.of(50, "j50", "chem", "bob", 1, 10, 60, justBefore));
        ledger.confirm(Lookup.of(50), justBefore, null);
        ledger.release(ReleaseRequest.of(50, 1_800, JUL.plusSeconds(1_800)));
        List<Balance> both = ledger.balances("chem");
        assertEquals(300, both.get(0).used());
        assertEquals(0, both.get(1).used());
        Outcome atEnd = ledger.reserve(ReserveRequest.of(51, "j51", "chem", "bob", 1, 10, 60, JUL));
        assertEquals(Decision.OK, atEnd.decision());
        assertEquals(600, ledger.balances("chem").get(1).held());
    }

    @Test
    void overlappingAllocationsAreRefusedAndAdjacentOnesAccepted() {
        LedgerException e = assertThrows(LedgerException.class,
                () -> ledger.grant("chem", Resource.CPU, 5, Instant.parse("2026-06-01T00:00:00Z"), JAN27, "x", null));
        assertTrue(e.getMessage().contains("overlaps"), e.getMessage());
        ledger.grant("chem", Resource.CPU, 5, JUL, JAN27, "x", null);
        ledger.grant("chem", Resource.GPU, 5, JAN, JAN27, "x", null);
        assertEquals(3, ledger.balances("chem").size());
    }

    @Test
    void aReusedReservationIdWithAnotherBatchJobIsADifferentReservation() {
        ledger.reserve(reserve(60, "jA", 1, 10, 60));
        ledger.release(ReleaseRequest.of(60, 60, T.plusSeconds(60)));
        Outcome second = ledger.reserve(reserve(60, "jB", 1, 10, 60));
        assertEquals(Decision.OK, second.decision());
        assertFalse(second.replayed());
        assertEquals(State.HELD, second.state());
        assertEquals(2, ledger.reservations(null, "jA").size() + ledger.reservations(null, "jB").size());
    }

    @Test
    void refundsNeverExceedTheChargeAndAreAppliedOncePerRequestId() {
        ledger.reserve(reserve(70, "j70", 1, 10, 60));
        ledger.confirm(Lookup.of(70), T, null);
        ledger.release(ReleaseRequest.of(70, 600, T.plusSeconds(600)));
        ledger.refund(Lookup.of(70), 60, "system problem", "r1");
        ledger.refund(Lookup.of(70), 60, "system problem", "r1");
        assertEquals(40, ledger.reservations(null, "j70").get(0).charge());
        assertThrows(LedgerException.class, () -> ledger.refund(Lookup.of(70), 41, "too much", "r2"));
        assertThrows(LedgerException.class, () -> ledger.refund(Lookup.of(70), 10, "other", "r1"));
        assertEquals(40, chem().used());
    }

    @Test
    void aWithdrawalMayNotOverdrawUnlessForcedAndThenReservesAreDenied() {
        assertThrows(LedgerException.class,
                () -> ledger.withdraw("chem", Resource.CPU, T, 10_001, false, "oops", null));
        assertEquals(10_000, chem().available());
        ledger.withdraw("chem", Resource.CPU, T, 10_010, true, "clawback", null);
        assertEquals(-10, chem().available());
        assertEquals(Decision.DENIED, ledger.reserve(reserve(80, "j80", 1, 1, 1)).decision());
    }

    @Test
    void transfersMoveCreditAndBaseAdjustmentsAreEntriesNotOverwrites() {
        ledger.addProject("phys", 5002, null);
        ledger.grant("phys", Resource.CPU, 0, JAN, JUL, "startup", null);
        ledger.transfer("chem", "phys", Resource.CPU, T, 4_000, "t1");
        ledger.transfer("chem", "phys", Resource.CPU, T, 4_000, "t1");
        assertEquals(6_000, chem().available());
        assertEquals(4_000, ledger.balances("phys").get(0).available());
        assertThrows(LedgerException.class, () -> ledger.transfer("chem", "phys", Resource.CPU, T, 6_001, null));
        ledger.adjustBase("chem", Resource.CPU, T, 20_000, "central-7");
        assertEquals(20_000, chem().granted());
        List<JournalEntry> adjust = ledger.journal(null).stream()
                .filter(e -> e.kind() == JournalEntry.Kind.ADJUST).toList();
        assertEquals(1, adjust.size());
        assertEquals(14_000, adjust.get(0).amount());
    }

    @Test
    void anAllocationsJournalIsItsHistoryInOrderAndSumsToItsAvailableBalance() {
        ledger.addProject("phys", 5002, null);
        ledger.grant("phys", Resource.CPU, 1_000, JAN, JUL, "startup", null);
        ledger.transfer("chem", "phys", Resource.CPU, T, 500, "t1");
        Outcome held = ledger.reserve(reserve(1, "j1", 2, 32, 60));
        ledger.release(new ReleaseRequest(Lookup.of(1), 600, false, false, T.plusSeconds(600), null));
        Balance chem = chem();
        List<JournalEntry> history = ledger.allocationJournal(chem.allocationId());
        assertEquals(List.of(JournalEntry.Kind.CREDIT, JournalEntry.Kind.WITHDRAW, JournalEntry.Kind.HOLD,
                JournalEntry.Kind.SETTLE, JournalEntry.Kind.RETURN), history.stream().map(JournalEntry::kind).toList());
        for (int i = 0; i < history.size(); i++) {
            assertEquals(chem.allocationId(), history.get(i).allocationId());
            assertEquals(i + 1, history.get(i).allocationSeq() - history.get(0).allocationSeq() + 1);
        }
        assertEquals(chem.available(), history.stream().mapToLong(JournalEntry::amount).sum());
        assertEquals(held.key(), history.get(2).reservationKey());
        long phys = ledger.balances("phys").get(0).allocationId();
        assertEquals(List.of(1_000L, 500L), ledger.allocationJournal(phys).stream().map(JournalEntry::amount).toList());
        assertTrue(ledger.allocationJournal(Long.MAX_VALUE).isEmpty());
    }

    @Test
    void theProxysTokenHoldIsBoundToTheAlpsIdThenConfirmedAndReleasedByIt() {
        ReserveRequest q = new ReserveRequest("xc1", "4242", 0, "exchange-1", "chem_acct", "alice", null,
                Resource.CPU, 2, NodeShape.cores(32), 3_600, T);
        Outcome held = ledger.reserve(q);
        assertEquals("xc1/4242/~exchange-1", held.key());
        assertEquals(Decision.OK, ledger.bind(held.key(), 777).decision());
        assertTrue(ledger.bind(held.key(), 777).replayed());
        Lookup byId = new Lookup("xc1", 777, null);
        assertEquals(State.CONFIRMED, ledger.confirm(byId, T, null).state());
        Outcome settled = ledger.release(new ReleaseRequest(byId, 60, false, false, T.plusSeconds(60), null));
        assertEquals(64, settled.charge());
    }

    @Test
    void aHoldWhoseAlpsReserveFailedIsVoidedWhole() {
        Outcome held = ledger.reserve(new ReserveRequest(null, "4243", 0, "x2", "chem", "alice", null,
                Resource.CPU, 1, NodeShape.cores(32), 3_600, T));
        Outcome voided = ledger.voidHold(held.key(), "ALPS_REFUSED");
        assertEquals(State.VOIDED, voided.state());
        assertEquals(10_000, chem().available());
        assertTrue(ledger.voidHold(held.key(), "ALPS_REFUSED").replayed());
    }

    @Test
    void theSweeperVoidsAbandonedHoldsAndChargesVanishedRunningJobsInFull() {
        ledger.reserve(reserve(90, "j90", 1, 10, 60)); // never confirmed
        ledger.reserve(reserve(91, "j91", 1, 10, 60));
        ledger.confirm(Lookup.of(91), T, null);
        ledger.reserve(reserve(92, "j92", 1, 10, 60));
        ledger.confirm(Lookup.of(92), T, null);
        Instant later = T.plus(Duration.ofHours(3));
        List<Outcome> swept = ledger.sweep(later, Duration.ofHours(1), Duration.ofMinutes(10),
                r -> r.resId() == 92); // 92 is still running in ALPS
        assertEquals(2, swept.size());
        assertEquals(State.VOIDED, swept.get(0).state());
        assertEquals(State.ORPHAN_SETTLED, swept.get(1).state());
        assertEquals(600, swept.get(1).charge());
        assertEquals(1, ledger.holds("chem").size());
        assertTrue(ledger.sweep(later, Duration.ofHours(1), Duration.ofMinutes(10), r -> true).isEmpty());

        // the late RELEASE of the orphan is the truth: the difference comes back
        Outcome late = ledger.release(ReleaseRequest.of(91, 1_200, later));
        assertEquals(200, late.charge());
        // a late RELEASE of the voided hold is usage that cannot be refused: forced debit
        Outcome forced = ledger.release(ReleaseRequest.of(90, 600, later));
        assertTrue(forced.forced());
        assertEquals(100, forced.charge());
        assertEquals(10_000 - 600 - 200 - 100, chem().available());
    }

    @Test
    void badInputIsRejectedAndChangesNothing() {
        Balance before = chem();
        assertThrows(LedgerException.class, () -> reserve(0, "j", 1, 1, 1));
        assertThrows(LedgerException.class, () -> reserve(1, "j", 0, 1, 1));
        assertThrows(LedgerException.class, () -> reserve(1, "j", 1, 1, 0));
        assertThrows(LedgerException.class, () -> ledger.reserve(new ReserveRequest(null, "j", 1, null, "chem", "a",
                "nosuch", Resource.CPU, 1, NodeShape.cores(1), 60, T)));
        assertThrows(LedgerException.class, () -> ledger.reserve(new ReserveRequest(null, "j", 1, null, "chem", "a",
                null, Resource.CPU, Integer.MAX_VALUE, NodeShape.cores(Integer.MAX_VALUE), 60, T)));
        assertThrows(LedgerException.class, () -> ledger.addProject("chem", 1, null));
        assertThrows(LedgerException.class, () -> ledger.addProject("bad name", 1, null));
        assertThrows(LedgerException.class, () -> ledger.credit("chem", Resource.CPU, T, -5, null, null));
        assertThrows(LedgerException.class, () -> ledger.credit("nobody", Resource.CPU, T, 5, null, null));
        assertThrows(LedgerException.class, () -> ledger.grant("chem", Resource.CPU, 5, JUL, JAN, "x", null));
        assertEquals(before, chem());
        assertTrue(ledger.holds(null).isEmpty());
    }

    @Test
    void anUnknownProjectIsDeniedAndRemembered() {
        Outcome o = ledger.reserve(ReserveRequest.of(100, "j100", "nosuch", "eve", 1, 1, 1, T));
        assertEquals(Decision.DENIED, o.decision());
        assertEquals("UNKNOWN_PROJECT", o.reason());
        assertEquals(1, ledger.failures("nosuch", 5).size());
    }

    @Test
    void partitionWeightsAndMultipliersApplyToHolds() {
        ledger.setWeights("big", new Weights(1000, 0, 1000, 1500));
        Outcome o = ledger.reserve(new ReserveRequest(null, "j", 5, null, "chem", "a", "big", Resource.CPU, 3,
                NodeShape.cores(24), 1_800, T));
        assertEquals(3_240, o.hold());
        assertEquals(1500, ledger.weights("big").multiplierMilli());
    }

    @Test
    void usageIsReportedPerUser() {
        ledger.reserve(ReserveRequest.of(1, "a1", "chem", "alice", 1, 10, 60, T));
        ledger.reserve(ReserveRequest.of(2, "b1", "chem", "bob", 1, 10, 60, T));
        ledger.release(ReleaseRequest.of(2, 60, T.plusSeconds(60)));
        var usage = ledger.usage("chem");
        assertEquals(2, usage.size());
        assertEquals(600, usage.get(0).held());
        assertEquals(10, usage.get(1).charged());
    }

    @Test
    void theJournalReplaysIntoAnEmptyStoreWithIdenticalBalancesAndRefusesANonEmptyOne() {
        ledger.addProject("bio", 5002, null);
        ledger.grant("bio", Resource.GPU, 600, JAN, JUL, "startup", "g-1");
        ledger.reserve(reserve(1, "j1", 2, 32, 60));
        ledger.confirm(Lookup.of(1), T.plusSeconds(1), null);
        ledger.release(ReleaseRequest.of(1, 1_000, T.plusSeconds(1_001)));
        ledger.reserve(reserve(2, "j2", 1, 32, 60)); // still held
        ledger.reserve(reserve(3, "j3", 100, 32, 600)); // denied
        ledger.refund(Lookup.of(1), 10, "node trouble", "r-1");
        ledger.withdraw("chem", Resource.CPU, T, 5, false, "cut", null);
        try (Ledger copy = Ledger.open(replayTargetUrl())) {
            Ledger.Replay r = ledger.replayInto(copy);
            assertEquals(List.of(), r.problems());
            assertEquals(2, r.projects());
            assertEquals(2, r.allocations());
            assertEquals(3, r.reservations());
            assertEquals(ledger.journal(reserve(1, "j1", 2, 32, 60).key()).size(),
                    copy.journal(reserve(1, "j1", 2, 32, 60).key()).size());
            assertEquals(picture(ledger), picture(copy));
            // the admin request ids travel too: a retried grant is not applied twice in the copy
            copy.grant("bio", Resource.GPU, 600, JAN, JUL, "startup", "g-1");
            assertEquals(600, copy.balances("bio").get(0).granted());
            LedgerException e = assertThrows(LedgerException.class, () -> ledger.replayInto(copy));
            assertTrue(e.getMessage().contains("not empty"), e.getMessage());
        }
    }

    @Test
    void theBalancesAreCheckedAgainstTheJournalWhenTheLedgerIsOpened() {
        ledger.reserve(reserve(1, "j", 1, 10, 60));
        assertNotNull(ledger.projects());
        assertEquals(List.of(), ledger.check());
    }

    /**
     * Issue 21: a store made by schema version 1 is brought to the latest version when opened: its rows kept,
     * the index of every reservation's state replaced by ones of holds in progress and of denials, which the
     * sweep and the reports still find.
     */
    @Test
    void aVersionOneStoreIsUpgradedWhenOpened() throws Exception {
        String url = newStoreUrl();
        String jdbc = Dialect.jdbcUrl(url);
        Dialect dialect = Dialect.of(jdbc);
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbc)) {
            c.setAutoCommit(false);
            dialect.migrate(c, 1);
            Sql.update(c, "INSERT INTO project (name, gid, account, active, created_at) VALUES ('old', 77, NULL, 1, 0)");
            c.commit();
        }
        try (Ledger upgraded = Ledger.open(url)) {
            assertEquals("old", upgraded.projects().get(0).name(), "a row of version 1");
            upgraded.grant("old", Resource.CPU, 500, JAN, JUL, "research", null);
            Outcome held = upgraded.reserve(reserveFor("old", 41, "j41", 1, 4, 60));
            Outcome denied = upgraded.reserve(reserveFor("old", 42, "j42", 4, 32, 60));
            assertEquals(List.of(held.key()), upgraded.holds("old").stream().map(r -> r.key()).toList());
            assertEquals(List.of(denied.key()), upgraded.failures("old", 10).stream().map(r -> r.key()).toList());
            assertEquals(State.VOIDED, upgraded.sweep(T.plusSeconds(7_200), Duration.ofHours(1), Duration.ofMinutes(10),
                    r -> false).get(0).state());
            assertEquals(List.of(), upgraded.holds("old"));
            assertEquals(List.of(), upgraded.check());
            assertEquals(List.of(org.alpsbridge.ledger.ProjectShare.none("old")), upgraded.shares("old"),
                    "a project of version 1 has the empty share of version 3");
        }
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbc)) {
            assertEquals(List.of(1L, 2L, 3L, 4L), Sql.list(c, "SELECT version FROM schema_version ORDER BY version",
                    rs -> rs.getLong(1)));
            List<String> indexes = Sql.list(c, dialect == Dialect.POSTGRESQL
                    ? "SELECT indexname FROM pg_indexes WHERE tablename = 'reservation' ORDER BY 1"
                    : "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reservation'"
                            + " AND sql IS NOT NULL ORDER BY 1", rs -> rs.getString(1));
            assertTrue(indexes.contains("reservation_open") && indexes.contains("reservation_denied"), indexes.toString());
            assertFalse(indexes.contains("reservation_state"), indexes.toString());
        }
    }

    @Test
    void aShareChangeIsStoredWithOneJournalRowPerFieldChangedAndItsActor() throws Exception {
        // a name and gid of its own: the PostgreSQL contract's database is shared by its tests
        String chem = "share" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
        ledger.addProject(chem, 40_000 + (int) (System.nanoTime() % 20_000), null);
        assertEquals(List.of(org.alpsbridge.ledger.ProjectShare.none(chem)), ledger.shares(chem));
        org.alpsbridge.ledger.ProjectShare share = new org.alpsbridge.ledger.ProjectShare(chem, "Chemistry", "uni",
                List.of("std", "gpu", "std"), java.util.Map.of("node", 4L, "gres/gpu", 8L), List.of("bob", "alice"), "r00n[00-03],r01g0");
        org.alpsbridge.ledger.ProjectShare stored = ledger.setShare(share, "carol");
        assertEquals(List.of("gpu", "std"), stored.partitions());
        assertEquals("gres/gpu=8,node=4", stored.grpTres());
        assertEquals(List.of(stored), ledger.shares(chem));
        assertEquals("r00n[00-03],r01g0", stored.nodes());
        assertEquals(List.of("members", "nodes", "caps", "partitions", "organization", "description"),
                ledger.projectChanges(chem, 10).stream().map(org.alpsbridge.ledger.ProjectChange::field).toList());
        // the same share again changes nothing and records nothing
        ledger.setShare(share, "carol");
        assertEquals(6, ledger.projectChanges(chem, 10).size());
        ledger.setShare(new org.alpsbridge.ledger.ProjectShare(chem, "Chemistry", "uni", List.of(), java.util.Map.of(),
                List.of("alice"), "r00n[00-03],r01g0"), "dave");
        assertEquals("alice", ledger.projectChanges(chem, 1).get(0).after());
        assertEquals(3, ledger.projectChanges(chem, 3).stream().filter(c -> c.actor().equals("dave")).count());
        org.alpsbridge.ledger.LedgerException bad = assertThrows(org.alpsbridge.ledger.LedgerException.class,
                () -> ledger.setShare(new org.alpsbridge.ledger.ProjectShare(chem, "", "", List.of(),
                        java.util.Map.of("nodes", 4L), List.of(), ""), "dave"));
        assertTrue(bad.getMessage().contains("'nodes' is not a resource"), bad.getMessage());
        org.alpsbridge.ledger.LedgerException badNodes = assertThrows(org.alpsbridge.ledger.LedgerException.class,
                () -> ledger.setShare(new org.alpsbridge.ledger.ProjectShare(chem, "", "", List.of(), java.util.Map.of(),
                        List.of(), "r00n[00-03"), "dave"));
        assertTrue(badNodes.getMessage().contains("is not a Slurm node list"), badNodes.getMessage());
        // the nodes bought are journalled like every other field
        ledger.setShare(new org.alpsbridge.ledger.ProjectShare(chem, "Chemistry", "uni", List.of(), java.util.Map.of(),
                List.of("alice"), "r00n[00-07]"), "erin");
        org.alpsbridge.ledger.ProjectChange last = ledger.projectChanges(chem, 1).get(0);
        assertEquals(List.of("nodes", "r00n[00-03],r01g0", "r00n[00-07]", "erin"),
                List.of(last.field(), last.before(), last.after(), last.actor()));
        assertEquals(10, ledger.projectChanges(chem, 100).size(), "a refused change records nothing");
    }
}
