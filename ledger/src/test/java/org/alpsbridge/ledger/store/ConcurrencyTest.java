package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Outcome.Decision;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 64 threads RESERVE and RELEASE against one allocation whose credit cannot cover them all: it is never
 * overdrawn, a denial always saw too little, every acknowledged charge is in the ledger exactly once, and
 * the journal conserves (credits − settled − held = available). Also: one key reserved from many
 * threads at once holds once.
 */
class ConcurrencyTest {

    static final Instant T = Instant.parse("2026-03-01T00:00:00Z");

    @TempDir
    Path dir;

    @Test
    void sixtyFourThreadsNeverOverdrawSqlite() throws Exception {
        storm("sqlite:" + dir.resolve("storm.db"), 64, 40, System.nanoTime());
    }

    @Test
    void sixtyFourThreadsNeverOverdrawPostgresql() throws Exception {
        storm(PostgresServer.get().newDatabase(), 64, 25, System.nanoTime());
    }

    @Test
    void oneKeyReservedFromManyThreadsHoldsOnceSqlite() throws Exception {
        sameKey("sqlite:" + dir.resolve("same.db"));
    }

    @Test
    void oneKeyReservedFromManyThreadsHoldsOncePostgresql() throws Exception {
        sameKey(PostgresServer.get().newDatabase());
    }

    @Test
    @Tag("long")
    void manyStormsOnBothStores() throws Exception {
        for (int i = 0; i < 20; i++) {
            storm("sqlite:" + dir.resolve("long-" + i + ".db"), 64, 200, System.nanoTime());
            storm(PostgresServer.get().newDatabase(), 64, 100, System.nanoTime());
        }
    }

    static Ledger fresh(String url, long minutes) {
        Ledger ledger = Ledger.open(url);
        ledger.addProject("hot", 1, null);
        ledger.grant("hot", Resource.CPU, minutes, T.minusSeconds(86_400), T.plusSeconds(86_400 * 30), "r", null);
        return ledger;
    }

    /** What one thread of {@link #inThreads} does, given its number. */
    interface ThreadBody {
        void run(int id) throws Exception;
    }

    /** Runs {@code body} on {@code threads} threads released together, and waits (5 min at most) for them all. */
    static void inThreads(int threads, ThreadBody body) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int th = 0; th < threads; th++) {
                int id = th;
                futures.add(pool.submit(() -> {
                    start.await();
                    body.run(id);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdown();
        }
    }

    static void storm(String url, int threads, int perThread, long seed) throws Exception {
        long credit = 200_000;
        String where = "seed " + seed + " " + url.replaceAll("\\?.*", "");
        try (Ledger ledger = fresh(url, credit)) {
            AtomicLong acknowledgedCharges = new AtomicLong();
            AtomicLong accepted = new AtomicLong();
            AtomicLong denied = new AtomicLong();
            List<String> violations = new ArrayList<>();
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int th = 0; th < threads; th++) {
                int id = th;
                futures.add(pool.submit(() -> {
                    Random rnd = new Random(seed + id);
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        long resId = (long) id * 100_000 + i + 1;
                        int nodes = 1 + rnd.nextInt(8);
                        long limitMin = 10 + rnd.nextInt(60);
                        long cost = nodes * 32L * limitMin;
                        Outcome o = ledger.reserve(ReserveRequest.of(resId, "j" + resId, "hot", "u" + id, nodes, 32,
                                limitMin, T));
                        if (o.decision() == Decision.DENIED) {
                            denied.incrementAndGet();
                            if (o.available() >= cost) {
                                synchronized (violations) {
                                    violations.add("denied " + o.key() + " costing " + cost + " with " + o.available()
                                            + " available");
                                }
                            }
                            continue;
                        }
                        accepted.incrementAndGet();
                        if (o.available() < 0) {
                            synchronized (violations) {
                                violations.add("overdrawn after " + o.key() + ": " + o.available());
                            }
                        }
                        ledger.confirm(Lookup.of(resId), T, null);
                        Outcome r = ledger.release(ReleaseRequest.of(resId, rnd.nextInt((int) limitMin * 60 + 1),
                                T.plusSeconds(60)));
                        acknowledgedCharges.addAndGet(r.charge());
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(5, TimeUnit.MINUTES);
            }
            pool.shutdown();
            assertEquals(List.of(), violations, where);
            assertTrue(accepted.get() > 0 && denied.get() > 0, where + ": the storm must contend (accepted "
                    + accepted + ", denied " + denied + ")");
            Balance b = ledger.balances("hot").get(0);
            assertEquals(0, b.held(), where);
            assertEquals(acknowledgedCharges.get(), b.used(), where + ": every acknowledged charge, once");
            long journalSum = ledger.journal(null).stream().mapToLong(JournalEntry::amount).sum();
            assertEquals(b.available(), journalSum, where + ": conservation from the journal");
            assertEquals(credit - b.used() - b.held(), b.available(), where);
            assertEquals(List.of(), ledger.check(), where);
        }
    }

    static void sameKey(String url) throws Exception {
        try (Ledger ledger = fresh(url, 100_000)) {
            int threads = 16;
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            Set<Long> holds = ConcurrentHashMap.newKeySet();
            List<Future<Outcome>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    Outcome o = ledger.reserve(ReserveRequest.of(7, "same", "hot", "u", 2, 32, 60, T));
                    holds.add(o.hold());
                    return o;
                }));
            }
            int replays = 0;
            for (Future<Outcome> f : futures) {
                Outcome o = f.get(1, TimeUnit.MINUTES);
                assertEquals(Decision.OK, o.decision());
                replays += o.replayed() ? 1 : 0;
            }
            pool.shutdown();
            assertEquals(threads - 1, replays);
            assertEquals(Set.of(3_840L), holds);
            assertEquals(1, ledger.journal("default/same/7").size());
            assertEquals(3_840, ledger.balances("hot").get(0).held());
        }
    }
}
