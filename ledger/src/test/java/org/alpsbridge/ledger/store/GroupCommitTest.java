package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit, on both stores: 32 threads charge one allocation, so events share commits; every fifth
 * RESERVE names a partition the ledger does not know and fails inside the shared transaction. It fails
 * alone: every other event of its group is committed and acknowledged once, and the ledger checks clean.
 */
class GroupCommitTest {

    @TempDir
    Path dir;

    @Test
    void aFailingEventFailsAloneOnPostgresql() throws Exception {
        hotWithFailures(PostgresServer.get().newDatabase());
    }

    @Test
    void aFailingEventFailsAloneOnSqlite() throws Exception {
        hotWithFailures("sqlite:" + dir.resolve("group.db"));
    }

    private static void hotWithFailures(String url) throws Exception {
        int threads = 32;
        int perThread = 15;
        try (JdbcLedger ledger = (JdbcLedger) ConcurrencyTest.fresh(url, 10_000_000)) {
            AtomicLong charged = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            inThreads(threads, (id, start) -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    long resId = id * 1_000L + i + 1;
                    boolean bad = i % 5 == 4;
                    ReserveRequest q = new ReserveRequest(null, "j" + resId, resId, null, "hot", "u", bad ? "nosuch"
                            : null, Resource.CPU, 1, NodeShape.cores(32), 600, ConcurrencyTest.T);
                    if (bad) {
                        LedgerException e = assertThrows(LedgerException.class, () -> ledger.reserve(q));
                        assertTrue(e.getMessage().contains("unknown partition 'nosuch'"), e.getMessage());
                        refused.incrementAndGet();
                        continue;
                    }
                    assertTrue(ledger.reserve(q).ok());
                    Outcome r = ledger.release(ReleaseRequest.of(resId, 300, ConcurrencyTest.T.plusSeconds(300)));
                    assertEquals(160, r.charge());
                    charged.addAndGet(r.charge());
                }
            });
            assertEquals(threads * (perThread / 5), refused.get());
            Balance b = ledger.balances("hot").get(0);
            assertEquals(0, b.held());
            assertEquals(charged.get(), b.used(), "every acknowledged charge, once");
            assertEquals(List.of(), ledger.check());
            assertTrue(ledger.eventsPerCommit() > 1.0, "events shared commits: " + ledger.eventsPerCommit());
            assertTrue(ledger.failures("hot", 10).isEmpty(), "a failed event leaves no trace");
        }
    }

    /**
     * Issue 21: the write connections plan each statement once for any arguments (the shared statements' arrays
     * vary in length, and would be planned again at each execution); reads are planned as PostgreSQL chooses.
     */
    @Test
    void writeConnectionsPlanEachStatementOnce() {
        try (PostgresExecutor e = new PostgresExecutor(Dialect.jdbcUrl(PostgresServer.get().newDatabase()),
                StoreSettings.Postgres.DEFAULTS)) {
            Tx<String> mode = c -> Sql.one(c, "SHOW plan_cache_mode", rs -> rs.getString(1));
            assertEquals("force_generic_plan", e.write(mode));
            assertEquals("auto", e.read(mode));
        }
    }

    /**
     * {@code pg_pool} is how many transactions are in progress at once: 8 threads writing at once, each write
     * holding its connection a while, take exactly that many write connections (server processes).
     */
    @Test
    void writesTakeAsManyConnectionsAsPgPoolSays() throws Exception {
        String url = Dialect.jdbcUrl(PostgresServer.get().newDatabase());
        try (PostgresExecutor e = new PostgresExecutor(url, StoreSettings.Postgres.of(java.util.Map.of("pg_pool", "2")))) {
            java.util.Set<Integer> servers = java.util.concurrent.ConcurrentHashMap.newKeySet();
            ExecutorService threads = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> writes = new ArrayList<>();
                for (int i = 0; i < 32; i++) {
                    writes.add(threads.submit(() -> e.write(c -> {
                        servers.add(Sql.one(c, "SELECT pg_backend_pid() FROM pg_sleep(0.02)", rs -> rs.getInt(1)));
                        return null;
                    })));
                }
                for (Future<?> w : writes) {
                    w.get(60, TimeUnit.SECONDS);
                }
            } finally {
                threads.shutdownNow();
            }
            assertEquals(2, servers.size(), "write connections: " + servers);
        }
    }

    @Test
    void aStoreSettingNotDeclaredOrABadValueIsRefusedAtOpen() {
        String db = "sqlite:" + dir.resolve("settings.db");
        LedgerException e = assertThrows(LedgerException.class,
                () -> org.alpsbridge.ledger.Ledger.open(db, true, java.util.Map.of("pgPool", "4")));
        assertEquals("unknown ledger store setting 'pgPool' (known: pg_pool, pg_group_writers, pg_reconnect_seconds)",
                e.getMessage());
        e = assertThrows(LedgerException.class,
                () -> org.alpsbridge.ledger.Ledger.open(db, true, java.util.Map.of("pg_group_writers", "0")));
        assertEquals("pg_group_writers=0: expected a whole number of 1 or more", e.getMessage());
    }

    @Test
    void anEventRepeatedAtOnceTakesEffectOnceOnPostgresql() throws Exception {
        eventsRepeatedAtOnce(PostgresServer.get().newDatabase());
    }

    @Test
    void anEventRepeatedAtOnceTakesEffectOnceOnSqlite() throws Exception {
        eventsRepeatedAtOnce("sqlite:" + dir.resolve("repeat.db"));
    }

    /**
     * Issue 21: a transaction reads what its RESERVEs charge and the reservations its RELEASEs settle before
     * it applies the first event, so a RESERVE sent by 16 callers at once (a retried prolog) finds the key free
     * in each of them, and a RELEASE sent so (a retried epilog) finds its reservation unsettled in each; the
     * first of them settles it, in the same transaction or in another. The first takes effect; the others find the key
     * taken (and run again on their own) or the reservation settled with their report, and get the stored
     * outcome: each job held once and charged once, every answer the same.
     */
    private static void eventsRepeatedAtOnce(String url) throws Exception {
        int threads = 16;
        int jobs = 40;
        try (JdbcLedger ledger = (JdbcLedger) ConcurrencyTest.fresh(url, 10_000_000)) {
            AtomicLong held = new AtomicLong();
            AtomicLong settled = new AtomicLong();
            inThreads(threads, (id, together) -> {
                for (int j = 1; j <= jobs; j++) {
                    together.await();
                    Outcome h = ledger.reserve(new ReserveRequest(null, "j" + j, j, null, "hot", "u", null,
                            Resource.CPU, 1, NodeShape.cores(32), 600, ConcurrencyTest.T));
                    assertTrue(h.ok(), h.toString());
                    assertEquals(320, h.hold(), h.toString());
                    if (!h.replayed()) {
                        held.incrementAndGet();
                    }
                    together.await();
                    Outcome r = ledger.release(ReleaseRequest.of(j, 300, ConcurrencyTest.T.plusSeconds(300)));
                    assertTrue(r.ok(), r.toString());
                    assertEquals(160, r.charge(), r.toString());
                    if (!r.replayed()) {
                        settled.incrementAndGet();
                    }
                }
            });
            assertEquals(jobs, held.get(), "each RESERVE held once, the repeats answered from the store");
            assertEquals(jobs, settled.get(), "each RELEASE settled once, the repeats answered from the store");
            Balance b = ledger.balances("hot").get(0);
            assertEquals(0, b.held());
            assertEquals(160L * jobs, b.used());
            assertEquals(List.of(), ledger.check());
        }
    }

    /** What one of the test's threads does: {@code id} from 0, {@code barrier} shared by all of them. */
    @FunctionalInterface
    private interface Body {
        void run(int id, CyclicBarrier barrier) throws Exception;
    }

    /** Runs {@code body} in {@code threads} threads at once and waits for all (5 minutes at most), failing with the first failure. */
    private static void inThreads(int threads, Body body) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int th = 0; th < threads; th++) {
                int id = th;
                futures.add(pool.submit(() -> {
                    body.run(id, barrier);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
