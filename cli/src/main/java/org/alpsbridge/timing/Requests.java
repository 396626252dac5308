package org.alpsbridge.timing;

import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.ReserveParam;

/**
 * The request documents a replay sends, in the shape slurmctld's libalps wrote them
 * (shared/basil/SLURM_USAGE.md §1): ENGINE and CONFIRM always at protocol 1.0, everything else at the
 * negotiated level; CONFIRM names the job and the PAGG id.
 */
final class Requests {

    private final String protocol;
    private final BasilCodec codec = BasilCodec.standard();

    Requests(String protocol) {
        this.protocol = protocol;
    }

    byte[] engine() {
        return write(BasilRequest.query("1.0", "ENGINE"));
    }

    byte[] query(String type) {
        return write(BasilRequest.query(protocol, type));
    }

    /** Whole nodes, one PE per core: width = nodes × PEs per node, nppcu 1 from protocol 1.3 on. */
    byte[] reserve(Job job, int pesPerNode) {
        ReserveParam.Builder p = ReserveParam.builder().width((long) job.nodes() * pesPerNode).depth(1).nppn(pesPerNode);
        if (Protocols.atLeast(protocol, "1.3")) {
            p.nppcu(1);
        }
        return write(BasilRequest.reserve(protocol, job.user(), Long.toString(job.id()), job.account(), List.of(p.build())));
    }

    byte[] confirm(String reservationId, long jobId, long pagg) {
        return write(BasilRequest.confirm("1.0", Long.parseLong(reservationId), pagg, Long.toString(jobId)));
    }

    byte[] release(String reservationId) {
        return write(BasilRequest.release(protocol, Long.parseLong(reservationId)));
    }

    private byte[] write(BasilRequest request) {
        try {
            return codec.write(request);
        } catch (BasilException e) {
            throw new IllegalStateException("cannot write a " + request.methodKey() + " request: " + e.getMessage(), e);
        }
    }
}
