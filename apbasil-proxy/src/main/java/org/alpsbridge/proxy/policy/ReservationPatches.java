package org.alpsbridge.proxy.policy;

import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.proxy.stats.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the answers of the RESERVEs, RELEASEs and SWITCHes the proxy forwarded to every cache, as
 * {@code policy_patches{outcome}}, or marks the caches stale where it cannot. Runs under the policy's lock, from the
 * patches queued there ({@link PolicyLock#queue}).
 *
 * <p>A RESERVE or CONFIRM answered FAILURE changed nothing (ALPS rejects them whole), so it costs no refresh, but for a
 * RESERVE refused on a node held by a reservation the cache does not show (made behind the proxy's back): that one
 * costs the next INVENTORY a full fetch, which shows the scheduler the reservation. A RESERVE's pseudo-application id
 * is inferred only when no other RESERVE was at ALPS beside it (then the order of the answers is the order of ALPS's
 * ids) and its reservation id is the next one; otherwise the next scheduler INVENTORY is a full one
 * ({@code reserve-overlapped}, {@code unseen-reservation}). A user's uid and gid, before an inventory shows them, are
 * looked up ({@link UserIds}) once per user between refreshes.
 */
final class ReservationPatches {

    /** The policy's log lines keep the front door's name, whichever part writes them. */
    private static final Logger log = LoggerFactory.getLogger(InventoryPolicy.class);
    /** ALPS's answer to a RELEASE of a reservation it does not have (Slurm's libalps matches the same words). */
    private static final Pattern NO_ENTRY = Pattern.compile("No entry for resId (\\d+)");
    /** ALPS's refusal of a RESERVE on a node a reservation holds (apsched's words, as the emulator writes them). */
    private static final Pattern ALREADY_RESERVED = Pattern.compile("is already reserved \\(resId (\\d+)\\)");

    private final PolicySettings settings;
    private final Clock clock;
    private final Caches caches;
    private final Counter patches;
    private UserIds userIds;
    /** Lookups since the last refresh, unknown users included (as null), so each costs one lookup per interval. */
    private final Map<String, long[]> lookups = new HashMap<>();

    ReservationPatches(PolicySettings settings, Clock clock, UserIds userIds, Caches caches, Counter patches) {
        this.settings = settings;
        this.clock = clock;
        this.userIds = userIds;
        this.caches = caches;
        this.patches = patches;
    }

    /** @param overlapped a RESERVE that another RESERVE was at ALPS beside */
    void apply(String method, BasilRequest request, ResponseData answer, boolean overlapped) {
        switch (method) {
            case "RESERVE" -> {
                if (!answer.isSuccess()) {
                    heldUnseen(answer);
                    return;
                }
                Optional<Reserved> reserved = answer.content(Reserved.class);
                if (reserved.isEmpty() || reserved.get().reservationId() == null) {
                    caches.staleAll(RefreshReason.RESERVE_UNPATCHED);
                    return;
                }
                long now = clock.millis();
                long id = reserved.get().reservationId();
                placedOver(request, reserved.get().nodeIds());
                for (Caches.Entry e : caches.all()) {
                    if (e.cache == null) {
                        continue;
                    }
                    if (e.cache.holds(id)) {
                        // a refresh completed after ALPS made it, while its answer was on the way: shown as ALPS has it
                        patches.increment("reserve-seen");
                        continue;
                    }
                    if (e.staleBecause != null) {
                        e.cache.noteUnapplied(id);
                        continue;
                    }
                    if (overlapped) {
                        // another RESERVE was at ALPS beside it: which of them took which application id is unknown
                        e.cache.noteUnapplied(id);
                        e.staleBecause = RefreshReason.RESERVE_OVERLAPPED;
                        patches.increment("reserve-overlapped");
                        continue;
                    }
                    if (!e.cache.isNextReservation(id)) {
                        e.cache.noteUnapplied(id);
                        e.staleBecause = RefreshReason.UNSEEN_RESERVATION;
                        patches.increment("reserve-unpatched");
                        continue;
                    }
                    boolean ok = settings.patch() && e.cache.applyReserve(request, id, reserved.get().nodeIds(), now,
                            e.cache.knowsUser(request.user()) ? null : lookUp(request.user()));
                    patches.increment(ok ? "reserve-applied" : "reserve-unpatched");
                    if (!ok) {
                        e.cache.noteUnapplied(id);
                        e.staleBecause = RefreshReason.RESERVE_UNPATCHED;
                    }
                }
            }
            case "RELEASE" -> {
                if (!answer.isSuccess()) {
                    Long id = request.reservationId();
                    String text = answer.messageText() == null ? "" : answer.messageText();
                    Matcher gone = NO_ENTRY.matcher(text);
                    if (id != null && gone.find() && gone.group(1).equals(Long.toString(id))) {
                        // ALPS has no such reservation (anymore): what claims 0 says. A cache that still shows it
                        // (ALPS removed it when its job container ended, or a lost answer) drops it; one that does
                        // not is unchanged. Neither costs a full inventory: Slurm 18.08's stepd repeats such
                        // RELEASEs for minutes, and a changed node state still shows in SUMMARY.
                        if (caches.draining(id)) {
                            caches.drained(id);
                            return;
                        }
                        caches.gone(id, "release-gone");
                        return;
                    }
                    caches.staleAll(RefreshReason.RELEASE_FAILED);
                    return;
                }
                Long claims = answer.content(Released.class).map(Released::claims).orElse(null);
                if (claims == null || request.reservationId() == null) {
                    caches.staleAll(RefreshReason.RELEASE_UNCLEAR);
                } else if (claims == 0) {
                    caches.released(request.reservationId());
                    caches.all().stream().filter(e -> e.cache != null).forEach(e -> e.cache.applyRelease(request.reservationId()));
                    patches.increment("release-applied");
                } else {
                    // ALPS keeps the reservation until its last claim ends (its applications, the job's container)
                    // and then removes it without a word: the cache shows it meanwhile, as ALPS does, until the
                    // reservations check before an answer no longer finds it (ReservationCheck; STATUS where no check
                    // runs: DrainCheck); a refresh that no longer shows it ends the watch too
                    if (caches.all().stream().anyMatch(e -> e.cache != null && e.cache.holds(request.reservationId()))) {
                        caches.watchDraining(request.reservationId());
                    }
                }
            }
            case "SWITCH" -> caches.staleAll(RefreshReason.SWITCH);
            default -> {
                // CONFIRM binds a process aggregate, which the inventory does not show
            }
        }
    }

    /**
     * A RESERVE refused because a reservation the cache does not show holds its node: one made behind the proxy's back
     * (an orphan, an interactive aprun), which no SUMMARY reveals and no RESERVE answer will while the scheduler keeps
     * asking for that node (each refused, until the refresh interval). The caches that do not show it are stale
     * ({@code unseen-reservation}): the scheduler's next INVENTORY is a full one and shows it. One the cache shows
     * (a draining reservation, the scheduler's own window) changes nothing.
     */
    private void heldUnseen(ResponseData answer) {
        Matcher held = ALREADY_RESERVED.matcher(answer.messageText() == null ? "" : answer.messageText());
        if (!held.find()) {
            return;
        }
        long id = Long.parseLong(held.group(1));
        for (Caches.Entry e : caches.all()) {
            if (e.cache != null && e.staleBecause == null && !e.cache.holds(id)) {
                e.staleBecause = RefreshReason.UNSEEN_RESERVATION;
            }
        }
    }

    /**
     * A RESERVE that ALPS placed on nodes which the cache shows held by draining reservations proves those gone
     * wherever they held the node exclusively or the new one takes it exclusively (ALPS puts an EXCLUSIVE
     * reservation only on idle nodes, and nothing beside an EXCLUSIVE one): each such is dropped before the RESERVE
     * is patched in.
     */
    private void placedOver(BasilRequest request, List<Long> nids) {
        if (!caches.anyDraining() || nids.isEmpty()) {
            return;
        }
        boolean exclusive = request.reserveParams().isEmpty() || !"SHARED".equals(request.reserveParams().get(0).reservationMode());
        Set<Long> placed = new HashSet<>(nids);
        for (Long id : caches.drainingIds()) {
            for (Caches.Entry e : caches.all()) {
                if (e.cache != null && e.cache.holdsAnyOf(id, placed) && (exclusive || !e.cache.shared(id))) {
                    caches.drained(id);
                    break;
                }
            }
        }
    }

    private long[] lookUp(String user) {
        if (!lookups.containsKey(user)) {
            lookups.put(user, userIds.lookup(user));
        }
        return lookups.get(user);
    }

    /**
     * Compares the ids looked up for the cache as it stood with what ALPS wrote in a fresh full inventory: at the first
     * disagreement lookups stop for the daemon's life.
     */
    void compareLookups(CachedInventory before, CachedInventory fresh) {
        List<String> users = before.lookupMismatches(fresh);
        if (!users.isEmpty() && userIds != UserIds.NONE) {
            userIds = UserIds.NONE;
            log.warn("policy: the user id lookup disagrees with ALPS ({}); ids are learned from inventories only from now on",
                    users.get(0));
        }
    }

    /** A full inventory shows the users' ids: each user not shown is looked up again at most once until the next. */
    void forgetLookups() {
        lookups.clear();
    }
}
