package org.alpsbridge.demo;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.alpsbridge.emulator.Control;
import org.alpsbridge.proxy.orphans.JobSource;
import org.alpsbridge.timing.Job;
import org.alpsbridge.timing.Replay;

/**
 * What happens around the scheduler while the demo replays its workload through the proxy: reservations
 * made behind its back (an out-of-band one, an interactive {@code batch_id="UNKNOWN"} one that must be left
 * alone), a RELEASE that ALPS loses, a job whose release slurmctld forgets, and nodes failing and coming back.
 *
 * <p>It is also the scheduler's job list for the orphan detector (the jobs running at the start of each
 * pass) and the ledger's clock (workload time, so a job that ran six hours of workload time is charged six
 * hours, although the replay takes milliseconds).
 */
final class DemoScenario implements Replay.Scenario, JobSource {

    /**
     * Reservations the scenario made or caused, by how, with the workload second each became an orphan (for a
     * lost RELEASE: when the loss was armed, an upper bound, as the next RELEASE is the one lost).
     */
    record Planted(long outOfBand, long outOfBandSecond, long interactive, Map<Long, Long> forgottenJobSeconds,
                   int lostReleases, long lostReleaseSecond, int nodeFailures) {

        List<Long> forgottenJobs() {
            return List.copyOf(forgottenJobSeconds.keySet());
        }
    }

    private static final int OUT_OF_BAND_PASS = 5;
    private static final int INTERACTIVE_PASS = 7;
    private static final int LOST_RELEASE_PASS = 11;
    private static final int FORGET_PASS = 13;
    private static final int FAILURE_EVERY = 120;
    private static final int FAILURE_LASTS = 30;
    private static final int FAILED_NODES = 8;

    private final Control control;
    private final int computeNodes;
    private final Instant epoch;
    private final AtomicLong workloadSecond;
    private final Set<String> live = ConcurrentHashMap.newKeySet();
    private final Map<Long, Long> forgottenJobs = new LinkedHashMap<>();
    private long outOfBand = -1;
    private long outOfBandSecond = -1;
    private long lostReleaseSecond = -1;
    private long interactive = -1;
    private int lostReleases;
    private int nodeFailures;
    private int pass;
    private int[] down;
    private boolean forgetNext;

    /**
     * @param workloadSecond the replay's workload time, shared with the emulator's clock so ALPS time stamps
     *     and the ledger's charges are in workload time
     */
    DemoScenario(Control control, int computeNodes, Instant epoch, AtomicLong workloadSecond) {
        this.control = control;
        this.computeNodes = computeNodes;
        this.epoch = epoch;
        this.workloadSecond = workloadSecond;
    }

    @Override
    public synchronized void beforePass(int pass, long second, Set<Long> runningJobIds) {
        this.pass = pass;
        workloadSecond.set(second);
        live.clear();
        for (Long id : runningJobIds) {
            live.add(Long.toString(id));
        }
        if (pass == OUT_OF_BAND_PASS) {
            outOfBand = plant("mallory", "990001", 2);
            outOfBandSecond = second;
        } else if (pass == INTERACTIVE_PASS) {
            interactive = plant("ivan", "UNKNOWN", 1);
        } else if (pass == LOST_RELEASE_PASS) {
            control.loseNextRelease();
            lostReleases++;
            lostReleaseSecond = second;
        } else if (pass == FORGET_PASS) {
            forgetNext = true;
        }
        if (pass % FAILURE_EVERY == 0) {
            down = failureNodes(pass);
            control.setState(down, "DOWN");
            nodeFailures++;
        } else if (down != null && pass % FAILURE_EVERY == FAILURE_LASTS) {
            control.setState(down, "UP");
            down = null;
        }
    }

    @Override
    public synchronized boolean forgetRelease(Job job) {
        if (forgetNext && pass >= FORGET_PASS) {
            forgetNext = false;
            forgottenJobs.put(job.id(), workloadSecond.get());
            return true;
        }
        return false;
    }

    @Override
    public Set<String> liveJobIds() {
        return Set.copyOf(live);
    }

    @Override
    public String describe() {
        return "the demo's scheduler (jobs running at the start of each pass)";
    }

    /** Workload time as a clock: the ledger charges what the jobs would have run. */
    Clock clock() {
        return new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return epoch.plusSeconds(workloadSecond.get());
            }
        };
    }

    /** The scheduler stopped: no job is running any more, and workload time moves on by {@code seconds}. */
    synchronized void idle(long seconds) {
        live.clear();
        workloadSecond.addAndGet(seconds);
    }

    long second() {
        return workloadSecond.get();
    }

    /** Brings failed nodes back, so the machine ends as it started. */
    synchronized void heal() {
        if (down != null) {
            control.setState(down, "UP");
            down = null;
        }
    }

    synchronized Planted planted() {
        return new Planted(outOfBand, outOfBandSecond, interactive, Map.copyOf(forgottenJobs), lostReleases, lostReleaseSecond,
                nodeFailures);
    }

    /**
     * Plants a reservation on the highest-numbered nodes no other reservation holds, as an interactive user or
     * a second scheduler would, on nodes the replay's FIFO placement reaches last.
     */
    private long plant(String user, String batchId, int nodes) {
        for (int start = computeNodes - nodes; start >= 0; start -= nodes) {
            int[] nids = nidsFrom(start, nodes);
            if (free(nids)) {
                return control.plantReservation(user, batchId, nids);
            }
        }
        throw new IllegalStateException("no " + nodes + " free nodes to plant a reservation on");
    }

    private boolean free(int[] nids) {
        for (long id : control.reservationIds()) {
            for (int held : control.reservationNodes(id)) {
                for (int nid : nids) {
                    if (held == nid) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** A different stripe of nodes each time, spread over the machine like real failures. */
    private int[] failureNodes(int pass) {
        int stride = Math.max(1, computeNodes / FAILED_NODES);
        int offset = (pass / FAILURE_EVERY * 7) % stride;
        int[] nids = new int[Math.min(FAILED_NODES, computeNodes)];
        for (int i = 0; i < nids.length; i++) {
            nids[i] = nid(offset + i * stride);
        }
        return nids;
    }

    private int[] nidsFrom(int index, int count) {
        int[] nids = new int[count];
        for (int i = 0; i < count; i++) {
            nids[i] = nid(index + i);
        }
        return nids;
    }

    /** The demo's machine has no service nodes, so the emulator numbers its compute nodes 0 to N-1. */
    private static int nid(int index) {
        return index;
    }
}
