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
        final Map<String, Map<String, String>> pending = new ConcurrentHashMap<>();
        final AtomicInteger listings = new AtomicInteger();
        final AtomicInteger byId = new AtomicInteger();
        final List<Integer> batchSizes = java.util.Collections.synchronizedList(new ArrayList<>());
        volatile long pauseMillis = 50;

        void start(String id, String limit) {
            Map<String, String> r = Map.of("limit", limit, "used", "0:00", "reason", "None", "restarts", "0",
                    "state", "CONFIGURING", "partition", "debug", "mintime", "0:00");
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

        /** A job waiting to start, by its queue key (ARRAYJOB_TASK for an array's task). */
        void pend(String key, String limit, String partition, String minTime) {
            pending.put(key, Map.of("limit", limit, "used", "0:00", "reason", "Resources", "restarts", "0",
                    "state", "PENDING", "partition", partition, "mintime", minTime));
        }

        /** slurmctld starts a waiting job: it leaves the waiting ones and is CONFIGURING under its own id. */
        void startPending(String key, String id, String limit) {
            pending.remove(key);
            Map<String, String> r = Map.of("limit", limit, "used", "0:00", "reason", "None", "restarts", "0",
                    "state", "CONFIGURING", "partition", "debug", "mintime", "0:00");
            configuring.put(key, r);
            all.put(id, r);
        }

        @Override
        public Map<String, Map<String, String>> waiting() throws IOException {
            listings.incrementAndGet();
            Map<String, Map<String, String>> snapshot = new java.util.HashMap<>(pending);
            snapshot.putAll(configuring);
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
                        return batch.starting(job(id));
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
                Future<Map<String, String>> first = pool.submit(() -> batch.starting(job("1")));
                Thread.sleep(100); // the first listing is under way without job 2
                jobs.start("2", "2:00");
                Future<Map<String, String>> second = pool.submit(() -> batch.starting(job("2")));
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
            assertEquals("0:30", batch.starting(job("7")).get("limit"));
            assertEquals("0:40", batch.starting(job("8")).get("limit"));
            assertEquals(1, jobs.listings.get());
            Thread.sleep(SqueueBatch.LISTING_MILLIS + 100);
            assertEquals("0:40", batch.starting(job("8")).get("limit"));
            assertEquals(2, jobs.listings.get(), "a listing older than " + SqueueBatch.LISTING_MILLIS + " ms is not used");
        }
    }

    @Test
    void aJobMissingFromAListingMadeForItIsAskedForById() throws Exception {
        Jobs jobs = new Jobs();
        // cancelled while its prolog ran: no longer CONFIGURING, still known to slurmctld
        jobs.all.put("9", Map.of("limit", "5:00", "used", "0:00", "reason", "None", "restarts", "0", "state", "CANCELLED"));
        try (SqueueBatch batch = new SqueueBatch(jobs, new AgentStats.Timer())) {
            assertEquals("CANCELLED", batch.starting(job("9")).get("state"));
            assertEquals(1, jobs.listings.get());
            assertEquals(1, jobs.byId.get());
            assertTrue(batch.starting(job("10")).isEmpty(), "a job slurmctld does not know has no record");
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

    @Test
    void aListingMadeWhenJobsEndAnswersTheNextWaveWithoutAnotherSqueue() throws Exception {
        Jobs jobs = new Jobs();
        for (int i = 1; i <= 20; i++) {
            jobs.pend("40_" + i, "1:00", "debug", "0:00");
        }
        try (SqueueBatch batch = new SqueueBatch(jobs, new AgentStats.Timer())) {
            batch.lookAhead(); // an epilog: CPUs are free, the array's next tasks start soon
            awaitListings(jobs, 1);
            batch.lookAhead(); // more epilogs at once ask for nothing more
            for (int i = 1; i <= 20; i++) {
                jobs.startPending("40_" + i, Integer.toString(100 + i), "1:00");
            }
            for (int i = 1; i <= 20; i++) {
                assertEquals("1:00", batch.starting(arrayTask(Integer.toString(100 + i), "40_" + i, "debug")).get("limit"));
            }
            assertEquals(1, jobs.listings.get(), "the wave's prologs are answered from the listing made ahead");
            assertEquals(0, jobs.byId.get());
        }
    }

    @Test
    void aWaitingJobWhoseLimitMayChangeAsItStartsIsListedAgain() throws Exception {
        Jobs jobs = new Jobs();
        jobs.pend("50", "10:00", "debug", "2:00"); // --time-min: slurmctld may lower its limit as it starts it
        jobs.pend("51", "10:00", "debug,big", "0:00"); // waiting in two partitions
        try (SqueueBatch batch = new SqueueBatch(jobs, new AgentStats.Timer())) {
            batch.lookAhead();
            awaitListings(jobs, 1);
            jobs.startPending("50", "50", "4:00");
            jobs.startPending("51", "51", "10:00");
            assertEquals("4:00", batch.starting(job("50")).get("limit"), "the limit it started with");
            assertEquals(2, jobs.listings.get(), "listed again once started");
            assertEquals("10:00", batch.starting(new SlurmJob("lab", "51", 0, "chem", "alice", "big", 1, 1, "n1"))
                    .get("limit"));
            assertEquals(2, jobs.listings.get(), "answered by the second listing, where it is CONFIGURING");
        }
    }

    private static void awaitListings(Jobs jobs, int n) throws InterruptedException {
        for (int i = 0; i < 200 && jobs.listings.get() < n; i++) {
            Thread.sleep(10);
        }
        Thread.sleep(jobs.pauseMillis + 50); // and its answer kept
        assertEquals(n, jobs.listings.get());
    }

    private static SlurmJob job(String id) {
        return new SlurmJob("lab", id, 0, "chem", "alice", "debug", 1, 1, "n1");
    }

    private static SlurmJob arrayTask(String id, String queueKey, String partition) {
        return new SlurmJob("lab", id, 0, "chem", "alice", partition, 1, 1, "n1", queueKey);
    }
}
