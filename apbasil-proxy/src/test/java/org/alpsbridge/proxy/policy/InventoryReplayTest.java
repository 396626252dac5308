package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
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
        assertTrue(r.patches().getOrDefault("release-drained", 0L) > 100, () -> "jobs' claims drained after their RELEASE: " + r.summary());
        assertEquals(null, r.reasons().get("release-pending"));
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
     * A backend that takes 1.3 s before ALPS stamps its answer (the drop-in emulator's JVM start under exec:, a real
     * apbasil's start and round trip): the offset of ALPS's clock is judged from when the inventory arrived, so a
     * patched reservation's time_stamp is what ALPS wrote, not a second or two later.
     */
    @Test
    void aSlowBackendLeavesThePatchedTimeStampsAsAlpsWroteThem() throws Exception {
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> emulator::userIds, Duration.ofMillis(1300))) {
            for (int i = 0; i < 4; i++) {
                s.inventory();
                s.reserve("alice", i);
                s.advance(Duration.ofMillis(400));
                s.assertServedIsAlps("after RESERVE " + i);
            }
            s.policy.refreshNow();
            assertEquals(0, s.patchMismatches(), "refreshes " + s.refreshes());
        }
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
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> UserIds.NONE)) {
            s.inventory();
            s.reserve("alice", 0); // alice's first: her uid is learned from the next inventory
            s.inventory();
            s.reserve("alice", 1); // patched
            s.advance(Duration.ofSeconds(1));
            s.emulator.control().setState(new int[] {1}, "DOWN");
            s.assertServedIsAlps("after the node failure (a SUMMARY change)");
            assertEquals(0, s.patchMismatches(), "patch mismatches after the node failure: only the node's state moved");

            s.emulator.control().plantReservation("mallory", "990001", 10);
            s.advance(Duration.ofSeconds(1));
            s.reserve("alice", 2);
            s.assertServedIsAlps("after a RESERVE whose id skipped the planted one");
            s.reserve("alice", 3); // patched, with the application id counter learned from that refresh
            s.advance(Duration.ofSeconds(1));
            s.assertServedIsAlps("from the cache");
            s.policy.refreshNow();

            assertEquals(0, s.patchMismatches(), "patch mismatches; refreshes " + s.refreshes());
            assertEquals(1L, s.refreshes().get("unseen-reservation"), "refreshes " + s.refreshes());
            assertEquals(1L, s.refreshes().get("summary-changed"), "refreshes " + s.refreshes());
        }
    }
}
