package org.alpsbridge.ledger.service.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.alpsbridge.ledger.LedgerException;

/**
 * Sign-in links and browser sessions, in memory only (a restart signs everyone out). Links and session ids are
 * 256 random bits from {@link SecureRandom}; only their SHA-256 is kept, so a heap dump shows none that works.
 * A link works once ({@code console_link_seconds}); a session ends {@code console_session_seconds} after
 * sign-in or {@code console_idle_seconds} after its last request, whichever comes first, or at sign-out.
 */
final class Sessions {

    /** Who a link or session is for: the uid and gid munged vouched for when the link was asked for. */
    record Identity(int uid, int gid, String user) {
    }

    /** One signed-in browser. */
    static final class Session {
        final Identity who;
        final String csrf;
        final Instant created;
        volatile Instant lastSeen;
        /** Bookkeeping requests this session applied: request id to what the ledger answered (at most 256). */
        final Map<String, String> done = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                return size() > 256;
            }
        });

        Session(Identity who, String csrf, Instant created) {
            this.who = who;
            this.csrf = csrf;
            this.created = created;
            this.lastSeen = created;
        }
    }

    /** A session just opened, with the cookie value that names it (never stored). */
    record Opened(Session session, String cookie) {
    }

    private record Pending(Identity who, Instant expires) {
    }

    /** Outstanding links and live sessions at most (expired ones are dropped first; beyond, refused). */
    static final int MAX_ENTRIES = 10_000;
    /** Outstanding links of one uid at most, so that no one user can use up the others' room. */
    static final int MAX_LINKS_PER_UID = 10;

    private final SecureRandom random = new SecureRandom();
    private final Map<String, Pending> links = new ConcurrentHashMap<>();
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final Duration linkLife;
    private final Duration sessionLife;
    private final Duration idle;
    private final Clock clock;

    Sessions(Duration linkLife, Duration sessionLife, Duration idle, Clock clock) {
        this.linkLife = linkLife;
        this.sessionLife = sessionLife;
        this.idle = idle;
        this.clock = clock;
    }

    /** A new single-use sign-in token for {@code who}. */
    String issue(Identity who) {
        Instant now = clock.instant();
        prune(now);
        if (links.size() >= MAX_ENTRIES
                || links.values().stream().filter(p -> p.who().uid() == who.uid()).count() >= MAX_LINKS_PER_UID) {
            throw new LedgerException("too many unused sign-in links " + (links.size() >= MAX_ENTRIES ? ""
                    : "for uid " + who.uid() + " ") + "are waiting; try again in " + linkLife.toSeconds() + " s");
        }
        String token = newSecret();
        links.put(hash(token), new Pending(who, now.plus(linkLife)));
        return token;
    }

    Duration linkLife() {
        return linkLife;
    }

    Duration sessionLife() {
        return sessionLife;
    }

    /** Uses a sign-in token up: a new session when it is known and not expired, else empty. */
    Optional<Opened> redeem(String token) {
        if (token == null || token.isEmpty()) {
            return Optional.empty();
        }
        Pending p = links.remove(hash(token)); // atomic: of two concurrent uses, one gets it
        Instant now = clock.instant();
        if (p == null || !now.isBefore(p.expires())) {
            return Optional.empty();
        }
        prune(now);
        if (sessions.size() >= MAX_ENTRIES) {
            return Optional.empty();
        }
        String cookie = newSecret();
        Session s = new Session(p.who(), newSecret(), now);
        sessions.put(hash(cookie), s);
        return Optional.of(new Opened(s, cookie));
    }

    /** The live session a cookie names (and it counts as a request), or empty. */
    Optional<Session> find(String cookie) {
        if (cookie == null || cookie.isEmpty()) {
            return Optional.empty();
        }
        String key = hash(cookie);
        Session s = sessions.get(key);
        Instant now = clock.instant();
        if (s == null) {
            return Optional.empty();
        }
        if (!live(s, now)) {
            sessions.remove(key);
            return Optional.empty();
        }
        s.lastSeen = now;
        return Optional.of(s);
    }

    /** Signs a session out. */
    void end(String cookie) {
        if (cookie != null) {
            sessions.remove(hash(cookie));
        }
    }

    /** Whether {@code token} is this session's CSRF token (compared in constant time). */
    static boolean csrfMatches(Session s, String token) {
        return token != null && MessageDigest.isEqual(s.csrf.getBytes(StandardCharsets.US_ASCII),
                token.getBytes(StandardCharsets.UTF_8));
    }

    /** Seconds the session has left before its absolute end (for the cookie's Max-Age). */
    long secondsLeft(Session s) {
        return Math.max(0, Duration.between(clock.instant(), s.created.plus(sessionLife)).toSeconds());
    }

    private boolean live(Session s, Instant now) {
        return now.isBefore(s.created.plus(sessionLife)) && now.isBefore(s.lastSeen.plus(idle));
    }

    private void prune(Instant now) {
        links.values().removeIf(p -> !now.isBefore(p.expires()));
        sessions.values().removeIf(s -> !live(s, now));
    }

    private String newSecret() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static String hash(String secret) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
