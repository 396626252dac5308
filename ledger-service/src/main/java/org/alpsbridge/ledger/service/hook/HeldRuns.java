package org.alpsbridge.ledger.service.hook;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The runs the agent's prologs held, until their settlement: a settlement of a run it held knows the run was
 * not denied, and sends its RELEASE without first asking the service what the prolog decided; one whose hold the
 * agent voided (the run never started) sends none. Bounded (the
 * oldest go first) and in memory only: after a restart, or for a run it does not remember, the epilog asks.
 */
final class HeldRuns {

    /** Runs remembered at most; far above the jobs one slurmctld runs at once. */
    static final int MAX = 100_000;

    /** Remembers nothing: the JVM hook, a process per call. */
    static final HeldRuns NONE = new HeldRuns(0);

    private final int max;
    private final Map<String, Boolean> runs;

    HeldRuns() {
        this(MAX);
    }

    private HeldRuns(int max) {
        this.max = max;
        this.runs = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > HeldRuns.this.max;
            }
        };
    }

    /** The prolog held this run. */
    synchronized void held(SlurmJob job) {
        if (max > 0) {
            runs.put(key(job), Boolean.TRUE);
        }
    }

    /** Whether the prolog held this run (it is forgotten: a run is settled once). */
    synchronized boolean settling(SlurmJob job) {
        return runs.remove(key(job), Boolean.TRUE);
    }

    /** The agent voided this run's hold: slurmctld started it without the prolog's answer ({@link UnheardProlog}). */
    synchronized void voided(SlurmJob job) {
        if (max > 0) {
            runs.put(key(job), Boolean.FALSE);
        }
    }

    /** Whether the agent voided this run's hold (it is forgotten): its epilog has nothing to settle. */
    synchronized boolean wasVoided(SlurmJob job) {
        return runs.remove(key(job), Boolean.FALSE);
    }

    private static String key(SlurmJob job) {
        return job.cluster() + "/" + job.jobId() + "/" + job.resId();
    }
}
