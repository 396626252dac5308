package org.alpsbridge.ledger.service.hook;

import org.alpsbridge.ledger.service.client.ServiceHttp;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.service.api.Route;
import org.alpsbridge.ledger.timelimit.SlurmTime;
import org.alpsbridge.retry.Attempts;
import org.alpsbridge.retry.Backoff;

/**
 * One call's work on one run of a job, shared by the JVM hook ({@link SlurmHook}, a process per call) and the
 * resident agent ({@link HookAgent}): the prolog holds the run's worst case or denies it, the epilog settles it.
 *
 * @param records the job's record from slurmctld (one squeue per call, or the agent's batches)
 * @param retryMillis how long an unavailable service is tried again ({@link #FOREVER}: until it answers)
 * @param held the runs held by this process's prologs ({@link HeldRuns#NONE} in a process per call)
 */
record Hook(SlurmJob job, JobRecords records, Slurm slurm, ServiceCall service, HookLog log, long retryMillis,
            HeldRuns held) {

    /** Exit codes, as {@link SlurmHook} documents them. */
    static final int OK = SlurmHook.OK;
    static final int DENIED = SlurmHook.DENIED;
    static final int UNAVAILABLE = SlurmHook.UNAVAILABLE;
    static final int NO_JOB = SlurmHook.NO_JOB;

    /** Retry an unavailable service until it answers (the agent's spooled settlements). */
    static final long FOREVER = Backoff.FOREVER;

    /** An unavailable service is asked again after 200 ms, doubling to 5 s, for up to the retry time. */
    private static final Backoff SERVICE_BACKOFF = Backoff.doubling(200, 5_000);

    /** Where the hook reads a job's time limit, time used, reason, restart count and state. */
    interface JobRecords {
        /** The job's facts as {@link Slurm#job} gives them; empty when slurmctld no longer knows the job. */
        Map<String, String> job(String jobId) throws IOException;

        /**
         * {@link #job} of a job whose prolog runs now (its time limit is what the prolog needs); it may come from
         * a listing of the jobs waiting or being started a moment ago (the agent's: one squeue for a whole wave
         * of prologs, made before the wave when jobs end).
         */
        default Map<String, String> starting(SlurmJob job) throws IOException {
            return job(job.jobId());
        }
    }

    int prolog(boolean allow) {
        String what = "ledger prolog: job " + job.jobId() + " run " + job.resId();
        long limit;
        try {
            Map<String, String> facts = records.starting(job);
            Optional<Long> l = facts.isEmpty() ? Optional.empty() : SlurmTime.parse(facts.get("limit"));
            if (l.isEmpty()) {
                String why = "job has no finite time limit ('" + facts.get("limit")
                        + "'), so its worst case cannot be held; submit it with --time";
                deny(what, why);
                return DENIED;
            }
            limit = l.get();
        } catch (IOException | RuntimeException e) {
            log.say(what + ": cannot read the job's time limit from slurmctld: " + e.getMessage());
            return NO_JOB;
        }
        Instant now = Instant.now();
        Map<String, String> outcome;
        try {
            outcome = start(EventJson.reserve(job, limit, now), now);
            if ("DENIED".equals(outcome.get("decision"))) {
                deny(what, outcome.get("message") + " (" + outcome.get("reason") + ")");
                return DENIED;
            }
            if (!"OK".equals(outcome.get("decision"))) {
                throw new ServiceHttp.Refused(0, outcome.get("decision") + ": " + outcome.get("message"));
            }
        } catch (ServiceHttp.Unavailable | ServiceHttp.Refused e) {
            if (allow) {
                log.say(what + ": " + e.getMessage() + "; the job runs unheld (--when-unavailable allow),"
                        + " the epilog charges it as a forced debit");
                return OK;
            }
            log.say(what + ": " + e.getMessage() + "; refused (--when-unavailable refuse): slurmctld requeues"
                    + " the job and tries again later");
            noteQuietly("ledger unavailable, job requeued: " + e.getMessage(), false);
            return UNAVAILABLE;
        }
        held.held(job);
        log.say(what + ": held " + outcome.get("hold") + " of project " + outcome.get("project")
                + ", available " + outcome.get("available") + ("true".equals(outcome.get("replayed")) ? " (retry)" : ""));
        return OK;
    }

    /** Settles the run that ended {@code at} (the epilog's time: a spooled settlement may be sent later). */
    int epilog(Instant at) {
        String what = "ledger epilog: job " + job.jobId() + " run " + job.resId();
        if (held.wasVoided(job)) {
            log.say(what + ": never started (slurmctld started it without the prolog's answer; the agent voided its"
                    + " hold and requeued the job), nothing to settle");
            return OK;
        }
        long elapsed = ReleaseRequest.BY_CLOCK;
        boolean nodeFailure = false;
        boolean requeued = false;
        long limit = 0;
        try {
            Map<String, String> facts = records.job(job.jobId());
            if (!facts.isEmpty()) {
                limit = SlurmTime.parse(facts.get("limit")).orElse(0L);
                requeued = Integer.parseInt(facts.get("restarts")) > job.restart()
                        || facts.get("state").startsWith("PENDING");
                if (requeued) {
                    // slurmctld has already reset the run's times for the next run: the ledger measures
                    // this run from its CONFIRM at the prolog; a node that is down now failed it
                    nodeFailure = slurm.anyNodeDown(job.nodeList());
                } else {
                    elapsed = SlurmTime.parse(facts.get("used")).orElse(0L);
                    nodeFailure = "NodeDown".equals(facts.get("reason")) || facts.get("state").startsWith("NODE_FAIL");
                }
            }
        } catch (IOException | RuntimeException e) {
            log.say(what + ": cannot read the job from slurmctld (" + e.getMessage()
                    + "); the ledger measures the run from its start");
        }
        try {
            // The epilog also follows runs the prolog denied or failed on (slurmctld runs it for every
            // job that was allocated nodes): those have nothing to settle, and a RELEASE must not turn
            // a remembered denial into a settlement. A run the prolog let go unheld (allow) is charged.
            // (a run this process's prolog held was not denied: no need to ask)
            Map<String, String> record = held.settling(job) ? Map.of("state", "HELD")
                    : retrying(Route.RESERVATION, EventJson.lookupQuery(job), null);
            if (record != null && "DENIED".equals(record.get("state"))) {
                log.say(what + ": denied at the prolog, nothing to settle");
                return OK;
            }
            if (record != null && "VOIDED".equals(record.get("state")) && requeued) {
                log.say(what + ": voided, never started (slurmctld requeued the job), nothing to settle");
                return OK;
            }
            if (record == null && requeued) {
                log.say(what + ": never held (the prolog failed, or its answer was not heard and the run never started,"
                        + " and the job was requeued), nothing to settle");
                return OK;
            }
            Map<String, String> o = post(Route.RELEASE, EventJson.release(job, elapsed, nodeFailure, limit, at));
            log.say(what + ": settled " + o.get("charge") + " of hold " + o.get("hold") + " on project "
                    + o.get("project") + (nodeFailure ? " (node failure: not charged)" : "")
                    + (elapsed == ReleaseRequest.BY_CLOCK ? " (requeued: measured by the ledger)" : ", elapsed " + elapsed + " s")
                    + ("true".equals(o.get("replayed")) ? " (retry)" : "")
                    + ("CONFLICT".equals(o.get("decision")) ? " CONFLICT: " + o.get("message") : ""));
            return OK;
        } catch (ServiceHttp.Unavailable | ServiceHttp.Refused e) {
            if (retryMillis == FOREVER && e instanceof ServiceHttp.Unavailable) {
                // only a stop ends the agent's retrying: the settlement stays in its spool for the next start
                log.say(what + ": " + e.getMessage() + "; the agent is stopping: the settlement stays in its spool"
                        + " and is sent at its next start");
                return UNAVAILABLE;
            }
            log.say(what + ": " + e.getMessage() + "; NOT settled: the hold stays in the ledger until"
                    + " `alpsbridge ledger sweep` or a RELEASE by hand");
            return UNAVAILABLE;
        }
    }

    /**
     * Voids the run's hold: slurmctld started the run without the prolog's answer and never ran it
     * ({@link UnheardProlog}); false when the service cannot be reached now.
     */
    boolean voidHold() {
        try {
            post(Route.RELEASE, EventJson.neverRan(job, Instant.now()));
            held.voided(job);
            return true;
        } catch (ServiceHttp.Unavailable e) {
            log.say("ledger prolog: job " + job.jobId() + " run " + job.resId() + ": cannot void the hold of a run that"
                    + " never started (" + e.getMessage() + "); tried again");
            return false;
        } catch (ServiceHttp.Refused e) {
            log.say("ledger prolog: job " + job.jobId() + " run " + job.resId() + ": the service refused to void the hold"
                    + " of a run that never started (" + e.getMessage() + "); its epilog settles it");
            return true;
        }
    }

    /**
     * Holds and confirms the run in one request ({@code /v1/start}: one credential, one round trip, which is what
     * a storm of prologs waits on); a service older than that route (404) is asked in two, RESERVE then CONFIRM.
     */
    private Map<String, String> start(String reserve, Instant now) throws ServiceHttp.Unavailable, ServiceHttp.Refused {
        try {
            return post(Route.START, reserve);
        } catch (ServiceHttp.Refused e) {
            if (e.status != 404) {
                throw e;
            }
        }
        Map<String, String> outcome = post(Route.RESERVE, reserve);
        if ("OK".equals(outcome.get("decision"))) {
            post(Route.CONFIRM, EventJson.confirm(job, now));
        }
        return outcome;
    }

    private Map<String, String> post(Route route, String json) throws ServiceHttp.Unavailable, ServiceHttp.Refused {
        return retrying(route, "", json);
    }

    /**
     * One request (a read when {@code json} is null), tried again on an unavailable service with growing
     * pauses for up to the retry time. No lambdas here: each costs a JVM this young a class spun at run time.
     */
    private Map<String, String> retrying(Route route, String query, String json)
            throws ServiceHttp.Unavailable, ServiceHttp.Refused {
        Attempts attempts = SERVICE_BACKOFF.within(retryMillis).start();
        while (true) {
            try {
                return json == null ? service.get(route, query) : service.post(route, json);
            } catch (ServiceHttp.Unavailable e) {
                if (!attempts.pauseForNext()) {
                    throw e;
                }
            }
        }
    }
    private void deny(String what, String why) {
        log.say(what + ": DENIED: " + why + "; slurmctld cancels the job");
        try {
            slurm.note(job.jobId(), "ledger denied: " + why, true);
        } catch (IOException e) {
            log.say(what + ": could not note the denial on the job (" + e.getMessage() + ")");
        }
    }

    private void noteQuietly(String text, boolean noRequeue) {
        try {
            slurm.note(job.jobId(), text, noRequeue);
        } catch (IOException e) {
            log.say("ledger prolog: job " + job.jobId() + ": could not note on the job (" + e.getMessage() + ")");
        }
    }
}
