package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Weights;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: on PostgreSQL the events of one transaction read what they charge together, before the transaction
 * locks anything: one statement for all its RESERVEs' projects, allocations and weights
 * ({@link Lookups#unlockedTargets}), one for the reservations all its RELEASEs settle
 * ({@link Lookups#latestReservations}). Each must answer, for every item, what reading that item alone answers.
 */
class SharedReadTest {

    private static final Instant T = ConcurrencyTest.T;

    @Test
    void reservesReadTogetherFindWhatEachFindsAlone() throws SQLException {
        String url = PostgresServer.get().newDatabase();
        try (Ledger ledger = ConcurrencyTest.fresh(url, 1_000_000)) {
            ledger.addProject("cold", 2, "acct");
            ledger.grant("cold", Resource.CPU, 500_000, T.minusSeconds(60), T.plusSeconds(86_400), "r", null);
            ledger.addProject("idle", 3, null);
            ledger.grant("idle", Resource.CPU, 500_000, T.minusSeconds(60), T.plusSeconds(86_400), "r", null);
            ledger.setWeights("big", new Weights(2_000, 0, 0, 1_000));
            ledger.reserve(reserve("hot", 1, null, T));
        }
        try (Connection c = DriverManager.getConnection(url)) {
            c.createStatement().executeUpdate("UPDATE project SET active = 0 WHERE name = 'idle'");
            // an account that is another project's name (the ledger refuses to make one, an old row may have it):
            // the project of that name is the one charged
            c.createStatement().executeUpdate("INSERT INTO project (name, gid, account, active, created_at)"
                    + " VALUES ('shadow', 4, 'hot', 1, 0)");
        }
        List<ReserveRequest> reserves = List.of(
                reserve("hot", 1, null, T), // its key is taken
                reserve("hot", 2, "big", T), // the partition's weights
                reserve("acct", 3, null, T), // by account
                reserve("nobody", 4, null, T), // no such project
                reserve("idle", 5, null, T), // inactive
                reserve("cold", 6, null, T.plusSeconds(86_400)), // after its allocation
                reserve("cold", 7, "nosuch", T), // an unknown partition: the RESERVE itself says so
                reserve("cold", 8, null, T.plusSeconds(5)));
        Lookups lookups = new Lookups(Dialect.POSTGRESQL);
        try (Connection c = DriverManager.getConnection(url)) {
            List<Lookups.Target> together = lookups.unlockedTargets.decideAll(c, reserves);
            List<Lookups.Target> alone = new ArrayList<>();
            for (ReserveRequest q : reserves) {
                alone.addAll(lookups.unlockedTargets.decideAll(c, List.of(q)));
            }
            assertEquals(alone, together);
            assertTrue(together.get(0).keyTaken());
            assertEquals("hot", together.get(1).allocation().project());
            assertFalse(together.get(1).keyTaken());
            assertEquals(new Weights(2_000, 0, 0, 1_000), together.get(1).weights());
            assertEquals("cold", together.get(2).allocation().project());
            assertEquals(Weights.UNIT, together.get(2).weights());
            for (int unread : new int[] {3, 4, 5, 6}) {
                assertNull(together.get(unread), reserves.get(unread).toString());
            }
            assertNotNull(together.get(7));
        }
    }

    @Test
    void releasesReadTogetherFindWhatEachFindsAlone() throws SQLException {
        String url = PostgresServer.get().newDatabase();
        try (Ledger ledger = ConcurrencyTest.fresh(url, 1_000_000)) {
            for (int i = 1; i <= 3; i++) {
                ledger.reserve(reserve("hot", i, null, T));
            }
            ledger.reserve(new ReserveRequest("c", "b9", 3, null, "hot", "u", null, Resource.CPU, 1,
                    NodeShape.cores(32), 600, T)); // a newer reservation of ALPS id 3, in another batch
        }
        List<Lookup> lookups = List.of(new Lookup("c", 1, null), new Lookup("c", 3, null), new Lookup("c", 3, "b3"),
                new Lookup("c", 4, null), new Lookup("other", 1, null), new Lookup("c", 2, "b1"));
        Lookups read = new Lookups(Dialect.POSTGRESQL);
        try (Connection c = DriverManager.getConnection(url)) {
            List<Res> together = read.latestReservations.decideAll(c, lookups);
            List<Res> alone = new ArrayList<>();
            for (Lookup l : lookups) {
                alone.addAll(read.latestReservations.decideAll(c, List.of(l)));
            }
            assertEquals(alone, together);
            assertEquals(List.of("c/b1/1", "c/b9/3", "c/b3/3"),
                    together.subList(0, 3).stream().map(Res::key).toList());
            assertEquals(java.util.Arrays.asList(null, null, null), together.subList(3, 6));
        }
    }

    private static ReserveRequest reserve(String project, long resId, String partition, Instant at) {
        return new ReserveRequest("c", "b" + resId, resId, null, project, "u", partition, Resource.CPU, 1,
                NodeShape.cores(32), 600, at);
    }
}
