package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RESERVEs call ALPS without the policy's lock (pbs_mom reserves from several forked job starters at once): none waits
 * for another, nor for a refresh or a cached answer, and every inventory served afterwards is still, byte for byte,
 * what ALPS answers. A RESERVE's pseudo-application id is inferred only when no other RESERVE was at ALPS beside it;
 * otherwise the next scheduler INVENTORY is a full one ({@code reserve-overlapped}).
 */
class ConcurrentReserveTest {

    private static final BasilCodec CODEC = BasilCodec.standard();

    /** RESERVEs held at ALPS, by batch id: before ALPS handles them, or after, with the answer on its way back. */
    private final Map<String, Hold> holds = new ConcurrentHashMap<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    /** One RESERVE held: {@link #reached} once it is held, and it goes on when {@link #go} is counted down. */
    private record Hold(boolean afterAlps, CountDownLatch reached, CountDownLatch go) {
        Hold(boolean afterAlps) {
            this(afterAlps, new CountDownLatch(1), new CountDownLatch(1));
        }

        void pass() {
            reached.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @AfterEach
    void stop() {
        holds.values().forEach(h -> h.go().countDown());
        pool.shutdownNow();
    }

    /** The emulated ALPS, holding the RESERVEs of {@link #holds} where told. */
    private Backend holding(Backend alps) {
        return new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                Hold hold = null;
                if ("RESERVE".equals(call.method())) {
                    try {
                        hold = holds.get(CODEC.readRequest(call.request()).batchId());
                    } catch (BasilException e) {
                        throw new AssertionError(e);
                    }
                }
                if (hold != null && !hold.afterAlps()) {
                    hold.pass();
                }
                byte[] answer = alps.call(call);
                if (hold != null && hold.afterAlps()) {
                    hold.pass();
                }
                return answer;
            }

            @Override
            public String describe() {
                return alps.describe();
            }
        };
    }

    private EmulatedScheduler scheduler() throws Exception {
        EmulatedScheduler s = new EmulatedScheduler("xc30:16", emulator -> emulator::userIds, Duration.ZERO, this::holding);
        s.reserve("alice", 15);
        s.inventory(); // the cache knows ALPS's application ids and alice's uid from here on
        return s;
    }

    /** Holds the RESERVE of node {@code nid} (batch id 100 + nid) and starts it on another thread. */
    private Future<Long> reserveHeld(EmulatedScheduler s, long nid, boolean afterAlps) throws Exception {
        Hold hold = new Hold(afterAlps);
        holds.put(Long.toString(100 + nid), hold);
        Future<Long> id = pool.submit(() -> s.reserve("alice", nid));
        assertTrue(hold.reached().await(60, TimeUnit.SECONDS), "the RESERVE reached ALPS");
        return id;
    }

    /** What {@code call} returns, on another thread; fails if it has not returned within a minute (it waits for a held call). */
    private <T> T answered(java.util.concurrent.Callable<T> call) throws Exception {
        try {
            return pool.submit(call).get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("not answered while a RESERVE was held at ALPS", e);
        }
    }

    private void letGo(long nid) {
        holds.get(Long.toString(100 + nid)).go().countDown();
    }

    @Test
    void aReserveIsAnsweredWhileAnotherIsAtAlpsAndNeitherPseudoApplicationIdIsGuessed() throws Exception {
        try (EmulatedScheduler s = scheduler()) {
            Future<Long> first = reserveHeld(s, 1, true);
            long second = answered(() -> s.reserve("alice", 2)); // while the first is still held at ALPS
            assertFalse(first.isDone(), "(the first RESERVE was still held)");
            letGo(1);
            long firstId = first.get(60, TimeUnit.SECONDS);
            assertTrue(firstId != second);

            s.assertServedIsAlps("after two RESERVEs at ALPS at once");
            assertEquals(Map.of("start", 1L, "reserve-overlapped", 1L), s.refreshes());
            s.reserve("alice", 3); // one at a time again: patched
            s.assertServedIsAlps("after a RESERVE alone");
            assertEquals(Map.of("start", 1L, "reserve-overlapped", 1L), s.refreshes());
            s.policy.refreshNow();
            assertEquals(0, s.patchMismatches());
        }
    }

    /** A SWITCH takes no ids: it is answered while a RESERVE is at ALPS, and the next INVENTORY is a full one, as ever. */
    @Test
    void aSwitchIsAnsweredWhileAReserveIsAtAlpsAndTheNextInventoryIsAlps() throws Exception {
        try (EmulatedScheduler s = scheduler()) {
            long held = s.reserve("alice", 2);
            Future<Long> id = reserveHeld(s, 1, true);
            byte[] answer = answered(() -> s.switchReservation(held, "OUT"));
            assertTrue(CODEC.readResponse(answer).responseData().isSuccess(), new String(answer, java.nio.charset.StandardCharsets.UTF_8));
            assertFalse(id.isDone(), "(the RESERVE was still held)");
            letGo(1);
            id.get(60, TimeUnit.SECONDS);
            s.assertServedIsAlps("after the SWITCH and the RESERVE");
            assertEquals(Map.of("start", 1L, "switch", 1L), s.refreshes());
        }
    }

    @Test
    void aCachedAnswerGivenWhileAReserveIsAtAlpsShowsTheStateBeforeItAndTheNextOneShowsIt() throws Exception {
        try (EmulatedScheduler s = scheduler()) {
            byte[] before = s.alpsInventory();
            Future<Long> id = reserveHeld(s, 1, true);
            assertArrayEquals(before, answered(s::inventory), "answered from the cache while the RESERVE is at ALPS: the state before it");
            assertFalse(id.isDone(), "(the RESERVE was still held)");
            letGo(1);
            id.get(60, TimeUnit.SECONDS);
            s.assertServedIsAlps("after the RESERVE");
            assertEquals(Map.of("start", 1L), s.refreshes(), "patched, not fetched");
        }
    }

    /** A refresh fetched before ALPS made the reservation does not show it: the RESERVE's patch then adds it. */
    @Test
    void aReserveAtAlpsAfterARefreshCompletedBesideItIsPatchedIntoWhatTheRefreshBrought() throws Exception {
        aRefreshCompletesWhileAReserveIsInFlight(false);
    }

    /** A refresh fetched after ALPS made the reservation shows it: the RESERVE's patch, arriving later, is skipped. */
    @Test
    void aReserveARefreshBesideItAlreadyShowsIsNotPatchedInTwice() throws Exception {
        aRefreshCompletesWhileAReserveIsInFlight(true);
    }

    private void aRefreshCompletesWhileAReserveIsInFlight(boolean alpsMadeItFirst) throws Exception {
        try (EmulatedScheduler s = scheduler()) {
            Future<Long> id = reserveHeld(s, 1, alpsMadeItFirst);
            assertEquals(1, answered(s.policy::refreshNow), "the refresh completes while the RESERVE is held");
            assertFalse(id.isDone(), "(the RESERVE was still held)");
            letGo(1);
            id.get(60, TimeUnit.SECONDS);
            s.assertServedIsAlps("after the RESERVE");
            s.reserve("alice", 2);
            s.assertServedIsAlps("after the next RESERVE, its pseudo-application id inferred");
            assertEquals(Map.of("start", 1L, "operator", 1L), s.refreshes(), "patched, not fetched");
            s.policy.refreshNow();
            assertEquals(0, s.patchMismatches());
        }
    }

    /**
     * Rounds of RESERVEs from seven threads at once, each held at ALPS for a seeded while (the seed is printed), then
     * RELEASEs likewise, with a scheduler INVENTORY after each round: each is ALPS's, byte for byte.
     */
    @Test
    void reservesAndReleasesFromManyThreadsLeaveEveryServedInventoryAlps() throws Exception {
        long seed = System.nanoTime();
        System.out.println("ConcurrentReserveTest seed " + seed);
        Random random = new Random(seed);
        int threads = 7;
        Map<String, Integer> delays = new ConcurrentHashMap<>();
        UnaryOperator<Backend> around = alps -> new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                Integer ms = delays.get(call.method());
                if (ms != null && ms > 0) {
                    try {
                        Thread.sleep(random.nextInt(ms));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return alps.call(call);
            }

            @Override
            public String describe() {
                return alps.describe();
            }
        };
        try (EmulatedScheduler s = new EmulatedScheduler("xc30:16", emulator -> emulator::userIds, Duration.ZERO, around)) {
            s.reserve("alice", 15);
            s.inventory();
            delays.put("RESERVE", 5);
            delays.put("RELEASE", 5);
            for (int round = 0; round < 6; round++) { // nodes 0-6, then 7-13
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Long>> ids = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    long nid = (round % 2) * threads + t;
                    ids.add(pool.submit(() -> {
                        start.await();
                        return s.reserve("alice", nid);
                    }));
                }
                List<Long> made = new ArrayList<>();
                for (Future<Long> f : ids) {
                    made.add(f.get(60, TimeUnit.SECONDS));
                }
                s.assertServedIsAlps("round " + round + " after " + threads + " RESERVEs at once (seed " + seed + ")");
                CyclicBarrier release = new CyclicBarrier(threads);
                List<Future<?>> done = new ArrayList<>();
                for (long id : made) {
                    done.add(pool.submit(() -> {
                        release.await();
                        s.release(id);
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
                s.assertServedIsAlps("round " + round + " after their RELEASEs (seed " + seed + ")");
            }
            s.policy.refreshNow();
            assertEquals(0, s.patchMismatches(), "seed " + seed);
        }
    }
}
