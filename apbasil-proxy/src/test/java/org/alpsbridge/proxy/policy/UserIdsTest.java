package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
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

    @Test
    void theNameServiceGivesTheUidAndPrimaryGidThatIdGives() throws Exception {
        String me = System.getProperty("user.name");
        long[] ids = UserIds.nameService().lookup(me);
        assertArrayEquals(new long[] {Long.parseLong(run("id", "-u")), Long.parseLong(run("id", "-g"))}, ids,
                "getent passwd " + me + " gave " + Arrays.toString(ids));
    }

    @Test
    void theNameServiceKnowsNothingOfUnknownUsersNumbersOrOptions() {
        UserIds nss = UserIds.nameService();
        assertNull(nss.lookup("no-such-user-alpsbridge"));
        assertNull(nss.lookup("0"), "getent passwd 0 answers root's entry, which is not user \"0\"");
        assertNull(nss.lookup("--help"));
        assertNull(nss.lookup("a b"));
        assertNull(nss.lookup(""));
    }

    @Test
    void aPasswdLineGivesItsUidAndGidOnlyForTheUserItNames() {
        assertArrayEquals(new long[] {1001, 100}, UserIds.passwdEntry("alice:x:1001:100:Alice:/home/alice:/bin/bash\n", "alice"));
        assertNull(UserIds.passwdEntry("alice:x:1001:100:Alice:/home/alice:/bin/bash", "bob"));
        assertNull(UserIds.passwdEntry("alice:x:one:100:Alice:/home/alice:/bin/bash", "alice"));
        assertNull(UserIds.passwdEntry("alice:x:1001", "alice"));
        assertNull(UserIds.passwdEntry("", "alice"));
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.waitFor(), String.join(" ", command));
        return out;
    }
}
