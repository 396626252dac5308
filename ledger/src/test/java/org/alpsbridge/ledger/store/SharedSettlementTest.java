package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: on PostgreSQL the RELEASEs of one project that share a transaction and settle holds in progress are
 * written in one statement ({@link Settlements}): the reservations' settled rows, their journal entries and the
 * balances. That statement must leave the ledger exactly as writing them one after another does (each
 * allocation's sequence gapless, the entries numbered in the settlements' order), and write nothing of a
 * settlement whose reservation is no longer as its RELEASE read it.
 */
class SharedSettlementTest {

    private static final Instant T = ConcurrencyTest.T;

    @Test
    void settlementsDecidedTogetherAreAsOneByOne() throws SQLException {
        String together = ledgerWithFourHolds();
        String oneByOne = ledgerWithFourHolds();
        List<ReleaseRequest> releases = List.of(release(1, 600, false), release(2, 7_200, false),
                release(3, 1_800, true), release(4, 0, false));
        List<Settlements.Settlement> all = read(together, releases);
        assertEquals(all, decide(together, all));
        for (Settlements.Settlement s : read(oneByOne, releases)) {
            assertEquals(List.of(s), decide(oneByOne, List.of(s)));
        }
        assertEquals(rows(oneByOne), rows(together));
        // 600 s of one 32-core node is 320 min: settled, and the hold of 3,600 s (1,920 min) returned; node failure
        // settles nothing; an overrun is kept with the reservation and charged up to the hold only
        assertTrue(rows(together).contains("c/b2/2 SETTLED 1920 1920 3600 null 7200|false|false\n"), rows(together));
        assertTrue(rows(together).contains("c/b3/3 SETTLED 1920 0 0 NODE_FAILURE 1800|true|false\n"), rows(together));
    }

    @Test
    void aReservationChangedAfterItWasReadIsLeftAndNothingOfItWritten() throws SQLException {
        String url = ledgerWithFourHolds();
        List<Settlements.Settlement> all = read(url, List.of(release(1, 600, false), release(2, 600, false),
                release(3, 600, false), byBatch(release(4, 600, false), "b4")));
        try (Connection c = DriverManager.getConnection(url); Ledger ledger = Ledger.open(url)) {
            // meanwhile 2 is voided, and 3 and 4 are no longer their ALPS ids' latest reservations (newer ones of
            // other batches), which leaves 3, looked up by its ALPS id, but not 4, looked up by its batch too
            c.createStatement().executeUpdate("UPDATE reservation SET state = 'VOIDED' WHERE res_id = 2");
            assertTrue(ledger.reserve(reserve("hot", "b9", 3)).ok());
            assertTrue(ledger.reserve(reserve("cold", "b8", 4)).ok());
        }
        String before = rows(url);
        assertEquals(Arrays.asList(all.get(0), null, null, all.get(3)), decide(url, all));
        String after = rows(url);
        for (String changed : List.of("c/b2/2 VOIDED", "c/b3/3 HELD")) {
            assertTrue(before.contains(changed) && after.contains(changed), after);
        }
        assertEquals(4 + 2 + 2 + 2, count(url, "SELECT count(*) FROM entry WHERE rkey IS NOT NULL"), after);
    }

    @Test
    void aRepeatedReleaseOfOneReservationIsLeftToDecideOnItsOwn() throws SQLException {
        String url = ledgerWithFourHolds();
        List<Settlements.Settlement> all = read(url, List.of(release(1, 600, false), release(1, 60, false),
                release(2, 60, false)));
        List<Settlements.Settlement> answers = decide(url, all);
        assertEquals(Arrays.asList(all.get(0), null, all.get(2)), answers);
        assertTrue(rows(url).contains("c/b1/1 SETTLED 1920 320 0 null 600|false|false\n"), rows(url));
    }

    @Test
    void aStatementWhoseEntriesDoNotAllLandKeepsNothing() throws SQLException {
        String url = ledgerWithFourHolds();
        List<Settlements.Settlement> all = new ArrayList<>(read(url, List.of(release(1, 600, false),
                release(2, 600, false))));
        Settlements.Settlement s = all.get(1);
        Res r = s.reservation();
        Res elsewhere = new Res(r.id(), r.key(), r.cluster(), r.batchId(), r.resId(), r.project(), r.owner(), 99L,
                r.params(), r.rate(), r.limit(), r.limitSource(), r.state(), r.hold(), r.charge(), r.refunded(),
                r.overrun(), r.releaseText(), r.reason(), r.message(), r.available(), r.forced(), r.tReserve(),
                r.tConfirm(), r.tRelease());
        all.set(1, Settlements.Settlement.of(elsewhere, s.request(), s.at(), s.payload()));
        String before = rows(url);
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            LedgerException e = assertThrows(LedgerException.class, () -> settlements().decideAll(c, all));
            assertEquals("journal: 2 of 4 entries appended for 2 settlements; nothing of them was kept, each runs"
                    + " again on its own", e.getMessage());
            c.rollback();
        }
        assertEquals(before, rows(url));
    }

    @Test
    void settlementsOfOneTransactionAreWrittenBeforeItsHolds() {
        assertTrue(settlements().rank() < Holds.ALL.rank());
    }

    private static Settlements settlements() {
        return new Settlements(Dialect.POSTGRESQL, new Journal(Dialect.POSTGRESQL));
    }

    private static ReleaseRequest release(long resId, long elapsed, boolean nodeFailure) {
        return new ReleaseRequest(new Lookup("c", resId, null), elapsed, nodeFailure, false, T.plusSeconds(elapsed),
                null);
    }

    /** {@code q}, looking its reservation up by its batch id too. */
    private static ReleaseRequest byBatch(ReleaseRequest q, String batch) {
        Lookup l = q.lookup();
        return new ReleaseRequest(new Lookup(l.cluster(), l.resId(), batch), q.elapsedSeconds(), q.nodeFailure(),
                q.neverRan(), q.at(), q.ifUnknown());
    }

    private static ReserveRequest reserve(String project, String batch, long resId) {
        return new ReserveRequest("c", batch, resId, null, project, "u", null, Resource.CPU, 1, NodeShape.cores(32),
                3_600, T);
    }

    /** What each RELEASE settles, as its prepare step reads it. */
    private static List<Settlements.Settlement> read(String url, List<ReleaseRequest> releases) throws SQLException {
        List<Settlements.Settlement> all = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url)) {
            List<Res> read = new Lookups(Dialect.POSTGRESQL).latestReservations.decideAll(c,
                    releases.stream().map(ReleaseRequest::lookup).toList());
            for (int i = 0; i < releases.size(); i++) {
                ReleaseRequest q = releases.get(i);
                assertTrue(Settlements.settles(read.get(i), q), String.valueOf(read.get(i)));
                all.add(Settlements.Settlement.of(read.get(i), q, q.at().getEpochSecond(), q.payloadText()));
            }
        }
        return all;
    }

    private static List<Settlements.Settlement> decide(String url, List<Settlements.Settlement> all)
            throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            List<Settlements.Settlement> answers = settlements().decideAll(c, all);
            c.commit();
            for (int i = 0; i < all.size(); i++) {
                assertTrue(answers.get(i) == null || answers.get(i) == all.get(i), "each answer is its own");
            }
            return answers;
        }
    }

    /** Projects hot (allocation 1) and cold (2); RESERVEs c/b1/1 and c/b3/3 on hot, c/b2/2 and c/b4/4 on cold. */
    private static String ledgerWithFourHolds() {
        String url = PostgresServer.get().newDatabase();
        try (Ledger ledger = ConcurrencyTest.fresh(url, 1_000_000)) {
            ledger.addProject("cold", 2, null);
            ledger.grant("cold", Resource.CPU, 500_000, T.minusSeconds(60), T.plusSeconds(86_400), "r", null);
            for (int i = 1; i <= 4; i++) {
                Outcome o = ledger.reserve(reserve(i % 2 == 1 ? "hot" : "cold", "b" + i, i));
                assertSame(Outcome.Decision.OK, o.decision(), o.toString());
            }
        }
        return url;
    }

    private static long count(String url, String query) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); var rs = c.createStatement().executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The allocations' balance columns and sequences, every journal entry but its global seq (and a grant's time). */
    static final List<String> BALANCES_AND_JOURNAL = List.of(
            "SELECT id, credited, held, settled, last_seq FROM allocation ORDER BY id",
            "SELECT allocation_id, allocation_seq, kind, amount, rkey, actor, reason,"
                    + " CASE WHEN rkey IS NULL THEN 0 ELSE created_at END FROM entry ORDER BY allocation_id, allocation_seq");

    /** {@link #BALANCES_AND_JOURNAL}, then each reservation's settlement. */
    private static String rows(String url) throws SQLException {
        List<String> queries = new ArrayList<>(BALANCES_AND_JOURNAL);
        queries.add("SELECT rkey, state, hold, charge, overrun_s, reason, release_text FROM reservation ORDER BY id");
        return rows(url, queries);
    }

    /** The rows of {@code queries} on {@code url}, one line each, to compare two ledgers by. */
    static String rows(String url, List<String> queries) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = DriverManager.getConnection(url)) {
            for (String query : queries) {
                try (var rs = c.createStatement().executeQuery(query)) {
                    int columns = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        for (int i = 1; i <= columns; i++) {
                            out.append(rs.getString(i)).append(i < columns ? " " : "\n");
                        }
                    }
                }
            }
        }
        return out.toString();
    }
}
