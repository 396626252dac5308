package org.alpsbridge.affinity.policy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.topology.Topology;

/**
 * CSCS reduced-auto-affinity (see {@link Policy#REDUCED}).
 *
 * <p>Inside a partial allocation a core counts when at least one of its threads is allowed (its lowest allowed
 * thread is used), and "adjacent" keeps its physical meaning: a task's cores are neighbours in the socket's
 * core order, never bridging a core the job may not use. Each run of adjacent usable cores then holds
 * floor(run / cpus-per-task) tasks, which is the most any placement can fit, so a rejection means no
 * placement satisfies the rules.
 */
final class Reduced {

    private Reduced() {
    }

    static List<BitSet> place(Topology topology, Request request) throws Rejection {
        BitSet usable = Allowed.cpus(topology, request);
        int cpt = request.cpusPerTask();
        int ntasks = request.ntasks();
        List<Topology.Socket> sockets = topology.sockets();

        int maxCores = 0;
        int maxThreads = 1;
        for (Topology.Socket s : sockets) {
            maxCores = Math.max(maxCores, s.cores().size());
            for (Topology.Core c : s.cores()) {
                maxThreads = Math.max(maxThreads, c.pus().size());
            }
        }
        if (cpt > maxCores) {
            String hint = maxThreads > 1 && cpt <= maxCores * maxThreads
                    ? " (one CPU per core: cpus-per-task counts cores here, and a core's " + maxThreads
                    + " hardware threads count once)"
                    : "";
            throw new Rejection(Rejection.Rule.TASK_EXCEEDS_SOCKET, "cpus-per-task " + cpt + " exceeds the " + maxCores
                    + " cores of a socket" + hint);
        }

        // Per socket, the runs of adjacent usable cores, each as the chosen CPU (lowest allowed thread) per core.
        List<List<List<Integer>>> runsBySocket = new ArrayList<>();
        int largestRun = 0;
        int slots = 0;
        for (Topology.Socket s : sockets) {
            List<List<Integer>> runs = new ArrayList<>();
            List<Integer> run = new ArrayList<>();
            for (Topology.Core c : s.cores()) {
                int cpu = firstAllowed(c, usable);
                if (cpu < 0) {
                    if (!run.isEmpty()) {
                        runs.add(run);
                        run = new ArrayList<>();
                    }
                } else {
                    run.add(cpu);
                }
            }
            if (!run.isEmpty()) {
                runs.add(run);
            }
            for (List<Integer> r : runs) {
                largestRun = Math.max(largestRun, r.size());
                slots += r.size() / cpt;
            }
            runsBySocket.add(runs);
        }
        if (largestRun < cpt) {
            throw new Rejection(Rejection.Rule.TASK_EXCEEDS_SOCKET, "cpus-per-task " + cpt + " exceeds the " + largestRun
                    + " adjacent allowed cores in any one socket (allowed CPUs " + CpuLists.linux(usable) + ")");
        }
        if (slots < ntasks) {
            throw new Rejection(Rejection.Rule.TASKS_EXCEED_SOCKETS, tooMany(ntasks, cpt, sockets, runsBySocket, slots));
        }

        List<BitSet> masks = new ArrayList<>(ntasks);
        outer:
        for (List<List<Integer>> runs : runsBySocket) {
            for (List<Integer> run : runs) {
                for (int first = 0; first + cpt <= run.size(); first += cpt) {
                    BitSet mask = new BitSet();
                    for (int i = first; i < first + cpt; i++) {
                        mask.set(run.get(i));
                    }
                    masks.add(mask);
                    if (masks.size() == ntasks) {
                        break outer;
                    }
                }
            }
        }
        return masks;
    }

    private static int firstAllowed(Topology.Core core, BitSet usable) {
        for (int pu : core.pus()) {
            if (usable.get(pu)) {
                return pu;
            }
        }
        return -1;
    }

    private static String tooMany(int ntasks, int cpt, List<Topology.Socket> sockets,
                                  List<List<List<Integer>>> runsBySocket, int slots) {
        StringBuilder why = new StringBuilder();
        why.append(ntasks).append(" tasks of ").append(cpt).append(cpt == 1 ? " core" : " cores")
                .append(" do not fit whole in the sockets: ");
        for (int s = 0; s < sockets.size(); s++) {
            int usableCores = 0;
            int fit = 0;
            for (List<Integer> run : runsBySocket.get(s)) {
                usableCores += run.size();
                fit += run.size() / cpt;
            }
            int cores = sockets.get(s).cores().size();
            why.append(s == 0 ? "" : ", ").append("socket ").append(sockets.get(s).packageId())
                    .append(" holds ").append(fit).append(" (").append(cores).append(" cores");
            if (usableCores != cores) {
                why.append(", ").append(usableCores).append(" allowed");
            }
            why.append(')');
        }
        return why.append("; ").append(slots).append(" in all").toString();
    }
}
