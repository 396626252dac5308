package org.alpsbridge.ledger.service.hook;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.alpsbridge.json.JsonText;

/**
 * The bodies of the hooks' RESERVE, CONFIRM and RELEASE in the API's JSON (the ledger's {@code ReserveRequest},
 * {@code Requests.Confirm} and {@code ReleaseRequest} as Jackson maps them: the tests read these texts back
 * with the service's own strict mapper, so the two cannot drift). Strings are quoted by the proxy's
 * {@code JsonText}, the project's one hand-written JSON quoting for start-up-sensitive programs.
 */
final class EventJson {

    private EventJson() {
    }

    /** The worst case of this run: its CPUs for its whole time limit, in its partition, at {@code at}. */
    static String reserve(SlurmJob job, long limitSeconds, Instant at) {
        return "{\"cluster\":" + cluster(job) + ",\"batchId\":" + JsonText.quote(job.jobId()) + ",\"resId\":" + job.resId()
                + ",\"token\":null,\"project\":" + JsonText.quote(job.account()) + ",\"owner\":" + JsonText.quote(job.user())
                + ",\"partition\":" + JsonText.quote(job.partition()) + ",\"resource\":\"CPU\",\"nodes\":" + job.nodes()
                + ",\"node\":{\"cores\":" + job.cpusPerNode() + ",\"memGib\":0,\"gpus\":0},\"limitSeconds\":" + limitSeconds
                + ",\"at\":" + JsonText.quote(at.toString()) + "}";
    }

    /** The run started (the prolog's success is the job's start). */
    static String confirm(SlurmJob job, Instant at) {
        return "{\"lookup\":" + lookup(job) + ",\"at\":" + JsonText.quote(at.toString()) + ",\"ifUnknown\":null}";
    }

    /**
     * The run ended after {@code elapsedSeconds} ({@code ReleaseRequest.BY_CLOCK}: the ledger measures from the
     * CONFIRM). With a known time limit the run's parameters ride along, so that a run the prolog could not hold
     * (service unavailable, {@code --when-unavailable allow}) is still charged, as a forced debit.
     */
    static String release(SlurmJob job, long elapsedSeconds, boolean nodeFailure, long limitSeconds, Instant at) {
        return "{\"lookup\":" + lookup(job) + ",\"elapsedSeconds\":" + elapsedSeconds + ",\"nodeFailure\":" + nodeFailure
                + ",\"neverRan\":false,\"at\":" + JsonText.quote(at.toString()) + ",\"ifUnknown\":"
                + (limitSeconds > 0 ? reserve(job, limitSeconds, at) : "null") + "}";
    }

    /** The run never started: its hold goes back whole (VOID); a run the ledger does not know is not forced. */
    static String neverRan(SlurmJob job, Instant at) {
        return "{\"lookup\":" + lookup(job) + ",\"elapsedSeconds\":0,\"nodeFailure\":false,\"neverRan\":true,\"at\":"
                + JsonText.quote(at.toString()) + ",\"ifUnknown\":null}";
    }

    /** The query of the reservation of this run. */
    static String lookupQuery(SlurmJob job) {
        return (job.cluster().isEmpty() ? "" : "cluster=" + URLEncoder.encode(job.cluster(), StandardCharsets.UTF_8) + "&")
                + "res_id=" + job.resId() + "&batch_id=" + job.jobId();
    }

    private static String lookup(SlurmJob job) {
        return "{\"cluster\":" + cluster(job) + ",\"resId\":" + job.resId() + ",\"batchId\":" + JsonText.quote(job.jobId()) + "}";
    }

    private static String cluster(SlurmJob job) {
        return job.cluster().isEmpty() ? "null" : JsonText.quote(job.cluster());
    }
}
