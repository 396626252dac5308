package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.emulator.Emulator;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.stats.Stats;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The policy's promise, checked over the emulator: every served inventory is byte for byte what ALPS
 * would have answered at that moment, outside the documented window; every planted orphan is found within
 * one refresh interval; and the backend sees a small fraction of the scheduler's INVENTORY requests.
 */
class InventoryReplayTest {

    static final long SEED = Long.getLong("replay.seed", 20261123L);

    @Test
    void servedInventoriesMatchAlpsOutsideTheWindowAndOrphansAreFoundWithinOneInterval() throws Exception {
        Replay.Result r = new Replay(new Replay.Settings("xc30:64", 250, 6, SEED, Duration.ofSeconds(60), 2)).run();
        System.out.println("replay (seed " + SEED + "): " + r.summary());
        assertTrue(r.failures().isEmpty(), () -> "seed " + SEED + ": " + r.failures().size() + " failures, first: " + r.failures().get(0));
        assertEquals(r.orphansPlanted(), r.orphansFound(), "seed " + SEED);
        assertEquals(0, r.patchMismatches(), () -> "seed " + SEED + ": " + r.summary());
        assertTrue(r.schedulerCalls() > 1500, "thousands of scheduler calls: " + r.schedulerCalls());
        assertTrue(r.backendInventories() * 20 <= r.schedulerInventories(), () -> "seed " + SEED + ": " + r.summary());
    }

    /** The acceptance run: 1,000 jobs on a 2,256-node XC30. {@code mvn -Plong -pl apbasil-proxy test -Dtest=InventoryReplayTest}. */
    @Test
    @Tag("long")
    void acceptanceThousandJobsOnA2256NodeXc30() throws Exception {
        Replay.Result r = new Replay(new Replay.Settings("xc30:2256", 1000, 64, SEED, Duration.ofSeconds(60), 2)).run();
        System.out.println("acceptance replay (seed " + SEED + "): " + r.summary());
        assertTrue(r.failures().isEmpty(), () -> "seed " + SEED + ": " + r.failures().get(0));
        assertEquals(r.orphansPlanted(), r.orphansFound());
        assertTrue(r.backendInventories() * 20 <= r.schedulerInventories(), r::summary);
    }

    /**
     * The demo's sequence, scripted: a node holding a patched reservation fails, then a reservation with a
     * running aprun application is planted behind the proxy's back, then the scheduler reserves again. The
     * failed node's allocations are what the patch said (only its state moved), and the planted reservation
     * took a reservation id and two application ids the cache never saw: the RESERVE answer's id shows the
     * gap, so the cache refreshes instead of guessing the pseudo-application id, and no patch differs from
     * ALPS at the next refresh.
     */
    @Test
    void aReservationPlantedWithARunningApplicationAndFailedNodesLeaveNoCachedPatchDifferentFromAlps() throws Exception {
        BasilCodec codec = BasilCodec.standard();
        InventoryPolicyTest.ManualClock clock = new InventoryPolicyTest.ManualClock();
        Emulator emulator = Emulator.create("xc30:16", () -> clock.millis() / 1000);
        Stats stats = new Stats();
        try (InventoryPolicy policy = new InventoryPolicy(PolicySettings.DEFAULTS, clock, stats, Runnable::run)) {
            Backend chain = policy.decorate(new Backend() {
                @Override
                public byte[] call(Call call) {
                    return emulator.handle(call.request());
                }

                @Override
                public String describe() {
                    return "emulator";
                }
            });
            byte[] inventory = codec.write(BasilRequest.query("1.3", "INVENTORY"));
            Call query = new Call(inventory, "1.3", "QUERY", "INVENTORY", Caller.UNAUTHENTICATED, null);
            java.util.function.LongFunction<Long> reserve = nid -> {
                BasilRequest r = BasilRequest.reserve("1.3", "alice", Long.toString(100 + nid), null, List.of(ReserveParam.builder()
                        .architecture("XT").width(32L).nppn(32).depth(1).nodes(Long.toString(nid)).build()));
                try {
                    return codec.readResponse(chain.call(new Call(codec.write(r), "1.3", "RESERVE", null, Caller.UNAUTHENTICATED, null)))
                            .responseData().content(org.alpsbridge.basil.model.Reserved.class).orElseThrow().reservationId();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            chain.call(query);
            reserve.apply(0); // alice's first: her uid is learned from the next inventory
            chain.call(query);
            reserve.apply(1); // patched
            clock.advance(Duration.ofSeconds(1));
            emulator.control().setState(new int[] {1}, "DOWN");
            assertServedIsAlps(chain.call(query), emulator.handle(inventory), "after the node failure (a SUMMARY change)");
            assertEquals(0, mismatches(stats), "patch mismatches after the node failure: only the node's state moved");

            emulator.control().plantReservation("mallory", "990001", 10);
            clock.advance(Duration.ofSeconds(1));
            reserve.apply(2);
            assertServedIsAlps(chain.call(query), emulator.handle(inventory), "after a RESERVE whose id skipped the planted one");
            reserve.apply(3); // patched, with the application id counter learned from that refresh
            clock.advance(Duration.ofSeconds(1));
            assertServedIsAlps(chain.call(query), emulator.handle(inventory), "from the cache");
            policy.refreshNow();

            var refreshes = stats.snapshot().counters().get("policy_refreshes").values();
            assertEquals(0, mismatches(stats), "patch mismatches; refreshes " + refreshes);
            assertEquals(1L, refreshes.get("unseen-reservation"), "refreshes " + refreshes);
            assertEquals(1L, refreshes.get("summary-changed"), "refreshes " + refreshes);
        }
    }

    private static long mismatches(Stats stats) {
        var mismatches = stats.snapshot().counters().get("policy_patch_mismatches");
        return mismatches == null ? 0 : mismatches.values().getOrDefault("", 0L);
    }

    private static void assertServedIsAlps(byte[] served, byte[] alps, String when) {
        assertArrayEquals(alps, served, () -> when + ": served\n" + new String(served, StandardCharsets.UTF_8)
                .replaceAll("(?s).*<ReservationArray", "<ReservationArray") + "\nALPS\n"
                + new String(alps, StandardCharsets.UTF_8).replaceAll("(?s).*<ReservationArray", "<ReservationArray"));
    }
}
