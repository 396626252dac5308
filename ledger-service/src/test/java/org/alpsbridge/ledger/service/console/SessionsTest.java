package org.alpsbridge.ledger.service.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import org.alpsbridge.ledger.LedgerException;
import org.junit.jupiter.api.Test;

/** Sign-in links work once and briefly; sessions end at their absolute and idle limits and at sign-out. */
class SessionsTest {

    /** A clock the test moves. */
    static final class Hands extends Clock {
        Instant now = Instant.parse("2026-03-01T12:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        void advance(long seconds) {
            now = now.plusSeconds(seconds);
        }
    }

    final Hands clock = new Hands();
    final Sessions sessions = new Sessions(Duration.ofSeconds(60), Duration.ofHours(8), Duration.ofMinutes(30), clock);
    final Sessions.Identity alice = new Sessions.Identity(1001, 1001, "alice");

    @Test
    void aLinkSignsInOnceAndTheSessionIsTheLinksUid() {
        String token = sessions.issue(alice);
        Sessions.Opened opened = sessions.redeem(token).orElseThrow();
        assertEquals(alice, opened.session().who);
        assertTrue(sessions.redeem(token).isEmpty(), "a second use");
        assertEquals(alice, sessions.find(opened.cookie()).orElseThrow().who);
        assertNotEquals(token, opened.cookie(), "the session id is new, not the link's token");
    }

    @Test
    void oneUserCannotUseUpTheRoomForLinks() {
        for (int i = 0; i < Sessions.MAX_LINKS_PER_UID; i++) {
            sessions.issue(alice);
        }
        LedgerException e = assertThrows(LedgerException.class, () -> sessions.issue(alice));
        assertTrue(e.getMessage().contains("uid 1001"), e.getMessage());
        sessions.issue(new Sessions.Identity(1002, 1002, "bob"));
        clock.advance(60);
        sessions.issue(alice); // the unused ones expired
    }

    @Test
    void aLinkExpiresAfterItsLifetime() {
        String token = sessions.issue(alice);
        clock.advance(60);
        assertTrue(sessions.redeem(token).isEmpty());
        assertTrue(sessions.redeem("made-up").isEmpty());
        assertTrue(sessions.redeem(null).isEmpty());
    }

    @Test
    void aSessionEndsWhenIdleAtItsAbsoluteLimitAndAtSignOut() {
        String idle = sessions.redeem(sessions.issue(alice)).orElseThrow().cookie();
        clock.advance(29 * 60);
        assertTrue(sessions.find(idle).isPresent());
        clock.advance(29 * 60);
        assertTrue(sessions.find(idle).isPresent(), "each request restarts the idle limit");
        clock.advance(30 * 60);
        assertTrue(sessions.find(idle).isEmpty(), "30 min without a request");

        String busy = sessions.redeem(sessions.issue(alice)).orElseThrow().cookie();
        for (int i = 0; i < 8 * 4 - 1; i++) {
            clock.advance(15 * 60);
            assertTrue(sessions.find(busy).isPresent(), "at " + i);
        }
        clock.advance(15 * 60);
        assertTrue(sessions.find(busy).isEmpty(), "8 h after sign-in, however busy");

        String out = sessions.redeem(sessions.issue(alice)).orElseThrow().cookie();
        sessions.end(out);
        assertTrue(sessions.find(out).isEmpty());
        assertTrue(sessions.find(null).isEmpty());
    }

    @Test
    void theCsrfTokenIsTheSessionsOwnAndSecretsAreLongAndDistinct() {
        Sessions.Session a = sessions.redeem(sessions.issue(alice)).orElseThrow().session();
        Sessions.Session b = sessions.redeem(sessions.issue(alice)).orElseThrow().session();
        assertTrue(Sessions.csrfMatches(a, a.csrf));
        assertFalse(Sessions.csrfMatches(a, b.csrf));
        assertFalse(Sessions.csrfMatches(a, null));
        assertFalse(Sessions.csrfMatches(a, ""));
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String t = sessions.issue(new Sessions.Identity(2000 + i, 100, "u" + i));
            assertEquals(43, t.length(), "256 bits, base64url");
            assertTrue(seen.add(t));
        }
    }
}
