package org.alpsbridge.affinity.spank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Map;
import org.alpsbridge.affinity.topology.Topology;
import org.alpsbridge.slurm.harness.Programs.Result;
import org.junit.jupiter.api.Test;

/**
 * The SPANK plugin built with ASan and UBSan inside the real srun and slurmstepd (Slurm 22.05 and 26.05, task/none; the runtime
 * preloaded, see {@link PluginCluster#startSanitized}), steps run by the unprivileged job user: tasks bound to the
 * generator's answer, an impossible request and a mistyped word refused. The sanitizers wrote no report. One
 * short scenario, to keep the run lean; {@link SpankSlurmIT} covers the plugin's behaviour in full.
 */
class SpankSanitizedSlurmIT {

    @Test
    void thePluginUnderAsanAndUbsanInsideSrunAndSlurmstepdBindsRefusesAndReportsNothing() throws Exception {
        try (PluginCluster cluster = PluginCluster.startSanitized("task/none")) {
            String slurmd = Files.readString(cluster.slurm.dir().resolve("slurmd.pid")).strip();
            assertTrue(Files.readString(Path.of("/proc", slurmd, "maps")).contains("libasan"),
                    "slurmd (and so slurmstepd) runs with the ASan runtime");
            BitSet all = PluginCluster.ownCpus();
            int n = Math.min(2, Topology.sysfs().coreCount(all));
            cluster.plugstackWithGenerator("");
            Result r = cluster.srun("-l", "-N1", "-n" + n, "-c1", "--reduced-auto-affinity=on,v", "grep", "Cpus_allowed_list",
                    "/proc/self/status");
            assertEquals(0, r.exit(), r.err());
            Map<Integer, BitSet> want = PluginCluster.expected(n, 1, all);
            assertEquals(want, PluginCluster.reported(r.out()), r.out() + r.err());

            Result impossible = cluster.srun("-N1", "-n" + (Topology.sysfs().coreCount(all) + 1), "--overcommit",
                    "--reduced-auto-affinity=on", "sh", "-c", "echo PROGRAM-RAN");
            assertNotEquals(0, impossible.exit());
            assertFalse(impossible.out().contains("PROGRAM-RAN"), impossible.out());
            assertTrue(impossible.err().contains("reduced-auto-affinity: rejected: "), impossible.err());

            Result mistyped = cluster.srun("-N1", "-n1", "--reduced-auto-affinity=on,verbos", "true");
            assertNotEquals(0, mistyped.exit());
            assertTrue(mistyped.err().contains("invalid word 'verbos'"), mistyped.err());

            Result off = cluster.srun("-N1", "-n1", "true");
            assertEquals(0, off.exit(), off.err());
            assertEquals(Map.of(), cluster.sanitizerReports(), "ASan/UBSan reports from srun or slurmstepd");
        }
    }
}
