package org.alpsbridge.affinity.policy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.alpsbridge.affinity.topology.Topology;

/**
 * LLNL auto-affinity (chaos/slurm-spank-plugins {@code auto-affinity.c}) restated, see {@link Policy#LLNL}.
 *
 * <p>Kept faithful where it surprises: positions wrap modulo the number of available CPUs, so masks overlap
 * once ntasks x cpus-per-task exceeds it; a chosen CPU id is read as an index into the available CPUs (the
 * identity on a whole node); a cpus-per-task larger than the available CPUs falls back to available / ntasks.
 * Where the original would end with an empty mask (which it then fails to set), the task is left unbound here.
 */
final class Llnl {

    private Llnl() {
    }

    static List<BitSet> place(Topology topology, Request request) throws Rejection {
        BitSet avail = Allowed.cpus(topology, request);
        int[] available = avail.stream().toArray();
        int n = available.length;
        int[] pos = positionMap(topology);
        int ntasks = request.ntasks();
        int cpt = request.cpusPerTask();
        int start = request.start();
        if (start < 0) {
            throw new Rejection(Rejection.Rule.BAD_REQUEST, "start must not be negative (got " + start + ")");
        }
        List<BitSet> masks = new ArrayList<>(ntasks);
        if (ntasks > n) {
            for (int t = 0; t < ntasks; t++) {
                masks.add((BitSet) avail.clone());
            }
            return masks;
        }
        if (cpt > n) {
            cpt = Math.max(1, n / ntasks);
        }
        for (int t = 0; t < ntasks; t++) {
            BitSet mask = new BitSet();
            if (cpt == 1) {
                int p = t + start;
                if (p < pos.length) {
                    setAvailable(mask, pos[p], available);
                }
            } else if (!request.reverse()) {
                int p = (t * cpt + start) % n;
                for (int k = 0; k < cpt; k++) {
                    setAvailable(mask, pos[(p + k) % n], available);
                }
            } else {
                int p = (n - 1) - ((t * cpt + start) % n);
                for (int k = 0; k < cpt; k++) {
                    setAvailable(mask, pos[((p - k) % n + n) % n], available);
                }
            }
            masks.add(mask.isEmpty() ? (BitSet) avail.clone() : mask);
        }
        return masks;
    }

    /** CPUs by socket, then core, then the core's threads with the higher OS number first (the list quirk). */
    static int[] positionMap(Topology topology) {
        int[] pos = new int[topology.cpuCount()];
        int i = 0;
        for (Topology.Socket s : topology.sockets()) {
            for (Topology.Core c : s.cores()) {
                for (int k = c.pus().size() - 1; k >= 0; k--) {
                    pos[i++] = c.pus().get(k);
                }
            }
        }
        return pos;
    }

    private static void setAvailable(BitSet mask, int id, int[] available) {
        if (id < available.length) {
            mask.set(available[id]);
        }
    }
}
