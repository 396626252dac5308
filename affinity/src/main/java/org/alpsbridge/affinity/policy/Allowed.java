package org.alpsbridge.affinity.policy;

import java.util.BitSet;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.topology.Topology;

/** The CPUs a request may use on a topology: the allowed set cut to the node's CPUs. */
final class Allowed {

    private Allowed() {
    }

    static BitSet cpus(Topology topology, Request request) throws Rejection {
        BitSet node = topology.cpus();
        BitSet allowed = request.allowed();
        if (allowed == null) {
            return node;
        }
        BitSet usable = (BitSet) node.clone();
        usable.and(allowed);
        if (usable.isEmpty()) {
            throw new Rejection(Rejection.Rule.NO_ALLOWED_CPUS, "none of the allowed CPUs " + CpuLists.linux(allowed)
                    + " is a CPU of this node (" + CpuLists.linux(node) + ")");
        }
        return usable;
    }
}
