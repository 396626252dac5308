package org.alpsbridge.affinity.policy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.alpsbridge.affinity.topology.Topology;

/**
 * Cray ALPS {@code aprun -cc cpu|depth|numa_node} with {@code -d}, {@code -j}, {@code -S}, see {@link Policy}.
 *
 * <p>The CPU order is the node's cores in socket/core order, the first {@code -j} allowed threads of each (all
 * threads without {@code -j}); that a core's threads come before the next core with {@code -j 2} follows the
 * compute-unit reading of {@code -j} and is not verified against a live ALPS. Without {@code -S} PEs are packed
 * and a depth block may straddle NUMA domains and sockets, as ALPS did; with {@code -S} each NUMA domain holds
 * at most that many PEs and a block never leaves its domain.
 */
final class Alps {

    private Alps() {
    }

    static List<BitSet> place(Policy policy, Topology topology, Request request) throws Rejection {
        BitSet usable = Allowed.cpus(topology, request);
        int j = request.nppcu();
        int perNuma = request.pesPerNuma();
        int depth = request.cpusPerTask();
        int ntasks = request.ntasks();
        int maxThreads = 1;
        for (Topology.Socket s : topology.sockets()) {
            for (Topology.Core c : s.cores()) {
                maxThreads = Math.max(maxThreads, c.pus().size());
            }
        }
        if (j < 0 || j > maxThreads) {
            throw new Rejection(Rejection.Rule.BAD_REQUEST, "-j " + j + " is outside 0.." + maxThreads
                    + " (hardware threads per core of this node)");
        }
        if (perNuma < 0) {
            throw new Rejection(Rejection.Rule.BAD_REQUEST, "-S must not be negative (got " + perNuma + ")");
        }
        List<List<Topology.Core>> domains = topology.numaDomains();
        List<List<Integer>> domainCpus = new ArrayList<>();
        for (List<Topology.Core> d : domains) {
            List<Integer> cpus = new ArrayList<>();
            for (Topology.Core c : d) {
                addUsedThreads(c, usable, j, cpus);
            }
            domainCpus.add(cpus);
        }
        String usableHow = j == 0 ? "" : " with -j " + j;

        List<List<Integer>> blocks = new ArrayList<>(ntasks);
        if (perNuma == 0) {
            List<Integer> order = new ArrayList<>();
            for (Topology.Socket s : topology.sockets()) {
                for (Topology.Core c : s.cores()) {
                    addUsedThreads(c, usable, j, order);
                }
            }
            if ((long) ntasks * depth > order.size()) {
                throw new Rejection(Rejection.Rule.TASKS_EXCEED_NODE, ntasks + " PEs x depth " + depth + " = "
                        + (long) ntasks * depth + " CPUs exceeds the " + order.size() + " usable CPUs of the node"
                        + usableHow);
            }
            for (int i = 0; i < ntasks; i++) {
                blocks.add(order.subList(i * depth, i * depth + depth));
            }
        } else {
            if ((long) perNuma * domains.size() < ntasks) {
                throw new Rejection(Rejection.Rule.TASKS_EXCEED_NUMA, ntasks + " PEs do not fit at -S " + perNuma
                        + " on the node's " + domains.size() + " NUMA domains (" + (long) perNuma * domains.size()
                        + " PEs at most)");
            }
            for (int i = 0; i < ntasks; i++) {
                int k = i / perNuma;
                int slot = i % perNuma;
                List<Integer> d = domainCpus.get(k);
                if ((long) perNuma * depth > d.size()) {
                    throw new Rejection(Rejection.Rule.TASKS_EXCEED_NUMA, "-S " + perNuma + " x depth " + depth + " = "
                            + (long) perNuma * depth + " CPUs exceeds the " + d.size() + " usable CPUs of NUMA domain "
                            + k + usableHow);
                }
                blocks.add(d.subList(slot * depth, slot * depth + depth));
            }
        }

        List<BitSet> masks = new ArrayList<>(ntasks);
        for (List<Integer> block : blocks) {
            BitSet mask = new BitSet();
            if (policy == Policy.ALPS_CPU) {
                mask.set(block.get(0));
            } else if (policy == Policy.ALPS_DEPTH) {
                for (int cpu : block) {
                    mask.set(cpu);
                }
            } else {
                for (List<Integer> d : domainCpus) {
                    if (!java.util.Collections.disjoint(d, block)) {
                        for (int c : d) {
                            mask.set(c);
                        }
                    }
                }
            }
            masks.add(mask);
        }
        return masks;
    }

    /** The first {@code j} allowed threads of a core (all allowed threads when j is 0), ascending. */
    private static void addUsedThreads(Topology.Core core, BitSet usable, int j, List<Integer> into) {
        int taken = 0;
        for (int pu : core.pus()) {
            if (usable.get(pu) && (j == 0 || taken < j)) {
                into.add(pu);
                taken++;
            }
        }
    }
}
