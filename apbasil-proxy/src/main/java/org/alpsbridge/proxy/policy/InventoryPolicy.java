package org.alpsbridge.proxy.policy;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ResponseData;
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
 * does not show ({@link ReservationCheck}; what ALPS released and the applications aprun launched behind the proxy's
 * back are taken from that answer), every RESERVE and RELEASE the proxy forwarded since has been applied to it, and it
 * was fetched or renewed by such a check within the refresh interval, and fetched within the full refresh interval
 * ({@link RefreshDecision}). A full INVENTORY is fetched instead, with the {@link RefreshReason} counted in
 * {@code alpsbridge_proxy_policy_refreshes_total{reason=...}}.
 *
 * <p>A RELEASE answered {@code claims} &gt; 0 leaves the reservation in ALPS, and in the cache, until ALPS is known to
 * have removed it ({@link DrainCheck}): until then the cache shows the reservation holding its nodes, as ALPS does, so
 * a scheduler never places a job there.
 *
 * <p>QUERY(ENGINE) passes through, and while ALPS cannot answer it the last answer it gave is given again
 * ({@link EngineMemory}; {@code policy_engine_answers{source=backend|memory}}).
 *
 * <p>The answers of forwarded RESERVEs, RELEASEs and SWITCHes are applied to the cache ({@link ReservationPatches},
 * which says what costs a refresh). Selective INVENTORY requests (with a body) and every other method pass straight
 * through. Refreshes, the choice of a cache answer and the patches of reservation changes are serialized by one lock
 * ({@link PolicyLock}, which says what it guards and its rules; the answer's document is written and sent outside it:
 * {@link InventoryAnswer}); RESERVE, SWITCH and RELEASE call ALPS outside it and never wait for it, nor for each other
 * (pbs_mom reserves from several job starters at once, slurmstepd releases beside slurmctld's calls): each answer is
 * applied under it, by the change or by the lock's next holder ({@link #change}), and a CONFIRM, which changes nothing
 * an inventory shows, passes through; the backend is called on the caller's thread, except the interval refresh of
 * {@link #start()} ({@link IdleTimer}).
 *
 * <p>Each refresh checks the cache's own RESERVE patches against what ALPS shows; a difference is logged
 * and counted ({@code policy_patch_mismatches}). What neither SUMMARY nor the reservations show (node labels, roles,
 * attributes) reaches the cache at the next full refresh: the documented staleness window is the full refresh interval
 * for those, and the summary interval for node states and reservations.
 */
public final class InventoryPolicy implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InventoryPolicy.class);

    private final PolicySettings settings;
    private final Clock clock;
    private final BasilCodec codec = BasilCodec.standard();
    private final PolicyLock lock;
    private final Caches caches;
    private final FullInventoryListeners listeners;
    private final Counter refreshes;
    private final EngineMemory engine;
    private final Counter mismatches;
    private final Counter unseen;
    private final Counter answered;
    private final RefreshDecision decision;
    private final ReservationPatches patcher;
    private final IdleTimer timer;
    private volatile Backend inner;

    /**
     * @param userIds where a user's uid and gid come from before an inventory has shown them
     * @param notifier runs the full-inventory listeners, in order; null for a background thread of its own
     */
    public InventoryPolicy(PolicySettings settings, UserIds userIds, Clock clock, Stats stats, Executor notifier) {
        this.settings = settings;
        this.clock = clock;
        this.listeners = new FullInventoryListeners(notifier);
        this.refreshes = stats.counter(ProxyMetric.POLICY_REFRESHES);
        this.engine = new EngineMemory(stats.counter(ProxyMetric.POLICY_ENGINE_ANSWERS));
        Counter patches = stats.counter(ProxyMetric.POLICY_PATCHES);
        this.lock = new PolicyLock(this::patchFailed);
        this.caches = new Caches(lock, patches);
        this.mismatches = stats.counter(ProxyMetric.POLICY_PATCH_MISMATCHES);
        this.unseen = stats.counter(ProxyMetric.POLICY_UNSEEN_CHANGES);
        Counter drainChecks = stats.counter(ProxyMetric.POLICY_DRAIN_CHECKS);
        Counter reservationChecks = stats.counter(ProxyMetric.POLICY_RESERVATION_CHECKS);
        this.answered = stats.counter(ProxyMetric.POLICY_INVENTORY_ANSWERS);
        stats.gauge(ProxyMetric.POLICY_CACHE_AGE_SECONDS, this::oldestAgeSeconds);
        DrainCheck drain = new DrainCheck(codec, () -> inner, caches, drainChecks);
        ReservationCheck reservations = new ReservationCheck(settings, clock, codec, () -> inner, lock, caches, drain,
                reservationChecks, mismatches);
        this.decision = new RefreshDecision(settings, clock, codec, () -> inner, reservations, drain);
        this.patcher = new ReservationPatches(settings, clock, userIds, caches, patches);
        this.timer = new IdleTimer(settings, reservations, listeners);
    }

    public InventoryPolicy(PolicySettings settings, UserIds userIds, Stats stats) {
        this(settings, userIds, Clock.systemUTC(), stats, null);
    }

    /** A queued patch threw: what it did to the caches is unknown, so each is fetched afresh. */
    private void patchFailed() {
        caches.staleAll(RefreshReason.UNKNOWN_OUTCOME);
    }

    /** Wraps the chain below: the backend, or the backend's timing decorator. */
    public Backend decorate(Backend below) {
        lock.lock();
        try {
            this.inner = below;
        } finally {
            lock.unlock();
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
     * even when idle ({@link IdleTimer}): a reservation made behind the proxy's back just after one check started
     * is in the answer of the next check, within one refresh interval of it, and the orphan watch sees it.
     */
    public void start() {
        timer.start(this::refreshDue);
    }

    /**
     * Checks every cached inventory whose last fetch or check would reach the refresh interval before what the next
     * timer tick could start completes ({@link IdleTimer#due}), and fetches it whole where the check fails
     * ({@link IdleTimer#checkDoes}); what the timer runs. Failures are logged, and the next scheduler request retries.
     */
    public void refreshDue() {
        long now = clock.millis();
        refreshWhere(e -> timer.due(e, now), RefreshReason.INTERVAL);
    }

    /**
     * Fetches a full inventory now for every protocol version the scheduler asked for, whatever the
     * cache's age, and waits until the full-inventory listeners (the orphan watch) have seen it.
     *
     * @return how many inventories were fetched; 0 when the scheduler asked for none yet or the fetch failed
     */
    public int refreshNow() {
        int fetched = refreshWhere(e -> true, RefreshReason.OPERATOR);
        listeners.awaitTold(settings.refreshInterval().toMillis());
        return fetched;
    }

    private int refreshWhere(Predicate<Caches.Entry> due, RefreshReason reason) {
        int fetched = 0;
        lock.lock();
        try {
            for (Map.Entry<String, Caches.Entry> e : caches.byProtocol()) {
                if (e.getValue().cache != null && due.test(e.getValue())) {
                    if (reason == RefreshReason.INTERVAL && timer.checkDoes(e.getValue(), e.getKey())) {
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
            lock.unlock();
        }
        return fetched;
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
        long mark = clock.millis() + 1; // a fetch started within this millisecond may predate the call: refetched too
        decision.distrust(mark, reason);
        timer.execute(() -> refreshWhere(e -> e.cache.fetchedAtMillis < mark, reason));
    }

    @Override
    public void close() {
        timer.close();
        listeners.close();
    }

    /** The nodes of the cached inventory of {@code protocol}, as last served; null when none (for tests). */
    List<NodeView> cachedNodes(String protocol) {
        lock.lock();
        try {
            Caches.Entry e = caches.find(protocol);
            return e == null || e.cache == null ? null : e.cache.nodes();
        } finally {
            lock.unlock();
        }
    }

    private long oldestAgeSeconds() {
        if (!lock.tryLock()) {
            return -1;
        }
        try {
            long now = clock.millis();
            return caches.all().stream().filter(e -> e.cache != null)
                    .mapToLong(e -> (now - e.cache.fetchedAtMillis) / 1000).max().orElse(-1);
        } finally {
            lock.unlock();
        }
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
        lock.lock();
        try {
            Caches.Entry e = caches.entry(protocol);
            RefreshReason reason = decision.staleness(e, protocol);
            if (reason != null) {
                return refresh(e, call, reason);
            }
            answered.increment("cache");
            cached = e.cache.answer(clock.millis());
        } finally {
            lock.unlock();
        }
        try {
            return cached.bytes();
        } catch (BasilException ex) {
            throw new BackendException("policy: cannot write the cached inventory: " + ex.getMessage(), true, ex);
        }
    }

    /** Fetches a full inventory for {@code e}, under the lock, and caches it; what the scheduler asked gets ALPS's bytes. */
    private byte[] refresh(Caches.Entry e, Call call, RefreshReason reason) throws BackendException {
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
        patcher.forgetLookups();
        e.cache = fresh;
        caches.drainedUnless(fresh);
        e.staleBecause = null;
        e.summaryCheckedMillis = startedMillis;
        listeners.tell(fresh.header(), fresh.nodes(), fresh.reservations(), startedNanos);
        return response;
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
        patcher.compareLookups(before, fresh);
        if (!before.sameContent(fresh)) {
            unseen.increment();
            log.debug("policy: the refresh found changes the cache had not seen");
        }
    }

    // ---- reservation changes ----------------------------------------------------------------------------

    /**
     * A reservation change. The backend is called without the policy's lock, so no change waits for another (pbs_mom
     * reserves from forked job starters at once), nor for a refresh or a cached answer being chosen; its patch is
     * queued and applied under the lock, by the change itself or by whoever holds the lock next ({@link PolicyLock#queue}).
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
        PolicyLock.InFlight flight = "RESERVE".equals(call.method()) ? lock.beginReserve() : null;
        byte[] response;
        try {
            response = inner.call(call);
        } catch (BackendException | RuntimeException ex) {
            lock.queue(flight, overlapped -> caches.staleAll(RefreshReason.UNKNOWN_OUTCOME));
            throw ex;
        }
        ResponseData answer;
        try {
            answer = codec.readResponse(response).responseData();
        } catch (BasilException ex) {
            lock.queue(flight, overlapped -> caches.staleAll(RefreshReason.UNKNOWN_OUTCOME));
            return response;
        }
        lock.queue(flight, overlapped -> patcher.apply(call.method(), request, answer, overlapped));
        return response;
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
