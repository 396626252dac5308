package org.alpsbridge.proxy.orphans;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The orphan verdicts, from what the proxy forwarded and what a full inventory shows.
 *
 * <p>Times in this class are {@link System#nanoTime()} readings taken by the proxy: an inventory carries
 * the moment its fetch started, and a RELEASE that completed after that moment may postdate the
 * inventory, so its reservation is not judged by that inventory. Reservations made through the proxy are
 * known from their RESERVE answers; while a RESERVE is in flight, a reservation the proxy does not know yet
 * may be its result, so an unknown one waits until every RESERVE then in flight has answered: if none of
 * them named it, it is an orphan at once, without waiting for the next inventory. The first inventory adopts every
 * reservation in it: what existed before the proxy started is judged by its batch job only.
 *
 * <p>Not thread-safe: {@link OrphanWatch} guards it.
 */
final class Detector {

    static final String INTERACTIVE_BATCH_ID = "UNKNOWN";

    /**
     * How long a reservation released with claims outstanding may stay before it is "released, still present": the
     * 500 s Slurm 18.08's slurmstepd waits for ALPS to drop its reservation (basil_interface.c do_basil_release: "no
     * need to try longer than max(NHC) + max(ALPS reservation lvl cleanup)"). A job source finds a stuck one sooner
     * (its batch job is gone).
     */
    static final long DRAIN_GRACE_NANOS = 500_000_000_000L;

    private final Map<Long, Long> knownSince = new HashMap<>();
    /** Reservations this proxy's own RESERVEs were answered with, since this detector began. */
    private final Map<Long, Long> reservedHere = new HashMap<>();
    private final Map<Long, Long> releasedAt = new HashMap<>();
    private final Map<Long, Long> releaseFailedAt = new HashMap<>();
    private final Map<Long, Integer> releasesInFlight = new HashMap<>();
    private final Set<Long> reservesInFlight = new HashSet<>();
    private final Map<Long, Deferred> deferred = new LinkedHashMap<>();
    private long reserveSeq;
    private boolean adopted;

    /** An unknown reservation of the last inventory that may be the answer of a RESERVE still in flight. */
    private record Deferred(Orphan orphan, Set<Long> waitingFor) {
    }

    /** @return this RESERVE's ticket for {@link #reserveEnded} */
    long reserveStarted() {
        reservesInFlight.add(++reserveSeq);
        return reserveSeq;
    }

    /**
     * @param ticket what {@link #reserveStarted} returned
     * @param reservationId the id ALPS answered, or null when the RESERVE failed or got no answer
     * @return reservations of the last inventory that are orphans now that this RESERVE did not name them
     */
    List<Orphan> reserveEnded(long ticket, Long reservationId, long now) {
        reservesInFlight.remove(ticket);
        if (reservationId != null) {
            knownSince.put(reservationId, now);
            reservedHere.put(reservationId, now);
            deferred.remove(reservationId);
        }
        List<Orphan> found = new ArrayList<>();
        for (var it = deferred.values().iterator(); it.hasNext(); ) {
            Deferred d = it.next();
            d.waitingFor().remove(ticket);
            if (d.waitingFor().isEmpty()) {
                found.add(d.orphan());
                it.remove();
            }
        }
        return found;
    }

    /** True while a RESERVE is on its way through this proxy: a reservation no answer named yet may be its. */
    boolean reserveInFlight() {
        return !reservesInFlight.isEmpty();
    }

    /** True when one of this proxy's own RESERVEs was answered with {@code reservationId}. */
    boolean reservedHere(long reservationId) {
        return reservedHere.containsKey(reservationId);
    }

    void releaseStarted(long reservationId) {
        releasesInFlight.merge(reservationId, 1, Integer::sum);
    }

    /**
     * @param claims what a successful RELEASE answered as claims outstanding (0 when it said none, or nothing):
     *     ALPS keeps such a reservation until its last claim ends, so it is no orphan for {@link #DRAIN_GRACE_NANOS}
     */
    void releaseEnded(long reservationId, boolean succeeded, long claims, long now) {
        releasesInFlight.computeIfPresent(reservationId, (k, n) -> n == 1 ? null : n - 1);
        if (succeeded) {
            // the first answer counts: a repeat while claims remain does not restart the grace, and one answered
            // claims 0 (ALPS: removed) makes a reservation still shown after it an orphan at once
            releasedAt.merge(reservationId, claims > 0 ? now + DRAIN_GRACE_NANOS : now, Math::min);
            releaseFailedAt.remove(reservationId);
        } else {
            releaseFailedAt.put(reservationId, now);
        }
    }

    /**
     * Judges every reservation of one full inventory.
     *
     * @param reservations the inventory's reservations
     * @param inventoryTime the inventory's {@code timestamp} (ALPS clock, epoch seconds), for ages
     * @param fetchStarted when the proxy started fetching that inventory
     * @param liveJobs the scheduler's live job ids, or null when no job source is configured or it failed
     * @return the orphans, by reservation id in inventory order
     */
    Map<Long, Orphan> judge(List<Seen> reservations, long inventoryTime, long fetchStarted, Set<String> liveJobs) {
        if (!adopted) {
            adopted = true;
            reservations.forEach(r -> knownSince.putIfAbsent(r.id(), fetchStarted));
        }
        Map<Long, Orphan> orphans = new LinkedHashMap<>();
        Set<Long> present = new HashSet<>();
        deferred.clear();
        Map<String, Long> newest = newestByBatch(reservations);
        for (Seen r : reservations) {
            present.add(r.id());
            if (INTERACTIVE_BATCH_ID.equals(r.batchId()) || releasesInFlight.containsKey(r.id())) {
                continue;
            }
            Long released = releasedAt.get(r.id());
            if (released != null && released - fetchStarted > 0) {
                continue; // the inventory may predate the RELEASE
            }
            EnumSet<Reason> reasons = EnumSet.noneOf(Reason.class);
            if (released != null) {
                reasons.add(Reason.RELEASED_STILL_PRESENT);
            }
            if (releaseFailedAt.containsKey(r.id())) {
                reasons.add(Reason.RELEASE_FAILED);
            }
            boolean unknown = !knownSince.containsKey(r.id());
            if (unknown && reservesInFlight.isEmpty()) {
                reasons.add(Reason.NOT_CREATED_BY_PROXY);
            }
            if (released == null && r.batchId() != null && newest.get(r.batchId()) > r.id()) {
                reasons.add(Reason.SUPERSEDED);
            }
            if (liveJobs != null && r.batchId() != null && !listed(r.batchId(), liveJobs)) {
                reasons.add(Reason.JOB_GONE);
            }
            if (!reasons.isEmpty()) {
                orphans.put(r.id(), orphan(r, inventoryTime, reasons));
            } else if (unknown) {
                deferred.put(r.id(), new Deferred(orphan(r, inventoryTime, EnumSet.of(Reason.NOT_CREATED_BY_PROXY)),
                        new HashSet<>(reservesInFlight)));
            }
        }
        forgetGone(present, fetchStarted);
        return orphans;
    }

    /**
     * Each batch id's newest reservation (ALPS numbers reservations in the order it makes them), among those not
     * released through this proxy: one released and still draining is not what a newer one supersedes.
     */
    private Map<String, Long> newestByBatch(List<Seen> reservations) {
        Map<String, Long> newest = new HashMap<>();
        for (Seen r : reservations) {
            if (r.batchId() != null && !releasedAt.containsKey(r.id()) && !releasesInFlight.containsKey(r.id())) {
                newest.merge(r.batchId(), r.id(), Math::max);
            }
        }
        return newest;
    }

    /** A PBS subjob id, {@code 12[3].server}: pbs_mom's {@code batch_id} for one subjob of the array {@code 12[].server}. */
    private static final Pattern PBS_SUBJOB = Pattern.compile("(\\d+)\\[\\d+\\](.*)");

    /**
     * Whether the scheduler's list names the job of {@code batchId}. pbs_mom reserves for a subjob under its own id
     * ({@code 12[3].server}) while PBS lists an array as {@code 12[].server} unless asked for subjobs ({@code qselect
     * -T}): a listed array owns its subjobs' reservations, so a site's plain {@code qselect} never makes a running
     * subjob's reservation an orphan (a finished subjob's is then judged by its job only once the whole array has
     * left the list; {@code qselect -T} lists each subjob and makes that exact).
     */
    static boolean listed(String batchId, Set<String> liveJobs) {
        if (liveJobs.contains(batchId)) {
            return true;
        }
        Matcher subjob = PBS_SUBJOB.matcher(batchId);
        return subjob.matches() && liveJobs.contains(subjob.group(1) + "[]" + subjob.group(2));
    }

    static Orphan orphan(Seen r, long inventoryTime, EnumSet<Reason> reasons) {
        return new Orphan(r.id(), r.user(), r.account(), r.batchId(), r.nids(), Math.max(0, inventoryTime - r.timeStamp()),
                new ArrayList<>(reasons), r.apids());
    }

    /** Drops what an inventory fetched after the fact proves gone, so memory stays bounded. */
    private void forgetGone(Set<Long> present, long fetchStarted) {
        knownSince.entrySet().removeIf(e -> !present.contains(e.getKey()) && fetchStarted - e.getValue() > 0);
        reservedHere.entrySet().removeIf(e -> !present.contains(e.getKey()) && fetchStarted - e.getValue() > 0);
        releasedAt.entrySet().removeIf(e -> !present.contains(e.getKey()) && fetchStarted - e.getValue() > 0);
        releaseFailedAt.entrySet().removeIf(e -> !present.contains(e.getKey()) && fetchStarted - e.getValue() > 0);
    }

    /** The proxy's own reservations it believes alive (for tests and the listing's header). */
    int knownCount() {
        return knownSince.size();
    }
}
