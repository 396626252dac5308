package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * How the agent reads job records: a wave of prologs shares one listing of the jobs slurmctld is starting;
 * settlements' records by id are gathered into few squeue calls. The listings here come from a table in
 * memory that counts its calls (the real squeue is run by the Slurm tests: SlurmHookSlurmTest, SlurmStormTest).
 */
class SqueueBatchTest {

    /** slurmctld's jobs as squeue would list them, with a pause per call like an RPC's. */
    private static final class Jobs implements SqueueBatch.Listings {
        final Map<String, Map<String, String>> configuring = new ConcurrentHashMap<>();
        final Map<String, Map<String, String>> all = new ConcurrentHashMap<>();
        final AtomicInteger listings = new AtomicInteger();
        final AtomicInteger byId = new AtomicInteger();
        final List<Integer> batchSizes = java.util.Collections.synchronizedList(new ArrayList<>());
        volatile long pauseMillis = 50;

        void start(String id, String limit) {
            Map<String, String> r = Map.of("limit", limit, "used", "0:00", "reason", "None", "restarts", "0",
                    "state", "CONFIGURING");
            configuring.put(id, r);
            all.put(id, r);
        }

        @Override
        public Map<String, Map<String, String>> jobs(Collection<String> ids) throws IOException {
            byId.incrementAndGet();
            batchSizes.add(ids.size());
            pause();
            Map<String, Map<String, String>> found = new java.util.HashMap<>();
            ids.forEach(id -> {
                if (all.containsKey(id)) {
                    found.put(id, all.get(id));
                }
            });
            return found;
        }

        @Override
        public Map<String, Map<String, String>> configuring() throws IOException {
            listings.incrementAndGet();
            Map<String, Map<String, String>> snapshot = Map.copyOf(configuring);
            pause();
            return snapshot;
        }

        private void pause() {
            try {
                Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void aWaveOfPrologsSharesOneListing() throws Exception {
        Jobs jobs = new Jobs();
        for (int i = 1; i <= 50; i++) {
            jobs.start(Integer.toString(i), "1:00");
        }
        try (SqueueBatch batch = new SqueueBatch(jobs, new AgentStats.Timer())) {
            ExecutorService pool = Executors.newFixedThreadPool(50);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Map<String, String>>> answers = new ArrayList<>();
                for (int i = 1; i <= 50; i++) {
                    String id = Integer.toString(i);
                    answers.add(pool.submit(() -> {
                        go.await();
                        return batch.starting(id);
                    }));
                }
                go.countDown();
                for (Future<Map<String, String>> a : answers) {
                    assertEquals("1:00", a.get(10, TimeUnit.SECONDS).get("limit"));
                }
            } finally {
                pool.shutdownNow();
            }
            // the first prolog's listing holds the whole wave; the ones that came while it ran join it
            assertEquals(1, jobs.listings.get(), "listings for one wave");
            assertEquals(0, jobs.byId.get(), "no job asked for by id");
        }
    }

    @Test
    void aJobAllocatedAfterTheListingBeganWaitsForTheNextOne() throws Exception {
        Jobs jobs = new Jobs();
        jobs.pauseMillis = 300;
        jobs.start("1", "1:00");
        try (SqueueBatch batch = new SqueueBatch(jobs, new AgentStats.Timer())) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<Map<String, String>> first = pool.submit(() -> batch.starting("1"));
                Thread.sleep(100); // the first listing is under way without job 2
                jobs.start("2", "2:00");
                Future<Map<String, String>> second = pool.submit(() -> batch.starting("2"));
                assertEquals("1:00", first.get(10, TimeUnit.SECONDS).get("limit"));
                assertEquals("2:00", second.get(10, TimeUnit.SECONDS).get("limit"));
            } finally {
                pool.shutdownNow();
            }
            assertEquals(2, jobs.listings.get(), "a second listing for the job the first could not hold");
        }
    }

    @Test
    void aFreshListingAnswersWithoutSqueueAndAStaleOneIsMadeAgain() throws Exception {
        Jobs jobs = new Jobs();
        jobs.start("7", "0:30");
        jobs.start("8", "0:40");
        try (SqueueBatch batch = new SqueueBatch(jobs, new AgentStats.Timer())) {
            assertEquals("0:30", batch.starting("7").get("limit"));
            assertEquals("0:40", batch.starting("8").get("limit"));
            assertEquals(1, jobs.listings.get());
            Thread.sleep(SqueueBatch.LISTING_MILLIS + 100);
            assertEquals("0:40", batch.starting("8").get("limit"));
            assertEquals(2, jobs.listings.get(), "a listing older than " + SqueueBatch.LISTING_MILLIS + " ms is not used");
        }
    }

    @Test
    void aJobMissingFromAListingMadeForItIsAskedForById() throws Exception {
        Jobs jobs = new Jobs();
        // cancelled while its prolog ran: no longer CONFIGURING, still known to slurmctld
        jobs.all.put("9", Map.of("limit", "5:00", "used", "0:00", "reason", "None", "restarts", "0", "state", "CANCELLED"));
        try (SqueueBatch batch = new SqueueBatch(jobs, new AgentStats.Timer())) {
            assertEquals("CANCELLED", batch.starting("9").get("state"));
            assertEquals(1, jobs.listings.get());
            assertEquals(1, jobs.byId.get());
            assertTrue(batch.starting("10").isEmpty(), "a job slurmctld does not know has no record");
        }
    }

    @Test
    void settlementsAskedForTogetherShareOneSqueue() throws Exception {
        Jobs jobs = new Jobs();
        for (int i = 1; i <= 20; i++) {
            jobs.start(Integer.toString(i), "1:00");
        }
        try (SqueueBatch batch = new SqueueBatch(jobs, new AgentStats.Timer())) {
            ExecutorService pool = Executors.newFixedThreadPool(20);
            try {
                List<Future<Map<String, String>>> answers = new ArrayList<>();
                for (int i = 1; i <= 20; i++) {
                    String id = Integer.toString(i);
                    answers.add(pool.submit(() -> batch.job(id)));
                    Thread.sleep(5); // one after another, as a wave of epilogs is settled
                }
                for (Future<Map<String, String>> a : answers) {
                    assertEquals("1:00", a.get(10, TimeUnit.SECONDS).get("limit"));
                }
            } finally {
                pool.shutdownNow();
            }
            assertTrue(jobs.byId.get() <= 2, "squeue calls for 20 settlements within "
                    + SqueueBatch.GATHER_MILLIS + " ms: " + jobs.batchSizes);
            assertEquals(0, jobs.listings.get());
        }
    }
}
