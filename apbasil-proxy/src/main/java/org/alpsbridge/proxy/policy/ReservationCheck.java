package org.alpsbridge.proxy.policy;

import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.stats.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reservations check: a reservations-only INVENTORY, before each answer from the cache (after SUMMARY) and from
 * the idle timer ({@link IdleTimer}), and what it finds ({@link Outcome}). A reservation made behind the proxy's back
 * (an orphan another tool left, an interactive aprun) changes no node state, so SUMMARY cannot show it; this shows it
 * before the scheduler places a job on its nodes (on-system it would have seen it in its own full INVENTORY), drops
 * what ALPS released meanwhile, drained reservations included, and takes the applications aprun launched. Counted in
 * {@code policy_reservation_checks{same|changed|unsure|failed}}. Runs under the policy's lock; the patches
 * queued meanwhile are applied before the query and after it.
 */
final class ReservationCheck {

    /** The policy's log lines keep the front door's name, whichever part writes them. */
    private static final Logger log = LoggerFactory.getLogger(InventoryPolicy.class);
    /**
     * The query type the reservations-only INVENTORY is timed and limited under ({@code QUERY/INVENTORY(reservations)}
     * in the stats and {@code apbasil_timeout.*}), apart from the scheduler's full ones: the request ALPS gets is a
     * QUERY(INVENTORY).
     */
    static final String RESERVATIONS_ONLY = "INVENTORY(reservations)";

    private final PolicySettings settings;
    private final Clock clock;
    private final BasilCodec codec;
    private final Supplier<Backend> alps;
    private final PolicyLock lock;
    private final Caches caches;
    private final DrainCheck drain;
    /** The reservations-only INVENTORYs, by what they found. */
    private final Counter reservationChecks;
    private final Counter mismatches;

    /** What a reservations-only check found. */
    enum Outcome {
        /** ALPS shows no reservation the cache does not: the cache now shows ALPS's reservations exactly. */
        SAME,
        /** ALPS shows a reservation the cache does not, and no RESERVE is at ALPS that could have made it. */
        UNSEEN,
        /** ALPS shows one the cache does not, but a RESERVE at ALPS now may have made it: nothing is judged. */
        UNSURE,
        FAILED
    }

    /** A check's outcome, ALPS's answer (null when it failed) and when the check started. */
    record Result(Outcome outcome, CachedInventory fresh, long startedMillis, long startedNanos) {
    }

    ReservationCheck(PolicySettings settings, Clock clock, BasilCodec codec, Supplier<Backend> alps, PolicyLock lock,
                     Caches caches, DrainCheck drain, Counter reservationChecks, Counter mismatches) {
        this.settings = settings;
        this.clock = clock;
        this.codec = codec;
        this.alps = alps;
        this.lock = lock;
        this.caches = caches;
        this.drain = drain;
        this.reservationChecks = reservationChecks;
        this.mismatches = mismatches;
    }

    /**
     * The second half of a cache's check before it answers, after SUMMARY found the nodes' states unchanged: a
     * reservation the cache does not show costs a full fetch ({@code unseen-reservation}); a check that fails leaves
     * the cache answering as it stands (a full fetch would ask the same ALPS), with the STATUS drain
     * ({@link DrainCheck}) for reservations released while claimed.
     *
     * @return a refresh reason, or null when the cache may answer
     */
    RefreshReason verdict(Caches.Entry e, String protocol) {
        Result check = run(e, protocol);
        if (check.outcome == Outcome.UNSEEN) {
            return RefreshReason.UNSEEN_RESERVATION;
        }
        return check.outcome == Outcome.FAILED ? drain.verdict(protocol) : null;
    }

    /**
     * Asks ALPS for its reservations alone ({@code <Inventory><ReservationArray/></Inventory>}, BASIL 1.1+; Cobalt's
     * way of following reservations between full inventories; 82 MB less at knl:4392) and brings the cache's
     * reservations to what it shows, after applying the changes answered meanwhile, so the two compare at the same point:
     * a reservation ALPS no longer has is dropped with its allocations (released behind the proxy's back, or drained
     * after a RELEASE with claims outstanding); one whose applications differ (an aprun launched or ended) is taken as
     * ALPS shows it, its allocations unchanged (allocations never move). A reservation ALPS has and the cache does not
     * (made behind the proxy's back) cannot be patched in: nothing but a full inventory says which nodes it holds, so
     * the cache is stale ({@code unseen-reservation}), unless a RESERVE was at ALPS beside the query (it may be that
     * RESERVE's: {@code unsure}, the next check judges). When it finds nothing unseen the cache is renewed while
     * younger than the full refresh interval ({@link #mayRenew}).
     */
    Result run(Caches.Entry e, String protocol) {
        long startedNanos = System.nanoTime();
        long startedMillis = clock.millis();
        if (!Protocols.atLeast(protocol, "1.1") || e.cache == null) {
            return new Result(Outcome.FAILED, null, startedMillis, startedNanos);
        }
        // what ALPS had answered before the query is in the cache; only those reservations can be proven gone by it
        lock.applyDeferred();
        Set<Long> before = e.cache.reservationIds();
        CachedInventory fresh;
        try {
            byte[] request = codec.write(BasilRequest.inventorySince(protocol, null, true));
            byte[] response = alps.get().call(new Call(request, protocol, "QUERY", RESERVATIONS_ONLY, Caller.UNAUTHENTICATED,
                    null));
            fresh = CachedInventory.read(response, protocol, startedMillis, clock.millis(), startedNanos, null);
        } catch (BasilException | BackendException ex) {
            reservationChecks.increment("failed");
            log.info("policy: the reservations-only INVENTORY failed: {}", ex.getMessage());
            return new Result(Outcome.FAILED, null, startedMillis, startedNanos);
        }
        if (!fresh.header().isSuccess() || !fresh.nodes().isEmpty()) {
            reservationChecks.increment("failed");
            return new Result(Outcome.FAILED, null, startedMillis, startedNanos);
        }
        e.cache.takeClock(fresh);
        boolean reserving = lock.reserving();
        lock.applyDeferred();
        Set<Long> alpsHas = fresh.reservationIds();
        for (Long id : before) {
            if (!alpsHas.contains(id) && e.cache.holds(id)) {
                if (caches.draining(id)) {
                    caches.drained(id);
                } else {
                    caches.gone(id, "release-unseen");
                }
            }
        }
        List<String> wrong = e.cache.takeReservations(fresh);
        if (!wrong.isEmpty()) {
            mismatches.increment();
            log.warn("policy: {} cached RESERVE patch(es) differ from ALPS, e.g. {}", wrong.size(), wrong.get(0));
        }
        // one the cache showed before the query and dropped since was released after ALPS answered it: not unseen
        Set<Long> known = new HashSet<>(before);
        known.addAll(e.cache.reservationIds());
        boolean unseenOnes = !known.containsAll(alpsHas);
        Outcome outcome;
        if (!unseenOnes) {
            outcome = Outcome.SAME;
        } else {
            outcome = reserving ? Outcome.UNSURE : Outcome.UNSEEN;
        }
        reservationChecks.increment(switch (outcome) {
            case SAME -> "same";
            case UNSEEN -> "changed";
            default -> "unsure";
        });
        if (outcome == Outcome.UNSEEN && e.staleBecause == null) {
            e.staleBecause = RefreshReason.UNSEEN_RESERVATION;
        }
        if (outcome == Outcome.SAME && e.staleBecause == null && mayRenew(e)) {
            e.renewedAtMillis = startedMillis;
        }
        return new Result(outcome, fresh, startedMillis, startedNanos);
    }

    /**
     * Whether a check that finds ALPS's reservations as cached may renew the cache (its age for the refresh interval then
     * counts from the check): while it is younger than the full refresh interval.
     */
    private boolean mayRenew(Caches.Entry e) {
        return clock.millis() - e.cache.fetchedAtMillis + e.lastFetchMillis + IdleTimer.periodMillis(settings)
                < settings.fullRefreshInterval().toMillis();
    }
}
