package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The agent's reading of job records: the ids asked for while one squeue runs, or within
 * {@link #GATHER_MILLIS} of the first, are asked together, so a storm of settlements makes a handful of
 * {@code squeue -j ID,ID,...} calls (each one RPC to slurmctld) instead of a process and an RPC per job.
 *
 * <p>Prologs ({@link #starting}) read a listing of every job waiting to start or being started (PENDING and
 * CONFIGURING) instead: slurmctld allocates a whole wave of jobs in one scheduling pass before their prologs
 * run, so one listing holds the records of the whole wave and the prologs are answered from it while it is
 * younger than {@link #LISTING_MILLIS}. When jobs end ({@link #lookAhead}: the agent's epilogs) a listing is
 * made at once, before slurmctld starts the next wave on the freed CPUs, so that wave's prologs find their
 * limits without an RPC to slurmctld on their path (one made then waits for slurmctld's scheduling pass to let
 * go of its locks). A job listed as PENDING answers only when its limit cannot change as it starts: no
 * {@code --time-min} and listed in the partition it starts in. A time limit changed in that moment is the only
 * thing a listing can miss. A job missing from a listing made after its prolog was called (it was cancelled
 * meanwhile) is asked for by id.
 */
final class SqueueBatch implements Hook.JobRecords, AutoCloseable {

    private static final long WAIT_SECONDS = 60;
    /** How long a listing of the jobs being started answers prologs. */
    static final long LISTING_MILLIS = 2_000;
    /** How long records asked for by id wait for others to be asked with them. */
    static final long GATHER_MILLIS = 250;
    /** Listings made ahead of prologs ({@link #lookAhead}) are this far apart at least. */
    static final long LOOK_AHEAD_MILLIS = 500;

    private final Listings slurm;
    private final AgentStats.Timer timer;
    /** How long prologs wait for their job's record. */
    private final AgentStats.Timer startingTimer;
    private final Map<String, List<CompletableFuture<Map<String, String>>>> waiting = new LinkedHashMap<>();
    /** The next listing, once a prolog or a look ahead asked for one; null otherwise; guarded by {@link #waiting}. */
    private CompletableFuture<Map<String, Map<String, String>>> next;
    /** The last listing of the jobs waiting or starting and when it was asked for; guarded by {@link #waiting}. */
    private Map<String, Map<String, String>> listing = Map.of();
    private long listedAt = System.nanoTime() - TimeUnit.HOURS.toNanos(1);
    /** The listing squeue is making now, null between listings, and when it was asked for; guarded by {@link #waiting}. */
    private CompletableFuture<Map<String, Map<String, String>>> inFlight;
    private long inFlightAsked;
    private final Thread runner;
    private volatile boolean closed;

    /** Where the records come from: {@link Slurm}'s squeue. */
    interface Listings {
        /** Records of these jobs (one RPC); a job slurmctld no longer knows is absent. */
        Map<String, Map<String, String>> jobs(java.util.Collection<String> jobIds) throws IOException;

        /**
         * Records of every job waiting to start or being started now by {@link SlurmJob#queueKey}, with its
         * {@code partition} and {@code mintime} ({@link Slurm#waiting}).
         */
        Map<String, Map<String, String>> waiting() throws IOException;
    }

    SqueueBatch(Listings slurm, AgentStats.Timer timer) {
        this(slurm, timer, new AgentStats.Timer());
    }

    SqueueBatch(Listings slurm, AgentStats.Timer timer, AgentStats.Timer startingTimer) {
        this.slurm = slurm;
        this.timer = timer;
        this.startingTimer = startingTimer;
        this.runner = new Thread(this::loop, "ledger-hook-squeue");
        runner.setDaemon(true);
        runner.start();
    }

    @Override
    public Map<String, String> job(String jobId) throws IOException {
        CompletableFuture<Map<String, String>> f = new CompletableFuture<>();
        synchronized (waiting) {
            if (closed) {
                throw new IOException("the agent is stopping");
            }
            waiting.computeIfAbsent(jobId, k -> new ArrayList<>()).add(f);
            waiting.notifyAll();
        }
        return new HashMap<>(await(f, "job " + jobId));
    }

    @Override
    public Map<String, String> starting(SlurmJob job) throws IOException {
        long called = System.nanoTime();
        try {
            return startingNow(job, called);
        } finally {
            startingTimer.add(called, 1);
        }
    }

    /**
     * Jobs have ended, so slurmctld may soon start others on their CPUs: a listing is made now (unless one is
     * under way, asked for, or younger than {@link #LOOK_AHEAD_MILLIS}) for their prologs to find.
     */
    void lookAhead() {
        synchronized (waiting) {
            if (closed || next != null || inFlight != null
                    || System.nanoTime() - listedAt < TimeUnit.MILLISECONDS.toNanos(LOOK_AHEAD_MILLIS)) {
                return;
            }
            next = new CompletableFuture<>();
            waiting.notifyAll();
        }
    }

    private Map<String, String> startingNow(SlurmJob job, long called) throws IOException {
        // This job is CONFIGURING since before this call, so a listing asked for after the call began holds it
        // unless it is no longer starting (cancelled meanwhile: then it is asked for by id). A listing asked for
        // earlier (the one under way, the last one, one made ahead) holds it when slurmctld allocated it in an
        // earlier scheduling pass (a wave's prologs all start after its pass) or when it was waiting then with a
        // limit that starting cannot change; else the next listing is waited for.
        String key = job.queueKey();
        while (true) {
            CompletableFuture<Map<String, Map<String, String>>> f;
            boolean definitive;
            synchronized (waiting) {
                if (closed) {
                    throw new IOException("the agent is stopping");
                }
                Map<String, String> listed = listing.get(key);
                if (answers(listed, job) && System.nanoTime() - listedAt < TimeUnit.MILLISECONDS.toNanos(LISTING_MILLIS)) {
                    return new HashMap<>(listed);
                }
                if (inFlight != null) {
                    f = inFlight;
                    definitive = inFlightAsked - called >= 0;
                } else {
                    if (next == null) {
                        next = new CompletableFuture<>();
                        waiting.notifyAll();
                    }
                    f = next;
                    definitive = true;
                }
            }
            Map<String, String> listed = await(f, "the jobs waiting or starting").get(key);
            if (answers(listed, job)) {
                return new HashMap<>(listed);
            }
            if (definitive) {
                return job(job.jobId());
            }
        }
    }

    /**
     * Whether a listed record gives the limit {@code job} starts with: it is being started, or it was waiting
     * in the partition it starts in without a {@code --time-min} (slurmctld lowers such a job's limit as it
     * starts it; a job waiting in several partitions is listed in all of them).
     */
    private static boolean answers(Map<String, String> listed, SlurmJob job) {
        if (listed == null) {
            return false;
        }
        String state = listed.getOrDefault("state", "");
        return state.equals("CONFIGURING") || state.equals("PENDING")
                && job.partition().equals(listed.get("partition"))
                && List.of("0:00", "", "N/A").contains(listed.getOrDefault("mintime", ""));
    }

    private static <T> T await(CompletableFuture<T> f, String what) throws IOException {
        try {
            return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("squeue did not answer for " + what + " in " + WAIT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for squeue");
        }
    }

    private void loop() {
        while (true) {
            Map<String, List<CompletableFuture<Map<String, String>>>> batch;
            CompletableFuture<Map<String, Map<String, String>>> listed;
            synchronized (waiting) {
                while (waiting.isEmpty() && next == null && !closed) {
                    try {
                        waiting.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                // records by id are the settlements' (nobody waits on them): a moment gathers a wave's into one
                // squeue; a prolog's listing is never held up by it
                long gatherUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GATHER_MILLIS);
                while (next == null && !closed && System.nanoTime() < gatherUntil) {
                    try {
                        waiting.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(gatherUntil - System.nanoTime())));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                batch = new LinkedHashMap<>(waiting);
                waiting.clear();
                // marked under way as it is taken: a prolog that comes now joins this listing
                listed = next;
                next = null;
                inFlight = listed;
                inFlightAsked = System.nanoTime();
            }
            if (listed != null) {
                list(listed);
            }
            if (batch.isEmpty()) {
                continue;
            }
            long start = System.nanoTime();
            try {
                Map<String, Map<String, String>> records = slurm.jobs(batch.keySet());
                timer.add(start, batch.size());
                batch.forEach((id, fs) -> fs.forEach(f -> f.complete(records.getOrDefault(id, Map.of()))));
            } catch (IOException | RuntimeException e) {
                batch.values().forEach(fs -> fs.forEach(f -> f.completeExceptionally(e)));
            }
        }
    }

    /** One listing of the jobs waiting or starting, asked for after every prolog that waits on {@code listed} was called. */
    private void list(CompletableFuture<Map<String, Map<String, String>>> listed) {
        long start;
        synchronized (waiting) {
            start = inFlightAsked;
        }
        try {
            Map<String, Map<String, String>> records = slurm.waiting();
            timer.add(start, records.size());
            synchronized (waiting) {
                listing = records;
                listedAt = start;
                inFlight = null;
            }
            listed.complete(records);
        } catch (IOException | RuntimeException e) {
            synchronized (waiting) {
                inFlight = null;
            }
            listed.completeExceptionally(e);
        }
    }

    @Override
    public void close() {
        synchronized (waiting) {
            closed = true;
            waiting.values().forEach(fs -> fs.forEach(f -> f.completeExceptionally(new IOException("the agent is stopping"))));
            waiting.clear();
            if (next != null) {
                next.completeExceptionally(new IOException("the agent is stopping"));
                next = null;
            }
            waiting.notifyAll();
        }
    }
}
