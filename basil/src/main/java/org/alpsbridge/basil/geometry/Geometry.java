package org.alpsbridge.basil.geometry;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns a Slurm job request and a node type into ALPS RESERVE parameters the way Slurm's select/alps plugin did
 * (PROTOCOL.md §10–11: {@code do_basil_reserve}, {@code adjust_cpus_nppcu}, the XC30 nppcu patch), and rejects,
 * before any RESERVE, a geometry ALPS would refuse on that node type.
 *
 * <p>Reproduced from Slurm:
 * <ul>
 * <li>nppcu = {@code --ntasks-per-core}; else 1 under {@code CR_ONE_TASK_PER_CORE}; else 0.</li>
 * <li>usable processors per node = CPUs × nppcu / threads-per-core when nppcu ≠ 0, else CPUs.</li>
 * <li>Whole-node mode (cray.conf SubAllocate unset, the default): width = Σ usable processors, nppn = usable
 *     processors per node, depth = 1; memory per PE = {@code --mem-per-cpu} when {@code --ntasks} is given
 *     (otherwise {@code --mem-per-cpu} is ignored, as Slurm ignores it), or max(1, min(--mem, node memory) /
 *     usable processors).</li>
 * <li>SubAllocate mode: depth = {@code --cpus-per-task}; nppn = {@code --ntasks-per-node}, else
 *     ceil(ntasks / nodes), else 0; width = Σ min(nppn, (CPUs / depth) × nppcu / threads) in Slurm's integer
 *     order; memory per PE = {@code --mem-per-cpu} (with {@code --ntasks}) or max(1, min(node memory, --mem) /
 *     (nppn, or the node's CPUs when nppn is 0)).</li>
 * <li>Node count of a pending job: the controller's node filter, with the per-node CPU demand compared to the
 *     nppcu-adjusted count: max(--nodes, ceil(ntasks / tasks-per-node)), tasks-per-node being
 *     {@code --ntasks-per-node} or usable / cpus-per-task; {@code --nodes} above {@code --ntasks} is lowered to
 *     ntasks as sbatch does.</li>
 * </ul>
 *
 * <p>Deliberate differences (each a case where Slurm sent a RESERVE that ALPS refused, or that could never run):
 * <ul>
 * <li>{@code --ntasks-per-core} above the node's threads per core is rejected; Slurm's formula then claimed more
 *     processors than the node has.</li>
 * <li>A per-node processor demand between the nppcu-visible count and the physical count is rejected with both
 *     counts named, rather than left pending with a generic reason.</li>
 * <li>Memory per PE × PEs per node above the node's memory is rejected: in whole-node mode Slurm multiplied
 *     {@code --mem-per-cpu} by every usable processor of the node, which ALPS refuses on small-memory nodes.</li>
 * <li>{@code --mem} above the node's memory is rejected rather than quietly clamped to it.</li>
 * </ul>
 */
public final class Geometry {

    /**
     * The site settings that change the geometry.
     *
     * @param oneTaskPerCore slurm.conf {@code SelectTypeParameters} holds {@code CR_ONE_TASK_PER_CORE} (default off)
     * @param subAllocate cray.conf {@code SubAllocate=yes}: size reservations to the request, not whole nodes (default off)
     */
    public record Site(boolean oneTaskPerCore, boolean subAllocate) {
        /** Slurm's defaults: whole-node reservations, no CR_ONE_TASK_PER_CORE. */
        public static final Site DEFAULT = new Site(false, false);
    }

    private Geometry() {
    }

    /**
     * The reservation of a pending job, which has no nodes yet: the node count is derived from the request.
     *
     * @param availableNodes nodes of this type the machine has, or 0 for no limit
     */
    public static Reservation pending(JobRequest job, NodeType node, Site site, long availableNodes) throws GeometryException {
        Shape s = shape(job, node, site);
        List<String> notes = new ArrayList<>();
        long nodes = s.nodesNeeded;
        if (job.minNodes() != null) {
            if (job.ntasks() != null && job.ntasks() < job.minNodes()) {
                notes.add("--nodes=" + job.minNodes() + " lowered to " + job.ntasks() + ": " + job.ntasks()
                        + " tasks cannot run on more nodes (as sbatch does)");
                nodes = Math.max(nodes, job.ntasks());
            } else {
                nodes = Math.max(nodes, job.minNodes());
            }
        }
        if (availableNodes > 0 && nodes > availableNodes) {
            throw new GeometryException("nodes", nodes, availableNodes, "the job needs " + nodes + " nodes of type " + node
                    + " but the machine has " + availableNodes + " (" + (nodes - availableNodes) + " short)");
        }
        return reservation(job, node, site, s, nodes, notes);
    }

    /** The reservation of a job already allocated {@code nodes} nodes of this type. */
    public static Reservation allocated(JobRequest job, NodeType node, Site site, long nodes) throws GeometryException {
        if (nodes < 1) {
            throw new IllegalArgumentException("an allocation needs at least one node, not " + nodes);
        }
        Shape s = shape(job, node, site);
        if (nodes < s.nodesNeeded) {
            throw new GeometryException("nodes", s.nodesNeeded, nodes, "the job's " + job.ntasks() + " tasks at " + s.tasksPerNode
                    + " per node need " + s.nodesNeeded + " nodes but the allocation has " + nodes + " (" + (s.nodesNeeded - nodes) + " short)");
        }
        return reservation(job, node, site, s, nodes, new ArrayList<>());
    }

    /** What does not depend on the node count: nppcu, usable processors, tasks per node. */
    private record Shape(int nppcu, long usable, long tasksPerNode, long nodesNeeded) {
    }

    private static Shape shape(JobRequest job, NodeType node, Site site) throws GeometryException {
        int nppcu = job.ntasksPerCore() != null ? job.ntasksPerCore() : site.oneTaskPerCore() ? 1 : 0;
        if (nppcu > node.threadsPerCore()) {
            throw new GeometryException("hardware threads per core", nppcu, node.threadsPerCore(), "--ntasks-per-core=" + nppcu
                    + " (nppcu) asks for " + nppcu + " processors per compute unit but node type " + node + " has "
                    + node.threadsPerCore() + " threads per core (" + (nppcu - node.threadsPerCore()) + " too many)");
        }
        long usable = usableCpus(nppcu, node);
        long cpt = job.cpusPerTaskOrOne();
        if (cpt > usable) {
            throw processors(node, nppcu, usable, cpt, "--cpus-per-task=" + cpt);
        }
        long tasksPerNode;
        if (job.ntasksPerNode() != null) {
            long demand = Math.multiplyExact(job.ntasksPerNode(), cpt);
            if (demand > usable) {
                throw processors(node, nppcu, usable, demand, "--ntasks-per-node=" + job.ntasksPerNode() + " x --cpus-per-task=" + cpt);
            }
            tasksPerNode = job.ntasksPerNode();
        } else {
            tasksPerNode = usable / cpt;
        }
        long nodesNeeded = job.ntasks() == null ? 1 : ceilDiv(job.ntasks(), tasksPerNode);
        return new Shape(nppcu, usable, tasksPerNode, nodesNeeded);
    }

    /** Slurm's {@code adjust_cpus_nppcu}: the processors nppcu leaves usable on a node. */
    static long usableCpus(int nppcu, NodeType node) {
        return nppcu == 0 ? node.cpus() : (long) node.cpus() * nppcu / node.threadsPerCore();
    }

    private static GeometryException processors(NodeType node, int nppcu, long usable, long demand, String what) {
        String why;
        if (demand <= node.cpus()) {
            why = "nppcu=" + nppcu + " leaves " + usable + " of the node's " + node.cpus() + " processors usable ("
                    + node.threadsPerCore() + " threads per core); between those counts ALPS refuses the RESERVE";
        } else {
            why = "node type " + node + " has " + usable + " usable processors";
        }
        return new GeometryException("processors per node", demand, usable, what + " needs " + demand + " processors per node but "
                + why + " (" + (demand - usable) + " too many)");
    }

    private static Reservation reservation(JobRequest job, NodeType node, Site site, Shape s, long nodes, List<String> notes)
            throws GeometryException {
        long depth;
        long nppn;
        long width;
        long perPe = 0;
        boolean perCpu = job.memPerCpuMb() != null && job.ntasks() != null;
        if (job.memPerCpuMb() != null && job.ntasks() == null) {
            notes.add("--mem-per-cpu is ignored without --ntasks (as Slurm does)");
        }
        if (job.memPerNodeMb() != null && job.memPerNodeMb() > node.memoryMb()) {
            throw new GeometryException("memory per node", job.memPerNodeMb(), node.memoryMb(), "--mem=" + job.memPerNodeMb()
                    + " MB is more than node type " + node + " has (" + (job.memPerNodeMb() - node.memoryMb()) + " MB too much)");
        }
        if (!site.subAllocate()) {
            depth = 1;
            nppn = s.usable;
            width = Math.multiplyExact(nodes, s.usable);
            if (perCpu) {
                perPe = job.memPerCpuMb();
            } else if (job.memPerNodeMb() != null) {
                perPe = Math.max(1, Math.min(job.memPerNodeMb(), node.memoryMb()) / s.usable);
            }
        } else {
            depth = job.cpusPerTaskOrOne();
            if (job.ntasksPerNode() != null) {
                nppn = job.ntasksPerNode();
            } else if (job.ntasks() != null) {
                nppn = ceilDiv(job.ntasks(), nodes);
            } else {
                nppn = 0;
            }
            long nodeTasks = node.cpus() / depth;
            if (s.nppcu != 0) {
                nodeTasks = nodeTasks * s.nppcu / node.threadsPerCore();
            }
            width = Math.multiplyExact(nodes, nppn > 0 ? Math.min(nppn, nodeTasks) : nodeTasks);
            if (perCpu) {
                perPe = job.memPerCpuMb();
            } else if (job.memPerNodeMb() != null) {
                perPe = Math.max(1, Math.min(node.memoryMb(), job.memPerNodeMb()) / (nppn > 0 ? nppn : node.cpus()));
            }
        }
        long pesPerNode = nppn > 0 ? nppn : s.usable / depth;
        long claim = Math.multiplyExact(perPe, pesPerNode);
        if (claim > node.memoryMb()) {
            throw new GeometryException("memory per node", claim, node.memoryMb(), perPe + " MB per PE x " + pesPerNode
                    + " PEs per node needs " + claim + " MB but node type " + node + " has " + node.memoryMb() + " MB ("
                    + (claim - node.memoryMb()) + " MB too much)" + (site.subAllocate() ? "" : "; whole-node reservations give every usable processor a PE"));
        }
        return new Reservation(nodes, width, depth, nppn, s.nppcu, perPe, s.usable, notes);
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
