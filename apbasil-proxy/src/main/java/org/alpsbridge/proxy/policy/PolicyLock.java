package org.alpsbridge.proxy.policy;

import java.util.HashSet;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy's one lock, the reservation changes' patches queued for it, and the RESERVEs at ALPS now.
 *
 * <p>What it guards: the caches and what the policy knows of each ({@link Caches}: the entries by protocol version,
 * each with its {@link CachedInventory}, which is not thread-safe; the reservations draining after a RELEASE with
 * claims outstanding), the user ids looked up for patches ({@link ReservationPatches}) and the backend the policy wraps
 * being set. Refreshes, the choice of a cache answer, the checks before it and the patches of reservation changes run
 * under it, one at a time. {@link Caches} asserts it is held in every method; an entry it hands out is not kept past
 * {@link #unlock()}.
 *
 * <p>Its rules:
 * <ul>
 *   <li>It is taken with {@link #lock()}, or {@link #tryLock()} where waiting is not wanted (the cache age gauge, a
 *       change whose patch is queued), and let go with {@link #unlock()}, never otherwise: {@code lock()} applies the
 *       patches queued before, {@code unlock()} those queued meanwhile (after a refresh: to what the refresh brought),
 *       so whatever takes the lock after a change was answered sees its patch.
 *   <li>Its holder may call ALPS: a full fetch (the cache it makes must follow every change before it), SUMMARY, the
 *       reservations check, STATUS. A scheduler INVENTORY that needs a full fetch waits for it (it is its answer).
 *   <li>A RESERVE, SWITCH or RELEASE never waits for it, nor for each other: the backend is called without it, and the
 *       answer's patch is {@linkplain #queue queued}, applied at once when the lock is free, else by its holder before
 *       it lets go or by its next holder. A cached answer's document is written and sent outside it
 *       ({@link InventoryAnswer}).
 *   <li>The RESERVEs at ALPS now guard themselves (their set's own monitor), which is taken under the lock (a check
 *       asking whether one is at ALPS) or with nothing held (a RESERVE starting or queueing its patch), never the
 *       other way round: queueing takes the lock only after letting the monitor go.
 * </ul>
 */
final class PolicyLock {

    /** The policy's log lines keep the front door's name, whichever part writes them. */
    private static final Logger log = LoggerFactory.getLogger(InventoryPolicy.class);

    private final ReentrantLock lock = new ReentrantLock();
    /** Reservation changes' patches waiting for the lock ({@link #queue}). */
    private final Queue<Runnable> deferred = new ConcurrentLinkedQueue<>();
    /** RESERVEs at ALPS now ({@link #reserving()}); guards itself. */
    private final Set<InFlight> reservesInFlight = new HashSet<>();
    /** What a patch that throws leaves behind (every cache stale), run under the lock. */
    private final Runnable patchFailed;

    /** @param patchFailed run under the lock after a queued patch threw: its outcome on the caches is unknown */
    PolicyLock(Runnable patchFailed) {
        this.patchFailed = patchFailed;
    }

    /** A RESERVE at ALPS whose answer has not been queued yet; marked when another RESERVE was at ALPS beside it. */
    static final class InFlight {
        private boolean overlapped;
    }

    /** Takes the lock and applies the change patches queued before. */
    void lock() {
        lock.lock();
        applyDeferred();
    }

    /** Takes the lock if it is free; false if not. Let go with {@link #unlock()}, which applies the queued patches. */
    boolean tryLock() {
        return lock.tryLock();
    }

    /** Applies the change patches queued meanwhile and lets go; one queued as it lets go is applied if the lock is free. */
    void unlock() {
        do {
            applyDeferred();
            lock.unlock();
        } while (!deferred.isEmpty() && lock.tryLock());
    }

    boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /**
     * Applies the change patches queued so far, now, by the lock's holder: what a check does before it asks ALPS
     * (so that what ALPS had answered before the query is in the cache) and after (so the two compare at the same
     * point).
     */
    void applyDeferred() {
        assert lock.isHeldByCurrentThread() : "the policy's lock is not held";
        for (Runnable patch; (patch = deferred.poll()) != null; ) {
            try {
                patch.run();
            } catch (RuntimeException ex) {
                log.warn("policy: a reservation change's patch failed: {}", ex.toString());
                patchFailed.run();
            }
        }
    }

    /** Notes a RESERVE going to ALPS: it and every one already there overlap. */
    InFlight beginReserve() {
        InFlight flight = new InFlight();
        synchronized (reservesInFlight) {
            if (!reservesInFlight.isEmpty()) {
                flight.overlapped = true;
                reservesInFlight.forEach(f -> f.overlapped = true);
            }
            reservesInFlight.add(flight);
        }
        return flight;
    }

    /**
     * Whether a RESERVE is at ALPS now. One that is not has its answer queued, so the patches applied next hold every
     * reservation a RESERVE the proxy forwarded made before ALPS answered a query that started earlier.
     */
    boolean reserving() {
        synchronized (reservesInFlight) {
            return !reservesInFlight.isEmpty();
        }
    }

    /**
     * Queues a change's patch (told whether its RESERVE overlapped another; false for other changes, whose
     * {@code flight} is null) and applies it at once if the lock is free, else the lock's holder applies it before it
     * lets go (after a refresh, to what the refresh brought) or its next holder does: the change is answered without
     * waiting, and everything that takes the lock after it was answered sees its patch. A RESERVE leaves the in-flight
     * set as its patch is queued, in one step, so patches are queued in the order ALPS answered.
     */
    void queue(InFlight flight, Consumer<Boolean> patch) {
        synchronized (reservesInFlight) {
            boolean overlapped = flight != null && reservesInFlight.remove(flight) && flight.overlapped;
            deferred.add(() -> patch.accept(overlapped));
        }
        if (tryLock()) {
            unlock();
        }
    }
}
