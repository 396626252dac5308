package org.alpsbridge.proxy.policy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.alpsbridge.proxy.stats.Counter;

/**
 * What {@link PolicyLock} guards: the cached inventory of each protocol version the scheduler asked for, with what the
 * policy knows about it ({@link Entry}), and the reservations whose RELEASE ALPS answered with claims outstanding, which
 * every cache shows until ALPS is known to have removed them. Every method asserts that the caller holds the lock;
 * an {@link Entry} is read and written only while it is held.
 */
final class Caches {

    private final PolicyLock lock;
    /** {@code policy_patches{outcome}}: reservations dropped as gone are counted there. */
    private final Counter patches;
    private final Map<String, Entry> entries = new HashMap<>();
    /** Reservations whose RELEASE ALPS answered with claims outstanding, until ALPS is known to have removed them. */
    private final Set<Long> releasing = new TreeSet<>();

    /** What the policy knows about one protocol version's inventory. */
    static final class Entry {
        CachedInventory cache;
        RefreshReason staleBecause;
        long summaryCheckedMillis = Long.MIN_VALUE;
        long lastFetchMillis;
        boolean noSummary;
        /** When the last reservations-only check the listeners saw started (the policy's clock), or MIN_VALUE. */
        long checkedAtMillis = Long.MIN_VALUE;
        /**
         * When a reservations-only check last found nothing unseen and renewed the cache (the policy's clock), or
         * MIN_VALUE: the cache's age for the refresh interval counts from there.
         */
        long renewedAtMillis = Long.MIN_VALUE;

        /** Since when the cache is known right, for the refresh interval: its fetch or its last renewal. */
        long freshSinceMillis() {
            return Math.max(cache.fetchedAtMillis, renewedAtMillis);
        }
    }

    Caches(PolicyLock lock, Counter patches) {
        this.lock = lock;
        this.patches = patches;
    }

    private Map<String, Entry> guarded() {
        assert lock.isHeldByCurrentThread() : "the policy's caches are read or changed without its lock";
        return entries;
    }

    /** The entry of {@code protocol}, made (with nothing cached) when the scheduler first asks for it. */
    Entry entry(String protocol) {
        return guarded().computeIfAbsent(protocol, p -> new Entry());
    }

    /** The entry of {@code protocol}, or null when the scheduler never asked for it. */
    Entry find(String protocol) {
        return guarded().get(protocol);
    }

    /** Every entry; a live view, walked while the lock is held. */
    Collection<Entry> all() {
        return guarded().values();
    }

    /** The entries by protocol version, copied: a refresh of one may not change the walk. */
    List<Map.Entry<String, Entry>> byProtocol() {
        return new ArrayList<>(guarded().entrySet());
    }

    /** Marks every cache that is not stale already stale for {@code reason}: the next INVENTORY of each fetches. */
    void staleAll(RefreshReason reason) {
        for (Entry e : all()) {
            if (e.staleBecause == null) {
                e.staleBecause = reason;
            }
        }
    }

    /** A reservation ALPS no longer has, without a RELEASE the proxy forwarded saying so: every cache drops it. */
    void gone(long id, String label) {
        for (Entry e : all()) {
            if (e.cache != null && e.cache.holds(id)) {
                e.cache.applyRelease(id);
                patches.increment(label);
            }
        }
    }

    // ---- released while claimed ------------------------------------------------------------------------

    /** ALPS has removed a reservation released with claims outstanding: every cache drops it. */
    void drained(long id) {
        released(id);
        gone(id, "release-drained");
    }

    /** Whether reservations released with claims outstanding are being watched. */
    boolean anyDraining() {
        guarded();
        return !releasing.isEmpty();
    }

    boolean draining(long id) {
        guarded();
        return releasing.contains(id);
    }

    /** The reservations released with claims outstanding, in id order, copied. */
    List<Long> drainingIds() {
        guarded();
        return List.copyOf(releasing);
    }

    /** Watches a reservation ALPS keeps after its RELEASE, until its last claim ends. */
    void watchDraining(long id) {
        guarded();
        releasing.add(id);
    }

    /** Ends the watch of a reservation: its RELEASE was answered with no claims outstanding. */
    void released(long id) {
        guarded();
        releasing.remove(id);
    }

    /** Ends the watch of every reservation a fresh full inventory no longer shows. */
    void drainedUnless(CachedInventory fresh) {
        guarded();
        releasing.removeIf(id -> !fresh.holds(id));
    }
}
