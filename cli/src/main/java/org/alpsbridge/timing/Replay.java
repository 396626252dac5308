package org.alpsbridge.timing;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.IntConsumer;

/**
 * Replays a workload against one target the way slurmctld drove ALPS: one scheduling pass every
 * {@code passSeconds} of workload time, each pass first releasing finished jobs, then one
 * QUERY(INVENTORY) (or SUMMARY), then RESERVE + CONFIRM for queued jobs in FIFO order until ALPS says
 * the next one does not fit. Workload time is virtual: the replay never sleeps, so a day of jobs runs
 * in as long as the calls themselves take, and every call is timed as the caller sees it.
 */
public final class Replay {

    /**
     * @param protocol the negotiated BASIL level for QUERY/RESERVE/RELEASE (CONFIRM and ENGINE stay 1.0)
     * @param queryType what each pass asks for: {@code INVENTORY} as Slurm did, or {@code SUMMARY}
     * @param passSeconds workload seconds between scheduling passes
     * @param pesPerNode PEs reserved per node (whole nodes, one per core)
     * @param busyReservations reservations planted before timing starts and held throughout ("busy" machine)
     * @param maxPasses a bound on passes, so a workload that never fits still ends
     */
    public record Settings(String protocol, String queryType, long passSeconds, int pesPerNode,
                           int busyReservations, int maxPasses) {
        public Settings {
            if (passSeconds < 1 || pesPerNode < 1 || busyReservations < 0 || maxPasses < 1) {
                throw new IllegalArgumentException("replay: passSeconds, pesPerNode and maxPasses must be positive, busyReservations not negative");
            }
        }
    }

    /** Counts a replay reports beside the timings. */
    public record Outcome(int started, int finished, int deniedPermanent, int unplaced, int passes, int busyPlanted,
                          List<String> permanentReasons) {
    }

    /**
     * What happens around the scheduler during a replay (node failures, reservations made behind its back),
     * for the demo and for tests; {@link #NONE} for a plain measurement.
     */
    public interface Scenario {
        Scenario NONE = new Scenario() {
        };

        /** Called at the start of every pass with the batch ids of the jobs the scheduler believes are running. */
        default void beforePass(int pass, long workloadSecond, Set<Long> runningJobIds) {
        }

        /** True to make the scheduler lose track of a finished job instead of releasing it (a slurmctld crash). */
        default boolean forgetRelease(Job job) {
            return false;
        }
    }

    private final Settings settings;
    private final Requests requests;

    public Replay(Settings settings) {
        this.settings = settings;
        this.requests = new Requests(settings.protocol());
    }

    private record Running(Job job, String reservationId, long endSecond) {
    }

    /** Runs the whole workload; {@code progress} receives the number of jobs settled so far. */
    public Outcome run(Target target, List<Job> jobs, Recorder recorder, IntConsumer progress) {
        return run(target, jobs, recorder, progress, Scenario.NONE);
    }

    /** As {@link #run(Target, List, Recorder, IntConsumer)}, with a scenario acting between passes. */
    public Outcome run(Target target, List<Job> jobs, Recorder recorder, IntConsumer progress, Scenario scenario) {
        List<String> busy = plantBusyReservations(target);
        Deque<Job> arriving = new ArrayDeque<>(jobs.stream().sorted(Comparator.comparingLong(Job::submitSecond)).toList());
        Deque<Job> queued = new ArrayDeque<>();
        PriorityQueue<Running> running = new PriorityQueue<>(Comparator.comparingLong(Running::endSecond));
        List<String> reasons = new ArrayList<>();
        int started = 0;
        int finished = 0;
        int denied = 0;
        int passes = 0;
        time(target, recorder, "QUERY/ENGINE", requests.engine());
        long now = 0;
        while ((!arriving.isEmpty() || !queued.isEmpty() || !running.isEmpty()) && passes < settings.maxPasses()) {
            now += settings.passSeconds();
            passes++;
            while (!running.isEmpty() && running.peek().endSecond() <= now) {
                Running done = running.poll();
                if (!scenario.forgetRelease(done.job())) {
                    time(target, recorder, "RELEASE", requests.release(done.reservationId()));
                }
                finished++;
            }
            Set<Long> live = new HashSet<>();
            for (Running r : running) {
                live.add(r.job().id());
            }
            scenario.beforePass(passes, now, live);
            while (!arriving.isEmpty() && arriving.peek().submitSecond() <= now) {
                queued.add(arriving.poll());
            }
            Answer pass = time(target, recorder, "QUERY/" + settings.queryType(), requests.query(settings.queryType()));
            while (pass.success() && !queued.isEmpty()) {
                Job job = queued.peek();
                Answer reserved = time(target, recorder, "RESERVE", requests.reserve(job, settings.pesPerNode()));
                if (!reserved.success()) {
                    if (reserved.transientFailure()) {
                        break; // FIFO: the head waits for nodes, as Slurm's pending job with WAIT_RESOURCES
                    }
                    queued.poll();
                    denied++;
                    if (reasons.size() < 10) {
                        reasons.add("job " + job.id() + ": " + reserved.message());
                    }
                    continue;
                }
                queued.poll();
                time(target, recorder, "CONFIRM", requests.confirm(reserved.reservationId(), job.id(), 100_000 + job.id()));
                running.add(new Running(job, reserved.reservationId(), now + Math.max(1, job.wallSeconds())));
                started++;
            }
            progress.accept(finished + denied);
        }
        for (Running r : running) {
            time(target, recorder, "RELEASE", requests.release(r.reservationId()));
        }
        for (String id : busy) {
            call(target, requests.release(id));
        }
        return new Outcome(started, finished, denied, queued.size() + arriving.size(), passes, busy.size(), List.copyOf(reasons));
    }

    /** One-node reservations held for the whole run, planted untimed; they make every inventory longer. */
    private List<String> plantBusyReservations(Target target) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < settings.busyReservations(); i++) {
            Job filler = new Job(900_000 + i, 0, 1, 0, "busy", "busy");
            Answer a = Answer.of(call(target, requests.reserve(filler, settings.pesPerNode())));
            if (!a.success()) {
                break;
            }
            call(target, requests.confirm(a.reservationId(), filler.id(), 100_000 + filler.id()));
            ids.add(a.reservationId());
        }
        return ids;
    }

    private static Answer time(Target target, Recorder recorder, String methodKey, byte[] request) {
        long start = System.nanoTime();
        byte[] response;
        try {
            response = target.call(request);
        } catch (IOException e) {
            recorder.record(methodKey, System.nanoTime() - start + target.takeModelledNanos(), 0, true);
            return new Answer(false, true, null, e.getMessage());
        }
        long elapsed = System.nanoTime() - start + target.takeModelledNanos();
        Answer answer = Answer.of(response);
        recorder.record(methodKey, elapsed, response.length, !answer.success());
        return answer;
    }

    private static byte[] call(Target target, byte[] request) {
        try {
            byte[] answer = target.call(request);
            target.takeModelledNanos(); // untimed: its modelled time must not land on the next timed call
            return answer;
        } catch (IOException e) {
            return new byte[0];
        }
    }
}
