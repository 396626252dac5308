package org.alpsbridge.affinity.policy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.alpsbridge.affinity.topology.Topology;
import org.alpsbridge.affinity.topology.TopologyException;

/**
 * Random nodes for property tests: 1-4 sockets of possibly different core counts, 1-4 threads per core, OS
 * numbers a random permutation (every firmware numbering is one), core ids with random gaps, some CPUs offline,
 * sometimes NUMA domains inside sockets.
 */
public final class RandomNodes {

    private RandomNodes() {
    }

    public static Topology node(Random r) {
        int sockets = 1 + r.nextInt(4);
        int threads = 1 + r.nextInt(r.nextInt(4) + 1);
        int[] cores = new int[sockets];
        int total = 0;
        boolean uniform = r.nextInt(3) > 0;
        int common = 1 + r.nextInt(12);
        for (int s = 0; s < sockets; s++) {
            cores[s] = uniform ? common : 1 + r.nextInt(12);
            total += cores[s] * threads;
        }
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            ids.add(i);
        }
        if (r.nextBoolean()) {
            Collections.shuffle(ids, r);
        }
        int numaPerSocket = r.nextInt(4) == 0 ? 2 : 1;
        Topology.Builder b = new Topology.Builder("random node");
        int next = 0;
        try {
            for (int s = 0; s < sockets; s++) {
                int coreId = r.nextInt(3);
                for (int c = 0; c < cores[s]; c++) {
                    int numa = numaPerSocket == 1 ? Topology.NO_NUMA : s * 2 + (c * 2 / cores[s]);
                    for (int t = 0; t < threads; t++) {
                        int cpu = ids.get(next++);
                        // Offline CPUs: a few threads vanish, never a whole node.
                        if (r.nextInt(40) == 0 && next > 1) {
                            continue;
                        }
                        b.pu(s * 10, coreId, numa, cpu);
                    }
                    coreId += 1 + (r.nextInt(5) == 0 ? 1 + r.nextInt(3) : 0);
                }
            }
            return b.build();
        } catch (TopologyException e) {
            throw new AssertionError(e);
        }
    }

    /** Null (the whole node) half the time, else a random subset, sometimes whole cores, sometimes a block. */
    public static BitSet allowed(Random r, Topology node) {
        if (r.nextBoolean()) {
            return null;
        }
        BitSet cpus = node.cpus();
        BitSet allowed = new BitSet();
        int mode = r.nextInt(3);
        int from = cpus.nextSetBit(r.nextInt(Math.max(1, cpus.length())));
        int to = from + r.nextInt(cpus.length() + 1);
        for (int cpu = cpus.nextSetBit(0); cpu >= 0; cpu = cpus.nextSetBit(cpu + 1)) {
            boolean keep = mode == 0 ? r.nextInt(4) > 0 : mode == 1 ? cpu >= from && cpu < to : r.nextInt(10) > 0;
            if (keep) {
                allowed.set(cpu);
            }
        }
        if (r.nextInt(8) == 0) {
            allowed.set(cpus.length() + r.nextInt(8)); // a CPU the node does not have
        }
        return allowed;
    }
}
