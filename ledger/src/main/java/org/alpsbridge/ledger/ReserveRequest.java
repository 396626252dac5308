package org.alpsbridge.ledger;

import java.time.Instant;
import java.util.Objects;

/**
 * A RESERVE: hold the worst case of a reservation, or deny it.
 *
 * <p>The idempotency key is {@code (cluster, batchId, resId)}; when the ALPS reservation id is not known
 * yet (the proxy holds before it forwards the RESERVE), {@code resId} is 0 and {@code token} names the
 * attempt instead, and {@link Ledger#bind} attaches the id ALPS then returns.
 *
 * @param project project name or Slurm account
 * @param owner the user the job runs as (uid or name), for per-user reports
 * @param partition billing partition (its weights and default time limit), {@code default} if null
 * @param limitSeconds the job's time limit
 * @param at when the reservation is made: picks the allocation active then, for its whole life
 */
public record ReserveRequest(String cluster, String batchId, long resId, String token, String project,
                             String owner, String partition, Resource resource, int nodes, NodeShape node,
                             long limitSeconds, Instant at) {

    public ReserveRequest {
        cluster = Ledger.cluster(cluster);
        partition = partition == null || partition.isBlank() ? Ledger.DEFAULT_PARTITION : partition;
        resource = resource == null ? Resource.CPU : resource;
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(node, "node");
        if (batchId == null || batchId.isBlank()) {
            throw new LedgerException("RESERVE needs a batch job id");
        }
        if (resId < 0) {
            throw new LedgerException("reservation id must be positive, got " + resId);
        }
        if (resId == 0 && (token == null || token.isBlank())) {
            throw new LedgerException("RESERVE needs a positive reservation id (0 is never valid in ALPS) or an attempt token");
        }
        if (project == null || project.isBlank()) {
            throw new LedgerException("RESERVE needs a project or account");
        }
        if (owner == null || owner.isBlank()) {
            throw new LedgerException("RESERVE needs the user the job runs as");
        }
        if (nodes < 1) {
            throw new LedgerException("RESERVE needs at least 1 node, got " + nodes);
        }
        if (limitSeconds <= 0) {
            throw new LedgerException("time limit must be positive, got " + limitSeconds + " s");
        }
        Bounds.seconds(limitSeconds, "time limit");
        Bounds.time(at, "RESERVE time");
    }

    /** A CLI-style reserve: CPU, whole nodes of {@code coresPerNode} cores, limit in minutes, now. */
    public static ReserveRequest of(long resId, String batchId, String project, String owner, int nodes,
                                    int coresPerNode, long limitMinutes, Instant at) {
        return new ReserveRequest(null, batchId, resId, null, project, owner, null, Resource.CPU, nodes,
                NodeShape.cores(coresPerNode), Math.multiplyExact(limitMinutes, 60L), at);
    }

    /** The idempotency key as stored: {@code cluster/batch/resId} or {@code cluster/batch/~token}. */
    public String key() {
        return Ledger.key(cluster, batchId, resId == 0 ? "~" + token : Long.toString(resId));
    }

    /** Everything the decision depends on except the time, so a retry later is still the same request. */
    public String paramsText() {
        return String.join("|", project, owner, partition, resource.name(), Integer.toString(nodes),
                Integer.toString(node.cores()), Long.toString(node.memGib()), Integer.toString(node.gpus()),
                Long.toString(limitSeconds));
    }
}
