package org.alpsbridge.affinity.spank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.topology.Topology;
import org.alpsbridge.slurm.harness.Programs.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plugin in a step that spans nodes: two slurmd, n1 configured with all of this machine's cores and n2 with
 * one ({@code CPUs=1}), each in its own network namespace (see {@link PluginCluster#startNodes}), one slurmctld,
 * {@code TaskPlugin=task/affinity}. Each node computes the masks of its own tasks inside its own cores and prints
 * its own verbose lines; a node whose cores cannot hold its tasks refuses them with its own reason.
 */
class SeveralNodesSlurmIT {

    private static PluginCluster cluster;
    private static BitSet allCpus;
    private static Topology node;
    private static int cores;

    @BeforeAll
    static void startCluster() throws Exception {
        allCpus = PluginCluster.ownCpus();
        node = Topology.sysfs();
        cores = node.coreCount(allCpus);
        HwlocView.required();
        cluster = PluginCluster.startNodes("task/affinity", cores, 1);
        cluster.plugstackWithGenerator("");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** The CPUs of a node configured with {@code CPUs=n}: Slurm gives it its first n cores (one thread each). */
    private static BitSet firstCores(int n) {
        BitSet cpus = new BitSet();
        int index = 0;
        for (Topology.Socket s : node.sockets()) {
            for (Topology.Core c : s.cores()) {
                if (index++ < n) {
                    c.pus().forEach(cpus::set);
                }
            }
        }
        cpus.and(allCpus);
        return cpus;
    }

    @Test
    void eachNodeBindsItsOwnTasksInsideItsOwnCoresAndSaysSo() throws Exception {
        int ntasks = cores + 1; // block distribution: one task per core of n1, the last task on n2
        Result r = cluster.srun("-l", "-N2", "-n" + ntasks, "-c1", "--reduced-auto-affinity=on,v", "sh", "-c",
                "echo \"$SLURMD_NODENAME $SLURM_LOCALID $(grep Cpus_allowed_list /proc/self/status | cut -f2)\"");
        assertEquals(0, r.exit(), r.err());
        Map<String, Map<Integer, BitSet>> ran = new TreeMap<>();
        for (String line : r.out().split("\n")) {
            String[] f = line.split(": ", 2)[1].strip().split(" ");
            ran.computeIfAbsent(f[0], k -> new TreeMap<>()).put(Integer.parseInt(f[1]), CpuLists.parse(f[2]));
        }
        assertEquals(Map.of("n1", PluginCluster.expected(cores, 1, firstCores(cores)), "n2", PluginCluster.expected(1, 1, firstCores(1))),
                ran, r.out() + r.err());
        int global = 0;
        for (String n : ran.keySet()) {
            for (Map.Entry<Integer, BitSet> task : ran.get(n).entrySet()) {
                String line = global++ + ": " + PluginCluster.verboseLine(task.getKey(), task.getValue());
                assertTrue(r.err().contains(line), n + ": missing '" + line + "' in " + r.err());
            }
            HwlocView.seesReducedMasks(ran.get(n));
        }
    }

    /**
     * Whether slurmstepd on {@code node} (tasks 0-1 on n1, task 2 on n2 here) reported an error starting with
     * {@code text} to srun: Slurm 22.05 prefixes it "slurmstepd-NODE: error: ", 26.05 passes it on as the task's
     * output, "TASK: [TIME] error: ".
     */
    private static boolean stepdError(String err, String node, String text) {
        String tasks = node.equals("n1") ? "[01]" : "2";
        return java.util.regex.Pattern.compile("(?m)(slurmstepd-" + node + ": |^" + tasks + ": \\[[^\\]]+\\] )error: "
                + java.util.regex.Pattern.quote(text)).matcher(err).find();
    }

    @Test
    void aNodeWhoseCoresCannotHoldItsTasksRefusesThemWithItsOwnReasonWhileTheOtherRuns() throws Exception {
        // --overcommit allocates one CPU per node; block distribution puts tasks 0-1 on n1 and task 2 on n2: n1's
        // one core cannot hold two reduced tasks, n2's can hold its one.
        Result r = cluster.srun("-l", "-N2", "-n3", "--overcommit", "--reduced-auto-affinity=on,v", "sh", "-c",
                "echo \"PROGRAM-RAN on $SLURMD_NODENAME\"");
        assertNotEquals(0, r.exit());
        assertTrue(stepdError(r.err(), "n1", "reduced-auto-affinity: rejected: 2 tasks"), r.err());
        assertFalse(stepdError(r.err(), "n2", ""), r.err());
        assertFalse(r.out().contains("PROGRAM-RAN on n1"), r.out());
        assertTrue(r.out().contains("2: PROGRAM-RAN on n2"), r.out() + r.err());
        assertTrue(r.err().contains("2: " + PluginCluster.verboseLine(0, firstCores(1))), r.err());
    }
}
