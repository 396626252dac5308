package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A user's first reservation, before any inventory has shown the user: with ids looked up where ALPS gets
 * them it is applied to the cache like any other, and a lookup that disagrees with ALPS is dropped.
 */
class UserIdsTest {

    @Test
    void aUsersFirstReservationIsAppliedWithLookedUpIdsAndCostsNoRefresh() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> user -> {
            lookups.incrementAndGet();
            return emulator.userIds(user);
        })) {
            s.inventory();
            s.reserve("bob", 0); // nothing reserved yet: the next application id is unknown, a refresh
            s.inventory();
            s.reserve("alice", 1);
            s.reserve("alice", 2);
            s.reserve("carol", 3);
            s.advance(Duration.ofSeconds(1));
            s.assertServedIsAlps("after first reservations of alice and carol");
            s.policy.refreshNow();

            assertEquals(1L, s.refreshes().get("reserve-unpatched"), "refreshes " + s.refreshes());
            assertEquals(0, s.patchMismatches(), "refreshes " + s.refreshes());
            assertEquals(3, lookups.get(), "one lookup per new user between refreshes (bob, alice, carol)");
        }
    }

    @Test
    void aLookupThatDisagreesWithAlpsIsDroppedAtTheNextRefresh() throws Exception {
        try (EmulatedScheduler s = new EmulatedScheduler(emulator -> user -> new long[] {4242, 4242})) {
            s.inventory();
            s.reserve("bob", 0);
            s.inventory();
            s.reserve("alice", 1); // patched with ids ALPS does not use
            s.policy.refreshNow(); // finds out, and stops looking up
            s.reserve("carol", 2); // so carol's first reservation costs a refresh again
            s.advance(Duration.ofSeconds(1));
            s.assertServedIsAlps("after carol's first reservation");

            assertEquals(1, s.patchMismatches());
            assertEquals(2L, s.refreshes().get("reserve-unpatched"), "refreshes " + s.refreshes());
        }
    }
}
