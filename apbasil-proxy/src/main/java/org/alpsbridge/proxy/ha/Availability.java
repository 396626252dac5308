package org.alpsbridge.proxy.ha;

import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.proxy.stats.Counter;
import org.alpsbridge.proxy.stats.ProxyMetric;
import org.alpsbridge.proxy.stats.Stats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two proxies, one Cray: which of the pair is active, and the exchange memory they share, both in the
 * site's PostgreSQL ({@code ha_db}).
 *
 * <p><b>Model: active/standby with a lease.</b> The active proxy holds the lease row and renews it every
 * third of {@code ha_lease} (at most every second); the standby polls it as often and takes it once it has expired, raising its
 * epoch. A proxy serves BASIL only while it holds the lease by its own clock (counted from the moment it
 * sent its last successful renewal, so it always gives up before the database lets the other one take over);
 * otherwise it answers every BASIL exchange "not active", naming the active proxy when it knows it.
 *
 * <p><b>Fencing.</b> Every write to the shared exchange memory names the writer's epoch and is refused unless
 * the lease row still carries it, unexpired: a proxy paused past its lease (or cut off from the database)
 * can neither start nor record a RESERVE/CONFIRM/RELEASE/SWITCH once the other has taken over.
 *
 * <p><b>Takeover.</b> The new active proxy first marks every exchange an earlier lease began and never
 * finished as interrupted (retries of it are answered TRANSIENT "outcome unknown", never run twice), logs
 * them, tells its {@link RoleListener}s (the orphan watch starts afresh, the inventory cache is refetched),
 * and only then serves.
 */
public final class Availability implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Availability.class);

    /** The pair's settings: {@code ha_db}, {@code ha_name} (null: the daemon's first address), {@code ha_lease}. */
    public record Settings(String db, String name, Duration lease) {
    }

    /** What the shared memory holds for an exchange seen before: its request digest, then answer or failure. */
    public record Recorded(byte[] digest, byte[] answer, String failure, boolean failureTransient) {
    }

    /** An exchange begun under an earlier lease and never finished. */
    public record Interrupted(Instant started, int uid, String methodKey, String exchangeId, long epoch) {
        /** One line, as the file journal's {@code interrupted} command prints it. */
        public String describe() {
            return started + " uid " + uid + " " + methodKey + " exchange " + exchangeId + " (lease epoch " + epoch + ")";
        }
    }

    /** What a RESERVE is for, kept with it so that a survivor can find its reservation if it is interrupted. */
    public record ReserveOf(String batchId, String user) {
    }

    /**
     * A RESERVE found interrupted that no active proxy has settled yet: ALPS may hold a reservation it made that no
     * scheduler was told of.
     *
     * @param proxy the address of the proxy that ran it, or null when unknown
     */
    public record LeftReserve(int uid, String exchangeId, String batchId, String user, Instant started, String proxy) {
    }

    /** Told when this proxy becomes active (before it serves) or standby (after it stopped serving). */
    @FunctionalInterface
    public interface RoleListener {
        void roleChanged(boolean active, long epoch);
    }

    private final Settings settings;
    private final Connections db;
    private final EngineAnswers engine;
    private final String instance;
    private final List<RoleListener> listeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "apbasil-proxy-ha");
        t.setDaemon(true);
        return t;
    });
    private Lease lease;
    private SharedJournal journal;
    private String address;
    private volatile boolean active;
    private volatile long epoch;
    private volatile long validUntilNanos;
    private long lastRenewalSent;
    private volatile Lease.Holder seen;
    private volatile String lastProblem;
    private Counter takeovers;
    private Counter stepdowns;
    private Counter interruptedFound;
    private Counter fenced;

    private Availability(Settings settings) {
        this.settings = settings;
        this.db = new Connections(settings.db(), settings.lease());
        this.engine = new EngineAnswers(db);
        this.instance = (settings.name() == null ? "" : settings.name()) + " " + UUID.randomUUID();
    }

    /**
     * Connects to the pair's database and creates its tables if missing; serves nothing yet.
     *
     * @throws IOException naming {@code ha_db} and why it cannot be used
     */
    public static Availability open(Settings settings) throws IOException {
        Availability a = new Availability(settings);
        try {
            Lease.createTables(a.db);
        } catch (SQLException e) {
            a.db.close();
            throw new IOException("the pair's database (ha_db=" + settings.db() + ") cannot be used: " + e.getMessage()
                    + "; both proxies of a pair need it (see docs/admin-proxy.md, \"Availability: two proxies\")", e);
        }
        return a;
    }

    /** Adds the {@code ha_*} gauges and counters to the daemon's figures; call before {@link #start}. */
    public void report(Stats stats) {
        takeovers = stats.counter(ProxyMetric.HA_TAKEOVERS);
        stepdowns = stats.counter(ProxyMetric.HA_STEPDOWNS);
        interruptedFound = stats.counter(ProxyMetric.HA_INTERRUPTED_EXCHANGES);
        fenced = stats.counter(ProxyMetric.HA_FENCED_WRITES);
        stats.gauge(ProxyMetric.HA_ACTIVE, () -> active() ? 1 : 0);
        stats.gauge(ProxyMetric.HA_EPOCH, () -> epoch);
    }

    /** Told of every role change, on the lease's thread; see {@link RoleListener}. */
    public void onRoleChange(RoleListener listener) {
        listeners.add(listener);
    }

    /**
     * Starts contending for the lease: the first attempt before this returns (a lone proxy whose lease is free
     * serves at once), then every third of the lease, at most every second.
     *
     * @param boundAddress the daemon's first address, advertised when {@code ha_name} is not set
     */
    public synchronized void start(String boundAddress) {
        address = settings.name() != null ? settings.name() : boundAddress;
        lease = new Lease(db, instance, address, settings.lease());
        journal = new SharedJournal(db, lease, instance);
        tick(true);
        ticker.scheduleWithFixedDelay(() -> tick(false), pollMillis(), pollMillis(), TimeUnit.MILLISECONDS);
        log.info("availability: this proxy is {} of a pair sharing {} (lease {} s); {}", address, redact(settings.db()),
                settings.lease().toMillis() / 1000.0, status());
    }

    /** True while this proxy holds the lease by its own clock. */
    public boolean active() {
        return active && System.nanoTime() - validUntilNanos < 0;
    }

    public long epoch() {
        return epoch;
    }

    /** Why a BASIL exchange is not run here, ending {@code " (active: HOST:PORT)"} when the active proxy is known. */
    public String notActiveReason() {
        Lease.Holder h = seen;
        String reason = "this apbasil proxy (" + address + ") is the standby of a pair";
        if (h != null && !h.expired() && !h.instance().equals(instance) && !h.address().isEmpty()) {
            return reason + " (active: " + h.address() + ")";
        }
        return reason + "; no active proxy is known right now" + (lastProblem == null ? "" : " (" + lastProblem + ")");
    }

    /** One line for operators: role, epoch, the lease's holder. */
    public String status() {
        Lease.Holder h = seen;
        String holder = active() ? "this proxy" : h == null || h.expired() || h.instance().isEmpty() ? "nobody (expired)"
                : h.address();
        return "availability: " + (active() ? "active" : "standby") + ", lease epoch " + epoch + ", lease held by "
                + holder + ", this proxy " + address + (lastProblem == null ? "" : "; last problem: " + lastProblem);
    }

    /**
     * Records an exchange about to run under this proxy's lease.
     *
     * @return null when it is new (run it), else what the pair's memory holds for it
     * @throws NotActiveException when this proxy's lease has ended: run nothing
     */
    public Recorded begin(int uid, String exchangeId, String methodKey, byte[] digest)
            throws NotActiveException, SQLException {
        return begin(uid, exchangeId, methodKey, digest, null);
    }

    /**
     * As {@link #begin(int, String, String, byte[])}, for a RESERVE with what it is for.
     *
     * @param reserve the RESERVE's batch id and user, or null
     */
    public Recorded begin(int uid, String exchangeId, String methodKey, byte[] digest, ReserveOf reserve)
            throws NotActiveException, SQLException {
        if (!active()) {
            throw new NotActiveException(notActiveReason());
        }
        long mine = epoch;
        Recorded r;
        try {
            r = journal.begin(mine, uid, exchangeId, methodKey, digest, reserve, address);
        } catch (NotActiveException e) {
            countFenced();
            throw new NotActiveException(notActiveReason());
        }
        if (r == null && !active()) {
            // Recorded, but the lease ran out while recording: the backend call could outlast it.
            throw new NotActiveException(notActiveReason());
        }
        return r;
    }

    /** Records an answer; false (and logged) when this proxy's lease has ended and nothing was written. */
    public boolean finish(int uid, String exchangeId, byte[] answer) {
        try {
            return written(journal.finish(epoch, uid, exchangeId, answer), exchangeId);
        } catch (SQLException e) {
            log.error("availability: could not record the answer of exchange {} in the pair's database: {}", exchangeId,
                    e.getMessage());
            return false;
        }
    }

    /** Records a failure; false (and logged) when this proxy's lease has ended and nothing was written. */
    public boolean fail(int uid, String exchangeId, String message, boolean retryable) {
        try {
            return written(journal.fail(epoch, uid, exchangeId, message, retryable), exchangeId);
        } catch (SQLException e) {
            log.error("availability: could not record the failure of exchange {} in the pair's database: {}", exchangeId,
                    e.getMessage());
            return false;
        }
    }

    private boolean written(boolean ok, String exchangeId) {
        if (!ok) {
            countFenced();
            log.warn("availability: the outcome of exchange {} is not recorded: this proxy's lease (epoch {}) has ended"
                    + " and the other proxy answers it as interrupted", exchangeId, epoch);
        }
        return ok;
    }

    /** A write refused for an ended lease: count it, and find out at once rather than at the next renewal. */
    private void countFenced() {
        if (fenced != null) {
            fenced.increment();
        }
        try {
            ticker.execute(() -> tick(true));
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            // halted or closed: nothing to find out
        }
    }

    /** Exchanges the pair found interrupted within the retention, oldest first. */
    public List<Interrupted> interrupted() throws SQLException {
        return journal == null ? List.of() : journal.interrupted();
    }

    /** The last QUERY(ENGINE) answer ALPS gave to {@code request} through either proxy of the pair, or null. */
    public byte[] engineAnswer(String request) throws SQLException {
        return engine.get(request);
    }

    /** Keeps ALPS's answer to a QUERY(ENGINE) request for the pair (see {@link #engineAnswer}). */
    public void rememberEngineAnswer(String request, byte[] answer) throws SQLException {
        engine.put(request, answer);
    }

    /** Interrupted RESERVEs of the pair whose reservations no active proxy has settled yet, oldest first. */
    public List<LeftReserve> unsettledReserves() throws SQLException {
        return journal == null ? List.of() : journal.unsettledReserves();
    }

    /** The recorded answers of the pair's RESERVEs for {@code batchId}: what schedulers were told. */
    public List<byte[]> reserveAnswers(String batchId) throws SQLException {
        return journal == null ? List.of() : journal.reserveAnswers(batchId);
    }

    /**
     * Records what became of an interrupted RESERVE's reservation, so no later takeover settles it again.
     *
     * @return false when this proxy's lease has ended (nothing written: the active proxy settles it)
     */
    public boolean settle(LeftReserve left, String outcome) throws SQLException {
        return active() && journal.settle(epoch, left.uid(), left.exchangeId(), outcome);
    }

    /** Drops finished exchanges older than {@code keep}; only the active proxy does it. */
    public void expire(Duration keep) {
        if (!active()) {
            return;
        }
        try {
            journal.expire(keep);
        } catch (SQLException e) {
            log.warn("availability: could not drop expired exchanges: {}", e.getMessage());
        }
    }

    /** How often the standby looks at the lease: a third of it, at most a second (one small SELECT). */
    private long pollMillis() {
        return Math.max(100, Math.min(1000, settings.lease().toMillis() / 3));
    }

    /** @param now renew now, not only when a third of the lease has passed (a write was just refused) */
    private void tick(boolean now) {
        long sent = System.nanoTime();
        try {
            // The active proxy renews every third of the lease: two more tries before its own clock ends it.
            long renewEvery = settings.lease().toNanos() / 3 - TimeUnit.MILLISECONDS.toNanos(pollMillis()) / 2;
            if (active && !now && sent - lastRenewalSent < renewEvery) {
                return;
            }
            if (active) {
                if (lease.renew(epoch)) {
                    lastRenewalSent = sent;
                    validUntilNanos = sent + settings.lease().toNanos();
                    seen = null;
                    lastProblem = null;
                    return;
                }
                seen = lease.read();
                stepDown("the lease was taken over by " + seen.address() + " (epoch " + seen.epoch() + ")", "lost");
                return;
            }
            Lease.Taken taken = lease.takeOver();
            lastProblem = null;
            if (taken == null) {
                seen = lease.read();
                return;
            }
            takeOver(taken, sent);
        } catch (SQLException e) {
            String problem = "the pair's database cannot be reached: " + e.getMessage();
            if (!problem.equals(lastProblem)) {
                log.warn("availability: {}", problem);
            }
            lastProblem = problem;
            if (active && System.nanoTime() - validUntilNanos >= 0) {
                stepDown(problem, "unreachable");
            }
        } catch (RuntimeException e) {
            log.error("availability: lease upkeep failed", e);
        }
    }

    private void takeOver(Lease.Taken taken, long sent) throws SQLException {
        epoch = taken.epoch();
        validUntilNanos = sent + settings.lease().toNanos();
        Lease.Holder before = taken.previous();
        String previous = before.instance().isEmpty() ? "none" : before.expires().equals(Instant.EPOCH) ? "released"
                : "expired";
        String where = before.address().isEmpty() ? "an earlier active proxy" : "the apbasil proxy " + before.address();
        List<Interrupted> left = journal.sweep(epoch, where);
        if (previous.equals("expired")) {
            log.warn("availability: took over the lease (epoch {}) from {}, whose lease expired at {}: it died, hung or"
                    + " lost the database; {} exchange(s) it left unfinished", epoch, before.address(), before.expires(),
                    left.size());
        } else {
            log.info("availability: took the lease (epoch {}; previous holder: {})", epoch,
                    previous.equals("none") ? "none" : before.address() + ", released");
        }
        for (Interrupted i : left) {
            log.warn("availability: interrupted, outcome unknown (answered TRANSIENT, not run again): {}", i.describe());
        }
        if (interruptedFound != null) {
            interruptedFound.add("", left.size());
        }
        for (RoleListener l : listeners) {
            try {
                l.roleChanged(true, epoch);
            } catch (RuntimeException e) {
                log.error("availability: a takeover step failed", e);
            }
        }
        long renewed = System.nanoTime();
        if (!lease.renew(epoch)) {
            seen = lease.read();
            log.warn("availability: lost the lease (epoch {}) while taking over", epoch);
            return;
        }
        validUntilNanos = renewed + settings.lease().toNanos();
        lastRenewalSent = renewed;
        seen = null;
        active = true;
        if (takeovers != null) {
            takeovers.increment(previous);
        }
        log.info("availability: active (epoch {}), serving", epoch);
    }

    private void stepDown(String why, String reason) {
        active = false;
        if (stepdowns != null) {
            stepdowns.increment(reason);
        }
        log.warn("availability: standby now (was active under epoch {}): {}", epoch, why);
        for (RoleListener l : listeners) {
            try {
                l.roleChanged(false, epoch);
            } catch (RuntimeException e) {
                log.error("availability: a step-down step failed", e);
            }
        }
    }

    /**
     * What {@code kill -9} leaves behind, for failover tests: the lease is neither renewed nor released (the
     * other proxy takes over once it expires) and nothing more is written to the pair's database.
     */
    public void halt() {
        ticker.shutdownNow();
        db.close();
    }

    /** A clean stop: the lease is released at once, so the other proxy need not wait for it to expire. */
    @Override
    public synchronized void close() {
        ticker.shutdownNow();
        try {
            ticker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (active && lease != null) {
            active = false;
            try {
                lease.release(epoch);
                log.info("availability: released the lease (epoch {})", epoch);
            } catch (SQLException e) {
                log.warn("availability: could not release the lease (the other proxy takes over once it expires): {}",
                        e.getMessage());
            }
        }
        db.close();
    }

    /** A JDBC URL without its password, for the log. */
    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }
}
