package org.alpsbridge.proxy.orphans;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.sql.SQLException;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.ha.Availability;
import org.alpsbridge.proxy.stats.Counter;
import org.alpsbridge.json.JsonText;
import org.alpsbridge.proxy.stats.ProxyMetric;
import org.alpsbridge.proxy.stats.Stats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds orphan reservations: a decorator that notes every RESERVE and RELEASE the proxy forwards, and an
 * {@link #inspect inspection} of each full inventory the policy fetches. Releases them safely on request:
 * RELEASE first (through the decorated chain, so the policy's cache and this watch see it), then
 * {@code apkill -9} for each application launched in the reservation, as Slurm did (PROTOCOL.md §12).
 *
 * <p>Thread-safe.
 */
public final class OrphanWatch {

    private static final Logger log = LoggerFactory.getLogger(OrphanWatch.class);

    private final BasilCodec codec = BasilCodec.standard();
    private Detector detector = new Detector();
    private boolean standby;
    private final JobSource jobs;
    private final Apkill apkill;
    private final Counter found;
    private final Counter releases;
    private final Counter detectionSeconds;
    private final Counter leftBehind;
    private volatile Availability pair;
    private volatile LeftHolds holds = (batchId, exchangeId, reservationId) -> { };
    /** Since this proxy became active: the pair's journal may hold interrupted RESERVEs not settled yet. */
    private boolean lookForLeft;
    /** Interrupted RESERVEs already logged as having no reservation (yet) in this role. */
    private final Set<String> reportedMissing = new java.util.HashSet<>();
    private Backend chain;
    private volatile Runnable refresher;
    private Map<Long, Orphan> current = Map.of();
    private Inspection last;

    /** What the last inspection saw, for listings. */
    private record Inspection(Instant at, long inventoryTime, String protocol, int reservations, String jobSourceError) {
    }

    /**
     * @param jobs the scheduler's job list, or null to judge reservations without it
     * @param apkill the {@code apkill} program (cray.conf default {@code /usr/bin/apkill})
     * @param commandTimeout how long {@code apkill} may take
     * @param stats where the counters and the {@code orphans} gauge go
     */
    public OrphanWatch(JobSource jobs, Path apkill, Duration commandTimeout, Stats stats) {
        this.jobs = jobs;
        this.apkill = new Apkill(apkill, commandTimeout);
        this.found = stats.counter(ProxyMetric.ORPHANS_FOUND);
        this.releases = stats.counter(ProxyMetric.ORPHANS_RELEASED);
        this.detectionSeconds = stats.counter(ProxyMetric.ORPHANS_DETECTION_SECONDS);
        this.leftBehind = stats.counter(ProxyMetric.ORPHANS_INTERRUPTED_RESERVES);
        stats.gauge(ProxyMetric.ORPHANS, () -> orphans().size());
    }

    /**
     * Told of an interrupted RESERVE: with the reservation it made, just before the watch releases it (the ledger
     * binds its hold to it and voids the hold once the RELEASE went through), or with null when ALPS shows none
     * (the hold is voided at once: its caller asks again under a new RESERVE either way).
     */
    @FunctionalInterface
    public interface LeftHolds {
        void adoptInterrupted(String batchId, String exchangeId, Long reservationId);
    }

    /**
     * A pair of proxies: once active, every full inventory this watch judges is searched for the reservations of
     * RESERVEs the pair's journal found interrupted (forwarded to ALPS by a proxy that stopped before it answered):
     * one of the same batch id and user, made no earlier than a minute before that RESERVE began, that no RESERVE
     * answer recorded by the pair or given by this proxy names. Such a reservation was never told to any scheduler
     * (it got a TRANSIENT failure and asks again under a new RESERVE), so it is released at once, even while its job
     * waits, and the ledger's hold for it (see {@link #keepHoldsWith}) is voided by that RELEASE.
     */
    public void settleInterruptedReserves(Availability pair) {
        this.pair = pair;
    }

    /** How the ledger's hold of an interrupted RESERVE is found before its reservation is released. */
    public void keepHoldsWith(LeftHolds holds) {
        this.holds = holds;
    }

    /** Wraps the chain below this point: RESERVE and RELEASE results are noted on the way back. */
    public synchronized Backend decorate(Backend inner) {
        Backend watched = new Watched(inner);
        chain = watched;
        return watched;
    }

    /**
     * What {@code refresh=true} of {@link #admin} runs first: the policy's
     * {@link org.alpsbridge.proxy.policy.InventoryPolicy#refreshNow()}, which fetches a full inventory and
     * returns once this watch has inspected it.
     */
    public void refreshBy(Runnable refresher) {
        this.refresher = refresher;
    }

    /**
     * Judges the reservations of one full inventory straight from the backend.
     *
     * @param fetchStartedNanos {@link System#nanoTime()} when the fetch of this inventory started
     */
    public void inspect(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations, long fetchStartedNanos) {
        synchronized (this) {
            if (standby) {
                return; // what the active proxy of the pair forwards is not seen here: nothing can be judged
            }
        }
        Map<Long, List<Long>> held = new HashMap<>();
        for (NodeView n : nodes) {
            for (Long id : n.reservations()) {
                held.computeIfAbsent(id, k -> new ArrayList<>()).add(n.nodeId());
            }
        }
        List<Seen> seen = new ArrayList<>(reservations.size());
        for (ReservationView r : reservations) {
            List<Long> nids = held.getOrDefault(r.reservationId(), List.of());
            seen.add(new Seen(r.reservationId(), r.userName(), r.accountName(), r.batchId(),
                    r.timeStamp() == null ? 0 : r.timeStamp(), NidSet.copyOf(nids.stream().mapToLong(Long::longValue)),
                    r.launchedApplicationIds()));
        }
        Set<String> live = null;
        String jobError = null;
        if (jobs != null) {
            try {
                live = jobs.liveJobIds();
            } catch (IOException e) {
                jobError = e.getMessage();
                log.warn("orphans: job source failed, reservations are not judged by their jobs this time: {}", jobError);
            }
        }
        long inventoryTime = header.timestamp() != null ? header.timestamp() : Instant.now().getEpochSecond();
        synchronized (this) {
            Map<Long, Orphan> now = detector.judge(seen, inventoryTime, fetchStartedNanos, live);
            for (Orphan o : now.values()) {
                if (!current.containsKey(o.reservationId())) {
                    announce(o);
                }
            }
            current = now;
            last = new Inspection(Instant.now(), inventoryTime, header.protocol(), reservations.size(), jobError);
        }
        settleLeftBehind(seen); // first: an interrupted RESERVE's reservation is settled as such (its hold voided)
        releaseSuperseded();
    }

    /**
     * Releases at once each orphan whose batch job has a newer reservation ({@link Reason#SUPERSEDED}): its
     * scheduler has moved on to the newer one, so nobody will use or release it, and until it goes it holds nodes
     * the scheduler thinks are free (every RESERVE placed on them is refused). Through the chain, so the ledger
     * settles its hold; what fails stays listed and is tried again at the next full inventory.
     */
    private void releaseSuperseded() {
        List<Orphan> superseded;
        Backend through;
        String protocol;
        synchronized (this) {
            superseded = current.values().stream().filter(o -> o.reasons().contains(Reason.SUPERSEDED)).toList();
            through = chain;
            protocol = lastProtocol();
        }
        if (superseded.isEmpty() || through == null) {
            return;
        }
        for (Orphan o : superseded) {
            if (releaseOne(through, protocol, o).released()) {
                forget(o.reservationId());
            }
        }
    }

    /** The protocol of the last inspected inventory, for the RELEASEs the watch sends itself. Holds the lock. */
    private String lastProtocol() {
        return last == null || last.protocol() == null || last.protocol().isEmpty() ? "1.0" : last.protocol();
    }

    /** No longer lists the orphan {@code id}: it was released. */
    private synchronized void forget(long id) {
        if (current.containsKey(id)) {
            Map<Long, Orphan> now = new LinkedHashMap<>(current);
            now.remove(id);
            current = now;
        }
    }

    /** How much earlier than its RESERVE began (the database's clock) ALPS's clock may stamp a reservation. */
    private static final long CLOCK_SKEW_SECONDS = 60;

    /** See {@link #settleInterruptedReserves}. Runs after the judging of {@code seen}, outside the lock. */
    private void settleLeftBehind(List<Seen> seen) {
        Availability ha = pair;
        Backend through;
        String protocol;
        long inventoryTime;
        Set<Long> mine = new java.util.HashSet<>();
        synchronized (this) {
            if (ha == null || standby || !lookForLeft || chain == null) {
                return;
            }
            if (detector.reserveInFlight()) {
                return; // its reservation may be in this inventory, not yet named by its answer: the next one decides
            }
            seen.forEach(r -> {
                if (detector.reservedHere(r.id())) {
                    mine.add(r.id());
                }
            });
            through = chain;
            protocol = lastProtocol();
            inventoryTime = last == null ? 0 : last.inventoryTime();
        }
        List<Availability.LeftReserve> left;
        try {
            left = ha.unsettledReserves();
        } catch (SQLException e) {
            log.warn("orphans: cannot read the pair's interrupted RESERVEs, looked for again at the next inventory: {}",
                    e.getMessage());
            return;
        }
        if (left.isEmpty()) {
            synchronized (this) {
                lookForLeft = false;
            }
            return;
        }
        Set<Long> done = new java.util.HashSet<>();
        for (Availability.LeftReserve l : left) {
            Set<Long> told = new java.util.HashSet<>(mine);
            try {
                for (byte[] answer : ha.reserveAnswers(l.batchId())) {
                    Long id = reservedId(answer);
                    if (id != null) {
                        told.add(id);
                    }
                }
            } catch (SQLException e) {
                log.warn("orphans: cannot read the pair's RESERVE answers of batch {}, looked for again at the next"
                        + " inventory: {}", l.batchId(), e.getMessage());
                return;
            }
            List<Seen> made = seen.stream().filter(r -> l.batchId().equals(r.batchId())
                    && (l.user() == null || l.user().equals(r.user())) && !told.contains(r.id())
                    && (r.timeStamp() == 0 || r.timeStamp() >= l.started().getEpochSecond() - CLOCK_SKEW_SECONDS))
                    .toList();
            String from = (l.proxy() == null ? "a proxy of the pair" : "the apbasil proxy " + l.proxy())
                    + "'s interrupted RESERVE of batch " + l.batchId() + " (exchange " + l.exchangeId() + ", user "
                    + l.user() + ", begun " + l.started() + ")";
            if (made.isEmpty()) {
                if (reportedMissing.add(l.exchangeId())) {
                    holds.adoptInterrupted(l.batchId(), l.exchangeId(), null);
                    leftBehind.increment("not-found");
                    log.info("orphans: no reservation in ALPS from {} (it may not have reached ALPS); looked for again"
                            + " at each full inventory while the pair remembers it", from);
                }
                continue;
            }
            List<String> outcome = new ArrayList<>();
            boolean allReleased = true;
            for (Seen r : made) {
                if (!done.add(r.id())) {
                    outcome.add("reservation " + r.id() + " released above");
                    continue;
                }
                holds.adoptInterrupted(l.batchId(), l.exchangeId(), r.id());
                Orphan o = Detector.orphan(r, inventoryTime, EnumSet.of(Reason.INTERRUPTED_RESERVE));
                ReleaseOutcome result = releaseOne(through, protocol, o);
                if (result.released()) {
                    leftBehind.increment("released");
                    outcome.add("released reservation " + r.id());
                    log.warn("orphans: released reservation {} (user {}, nodes {}) left by {}: no scheduler was told"
                            + " of it", r.id(), r.user(), r.nids(), from);
                    forget(r.id());
                } else {
                    allReleased = false;
                    leftBehind.increment("release-failed");
                    log.warn("orphans: reservation {} left by {} could not be released ({}); tried again at the next"
                            + " full inventory", r.id(), from, result.message());
                    synchronized (this) {
                        Map<Long, Orphan> now = new LinkedHashMap<>(current);
                        now.put(r.id(), o);
                        current = now;
                    }
                }
            }
            if (allReleased) {
                try {
                    ha.settle(l, String.join(", ", outcome));
                } catch (SQLException e) {
                    log.warn("orphans: could not record that {} is settled ({}); the next takeover finds its"
                            + " reservation gone", from, e.getMessage());
                }
            }
        }
    }

    /**
     * For the standby of a pair of proxies ({@code ha_db}): while standby, inventories are not judged (the
     * active proxy's RESERVEs are not seen here); at every change of role what was known is forgotten, so the
     * first full inventory after a takeover adopts every reservation in it and judges it by its batch job only,
     * as after a start, and looks for what RESERVEs interrupted on the other proxy left
     * ({@link #settleInterruptedReserves}).
     */
    public synchronized void standby(boolean standby) {
        this.standby = standby;
        this.lookForLeft = !standby;
        reportedMissing.clear();
        detector = new Detector();
        current = Map.of();
        last = null;
    }

    /** Counts and logs an orphan seen for the first time. Holds the lock. */
    private void announce(Orphan o) {
        o.reasons().forEach(r -> found.increment(r.label()));
        if (o.reasons().contains(Reason.NOT_CREATED_BY_PROXY)) {
            detectionSeconds.add("", o.ageSeconds());
        }
        log.warn("orphans: reservation {} is an orphan ({}): user {}, batch id {}, nodes {}, age {} s",
                o.reservationId(), o.why(), o.user(), o.batchId(), o.nids(), o.ageSeconds());
    }

    /** The orphans of the last inspection, in inventory order. */
    public synchronized List<Orphan> orphans() {
        return List.copyOf(current.values());
    }

    /**
     * Releases orphans the safe way: RELEASE, then {@code apkill -9} for each launched application once
     * ALPS took the RELEASE (a reservation ALPS no longer knows counts as released).
     *
     * @param ids the reservations to release; each must be an orphan of the last inspection
     */
    public List<ReleaseOutcome> release(Collection<Long> ids) {
        List<Orphan> targets = new ArrayList<>();
        Backend through;
        String protocol;
        synchronized (this) {
            for (Long id : ids) {
                Orphan o = current.get(id);
                if (o == null) {
                    throw new IllegalArgumentException("reservation " + id + " is not an orphan of the last inventory");
                }
                targets.add(o);
            }
            through = chain;
            protocol = lastProtocol();
        }
        if (through == null) {
            throw new IllegalStateException("orphans: the watch is not part of a backend chain");
        }
        List<ReleaseOutcome> outcomes = new ArrayList<>();
        for (Orphan o : targets) {
            outcomes.add(releaseOne(through, protocol, o));
        }
        return outcomes;
    }

    private ReleaseOutcome releaseOne(Backend through, String protocol, Orphan o) {
        String message;
        boolean released;
        try {
            byte[] request = codec.write(BasilRequest.release(protocol, o.reservationId()));
            ResponseData answer = codec.readResponse(through.call(new Call(request, protocol, "RELEASE", null,
                    Caller.UNAUTHENTICATED, null))).responseData();
            released = answer.isSuccess() || answer.messageText().contains("No entry for resId");
            message = answer.isSuccess() ? "released" : answer.messageText();
        } catch (BasilException | BackendException e) {
            released = false;
            message = e.getMessage();
        }
        List<ReleaseOutcome.Kill> kills = new ArrayList<>();
        if (released) {
            for (long apid : o.apids()) {
                kills.add(apkill.kill(apid));
            }
        }
        boolean killedAll = kills.stream().allMatch(ReleaseOutcome.Kill::succeeded);
        String outcome = !released ? "release-failed" : killedAll ? "released" : "apkill-failed";
        releases.increment(outcome);
        log.warn("orphans: released reservation {}: {}{}", o.reservationId(), message,
                kills.isEmpty() ? "" : ", apkill " + kills.stream().map(k -> k.apid() + "=" + k.exitStatus()).collect(Collectors.joining(",")));
        return new ReleaseOutcome(o.reservationId(), released, message, kills);
    }

    /**
     * The admin handler behind {@code alpsbridge proxy orphans}: {@code refresh=true} has a full inventory
     * fetched and inspected first (see {@link #refreshBy}); {@code release=true} releases every orphan;
     * {@code format=json} answers one JSON object, anything else a table.
     */
    public byte[] admin(Map<String, String> args) {
        Runnable refresh = refresher;
        if (Boolean.parseBoolean(args.getOrDefault("refresh", "false")) && refresh != null) {
            refresh.run();
        }
        Map<Long, ReleaseOutcome> outcomes = new LinkedHashMap<>();
        List<Orphan> listed = orphans();
        if (Boolean.parseBoolean(args.getOrDefault("release", "false"))) {
            release(listed.stream().map(Orphan::reservationId).toList()).forEach(r -> outcomes.put(r.reservationId(), r));
        }
        Inspection seen;
        synchronized (this) {
            seen = last;
        }
        String text = "json".equals(args.get("format")) ? json(seen, listed, outcomes) : table(seen, listed, outcomes);
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private String json(Inspection seen, List<Orphan> listed, Map<Long, ReleaseOutcome> outcomes) {
        StringBuilder j = new StringBuilder(256);
        j.append("{\"inspectedAt\":").append(seen == null ? "null" : JsonText.quote(seen.at().toString()))
                .append(",\"inventoryTimestamp\":").append(seen == null ? "null" : seen.inventoryTime())
                .append(",\"reservations\":").append(seen == null ? 0 : seen.reservations())
                .append(",\"jobSource\":").append(jobs == null ? "null" : JsonText.quote(jobs.describe()))
                .append(",\"jobSourceError\":").append(seen == null ? "null" : JsonText.quote(seen.jobSourceError()))
                .append(",\"orphans\":[");
        String sep = "";
        for (Orphan o : listed) {
            j.append(sep).append("{\"reservationId\":").append(o.reservationId())
                    .append(",\"user\":").append(JsonText.quote(o.user()))
                    .append(",\"account\":").append(JsonText.quote(o.account()))
                    .append(",\"batchId\":").append(JsonText.quote(o.batchId()))
                    .append(",\"nodes\":").append(JsonText.quote(o.nids().toString()))
                    .append(",\"nodeCount\":").append(o.nids().size())
                    .append(",\"ageSeconds\":").append(o.ageSeconds())
                    .append(",\"reasons\":[").append(o.reasons().stream().map(r -> JsonText.quote(r.label())).collect(Collectors.joining(",")))
                    .append("],\"why\":").append(JsonText.quote(o.why()))
                    .append(",\"apids\":").append(o.apids());
            ReleaseOutcome r = outcomes.get(o.reservationId());
            if (r != null) {
                j.append(",\"release\":").append(r.toJson());
            }
            j.append('}');
            sep = ",";
        }
        return j.append("]}\n").toString();
    }

    private String table(Inspection seen, List<Orphan> listed, Map<Long, ReleaseOutcome> outcomes) {
        StringBuilder t = new StringBuilder(256);
        if (seen == null) {
            return "no full inventory inspected yet\n";
        }
        t.append(String.format(Locale.ROOT, "inventory of %s (ALPS time %d): %d reservations, %d orphans; jobs from %s%s%n",
                seen.at(), seen.inventoryTime(), seen.reservations(), listed.size(), jobs == null ? "(none)" : jobs.describe(),
                seen.jobSourceError() == null ? "" : " (failed: " + seen.jobSourceError() + ")"));
        if (listed.isEmpty()) {
            return t.toString();
        }
        String row = "%-10s %-12s %-10s %-10s %-20s %8s  %s%n";
        t.append(String.format(Locale.ROOT, row, "RESID", "USER", "ACCOUNT", "BATCH", "NODES", "AGE", "WHY"));
        for (Orphan o : listed) {
            ReleaseOutcome r = outcomes.get(o.reservationId());
            t.append(String.format(Locale.ROOT, row, o.reservationId(), o.user(), o.account(), o.batchId(), o.nids(),
                    o.ageSeconds() + "s", o.why() + (r == null ? "" : " -> " + r.summary())));
        }
        return t.toString();
    }

    /** The reservation a RESERVE answer names; null for a failure or an unreadable answer. */
    private Long reservedId(byte[] response) {
        try {
            BasilResponse r = codec.readResponse(response);
            return r.responseData().isSuccess() && r.responseData().method() == Method.RESERVE
                    ? r.responseData().content(Reserved.class).map(Reserved::reservationId).orElse(null)
                    : null;
        } catch (BasilException e) {
            return null;
        }
    }

    private final class Watched implements Backend {
        private final Backend inner;

        Watched(Backend inner) {
            this.inner = inner;
        }

        @Override
        public byte[] call(Call call) throws BackendException {
            if ("RESERVE".equals(call.method())) {
                return reserve(call);
            }
            if ("RELEASE".equals(call.method())) {
                return release(call);
            }
            return inner.call(call);
        }

        private byte[] reserve(Call call) throws BackendException {
            long ticket;
            synchronized (OrphanWatch.this) {
                ticket = detector.reserveStarted();
            }
            Long id = null;
            try {
                byte[] response = inner.call(call);
                id = reservedId(response);
                return response;
            } finally {
                synchronized (OrphanWatch.this) {
                    List<Orphan> late = detector.reserveEnded(ticket, id, System.nanoTime());
                    if (!late.isEmpty()) {
                        Map<Long, Orphan> now = new LinkedHashMap<>(current);
                        for (Orphan o : late) {
                            now.put(o.reservationId(), o);
                            announce(o);
                        }
                        current = now;
                    }
                }
            }
        }

        private byte[] release(Call call) throws BackendException {
            Long id;
            try {
                id = codec.readRequest(call.request()).reservationId();
            } catch (BasilException e) {
                id = null;
            }
            if (id == null) {
                return inner.call(call); // the backend will reject it; nothing to note
            }
            synchronized (OrphanWatch.this) {
                detector.releaseStarted(id);
            }
            boolean ok = false;
            long claims = 0;
            try {
                byte[] response = inner.call(call);
                ResponseData answer = answer(response);
                ok = answer != null && answer.isSuccess();
                claims = !ok ? 0 : answer.content(Released.class).map(Released::claims).filter(c -> c != null).orElse(0L);
                return response;
            } finally {
                synchronized (OrphanWatch.this) {
                    detector.releaseEnded(id, ok, claims, System.nanoTime());
                }
            }
        }

        private ResponseData answer(byte[] response) {
            try {
                return codec.readResponse(response).responseData();
            } catch (BasilException e) {
                return null;
            }
        }

        @Override
        public String describe() {
            return inner.describe();
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
