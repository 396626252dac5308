package org.alpsbridge.ledger;


/**
 * What one node of a reservation is billed for. ALPS hands out whole nodes, so for a Cray these are the
 * node's full core count, memory and GPUs, not what the job asked for.
 *
 * @param cores cores per node (at least 1)
 * @param memGib memory per node in GiB (0 when memory is not billed)
 * @param gpus GPUs per node
 */
public record NodeShape(int cores, long memGib, int gpus) {

    public NodeShape {
        if (cores < 1) {
            throw new LedgerException("cores per node must be at least 1, got " + cores);
        }
        if (memGib < 0 || gpus < 0) {
            throw new LedgerException("memory and GPUs per node must not be negative: mem=" + memGib + " gpus=" + gpus);
        }
    }

    /** A node billed by its cores alone. */
    public static NodeShape cores(int cores) {
        return new NodeShape(cores, 0, 0);
    }
}
