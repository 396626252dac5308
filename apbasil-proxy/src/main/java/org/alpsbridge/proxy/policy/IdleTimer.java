package org.alpsbridge.proxy.policy;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The timer that checks every cached inventory's reservations before it gets older than the refresh interval, even
 * when no scheduler asks: a reservation made behind the proxy's back just after one check started is in the answer of
 * the next check, within one refresh interval of it, and the full-inventory listeners (the orphan watch) see it.
 *
 * <p>It never fetches a full inventory for nobody: it asks for the reservations alone ({@link ReservationCheck}) and
 * gives the listeners ALPS's reservations with the cached nodes, as a full fetch would have given them (pbs_mom asks
 * INVENTORY only at its start, after a RESERVE failed TRANSIENT, and on SIGHUP). What makes a cache stale (a
 * reservation the check found unseen, the full refresh interval, a change whose outcome is unknown) is fetched at the
 * next scheduler INVENTORY, which on-system would have cost the scheduler a full one anyway; a reservation made behind
 * the proxy's back is listed without its nodes until then. Only a check that fails (or a protocol before 1.1, which has
 * no such query) costs the full fetch, which the orphan watch needs. Its ticks take the policy's lock
 * ({@link InventoryPolicy#refreshDue()}); starting and stopping it guard themselves.
 */
final class IdleTimer implements AutoCloseable {

    private final PolicySettings settings;
    private final ReservationCheck reservations;
    private final FullInventoryListeners listeners;
    private ScheduledExecutorService timer;

    IdleTimer(PolicySettings settings, ReservationCheck reservations, FullInventoryListeners listeners) {
        this.settings = settings;
        this.reservations = reservations;
        this.listeners = listeners;
    }

    /** How often the timer looks: a twentieth of the refresh interval, within 50 to 250 ms (a look is a comparison). */
    static long periodMillis(PolicySettings settings) {
        return Math.max(50, Math.min(250, settings.refreshInterval().toMillis() / 20));
    }

    /** A thread of the policy's own, named {@code name}: none of them keeps the JVM alive. */
    static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Runs {@code tick} every {@link #periodMillis}, from one period on; a second start changes nothing. */
    synchronized void start(Runnable tick) {
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "policy-refresh"));
            long period = periodMillis(settings);
            timer.scheduleWithFixedDelay(tick, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /** Runs {@code task} in the background: on the timer's thread when it runs, else on a thread of its own. */
    void execute(Runnable task) {
        ScheduledExecutorService t;
        synchronized (this) {
            t = timer;
        }
        if (t != null) {
            t.execute(task);
        } else {
            daemon(task, "policy-refetch").start();
        }
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    /**
     * Whether a cache's last fetch or check would reach the refresh interval before what the next tick could start
     * completes: its age plus the last fetch's duration plus one timer period. The listeners (the orphan watch) must see
     * ALPS's reservations each interval: only a fetch and the timer's own checks give them those, so a renewal by the
     * check before a scheduler's answer does not count here.
     */
    boolean due(Caches.Entry e, long now) {
        return now - Math.max(e.cache.fetchedAtMillis, e.checkedAtMillis) + e.lastFetchMillis + periodMillis(settings)
                >= settings.refreshInterval().toMillis();
    }

    /**
     * What the timer does instead of a full inventory of a due cache: the reservations check, and the listeners told
     * ALPS's reservations with the cached nodes.
     *
     * @return true when the listeners were given the reservations and no full fetch is needed
     */
    boolean checkDoes(Caches.Entry e, String protocol) {
        ReservationCheck.Result check = reservations.run(e, protocol);
        if (check.outcome() == ReservationCheck.Outcome.FAILED) {
            return false;
        }
        e.checkedAtMillis = check.startedMillis();
        listeners.tell(check.fresh().header(), e.cache.nodes(), check.fresh().reservations(), check.startedNanos());
        return true;
    }
}
