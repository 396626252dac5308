package org.alpsbridge.proxy.ha;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.alpsbridge.ledger.store.PostgresServer;
import org.alpsbridge.proxy.stats.Stats;
import org.junit.jupiter.api.Test;

/** The pair's lease and shared exchange memory on a real PostgreSQL: who may run and record what, and when. */
class AvailabilityTest {

    private static final byte[] DIGEST = {1, 2, 3};

    private static Availability start(String db, String name, Duration lease) throws Exception {
        Availability a = Availability.open(new Availability.Settings(db, name, lease));
        a.report(new Stats());
        a.start(name);
        return a;
    }

    /** What a paused active proxy cannot see: its lease ended in the database while its own clock still runs. */
    private static void expireLease(String db) throws Exception {
        try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement()) {
            s.execute("UPDATE " + Lease.TABLE + " SET expires = now() - interval '1 second'");
        }
    }

    private static void awaitActive(Availability a) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos(); // a guard: a poll is 1 s at most
        while (!a.active() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(a.active(), a.status());
    }

    @Test
    void theFirstProxyTakesTheFreeLeaseAndTheSecondWaitsNamingIt() throws Exception {
        String db = PostgresServer.get().newDatabase();
        try (Availability a = start(db, "a.example:6830", Duration.ofSeconds(2));
             Availability b = start(db, "b.example:6830", Duration.ofSeconds(2))) {
            assertTrue(a.active(), a.status());
            assertFalse(b.active(), b.status());
            assertEquals(1, a.epoch());
            assertTrue(b.notActiveReason().endsWith(" (active: a.example:6830)"), b.notActiveReason());
            assertThrows(NotActiveException.class, () -> b.begin(0, "x", "RESERVE", DIGEST));
        }
    }

    @Test
    void aCleanStopReleasesTheLeaseAtOnce() throws Exception {
        String db = PostgresServer.get().newDatabase();
        // a lease far longer than a poll (1 s), so a loaded host's slow poll cannot pass for the lease's expiry
        Availability a = start(db, "a.example:6830", Duration.ofSeconds(60));
        try (Availability b = start(db, "b.example:6830", Duration.ofSeconds(60))) {
            assertFalse(b.active());
            long stopped = System.nanoTime();
            a.close();
            // the standby polls every second: it takes over then, not once the 60 s lease has passed
            awaitActive(b);
            assertTrue(System.nanoTime() - stopped < Duration.ofSeconds(30).toNanos());
            assertEquals(2, b.epoch());
        }
    }

    @Test
    void aFencedOldActiveCanNeitherStartNorRecordAnExchange() throws Exception {
        String db = PostgresServer.get().newDatabase();
        // a's own clock gives it 30 s; the database ends its lease after one exchange has begun
        try (Availability a = start(db, "a.example:6830", Duration.ofSeconds(30));
             Availability b = start(db, "b.example:6830", Duration.ofSeconds(1))) {
            assertNull(a.begin(1000, "job-1-reserve", "RESERVE", DIGEST), "new: a runs it");
            expireLease(db);
            awaitActive(b);
            assertTrue(a.active(), "a has not noticed yet: " + a.status());

            NotActiveException refused = assertThrows(NotActiveException.class,
                    () -> a.begin(1000, "job-2-reserve", "RESERVE", DIGEST));
            assertTrue(refused.getMessage().contains("standby"), refused.getMessage());
            assertFalse(a.finish(1000, "job-1-reserve", "<late answer/>".getBytes(StandardCharsets.UTF_8)),
                    "the answer that came after the takeover is not recorded");

            Availability.Recorded seen = b.begin(1000, "job-1-reserve", "RESERVE", DIGEST);
            assertArrayEquals(DIGEST, seen.digest());
            assertNull(seen.answer());
            assertTrue(seen.failureTransient());
            assertTrue(seen.failure().contains("RESERVE exchange job-1-reserve was running on the apbasil proxy"
                    + " a.example:6830 when it stopped; its outcome is unknown"), seen.failure());
            assertNull(b.begin(1000, "job-2-reserve", "RESERVE", DIGEST), "never begun by a: new to b");
            assertEquals(1, b.interrupted().size());
            assertEquals(2, rows(db));
        }
    }

    @Test
    void anInterruptedReserveIsListedWithItsBatchUserAndProxyUntilTheActiveProxySettlesIt() throws Exception {
        String db = PostgresServer.get().newDatabase();
        try (Availability a = start(db, "a.example:6830", Duration.ofSeconds(30));
             Availability b = start(db, "b.example:6830", Duration.ofSeconds(1))) {
            Availability.ReserveOf job7 = new Availability.ReserveOf("7", "alice");
            assertNull(a.begin(1000, "job-7-done", "RESERVE", DIGEST, job7));
            assertTrue(a.finish(1000, "job-7-done", "<answer/>".getBytes(StandardCharsets.UTF_8)));
            assertNull(a.begin(1000, "job-7-retry", "RESERVE", DIGEST, job7));
            assertNull(a.begin(1000, "release-1", "RELEASE", DIGEST));
            expireLease(db); // a dies with the retry and the RELEASE under way
            awaitActive(b);

            java.util.List<Availability.LeftReserve> left = b.unsettledReserves();
            assertEquals(1, left.size(), left.toString()); // RESERVEs only: a RELEASE leaves no reservation
            assertEquals(new Availability.LeftReserve(1000, "job-7-retry", "7", "alice", left.get(0).started(),
                    "a.example:6830"), left.get(0));
            assertEquals(1, b.reserveAnswers("7").size(), "what the scheduler was told for job 7");
            assertFalse(a.settle(left.get(0), "released reservation 5"), "only the active proxy settles");
            assertTrue(b.settle(left.get(0), "released reservation 5"));
            assertEquals(java.util.List.of(), b.unsettledReserves());
        }
    }

    private static int rows(String db) throws Exception {
        try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM " + SharedJournal.TABLE)) {
            r.next();
            return r.getInt(1);
        }
    }
}
