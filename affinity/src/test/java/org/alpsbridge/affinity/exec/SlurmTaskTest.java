package org.alpsbridge.affinity.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SlurmTaskTest {

    @Test
    void perNodeListsExpandRepetitionsAndIndexByNode() {
        assertEquals(4, SlurmTask.perNode("V", "4", 0));
        assertEquals(2, SlurmTask.perNode("V", "2(x3),1", 2));
        assertEquals(1, SlurmTask.perNode("V", "2(x3),1", 3));
        assertEquals(5, SlurmTask.perNode("V", "3,5(x2)", 2));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlurmTask.perNode("V", "2(x3),1", 4))
                .getMessage().contains("has 4 nodes, SLURM_NODEID is 4"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlurmTask.perNode("V", "2(x3", 0))
                .getMessage().contains("lacks its ')'"));
    }

    @Test
    void stepCountWinsOverJobCounts() {
        SlurmTask t = SlurmTask.from(Map.of("SLURM_LOCALID", "1", "SLURM_STEP_TASKS_PER_NODE", "2",
                "SLURM_NTASKS_PER_NODE", "8", "SLURM_TASKS_PER_NODE", "8(x2)", "SLURM_CPUS_PER_TASK", "4"), 0);
        assertEquals(1, t.localId);
        assertEquals(2, t.tasksOnNode);
        assertEquals(4, t.cpusPerTask);
        assertEquals("SLURM_STEP_TASKS_PER_NODE", t.tasksFrom);
    }

    @Test
    void jobListIsIndexedByNodeId() {
        SlurmTask t = SlurmTask.from(Map.of("SLURM_LOCALID", "0", "SLURM_TASKS_PER_NODE", "4(x2),3", "SLURM_NODEID", "2"), 0);
        assertEquals(3, t.tasksOnNode);
        assertEquals(1, t.cpusPerTask);
    }

    @Test
    void cpusPerTaskComesFromTheFlagThenRaaThenSlurm() {
        Map<String, String> env = Map.of("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "2",
                "SLURM_CPUS_PER_TASK", "4", "RAA_CPUS_PER_TASK", "3");
        assertEquals(3, SlurmTask.from(env, 0).cpusPerTask);
        assertEquals(2, SlurmTask.from(env, 2).cpusPerTask);
    }

    @Test
    void missingOrBadVariablesAreNamed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlurmTask.from(Map.of(), 0))
                .getMessage().startsWith("SLURM_LOCALID is not set"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlurmTask.from(Map.of("SLURM_LOCALID", "0"), 0))
                .getMessage().contains("SLURM_TASKS_PER_NODE"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> SlurmTask.from(Map.of("SLURM_LOCALID", "x", "SLURM_NTASKS_PER_NODE", "2"), 0))
                .getMessage().contains("SLURM_LOCALID='x'"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> SlurmTask.from(Map.of("SLURM_LOCALID", "2", "SLURM_NTASKS_PER_NODE", "2"), 0))
                .getMessage().contains("SLURM_LOCALID 2 is not below the 2 tasks"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> SlurmTask.from(Map.of("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "2",
                        "SLURM_CPUS_PER_TASK", "0"), 0))
                .getMessage().contains("at least 1"));
    }
}
