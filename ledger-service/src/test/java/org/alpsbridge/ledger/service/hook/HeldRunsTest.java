package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What the agent remembers of its prologs so that a settlement need not ask whether its run was denied. */
class HeldRunsTest {

    private static SlurmJob run(String cluster, String id, int restart) {
        return new SlurmJob(cluster, id, restart, "chem", "alice", "debug", 1, 1, "n1");
    }

    @Test
    void aHeldRunIsKnownOnceToItsSettlement() {
        HeldRuns held = new HeldRuns();
        held.held(run("lab", "12", 0));
        assertTrue(held.settling(run("lab", "12", 0)));
        assertFalse(held.settling(run("lab", "12", 0)), "a run is settled once: the second settlement asks");
    }

    @Test
    void runsAreToldApartByClusterJobAndRestart() {
        HeldRuns held = new HeldRuns();
        held.held(run("lab", "12", 0));
        assertFalse(held.settling(run("lab", "12", 1)), "the requeued run was not held by this prolog");
        assertFalse(held.settling(run("other", "12", 0)), "the same job id on another cluster");
        assertFalse(held.settling(run("lab", "13", 0)));
        assertTrue(held.settling(run("lab", "12", 0)));
    }

    @Test
    void aProcessPerCallRemembersNothing() {
        HeldRuns.NONE.held(run("lab", "12", 0));
        assertFalse(HeldRuns.NONE.settling(run("lab", "12", 0)));
    }
}
