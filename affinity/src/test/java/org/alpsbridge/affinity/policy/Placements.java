package org.alpsbridge.affinity.policy;

import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.topology.Numbering;
import org.alpsbridge.affinity.topology.Topology;

/** Runs a policy on a synthetic node for the table-driven tests; masks come back as Linux lists. */
final class Placements {

    private Placements() {
    }

    /**
     * @param knobs "key=value" words: numbering, allowed, j (nppcu), S (PEs per NUMA), start, reverse; may be null
     */
    static List<String> place(String policy, String layout, int n, int c, String knobs) throws Rejection {
        Request request = Request.of(n, c);
        Numbering numbering = Numbering.INTEL;
        if (knobs != null && !knobs.isBlank()) {
            for (String kv : knobs.trim().split(" +")) {
                String[] p = kv.split("=");
                switch (p[0]) {
                    case "numbering" -> numbering = Numbering.of(p[1]);
                    case "allowed" -> request = request.withAllowed(CpuLists.parse(p[1]));
                    case "j" -> request = request.withNppcu(Integer.parseInt(p[1]));
                    case "S" -> request = request.withPesPerNuma(Integer.parseInt(p[1]));
                    case "start" -> request = request.withStart(Integer.parseInt(p[1]));
                    case "reverse" -> request = request.withReverse(true);
                    default -> throw new IllegalArgumentException(kv);
                }
            }
        }
        List<String> lists = new ArrayList<>();
        for (var m : Policy.of(policy).place(Topology.synthetic(layout, numbering), request).masks()) {
            lists.add(CpuLists.linux(m));
        }
        return lists;
    }
}
