package org.alpsbridge.proxy.policy;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReservationStates;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.basil.model.Summary;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.stats.Counter;
import org.alpsbridge.proxy.stats.ProxyMetric;
import org.alpsbridge.proxy.stats.Stats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the scheduler's QUERY(INVENTORY) from the last full inventory while that is provably current,
 * and asks the backend for a full one only when it may not be.
 *
 * <p>The cache of one protocol version is current when: SUMMARY's {@code schedchangecount} equals the
 * cached inventory's (no node changed state or role), ALPS's reservations, asked for alone, include none the cache
 * does not show ({@link #reservationVerdict}; what ALPS released and the applications aprun launched behind the proxy's
 * back are taken from that answer), every RESERVE and RELEASE the proxy forwarded since has been applied to it, and it
 * was fetched or renewed by such a check within the refresh interval, and fetched within the full refresh interval. A
 * full INVENTORY is fetched instead, with the {@link RefreshReason} counted in
 * {@code alpsbridge_proxy_policy_refreshes_total{reason=...}}.
 *
 * <p>A RELEASE answered {@code claims} &gt; 0 leaves the reservation in ALPS, and in the cache, until its last claim
 * (an aprun application, the job's container) ends; ALPS then removes it unannounced. While such reservations drain,
 * the reservations check before each answer drops them once ALPS no longer lists them (where no check runs, within a
 * summary interval or after a failed one, one QUERY(STATUS) of them: a reservation ALPS no longer has is
 * {@code INVALID}), and a RESERVE that ALPS placed on their nodes, or a RELEASE answered "No entry for resId", proves
 * them gone as well; the cache drops what is proven gone ({@code policy_patches{release-drained}}) and answers.
 * Until then it shows the reservation holding its nodes, as ALPS does, so a scheduler never places a job there.
 *
 * <p>QUERY(ENGINE) passes through, and while ALPS cannot answer it the last answer it gave is given again
 * ({@link EngineMemory}; {@code policy_engine_answers{source=backend|memory}}).
 *
 * <p>A RESERVE or CONFIRM answered FAILURE changed nothing (ALPS rejects them whole), so it costs no
 * refresh, but for a RESERVE refused on a node held by a reservation the cache does not show (made behind the
 * proxy's back): that one costs the next INVENTORY a full fetch, which shows the scheduler the reservation.
 * Selective INVENTORY requests (with a body) and every other method pass straight through.
 * Refreshes, the choice of a cache answer and the patches of reservation changes are serialized by one lock (the
 * answer's document is written and sent outside it: {@link InventoryAnswer}); RESERVE, SWITCH and RELEASE call ALPS
 * outside it and never wait for it, nor for each other (pbs_mom reserves from several job starters at once,
 * slurmstepd releases beside slurmctld's calls): each answer is applied under it, by the change or by the lock's next
 * holder ({@link #change}), and a CONFIRM, which changes nothing an inventory shows, passes through; the backend is
 * called on the caller's thread, except the interval refresh of {@link #start()}.
 *
 * <p>Each refresh checks the cache's own RESERVE patches against what ALPS shows; a difference is logged
 * and counted ({@code policy_patch_mismatches}). What neither SUMMARY nor the reservations show (node labels, roles,
 * attributes) reaches the cache at the next full refresh: the documented staleness window is the full refresh interval
 * for those, and the summary interval for node states and reservations.
 */
public final class InventoryPolicy implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InventoryPolicy.class);
    /**
     * The query type the reservations-only INVENTORY is timed and limited under ({@code QUERY/INVENTORY(reservations)}
     * in the stats and {@code apbasil_timeout.*}), apart from the scheduler's full ones: the request ALPS gets is a
     * QUERY(INVENTORY).
     */
    static final String RESERVATIONS_ONLY = "INVENTORY(reservations)";
    /** ALPS's answer to a RELEASE of a reservation it does not have (Slurm's libalps matches the same words). */
    private static final java.util.regex.Pattern NO_ENTRY = java.util.regex.Pattern.compile("No entry for resId (\\d+)");
    /** ALPS's refusal of a RESERVE on a node a reservation holds (apsched's words, as the emulator writes them). */
    private static final java.util.regex.Pattern ALREADY_RESERVED = java.util.regex.Pattern.compile(
            "is already reserved \\(resId (\\d+)\\)");

    private final PolicySettings settings;
    private final Clock clock;
    private final BasilCodec codec = BasilCodec.standard();
    private final ReentrantLock lock = new ReentrantLock();
    /** Reservation changes' patches waiting for the lock ({@link #patchLater}). */
    private final java.util.Queue<Runnable> deferred = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final Map<String, Entry> entries = new HashMap<>();
    /** RESERVEs at ALPS now ({@link #begin}); guards itself. */
    private final java.util.Set<InFlight> reservesInFlight = new java.util.HashSet<>();
    private final List<FullInventoryListener> listeners = new CopyOnWriteArrayList<>();
    private final Executor notifier;
    private final ExecutorService ownNotifier;
    private final Counter refreshes;
    private final Counter patches;
    private final EngineMemory engine;
    private final Counter mismatches;
    private final Counter unseen;
    private final Counter answered;
    private ScheduledExecutorService timer;
    /** Caches fetched before this (the policy's clock) are not answered from: see {@link #distrustCache}. */
    private volatile long distrustedBeforeMillis = Long.MIN_VALUE;
    private volatile RefreshReason distrustReason = RefreshReason.OPERATOR;
    private volatile Backend inner;
    private UserIds userIds;
    /** Lookups since the last refresh, unknown users included (as null), so each costs one lookup per interval. */
    private final Map<String, long[]> lookups = new HashMap<>();
    /** Reservations whose RELEASE ALPS answered with claims outstanding, until ALPS is known to have removed them. */
    private final java.util.Set<Long> releasing = new java.util.TreeSet<>();
    /** QUERY(STATUS) checks of draining reservations, by what they found. */
    private final Counter drainChecks;
    /** The idle timer's reservations-only INVENTORYs, by what they found. */
    private final Counter reservationChecks;

    /** What the policy knows about one protocol version's inventory. */
    private static final class Entry {
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

    /**
     * @param userIds where a user's uid and gid come from before an inventory has shown them
     * @param notifier runs the full-inventory listeners, in order; null for a background thread of its own
     */
    public InventoryPolicy(PolicySettings settings, UserIds userIds, Clock clock, Stats stats, Executor notifier) {
        this.settings = settings;
        this.userIds = userIds;
        this.clock = clock;
        if (notifier == null) {
            this.ownNotifier = Executors.newSingleThreadExecutor(r -> daemon(r, "policy-listeners"));
            this.notifier = ownNotifier;
        } else {
            this.ownNotifier = null;
            this.notifier = notifier;
        }
        this.refreshes = stats.counter(ProxyMetric.POLICY_REFRESHES);
        this.engine = new EngineMemory(stats.counter(ProxyMetric.POLICY_ENGINE_ANSWERS));
        this.patches = stats.counter(ProxyMetric.POLICY_PATCHES);
        this.mismatches = stats.counter(ProxyMetric.POLICY_PATCH_MISMATCHES);
        mismatches.add("", 0); // exported at 0 from the start, so that the alert's increase() sees the first one
        this.unseen = stats.counter(ProxyMetric.POLICY_UNSEEN_CHANGES);
        this.drainChecks = stats.counter(ProxyMetric.POLICY_DRAIN_CHECKS);
        this.reservationChecks = stats.counter(ProxyMetric.POLICY_RESERVATION_CHECKS);
        this.answered = stats.counter(ProxyMetric.POLICY_INVENTORY_ANSWERS);
        stats.gauge(ProxyMetric.POLICY_CACHE_AGE_SECONDS, this::oldestAgeSeconds);
    }

    public InventoryPolicy(PolicySettings settings, UserIds userIds, Stats stats) {
        this(settings, userIds, Clock.systemUTC(), stats, null);
    }

    /** Wraps the chain below: the backend, or the backend's timing decorator. */
    public Backend decorate(Backend below) {
        lock();
        try {
            this.inner = below;
        } finally {
            unlock();
        }
        return new Policy(below);
    }

    /** Where a pair of proxies keeps what ALPS answered to QUERY(ENGINE), by request; see {@link #shareEngineAnswers}. */
    public interface SharedAnswers {
        /** The answer kept for {@code request}, or null. */
        byte[] get(String request) throws Exception;

        void put(String request, byte[] answer) throws Exception;
    }

    /**
     * Keeps ALPS's QUERY(ENGINE) answers in {@code pair} too, and gives the one kept there while ALPS cannot answer
     * a request this proxy never asked it (it was the standby).
     */
    public void shareEngineAnswers(SharedAnswers pair) {
        engine.share(pair);
    }

    /** Adds a receiver of every full inventory fetched from the backend. */
    public void onFullInventory(FullInventoryListener listener) {
        listeners.add(listener);
    }

    /**
     * Starts the timer that checks every cached inventory's reservations before it gets older than the refresh interval,
     * even when idle ({@link #idleCheckDoes}): a reservation made behind the proxy's back just after one check started
     * is in the answer of the next check, within one refresh interval of it, and the orphan watch sees it.
     */
    public synchronized void start() {
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "policy-refresh"));
            long period = timerPeriodMillis();
            timer.scheduleWithFixedDelay(this::refreshDue, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /** How often the timer looks: a twentieth of the refresh interval, within 50 to 250 ms (a look is a comparison). */
    private long timerPeriodMillis() {
        return Math.max(50, Math.min(250, settings.refreshInterval().toMillis() / 20));
    }

    /**
     * Checks every cached inventory whose last fetch or check would reach the refresh interval before what the next
     * timer tick could start completes (its age plus the last fetch's duration plus one timer period), and fetches it
     * whole where the check fails ({@link #idleCheckDoes}); what the timer runs. Failures are logged, and the next
     * scheduler request retries.
     */
    public void refreshDue() {
        long interval = settings.refreshInterval().toMillis();
        long now = clock.millis();
        // the listeners (the orphan watch) must see ALPS's reservations each interval: only a fetch and the timer's own
        // checks give them those, so a renewal by the check before a scheduler's answer does not count here
        refreshWhere(e -> now - Math.max(e.cache.fetchedAtMillis, e.checkedAtMillis) + e.lastFetchMillis + timerPeriodMillis()
                >= interval, RefreshReason.INTERVAL);
    }

    /**
     * Fetches a full inventory now for every protocol version the scheduler asked for, whatever the
     * cache's age, and waits until the full-inventory listeners (the orphan watch) have seen it.
     *
     * @return how many inventories were fetched; 0 when the scheduler asked for none yet or the fetch failed
     */
    public int refreshNow() {
        int fetched = refreshWhere(e -> true, RefreshReason.OPERATOR);
        try {
            CompletableFuture.runAsync(() -> { }, notifier).get(settings.refreshInterval().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException ex) {
            log.warn("policy: the full-inventory listeners did not finish: {}", ex.toString());
        }
        return fetched;
    }

    private int refreshWhere(Predicate<Entry> due, RefreshReason reason) {
        int fetched = 0;
        lock();
        try {
            for (Map.Entry<String, Entry> e : new ArrayList<>(entries.entrySet())) {
                if (e.getValue().cache != null && due.test(e.getValue())) {
                    if (reason == RefreshReason.INTERVAL && idleCheckDoes(e.getValue(), e.getKey())) {
                        continue;
                    }
                    byte[] request = codec.write(BasilRequest.query(e.getKey(), "INVENTORY"));
                    RefreshReason why = reason == RefreshReason.INTERVAL && e.getValue().staleBecause != null
                            ? e.getValue().staleBecause : reason;
                    refresh(e.getValue(), new Call(request, e.getKey(), "QUERY", "INVENTORY", Caller.UNAUTHENTICATED, null),
                            why);
                    fetched++;
                }
            }
        } catch (BasilException | BackendException | RuntimeException ex) {
            log.warn("policy: {} refresh failed: {}", reason.label(), ex.getMessage());
        } finally {
            unlock();
        }
        return fetched;
    }

    /**
     * What the idle timer does instead of a full inventory: it asks for the reservations alone
     * ({@link #checkReservations}) and gives the full-inventory listeners (the orphan watch, the ledger sweep) ALPS's
     * reservations with the cached nodes, as a full fetch would have given them, so a reservation made behind the
     * proxy's back reaches them within one refresh interval even when no scheduler asks (pbs_mom asks INVENTORY only
     * at its start, after a RESERVE failed TRANSIENT, and on SIGHUP). The timer never fetches a full inventory for
     * nobody: what makes a cache stale (a reservation the check found unseen, the full refresh interval, a change
     * whose outcome is unknown) is fetched at the next scheduler INVENTORY, which on-system would have cost the
     * scheduler a full one anyway; a reservation made behind the proxy's back is listed without its nodes until then.
     * Only a check that fails (or a protocol before 1.1, which has no such query) costs the full fetch, which the
     * orphan watch needs.
     *
     * @return true when the listeners were given the reservations and no full fetch is needed
     */
    private boolean idleCheckDoes(Entry e, String protocol) {
        Check check = checkReservations(e, protocol);
        if (check.outcome == Outcome.FAILED) {
            return false;
        }
        e.checkedAtMillis = check.startedMillis;
        notifyListeners(check.fresh.header(), e.cache.nodes(), check.fresh.reservations(), check.startedNanos);
        return true;
    }

    /**
     * Whether a check that finds ALPS's reservations as cached may renew the cache (its age for the refresh interval then
     * counts from the check): while it is younger than the full refresh interval.
     */
    private boolean mayRenew(Entry e) {
        return clock.millis() - e.cache.fetchedAtMillis + e.lastFetchMillis + timerPeriodMillis()
                < settings.fullRefreshInterval().toMillis();
    }

    /** What a reservations-only check found. */
    private enum Outcome {
        /** ALPS shows no reservation the cache does not: the cache now shows ALPS's reservations exactly. */
        SAME,
        /** ALPS shows a reservation the cache does not, and no RESERVE is at ALPS that could have made it. */
        UNSEEN,
        /** ALPS shows one the cache does not, but a RESERVE at ALPS now may have made it: nothing is judged. */
        UNSURE,
        FAILED
    }

    private record Check(Outcome outcome, CachedInventory fresh, long startedMillis, long startedNanos) {
    }

    /**
     * Asks ALPS for its reservations alone ({@code <Inventory><ReservationArray/></Inventory>}, BASIL 1.1+; Cobalt's
     * way of following reservations between full inventories; 82 MB less at knl:4392) and brings the cache's
     * reservations to what it shows, after applying the changes answered meanwhile, so the two compare at the same point:
     * a reservation ALPS no longer has is dropped with its allocations (released behind the proxy's back, or drained
     * after a RELEASE with claims outstanding); one whose applications differ (an aprun launched or ended) is taken as
     * ALPS shows it, its allocations unchanged (allocations never move). A reservation ALPS has and the cache does not
     * (made behind the proxy's back) cannot be patched in: nothing but a full inventory says which nodes it holds.
     * Counted in {@code policy_reservation_checks{same|changed|unsure|failed}}.
     */
    private Check checkReservations(Entry e, String protocol) {
        long startedNanos = System.nanoTime();
        long startedMillis = clock.millis();
        if (!Protocols.atLeast(protocol, "1.1") || e.cache == null) {
            return new Check(Outcome.FAILED, null, startedMillis, startedNanos);
        }
        // what ALPS had answered before the query is in the cache; only those reservations can be proven gone by it
        applyDeferred();
        java.util.Set<Long> before = e.cache.reservationIds();
        CachedInventory fresh;
        try {
            byte[] request = codec.write(BasilRequest.inventorySince(protocol, null, true));
            byte[] response = inner.call(new Call(request, protocol, "QUERY", RESERVATIONS_ONLY, Caller.UNAUTHENTICATED, null));
            fresh = CachedInventory.read(response, protocol, startedMillis, clock.millis(), startedNanos, null);
        } catch (BasilException | BackendException ex) {
            reservationChecks.increment("failed");
            log.info("policy: the reservations-only INVENTORY failed: {}", ex.getMessage());
            return new Check(Outcome.FAILED, null, startedMillis, startedNanos);
        }
        if (!fresh.header().isSuccess() || !fresh.nodes().isEmpty()) {
            reservationChecks.increment("failed");
            return new Check(Outcome.FAILED, null, startedMillis, startedNanos);
        }
        e.cache.takeClock(fresh);
        boolean reserving;
        synchronized (reservesInFlight) {
            // a RESERVE not at ALPS now has its answer queued, so the patches applied next hold every reservation a
            // RESERVE the proxy forwarded made before ALPS answered the query
            reserving = !reservesInFlight.isEmpty();
        }
        applyDeferred();
        java.util.Set<Long> alps = fresh.reservationIds();
        for (Long id : before) {
            if (!alps.contains(id) && e.cache.holds(id)) {
                if (releasing.contains(id)) {
                    drained(id);
                } else {
                    gone(id, "release-unseen");
                }
            }
        }
        List<String> wrong = e.cache.takeReservations(fresh);
        if (!wrong.isEmpty()) {
            mismatches.increment();
            log.warn("policy: {} cached RESERVE patch(es) differ from ALPS, e.g. {}", wrong.size(), wrong.get(0));
        }
        // one the cache showed before the query and dropped since was released after ALPS answered it: not unseen
        java.util.Set<Long> known = new java.util.HashSet<>(before);
        known.addAll(e.cache.reservationIds());
        boolean unseenOnes = !known.containsAll(alps);
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
        return new Check(outcome, fresh, startedMillis, startedNanos);
    }

    /** A reservation ALPS no longer has, without a RELEASE the proxy forwarded saying so: every cache drops it. */
    private void gone(long id, String label) {
        for (Entry e : entries.values()) {
            if (e.cache != null && e.cache.holds(id)) {
                e.cache.applyRelease(id);
                patches.increment(label);
            }
        }
    }

    /**
     * Answers nothing from what is cached now (the next INVENTORY of each protocol version is a full fetch) and
     * fetches every cached version again in the background; returns at once, without waiting for ALPS or for a
     * request in progress. What a proxy of a pair that served before does when it becomes active again: its cache
     * is older than the other proxy's RESERVEs, and ALPS may be unreachable at that moment, which must not hold up
     * the takeover.
     * Those fetches count as {@code takeover}.
     */
    public void distrustCache() {
        RefreshReason reason = RefreshReason.TAKEOVER;
        distrustReason = reason;
        long mark = clock.millis() + 1; // a fetch started within this millisecond may predate the call: refetched too
        distrustedBeforeMillis = mark;
        Runnable refetch = () -> refreshWhere(e -> e.cache.fetchedAtMillis < mark, reason);
        ScheduledExecutorService t;
        synchronized (this) {
            t = timer;
        }
        if (t != null) {
            t.execute(refetch);
        } else {
            daemon(refetch, "policy-refetch").start();
        }
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
        if (ownNotifier != null) {
            ownNotifier.shutdownNow();
        }
    }

    /** The nodes of the cached inventory of {@code protocol}, as last served; null when none (for tests). */
    List<NodeView> cachedNodes(String protocol) {
        lock();
        try {
            Entry e = entries.get(protocol);
            return e == null || e.cache == null ? null : e.cache.nodes();
        } finally {
            unlock();
        }
    }

    private long oldestAgeSeconds() {
        if (!lock.tryLock()) {
            return -1;
        }
        try {
            long now = clock.millis();
            return entries.values().stream().filter(e -> e.cache != null)
                    .mapToLong(e -> (now - e.cache.fetchedAtMillis) / 1000).max().orElse(-1);
        } finally {
            unlock();
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    // ---- INVENTORY ------------------------------------------------------------------------------------

    /**
     * A full fetch runs under the lock (the cache it makes must follow every change before it); a cached answer is
     * only taken under it ({@link CachedInventory#answer}: references to immutable views) and written after letting
     * go, so no RESERVE, SWITCH or RELEASE patch waits behind the writing of the document, and the daemon sends it
     * with no lock held.
     */
    private byte[] inventory(Call call, String protocol) throws BackendException {
        InventoryAnswer cached;
        lock();
        try {
            Entry e = entries.computeIfAbsent(protocol, p -> new Entry());
            RefreshReason reason = staleness(e, protocol);
            if (reason != null) {
                return refresh(e, call, reason);
            }
            answered.increment("cache");
            cached = e.cache.answer(clock.millis());
        } finally {
            unlock();
        }
        try {
            return cached.bytes();
        } catch (BasilException ex) {
            throw new BackendException("policy: cannot write the cached inventory: " + ex.getMessage(), true, ex);
        }
    }

    /** Why the cache cannot answer now, or null when it can. */
    private RefreshReason staleness(Entry e, String protocol) {
        if (e.cache == null) {
            return e.staleBecause == null ? RefreshReason.START : e.staleBecause;
        }
        if (e.cache.fetchedAtMillis < distrustedBeforeMillis) {
            return distrustReason;
        }
        if (e.staleBecause != null) {
            return e.staleBecause;
        }
        long now = clock.millis();
        long age = now - e.cache.fetchedAtMillis;
        if (now - e.freshSinceMillis() >= settings.refreshInterval().toMillis()
                || age >= Math.max(settings.refreshInterval().toMillis(), settings.fullRefreshInterval().toMillis())) {
            return RefreshReason.INTERVAL;
        }
        if (e.noSummary || !Protocols.atLeast(protocol, "1.3")) {
            return age >= settings.fallbackInterval().toMillis() ? RefreshReason.FALLBACK_INTERVAL : drainVerdict(protocol);
        }
        if (e.summaryCheckedMillis != Long.MIN_VALUE && now - e.summaryCheckedMillis < settings.summaryInterval().toMillis()) {
            return drainVerdict(protocol);
        }
        RefreshReason nodes = summaryVerdict(e, protocol, now);
        return nodes != null ? nodes : reservationVerdict(e, protocol);
    }

    /**
     * The second half of a cache's check before it answers, after SUMMARY found the nodes' states unchanged: a
     * reservations-only INVENTORY ({@link #checkReservations}), which shows a reservation made behind the proxy's back
     * before the scheduler places a job on its nodes (on-system it would have seen it in its own full INVENTORY), drops
     * what ALPS released meanwhile, drained reservations included, and takes the applications aprun launched. A
     * reservation the cache does not show costs a full fetch ({@code unseen-reservation}); a check that fails leaves the
     * cache answering as it stands (a full fetch would ask the same ALPS).
     */
    private RefreshReason reservationVerdict(Entry e, String protocol) {
        Check check = checkReservations(e, protocol);
        if (check.outcome == Outcome.UNSEEN) {
            return RefreshReason.UNSEEN_RESERVATION;
        }
        return check.outcome == Outcome.FAILED ? drainVerdict(protocol) : null;
    }

    /** While reservations released with claims outstanding drain and no reservations check ran: {@link #drain}. */
    private RefreshReason drainVerdict(String protocol) {
        return releasing.isEmpty() ? null : drain(protocol);
    }

    private RefreshReason summaryVerdict(Entry e, String protocol, long now) {
        ResponseData answer;
        try {
            byte[] request = codec.write(BasilRequest.query(protocol, "SUMMARY"));
            answer = codec.readResponse(inner.call(new Call(request, protocol, "QUERY", "SUMMARY", Caller.UNAUTHENTICATED,
                    null))).responseData();
        } catch (BasilException | BackendException ex) {
            log.info("policy: SUMMARY failed, fetching INVENTORY: {}", ex.getMessage());
            return RefreshReason.SUMMARY_FAILED;
        }
        if (!answer.isSuccess()) {
            if (answer.errorClass() == ErrorClass.PERMANENT) {
                log.warn("policy: the backend refuses SUMMARY ({}); INVENTORY is fetched at most every {} s instead",
                        answer.messageText(), settings.fallbackInterval().toSeconds());
                e.noSummary = true;
                return now - e.cache.fetchedAtMillis >= settings.fallbackInterval().toMillis() ? RefreshReason.FALLBACK_INTERVAL : null;
            }
            return RefreshReason.SUMMARY_FAILED;
        }
        Optional<Summary> summary = answer.content(Summary.class);
        if (summary.isEmpty()) {
            return RefreshReason.SUMMARY_FAILED;
        }
        e.summaryCheckedMillis = now;
        return changed(summary.get(), e.cache) ? RefreshReason.SUMMARY_CHANGED : null;
    }

    /**
     * Asks ALPS, with one QUERY(STATUS), which reservations released with claims outstanding it still has, and
     * drops the others from every cache. A STATUS that fails leaves them shown (the safe side: their nodes stay
     * held until the next check or refresh); a backend that refuses STATUS for good costs a full inventory.
     *
     * @return a refresh reason, or null when the cache may answer
     */
    private RefreshReason drain(String protocol) {
        ResponseData answer;
        try {
            byte[] request = codec.write(BasilRequest.status(protocol, List.copyOf(releasing)));
            answer = codec.readResponse(inner.call(new Call(request, protocol, "QUERY", "STATUS", Caller.UNAUTHENTICATED,
                    null))).responseData();
        } catch (BasilException | BackendException ex) {
            drainChecks.increment("failed");
            log.info("policy: STATUS of draining reservations failed, still shown: {}", ex.getMessage());
            return null;
        }
        Optional<ReservationStates> states = answer.isSuccess() ? answer.content(ReservationStates.class) : Optional.empty();
        if (states.isEmpty()) {
            drainChecks.increment("failed");
            return answer.errorClass() == ErrorClass.PERMANENT ? RefreshReason.DRAIN_UNKNOWN : null;
        }
        for (ReservationStates.State st : states.get().reservations()) {
            if (st.reservationId() != null && "INVALID".equals(st.status()) && releasing.contains(st.reservationId())) {
                drainChecks.increment("gone");
                drained(st.reservationId());
            } else {
                drainChecks.increment("held");
            }
        }
        return null;
    }

    /** ALPS has removed a reservation released with claims outstanding: every cache drops it. */
    private void drained(long id) {
        releasing.remove(id);
        gone(id, "release-drained");
    }

    /** schedchangecount when both sides carry it, else the up/down node lists against the cached states. */
    private static boolean changed(Summary s, CachedInventory cache) {
        Long cached = cache.schedchangecount();
        if (s.schedchangecount().isPresent() && cached != null) {
            return !s.schedchangecount().get().equals(cached);
        }
        if (s.nodes().isEmpty()) {
            return true;
        }
        List<Long> up = new ArrayList<>();
        List<Long> down = new ArrayList<>();
        for (NodeView n : cache.nodes()) {
            ("UP".equals(n.state()) ? up : down).add(n.nodeId());
        }
        try {
            return !s.nodes().get().up().equals(NidSet.copyOf(up.stream().mapToLong(Long::longValue)))
                    || !s.nodes().get().down().equals(NidSet.copyOf(down.stream().mapToLong(Long::longValue)));
        } catch (IllegalArgumentException ex) {
            return true;
        }
    }

    private byte[] refresh(Entry e, Call call, RefreshReason reason) throws BackendException {
        refreshes.increment(reason.label());
        answered.increment("backend");
        long startedNanos = System.nanoTime();
        long startedMillis = clock.millis();
        byte[] response;
        try {
            response = inner.call(new Call(call.request(), call.protocol(), "QUERY", "INVENTORY", call.caller(), call.exchangeId()));
        } catch (BackendException ex) {
            e.staleBecause = RefreshReason.FETCH_FAILED;
            throw ex;
        }
        long answeredMillis = clock.millis();
        e.lastFetchMillis = Math.max(0, answeredMillis - startedMillis);
        CachedInventory fresh;
        try {
            fresh = CachedInventory.read(response, call.protocol(), startedMillis, answeredMillis, startedNanos, e.cache);
        } catch (BasilException ex) {
            log.warn("policy: the backend's INVENTORY is unreadable, nothing cached: {}", ex.getMessage());
            e.staleBecause = RefreshReason.FETCH_FAILED;
            return response;
        }
        if (!fresh.header().isSuccess()) {
            e.staleBecause = RefreshReason.FETCH_FAILED;
            return response;
        }
        check(e.cache, fresh);
        lookups.clear();
        e.cache = fresh;
        releasing.removeIf(id -> !fresh.holds(id));
        e.staleBecause = null;
        e.summaryCheckedMillis = startedMillis;
        notifyListeners(fresh.header(), fresh.nodes(), fresh.reservations(), startedNanos);
        return response;
    }

    private void notifyListeners(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations,
                                 long startedNanos) {
        for (FullInventoryListener l : listeners) {
            notifier.execute(() -> {
                try {
                    l.fullInventory(header, nodes, reservations, startedNanos);
                } catch (RuntimeException ex) {
                    log.warn("policy: a full-inventory listener failed: {}", ex.toString());
                }
            });
        }
    }

    /** Compares the cache as it stood with what the backend says now: patch errors and unseen changes. */
    private void check(CachedInventory before, CachedInventory fresh) {
        if (before == null) {
            return;
        }
        List<String> wrong = before.patchMismatches(fresh);
        if (!wrong.isEmpty()) {
            mismatches.increment();
            log.warn("policy: {} cached RESERVE patch(es) differ from ALPS, e.g. {}", wrong.size(), wrong.get(0));
        }
        List<String> users = before.lookupMismatches(fresh);
        if (!users.isEmpty() && userIds != UserIds.NONE) {
            userIds = UserIds.NONE;
            log.warn("policy: the user id lookup disagrees with ALPS ({}); ids are learned from inventories only from now on",
                    users.get(0));
        }
        if (!before.sameContent(fresh)) {
            unseen.increment();
            log.debug("policy: the refresh found changes the cache had not seen");
        }
    }

    // ---- reservation changes ----------------------------------------------------------------------------

    /**
     * A reservation change. The backend is called without the policy's lock, so no change waits for another (pbs_mom
     * reserves from forked job starters at once), nor for a refresh or a cached answer being chosen; its patch is
     * queued and applied under the lock, by the change itself or by whoever holds the lock next ({@link #patchLater}).
     * A cached answer given while a change is at ALPS shows the state before it, as a query ALPS answered beside the
     * change may; a refresh completing meanwhile may or may not show it, and the patch, applied after that refresh, is
     * right either way (a RESERVE the refresh already shows is skipped; a RELEASE drops the reservation or watches it
     * drain). A RESERVE's pseudo-application id is inferred only when no other RESERVE was at ALPS beside it (then the
     * order of the answers is the order of ALPS's ids) and its reservation id is the next one; otherwise the next
     * scheduler INVENTORY is a full one ({@code reserve-overlapped}). slurmctld reserves one at a time, so its RESERVEs
     * are patched as before. CONFIRM binds a process aggregate, which no inventory shows: it passes straight through.
     */
    private byte[] change(Call call) throws BackendException {
        if ("CONFIRM".equals(call.method())) {
            return inner.call(call);
        }
        BasilRequest request;
        try {
            request = codec.readRequest(call.request());
        } catch (BasilException ex) {
            return inner.call(call); // the backend answers the malformed request; nothing changes
        }
        InFlight flight = "RESERVE".equals(call.method()) ? begin() : null;
        byte[] response;
        try {
            response = inner.call(call);
        } catch (BackendException | RuntimeException ex) {
            patchLater(flight, overlapped -> staleAll(RefreshReason.UNKNOWN_OUTCOME));
            throw ex;
        }
        ResponseData answer;
        try {
            answer = codec.readResponse(response).responseData();
        } catch (BasilException ex) {
            patchLater(flight, overlapped -> staleAll(RefreshReason.UNKNOWN_OUTCOME));
            return response;
        }
        patchLater(flight, overlapped -> apply(call.method(), request, answer, overlapped));
        return response;
    }

    /** A RESERVE at ALPS whose answer has not been queued yet; marked when another RESERVE was at ALPS beside it. */
    private static final class InFlight {
        boolean overlapped;
    }

    /** Notes a RESERVE going to ALPS: it and every one already there overlap. */
    private InFlight begin() {
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
     * Queues a change's patch (told whether its RESERVE overlapped another; false for other changes) and applies it at
     * once if the lock is free, else the lock's holder applies it before it lets go (after a refresh, to what the
     * refresh brought) or its next holder does: the change is answered without waiting, and everything that takes the
     * lock after it was answered sees its patch. A RESERVE leaves the in-flight set as its patch is queued, in one
     * step, so patches are queued in the order ALPS answered.
     */
    private void patchLater(InFlight flight, java.util.function.Consumer<Boolean> patch) {
        synchronized (reservesInFlight) {
            boolean overlapped = flight != null && reservesInFlight.remove(flight) && flight.overlapped;
            deferred.add(() -> patch.accept(overlapped));
        }
        if (lock.tryLock()) {
            unlock();
        }
    }

    /** Takes the lock and applies the change patches queued before. */
    private void lock() {
        lock.lock();
        applyDeferred();
    }

    /** Applies the change patches queued meanwhile and lets go; one queued as it lets go is applied if the lock is free. */
    private void unlock() {
        do {
            applyDeferred();
            lock.unlock();
        } while (!deferred.isEmpty() && lock.tryLock());
    }

    private void applyDeferred() {
        for (Runnable patch; (patch = deferred.poll()) != null; ) {
            try {
                patch.run();
            } catch (RuntimeException ex) {
                log.warn("policy: a reservation change's patch failed: {}", ex.toString());
                staleAll(RefreshReason.UNKNOWN_OUTCOME);
            }
        }
    }

    /** @param overlapped a RESERVE that another RESERVE was at ALPS beside */
    private void apply(String method, BasilRequest request, ResponseData answer, boolean overlapped) {
        switch (method) {
            case "RESERVE" -> {
                if (!answer.isSuccess()) {
                    heldUnseen(answer);
                    return;
                }
                Optional<Reserved> reserved = answer.content(Reserved.class);
                if (reserved.isEmpty() || reserved.get().reservationId() == null) {
                    staleAll(RefreshReason.RESERVE_UNPATCHED);
                    return;
                }
                long now = clock.millis();
                long id = reserved.get().reservationId();
                placedOver(request, reserved.get().nodeIds());
                for (Entry e : entries.values()) {
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
                    java.util.regex.Matcher gone = NO_ENTRY.matcher(text);
                    if (id != null && gone.find() && gone.group(1).equals(Long.toString(id))) {
                        // ALPS has no such reservation (anymore): what claims 0 says. A cache that still shows it
                        // (ALPS removed it when its job container ended, or a lost answer) drops it; one that does
                        // not is unchanged. Neither costs a full inventory: Slurm 18.08's stepd repeats such
                        // RELEASEs for minutes, and a changed node state still shows in SUMMARY.
                        if (releasing.contains(id)) {
                            drained(id);
                            return;
                        }
                        gone(id, "release-gone");
                        return;
                    }
                    staleAll(RefreshReason.RELEASE_FAILED);
                    return;
                }
                Long claims = answer.content(Released.class).map(Released::claims).orElse(null);
                if (claims == null || request.reservationId() == null) {
                    staleAll(RefreshReason.RELEASE_UNCLEAR);
                } else if (claims == 0) {
                    releasing.remove(request.reservationId());
                    entries.values().stream().filter(e -> e.cache != null).forEach(e -> e.cache.applyRelease(request.reservationId()));
                    patches.increment("release-applied");
                } else {
                    // ALPS keeps the reservation until its last claim ends (its applications, the job's container)
                    // and then removes it without a word: the cache shows it meanwhile, as ALPS does, until the
                    // reservations check before an answer no longer finds it (checkReservations; STATUS where no check
                    // runs: drain); a refresh that no longer shows it ends the watch too
                    if (entries.values().stream().anyMatch(e -> e.cache != null && e.cache.holds(request.reservationId()))) {
                        releasing.add(request.reservationId());
                    }
                }
            }
            case "SWITCH" -> staleAll(RefreshReason.SWITCH);
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
        java.util.regex.Matcher held = ALREADY_RESERVED.matcher(answer.messageText() == null ? "" : answer.messageText());
        if (!held.find()) {
            return;
        }
        long id = Long.parseLong(held.group(1));
        for (Entry e : entries.values()) {
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
        if (releasing.isEmpty() || nids.isEmpty()) {
            return;
        }
        boolean exclusive = request.reserveParams().isEmpty() || !"SHARED".equals(request.reserveParams().get(0).reservationMode());
        java.util.Set<Long> placed = new java.util.HashSet<>(nids);
        for (Long id : List.copyOf(releasing)) {
            for (Entry e : entries.values()) {
                if (e.cache != null && e.cache.holdsAnyOf(id, placed) && (exclusive || !e.cache.shared(id))) {
                    drained(id);
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

    private void staleAll(RefreshReason reason) {
        for (Entry e : entries.values()) {
            if (e.staleBecause == null) {
                e.staleBecause = reason;
            }
        }
    }

    private final class Policy implements Backend {
        private final Backend below;

        Policy(Backend below) {
            this.below = below;
        }

        @Override
        public byte[] call(Call call) throws BackendException {
            if (!settings.enabled()) {
                return below.call(call);
            }
            if (call.changesReservations()) {
                return change(call);
            }
            if ("QUERY".equals(call.method()) && "ENGINE".equals(call.queryType())) {
                return engine.call(below, call);
            }
            if ("QUERY".equals(call.method()) && "INVENTORY".equals(call.queryType())) {
                BasilRequest request;
                try {
                    request = codec.readRequest(call.request());
                } catch (BasilException ex) {
                    return below.call(call);
                }
                if (request.selectiveInventory() || request.protocol() == null) {
                    return below.call(call);
                }
                return inventory(call, request.protocol());
            }
            return below.call(call);
        }

        @Override
        public String describe() {
            return below.describe();
        }

        @Override
        public void close() {
            InventoryPolicy.this.close();
            below.close();
        }
    }
}
