package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.Weights;
import org.alpsbridge.ledger.cost.Cost;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: on PostgreSQL the RESERVEs of one transaction are held together, in one statement
 * ({@link Holds#ALL}). It must hold exactly what holding them one after another holds, as long as they fit, and
 * stop at the first that does not fit the balance or the allocation's time: that one and the rest are left to
 * be decided one by one. Across a whole ledger: never an overdraft, every denial a denial one by one would give.
 */
class SharedHoldTest {

    private static final Instant T = ConcurrencyTest.T;
    /** Allocation 1 is hot's (1,000,000 min), 2 cold's (500,000 min, from T - 60 s to T + 1 day). */
    private static final long HOT = 1;
    private static final long COLD = 2;

    @Test
    void holdsDecidedTogetherAreAsOneByOne() throws SQLException {
        List<Holds.Hold> holds = List.of(hold(HOT, 1, 3_600, T), hold(COLD, 2, 600, T), hold(HOT, 3, 60, T),
                hold(COLD, 4, 7_200, T.plusSeconds(5)), hold(HOT, 5, 120, T.plusSeconds(9)));
        String together = ledgerWithTwoAllocations();
        String oneByOne = ledgerWithTwoAllocations();
        List<Long> answers = decide(together, holds);
        List<Long> single = new ArrayList<>();
        for (Holds.Hold h : holds) {
            single.addAll(decide(oneByOne, List.of(h)));
        }
        assertEquals(single, answers);
        assertEquals(List.of(1_000_000L - 1_920, 500_000L - 320, 1_000_000L - 1_920 - 32, 500_000L - 320 - 3_840,
                1_000_000L - 1_920 - 32 - 64), answers);
        assertEquals(rows(oneByOne), rows(together));
    }

    @Test
    void theLongestRunThatFitsIsHeldAndTheRestLeftToDecideOneByOne() throws SQLException {
        String url = ledgerWithTwoAllocations();
        try (Connection c = DriverManager.getConnection(url)) {
            c.createStatement().executeUpdate("UPDATE allocation SET held = credited - 1000 WHERE id = 1");
        }
        // 320 + 640 fit the 1000 left; 960 does not, and the 32 after it is left too (it is decided on its own)
        List<Long> answers = decide(url, List.of(hold(HOT, 1, 600, T), hold(COLD, 2, 600, T), hold(HOT, 3, 1_200, T),
                hold(HOT, 4, 1_800, T), hold(HOT, 5, 60, T)));
        assertEquals(Arrays.asList(680L, 500_000L - 320, 40L, null, null), answers);
        String rows = rows(url);
        assertTrue(rows.contains("1 1000000 " + (1_000_000 - 1_000 + 960) + " 0 3\n"), rows);
        assertEquals(3, count(url, "SELECT count(*) FROM reservation WHERE state = 'HELD'"));
    }

    @Test
    void aRunEndsAtAReserveOutsideItsAllocationsTime() throws SQLException {
        String url = ledgerWithTwoAllocations();
        // cold's allocation ends at T + 1 day: the second RESERVE is after it, the third before its start
        List<Long> answers = decide(url, List.of(hold(COLD, 1, 60, T), hold(COLD, 2, 60, T.plusSeconds(86_400)),
                hold(COLD, 3, 60, T), hold(HOT, 4, 60, T)));
        assertEquals(Arrays.asList(500_000L - 32, null, null, 1_000_000L - 32), answers);
        assertEquals(Arrays.asList((Long) null), decide(url, List.of(hold(COLD, 5, 60, T.minusSeconds(61)))));
    }

    @Test
    void anInactiveProjectHoldsNothing() throws SQLException {
        String url = ledgerWithTwoAllocations();
        try (Connection c = DriverManager.getConnection(url)) {
            c.createStatement().executeUpdate("UPDATE project SET active = 0 WHERE name = 'cold'");
        }
        assertEquals(Arrays.asList(1_000_000L - 32, null, null), decide(url, List.of(hold(HOT, 1, 60, T),
                hold(COLD, 2, 60, T), hold(COLD, 3, 60, T))));
        assertEquals(1, count(url, "SELECT count(*) FROM reservation"));
    }

    /**
     * 32 clients reserve 320 each on an allocation with room for 15 of them, so that RESERVEs share
     * transactions and the balance runs out inside one: exactly 15 are held, every other is denied for its
     * balance with the figures it saw, and the ledger checks clean.
     */
    @Test
    void aBalanceRunningOutInsideATransactionHoldsExactlyWhatFits() throws Exception {
        String url = PostgresServer.get().newDatabase();
        int clients = 32;
        try (JdbcLedger ledger = (JdbcLedger) ConcurrencyTest.fresh(url, 15 * 320 + 319)) {
            AtomicInteger held = new AtomicInteger();
            ConcurrencyTest.inThreads(clients, id -> {
                for (int i = 0; i < 4; i++) {
                    long resId = id * 10L + i + 1;
                    Outcome o = ledger.reserve(new ReserveRequest(null, "j" + resId, resId, null, "hot", "u", null,
                            Resource.CPU, 1, NodeShape.cores(32), 600, T));
                    if (o.ok()) {
                        held.incrementAndGet();
                        assertTrue(o.available() >= 0 && o.available() % 320 == 319, o.toString());
                    } else {
                        assertEquals(State.DENIED, o.state());
                        assertEquals("INSUFFICIENT_BALANCE", o.reason());
                        assertTrue(o.available() < 320, o.toString());
                    }
                }
            });
            assertEquals(15, held.get());
            Balance b = ledger.balances("hot").get(0);
            assertEquals(15 * 320, b.held());
            assertEquals(319, b.available());
            assertEquals(List.of(), ledger.check());
            assertTrue(ledger.eventsPerCommit() > 1.0, "RESERVEs shared transactions: " + ledger.eventsPerCommit());
        }
    }

    /** A RESERVE of {@code resId} for one 32-core node and {@code limit} seconds (32 min per minute). */
    private static Holds.Hold hold(long allocation, long resId, long limit, Instant at) {
        ReserveRequest q = new ReserveRequest("c", "b" + resId, resId, null, allocation == HOT ? "hot" : "cold", "u",
                null, Resource.CPU, 1, NodeShape.cores(32), limit, at);
        long rate = Cost.rate(Resource.CPU, 1, NodeShape.cores(32), Weights.UNIT);
        return new Holds.Hold(allocation, q.project(), q, "request", rate, Cost.worst(rate, limit));
    }

    /** The balance after each hold made, null for each not made. */
    private static List<Long> decide(String url, List<Holds.Hold> holds) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            List<Holds.Held> answers = Holds.ALL.decideAll(c, holds);
            c.commit();
            for (int i = 0; i < holds.size(); i++) {
                assertTrue(answers.get(i) == null || answers.get(i).hold() == holds.get(i), "each answer is its own hold");
            }
            return answers.stream().map(h -> h == null ? null : h.available()).toList();
        }
    }

    private static long count(String url, String query) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); var rs = c.createStatement().executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String ledgerWithTwoAllocations() {
        String url = PostgresServer.get().newDatabase();
        try (Ledger ledger = ConcurrencyTest.fresh(url, 1_000_000)) {
            ledger.addProject("cold", 2, null);
            ledger.grant("cold", Resource.CPU, 500_000, T.minusSeconds(60), T.plusSeconds(86_400), "r", null);
        }
        return url;
    }

    /** The allocations' balances and sequences, every journal entry but its global seq, every reservation. */
    private static String rows(String url) throws SQLException {
        List<String> queries = new ArrayList<>(SharedSettlementTest.BALANCES_AND_JOURNAL);
        queries.add("SELECT id, rkey, cluster, batch_id, res_id, project, owner, allocation_id, params, rate, limit_s,"
                + " limit_source, state, hold, reason, message, available, t_reserve FROM reservation ORDER BY id");
        return SharedSettlementTest.rows(url, queries);
    }
}
