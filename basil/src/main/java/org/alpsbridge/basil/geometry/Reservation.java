package org.alpsbridge.basil.geometry;

import java.util.List;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.nodes.NidSet;

/**
 * The RESERVE parameters of one job on one node type, and the node count they assume.
 *
 * @param nodes compute nodes the reservation spans
 * @param width PEs in all ({@code width}, aprun -n)
 * @param depth processors per PE ({@code depth}, aprun -d)
 * @param nppn PEs per node ({@code nppn}, aprun -N); 0 lets ALPS choose
 * @param nppcu processors used per compute unit ({@code nppcu}, aprun -j); 0 lets ALPS choose
 * @param memoryPerPeMb {@code MemoryParam size_mb}, MB per PE; 0 when no MemoryParam is sent
 * @param usableCpusPerNode the node's processors that nppcu leaves usable (Slurm's adjusted CPU count)
 * @param notes how the request was read where Slurm reads it in a way a user might not expect
 */
public record Reservation(long nodes, long width, long depth, long nppn, int nppcu, long memoryPerPeMb, long usableCpusPerNode,
                          List<String> notes) {

    public Reservation {
        notes = List.copyOf(notes);
    }

    /**
     * The {@code ReserveParam} Slurm would send: {@code architecture="XT"}, nppcu only from protocol 1.3 on (and
     * then always, even 0), a MemoryParam only when there is a memory size, and the node list as one NodeParam.
     *
     * @param nids the allocated nodes, or {@code null} (a pending job: ALPS picks)
     */
    public ReserveParam toReserveParam(String protocol, NidSet nids) {
        ReserveParam.Builder b = ReserveParam.builder().architecture("XT").width(width).depth(depth).nppn(nppn);
        if (Protocols.atLeast(protocol, "1.3")) {
            b.nppcu(nppcu);
        }
        if (memoryPerPeMb > 0) {
            b.memoryPerPeMb(memoryPerPeMb);
        }
        if (nids != null && !nids.isEmpty()) {
            if (nids.size() != nodes) {
                throw new IllegalArgumentException("the geometry is for " + nodes + " nodes but the node list " + nids + " holds " + nids.size());
            }
            b.nodes(nids.toString());
        }
        return b.build();
    }

    /** The line Slurm logged for a reservation: {@code BASIL -n W -N N -d D -m M}. */
    public String basilLine() {
        return "BASIL -n " + width + " -N " + nppn + " -d " + depth + " -m " + memoryPerPeMb;
    }
}
