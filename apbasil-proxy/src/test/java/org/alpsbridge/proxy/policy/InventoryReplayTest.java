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
}
