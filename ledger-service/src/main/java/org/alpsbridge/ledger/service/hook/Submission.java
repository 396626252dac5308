package org.alpsbridge.ledger.service.hook;

import org.alpsbridge.ledger.service.client.ServiceHttp;
import java.time.Instant;
import java.util.Map;
import org.alpsbridge.ledger.service.api.Route;

/**
 * A job being submitted, as the {@code job_submit} plugin ({@code src/main/lua/job_submit.lua}) describes it before slurmctld
 * queues it, and the one question asked about it: could its project cover its worst case now? The worst case is
 * priced by the ledger's own RESERVE rule ({@code POST /v1/quote}, read only: nothing is held), from the same
 * RESERVE body the prolog sends ({@link EventJson#reserve}); the prolog's hold at dispatch stays the guarantee.
 *
 * <p>The job's CPUs are billed as one node of all of them, as the prolog bills nodes of different sizes: the same
 * cost under the ledger's per-core weights. They are what the job asked for, at least; slurmctld may allocate more
 * (whole nodes), which only the prolog's hold sees. So a submission is refused only when even what was asked for
 * cannot be covered, never for an allocation it might get.
 *
 * @param limitMinutes the job's time limit (its own, else its partition's default, else its maximum); null when
 *     none is finite
 */
record Submission(String cluster, String account, String user, String partition, int cpus, Long limitMinutes) {

    /**
     * The job as the plugin passes it: {@code SLURM_JOB_ACCOUNT}, {@code SLURM_JOB_USER}, {@code SLURM_JOB_PARTITION},
     * {@code SLURM_JOB_CPUS} (the CPUs asked for, all nodes), {@code SLURM_JOB_TIME_LIMIT} (minutes; empty or
     * {@code UNLIMITED}: none) and {@code SLURM_CLUSTER_NAME}.
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    static Submission fromEnvironment(Map<String, String> env) {
        String cpus = required(env, "SLURM_JOB_CPUS");
        String limit = env.getOrDefault("SLURM_JOB_TIME_LIMIT", "").strip();
        try {
            int n = Integer.parseInt(cpus);
            if (n < 1) {
                throw new NumberFormatException();
            }
            Long minutes = limit.isEmpty() || limit.equals("UNLIMITED") ? null : Long.parseLong(limit);
            if (minutes != null && minutes < 1) {
                throw new IllegalArgumentException("SLURM_JOB_TIME_LIMIT='" + limit + "' is not a time limit in minutes");
            }
            return new Submission(env.getOrDefault("SLURM_CLUSTER_NAME", "").strip(), required(env, "SLURM_JOB_ACCOUNT"),
                    required(env, "SLURM_JOB_USER"), required(env, "SLURM_JOB_PARTITION"), n, minutes);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("SLURM_JOB_CPUS='" + cpus + "' or SLURM_JOB_TIME_LIMIT='" + limit
                    + "' is not a whole number");
        }
    }

    /**
     * Asks the service; the exit code the C client passes on to the plugin: {@link Hook#OK} it may be queued,
     * {@link Hook#DENIED} it may not (the lines say why, with the figures), {@link Hook#UNAVAILABLE} the ledger
     * cannot say now (the client applies {@code submit_when_unavailable}).
     *
     * @param service null when the ledger is known not to answer now: nothing is asked
     */
    int check(ServiceCall service, HookLog log) {
        // (service null: the ledger is known not to answer now; only what needs no ledger is decided)
        String what = "ledger: " + account + " job of " + cpus + " CPUs";
        if (limitMinutes == null) {
            log.say(what + ": refused: the job has no finite time limit, so its worst case cannot be held at dispatch;"
                    + " submit it with --time");
            return Hook.DENIED;
        }
        if (service == null) {
            return Hook.UNAVAILABLE;
        }
        // the prolog's own RESERVE body: one shape of a job's worst case, priced by the ledger alone
        SlurmJob job = new SlurmJob(cluster, "submission", 0, account, user, partition, 1, cpus, "");
        Map<String, String> quote;
        try {
            quote = service.postAlone(Route.QUOTE, EventJson.reserve(job, limitMinutes * 60, Instant.now()));
        } catch (ServiceHttp.Unavailable | ServiceHttp.Refused e) {
            log.say(what + ": the ledger cannot answer (" + e.getMessage() + ")");
            return Hook.UNAVAILABLE;
        }
        if ("DENIED".equals(quote.get("decision"))) {
            log.say("ledger: job refused: " + quote.get("message") + " (" + quote.get("reason") + ")");
            return Hook.DENIED;
        }
        if (!"OK".equals(quote.get("decision"))) {
            log.say(what + ": the ledger answered no decision: " + quote);
            return Hook.UNAVAILABLE;
        }
        return Hook.OK;
    }

    private static String required(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " is not set: ledger-submit is run by slurmctld's job_submit"
                    + " plugin (job_submit.lua), which sets it");
        }
        return v.strip();
    }
}
