package org.alpsbridge.timing;

import java.nio.charset.StandardCharsets;

/**
 * The request documents a replay sends, in the shape slurmctld's libalps wrote them
 * (shared/basil/SLURM_USAGE.md §1): ENGINE and CONFIRM always at protocol 1.0, everything else at the
 * negotiated level; CONFIRM names the job and the PAGG id.
 */
final class Requests {

    private static final String PROLOG = "<?xml version=\"1.0\"?>\n";

    private final String protocol;

    Requests(String protocol) {
        this.protocol = protocol;
    }

    byte[] engine() {
        return bytes("<BasilRequest protocol=\"1.0\" method=\"QUERY\" type=\"ENGINE\"/>\n");
    }

    byte[] query(String type) {
        return bytes("<BasilRequest protocol=\"" + protocol + "\" method=\"QUERY\" type=\"" + type + "\"/>\n");
    }

    /** Whole nodes, one PE per core: width = nodes × PEs per node, nppcu 1 from protocol 1.3 on. */
    byte[] reserve(Job job, int pesPerNode) {
        String nppcu = protocol.compareTo("1.3") >= 0 ? " nppcu=\"1\"" : "";
        return bytes("<BasilRequest protocol=\"" + protocol + "\" method=\"RESERVE\">\n"
                + " <ReserveParamArray user_name=\"" + job.user() + "\" batch_id=\"" + job.id()
                + "\" account_name=\"" + job.account() + "\">\n"
                + "  <ReserveParam architecture=\"XT\" width=\"" + (long) job.nodes() * pesPerNode
                + "\" depth=\"1\" nppn=\"" + pesPerNode + "\"" + nppcu + "/>\n"
                + " </ReserveParamArray>\n</BasilRequest>\n");
    }

    byte[] confirm(String reservationId, long jobId, long pagg) {
        return bytes("<BasilRequest protocol=\"1.0\" method=\"CONFIRM\" reservation_id=\"" + reservationId
                + "\" admin_cookie=\"" + pagg + "\" job_name=\"" + jobId + "\"/>\n");
    }

    byte[] release(String reservationId) {
        return bytes("<BasilRequest protocol=\"" + protocol + "\" method=\"RELEASE\" reservation_id=\"" + reservationId + "\"/>\n");
    }

    private static byte[] bytes(String body) {
        return (PROLOG + body).getBytes(StandardCharsets.UTF_8);
    }
}
