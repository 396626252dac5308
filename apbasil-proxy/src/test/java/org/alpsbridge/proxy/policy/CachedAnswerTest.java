package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.InventoryWriter;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.stats.Stats;
import org.junit.jupiter.api.Test;

/**
 * A cached answer is taken under the policy's lock and written outside it ({@link InventoryAnswer}): what every
 * INVENTORY gets is still exactly one document ALPS would have answered, whatever changes run beside it.
 */
class CachedAnswerTest {

    private static final BasilCodec CODEC = BasilCodec.standard();

    /**
     * Scheduler INVENTORYs from several threads at once, with RESERVEs and RELEASEs through the policy between and
     * during them (the clock stands still, so every state has one document): each answer is, byte for byte, what
     * ALPS answered in one of the states it went through, never a mix of two.
     */
    @Test
    void concurrentCachedAnswersWithPatchesBetweenThemAreEachOneStateOfAlps() throws Exception {
        try (EmulatedScheduler s = new EmulatedScheduler("xc30:256", emulator -> emulator::userIds, Duration.ZERO)) {
            s.reserve("alice", 255); // so that the cache knows ALPS's application ids and alice's uid from the start
            s.inventory(); // the cache is full from here on
            Set<String> alpsStates = ConcurrentHashMap.newKeySet();
            alpsStates.add(digest(s.alpsInventory()));
            Set<String> served = ConcurrentHashMap.newKeySet();
            AtomicBoolean done = new AtomicBoolean();
            ExecutorService readers = Executors.newFixedThreadPool(3);
            List<Future<Integer>> counts = new ArrayList<>();
            try {
                for (int r = 0; r < 3; r++) {
                    counts.add(readers.submit(() -> {
                        int n = 0;
                        while (!done.get() || n == 0) {
                            served.add(digest(s.inventory()));
                            n++;
                        }
                        return n;
                    }));
                }
                List<Long> held = new ArrayList<>();
                for (int step = 0; step < 200; step++) {
                    if (held.size() < 4 && (step % 3 != 2 || held.isEmpty())) {
                        held.add(s.reserve("alice", step % 255));
                    } else {
                        s.release(held.remove(0));
                    }
                    alpsStates.add(digest(s.alpsInventory()));
                }
                done.set(true);
                for (Future<Integer> f : counts) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                done.set(true);
                readers.shutdownNow();
            }
            assertTrue(s.refreshes().equals(Map.of("start", 1L)), "every answer after the reservation made first came from the cache: "
                    + s.refreshes());
            Set<String> never = new java.util.HashSet<>(served);
            never.removeAll(alpsStates);
            assertTrue(never.isEmpty(), never.size() + " of " + served.size() + " distinct answers are none that ALPS gave");
            assertTrue(served.size() > 1, "the readers saw the changes: " + served.size() + " distinct answers");
        }
    }

    /**
     * A RELEASE is answered while a full fetch holds the policy (an 82-MB INVENTORY takes seconds to fetch and read),
     * and its patch is applied to what that fetch brings: the fetch shows the reservation (ALPS answered it before the
     * RELEASE), and the next cached answer, like ALPS, no longer does.
     */
    @Test
    void aReleaseIsAnsweredWhileARefreshHoldsThePolicyAndPatchesWhatItBrings() throws Exception {
        InventoryPolicyTest.ManualClock clock = new InventoryPolicyTest.ManualClock();
        Emulator alps = Emulator.create("xc30:16", () -> clock.millis() / 1000);
        CountDownLatch fetched = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicBoolean holdFetch = new AtomicBoolean();
        InventoryPolicy policy = new InventoryPolicy(PolicySettings.DEFAULTS, alps::userIds, clock, new Stats(), Runnable::run);
        Backend chain = policy.decorate(new Backend() {
            @Override
            public byte[] call(Call call) {
                byte[] answer = alps.handle(call.request());
                if ("INVENTORY".equals(call.queryType()) && holdFetch.get()) {
                    fetched.countDown();
                    try {
                        finish.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return answer;
            }

            @Override
            public String describe() {
                return "emulator";
            }
        });
        byte[] inventory = CODEC.write(BasilRequest.query("1.3", "INVENTORY"));
        Call inventoryCall = new Call(inventory, "1.3", "QUERY", "INVENTORY", Caller.UNAUTHENTICATED, null);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            chain.call(inventoryCall);
            long id = CODEC.readResponse(chain.call(new Call(CODEC.write(BasilRequest.reserve("1.3", "alice", "7", null,
                    List.of(ReserveParam.builder().width(32L).nodes("3").build()))), "1.3", "RESERVE", null,
                    Caller.UNAUTHENTICATED, null))).responseData().content(Reserved.class).orElseThrow().reservationId();

            holdFetch.set(true);
            Future<Integer> refresh = pool.submit(policy::refreshNow);
            fetched.await();
            Future<byte[]> release = pool.submit(() -> chain.call(new Call(CODEC.write(BasilRequest.release("1.3", id)), "1.3",
                    "RELEASE", null, Caller.UNAUTHENTICATED, null)));
            assertTrue(CODEC.readResponse(release.get(60, TimeUnit.SECONDS)).responseData().isSuccess(),
                    "the RELEASE is answered while the refresh still holds the policy");
            assertFalse(refresh.isDone(), "(the refresh was still held)");
            finish.countDown();
            assertEquals(1, refresh.get(60, TimeUnit.SECONDS));

            holdFetch.set(false);
            byte[] served = chain.call(inventoryCall);
            assertArrayEquals(alps.handle(inventory), served, "the cached answer after both is ALPS's");
            assertFalse(new String(served, StandardCharsets.US_ASCII).contains("reservation_id=\"" + id + "\""));
        } finally {
            finish.countDown();
            pool.shutdownNow();
            policy.close();
        }
    }

    /**
     * Re-stamping the bytes of an answer is writing it anew under the other stamp, for any stamp (seeded; the seed is
     * printed), also one with more or fewer digits.
     */
    @Test
    void aRestampedAnswerIsTheAnswerWrittenUnderTheNewStamp() throws Exception {
        long seed = System.nanoTime();
        System.out.println("CachedAnswerTest seed " + seed);
        Random random = new Random(seed);
        for (String protocol : List.of("1.1", "1.2", "1.3", "1.7")) {
            Emulator alps = Emulator.create("xc30:4", () -> 1_700_000_000L);
            byte[] fetched = alps.handle(("<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"" + protocol
                    + "\" method=\"QUERY\" type=\"INVENTORY\"/>").getBytes(StandardCharsets.US_ASCII));
            List<NodeView> nodes = new ArrayList<>();
            List<ReservationView> reservations = new ArrayList<>();
            InventoryHeader header;
            try (InventoryReader r = InventoryReader.open(new java.io.ByteArrayInputStream(fetched))) {
                header = r.header();
                for (NodeView n; (n = r.nextNode()) != null; ) {
                    nodes.add(n);
                }
                for (ReservationView v; (v = r.nextReservation()) != null; ) {
                    reservations.add(v);
                }
            }
            for (int i = 0; i < 20; i++) {
                long from = header.timestamp();
                long to = i == 0 ? 999_999_999L : i == 1 ? 10_000_000_000L : from + random.nextInt(100_000);
                byte[] expected = InventoryWriter.write(stamped(header, to), nodes, reservations);
                long stamp = to;
                assertArrayEquals(expected, InventoryAnswer.restamp(fetched, from, to),
                        () -> protocol + ": " + from + " -> " + stamp + " (seed " + seed + ")");
            }
            assertNull(InventoryAnswer.restamp(fetched, header.timestamp() + 1, header.timestamp() + 2),
                    "a stamp that is not the document's: not re-stamped (the answer is written anew)");
        }
    }

    private static String digest(byte[] document) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(document));
    }

    private static InventoryHeader stamped(InventoryHeader h, long timestamp) {
        return new InventoryHeader(h.protocol(), h.status(), h.method(), h.errorClass(), h.errorSource(), h.messages(),
                h.mppHost(), timestamp, h.cpcu(), h.changecount(), h.schedchangecount());
    }
}
