package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The prologs whose answer never reached slurmctld (the C client was gone when the agent answered: slurmctld
 * killed it), and what becomes of their runs. When slurmctld stops, it kills the PrologSlurmctld scripts still
 * running. Slurm 22.05 has saved its state before and runs those prologs again at its next start (the job is still
 * CONFIGURING): the run is then answered again, and heard. Slurm 26.05 saves its state after: slurmscriptd reports
 * each killed prolog and slurmctld takes a prolog killed at shutdown for a success ({@code prep_slurmctld.c}: only
 * a time-out is a failure), ends the job's configuration and launches it through an RPC agent it has already
 * stopped; it saves the job as RUNNING, never runs its prolog again and never starts its script: the job sits
 * RUNNING, its CPUs taken, until a node registration finds its batch script missing, minutes later. The ledger's
 * answer was never heard, so the run is not the ledger's to let start: the agent does what slurmctld does with a
 * prolog that fails (exit 3: requeue the job; a denied one it cancels, its reason in the AdminComment already),
 * once slurmctld shows the run started without its answer. A hold the unheard prolog made is voided first (the run
 * never started: its epilog, which the requeue brings, has nothing to settle). A run still CONFIGURING is left to
 * slurmctld (22.05 runs its prolog again); one pending, requeued or ended has moved on.
 */
final class UnheardProlog {

    /** What slurmctld is asked to do with a run it started without the prolog's answer. */
    interface Slurmctld {
        /** {@code scontrol requeue}; false when the job may not be requeued. */
        boolean requeue(String jobId) throws IOException;

        /** {@code scancel}. */
        void cancel(String jobId) throws IOException;

        /** The job's facts ({@link Slurm#job}); empty when slurmctld no longer knows it. */
        Map<String, String> job(String jobId) throws IOException;
    }

    /** A prolog's unheard answer: the run and the exit it had (-1: it was not decided). */
    record Run(SlurmJob job, int exit, long since) {
    }

    /** A heard answer is remembered this long (a late unheard one of the same run is then no news). */
    private static final long HEARD_NANOS = TimeUnit.MINUTES.toNanos(10);
    /** An unheard answer whose run slurmctld never shows started is forgotten after this long. */
    private static final long UNHEARD_NANOS = TimeUnit.HOURS.toNanos(1);

    private final Map<String, Run> unheard = new ConcurrentHashMap<>();
    private final Map<String, Long> heard = new ConcurrentHashMap<>();
    /** Answers being sent, by run. */
    private final Map<String, Integer> sending = new ConcurrentHashMap<>();
    /** Runs whose look failed once already (said once, not every time). */
    private final java.util.Set<String> warned = ConcurrentHashMap.newKeySet();

    /**
     * A prolog's answer for this run is being sent: until it is known whether it was heard, slurmctld may start the
     * run on it (and be seen doing so), so the run is not taken for one started without an answer.
     */
    void sending(SlurmJob job) {
        sending.merge(key(job), 1, Integer::sum);
    }

    /** slurmctld heard the prolog's answer for this run ({@link #sending} before). */
    void heard(SlurmJob job) {
        String k = key(job);
        heard.put(k, System.nanoTime());
        unheard.remove(k);
        sent(k);
    }

    /** The prolog's answer {@code exit} for this run was not heard: its caller was gone ({@link #sending} before). */
    void unheard(SlurmJob job, int exit) {
        String k = key(job);
        if (!heard.containsKey(k)) {
            unheard.merge(k, new Run(job, exit, System.nanoTime()), (old, now) -> old.exit() == Hook.OK ? old : now);
        }
        sent(k);
    }

    private void sent(String k) {
        sending.computeIfPresent(k, (key, n) -> n > 1 ? n - 1 : null);
    }

    /** How many runs wait to be seen through. */
    int size() {
        return unheard.size();
    }

    /**
     * Looks at each run whose answer was not heard and acts on those slurmctld has started without it.
     *
     * @param voider voids the run's hold (the run never started), true when it did or there was none
     * @return what was done, a line per run (empty when nothing)
     */
    List<String> reconcile(Slurmctld slurmctld, java.util.function.Predicate<SlurmJob> voider) {
        long now = System.nanoTime();
        heard.values().removeIf(t -> now - t > HEARD_NANOS);
        warned.retainAll(unheard.keySet());
        List<String> said = new java.util.ArrayList<>();
        for (Map.Entry<String, Run> e : unheard.entrySet()) {
            Run run = e.getValue();
            SlurmJob job = run.job();
            String what = "ledger hook-agent: job " + job.jobId() + " run " + job.resId();
            try {
                Map<String, String> facts = slurmctld.job(job.jobId());
                String state = facts.getOrDefault("state", "");
                boolean sameRun = !facts.isEmpty() && Integer.parseInt(facts.get("restarts")) == job.restart();
                if (!sameRun || !(state.startsWith("RUNNING") || state.startsWith("SUSPENDED")
                        || state.startsWith("CONFIGURING"))) {
                    unheard.remove(e.getKey()); // pending, requeued, ended or gone: slurmctld has moved on
                    continue;
                }
                if (state.startsWith("CONFIGURING")) {
                    if (now - run.since() > UNHEARD_NANOS) {
                        unheard.remove(e.getKey());
                    }
                    continue; // its prolog runs again (Slurm 22.05 at start-up)
                }
                if (sending.containsKey(e.getKey()) || heard.containsKey(e.getKey()) || !unheard.remove(e.getKey(), run)) {
                    continue; // answered meanwhile (its prolog ran again): slurmctld started it on that answer
                }
                String why = "slurmctld started it without the prolog's answer (the prolog was killed while it"
                        + " waited, as slurmctld stopped)";
                if (run.exit() == Hook.DENIED) {
                    slurmctld.cancel(job.jobId());
                    said.add(what + ": denied, but " + why + "; cancelled");
                } else {
                    if (run.exit() == Hook.OK && !voider.test(job)) {
                        unheard.putIfAbsent(e.getKey(), run); // the service is unavailable: tried again next time
                        continue;
                    }
                    boolean requeued = slurmctld.requeue(job.jobId());
                    if (!requeued) {
                        slurmctld.cancel(job.jobId());
                    }
                    said.add(what + ": " + why + (run.exit() == Hook.OK ? "; its hold voided" : "")
                            + (requeued ? "; requeued (its next run is held by its prolog)" : "; not requeueable: cancelled"));
                }
            } catch (IOException | RuntimeException ex) {
                unheard.putIfAbsent(e.getKey(), run);
                if (warned.add(e.getKey())) {
                    said.add(what + ": its prolog's answer was not heard, and slurmctld cannot be asked now ("
                            + ex.getMessage() + "); tried again every few seconds");
                }
            }
        }
        return said;
    }

    private static String key(SlurmJob job) {
        return job.cluster() + "/" + job.jobId() + "/" + job.resId();
    }
}
