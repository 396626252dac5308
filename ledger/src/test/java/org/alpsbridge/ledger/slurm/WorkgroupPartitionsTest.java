package org.alpsbridge.ledger.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Caviness's workgroup partitions: the slurm.conf lines made from the nodes each project bought. */
class WorkgroupPartitionsTest {

    private static Target target(String project, String account, boolean live) {
        return new Target(project, account, live, "", "", List.of(), Map.of(), Set.of());
    }

    private static final List<Target> TARGETS = List.of(target("chem", "chem", true), target("Phys", "phys", true),
            target("old", "old", false), target("math", "math", true));
    private static final Map<String, String> NODES = Map.of("chem", "r00n[00-17],r01g[00-03]", "Phys", "r02n00",
            "old", "r03n[00-01]");

    @Test
    void aLiveProjectThatBoughtNodesGetsItsPartitionOnlyItsAccountMayUse() {
        assertEquals(List.of(
                "# workgroup partitions from the ledger (alpsbridge ledger slurm-partitions): 2",
                "PartitionName=chem Nodes=r00n[00-17],r01g[00-03] AllowAccounts=chem Default=NO",
                "PartitionName=Phys Nodes=r02n00 AllowAccounts=phys Default=NO",
                "# old: no partition, the project has ended or is inactive (nodes r03n[00-01])"),
                WorkgroupPartitions.lines(TARGETS, NODES, false, "Default=NO"));
    }

    @Test
    void withTheWorkgroupQosEachPartitionNamesItsProjectsQos() {
        assertEquals(List.of(
                "# workgroup partitions from the ledger (alpsbridge ledger slurm-partitions): 2",
                "PartitionName=chem Nodes=r00n[00-17],r01g[00-03] AllowAccounts=chem QOS=chem Default=NO PriorityTier=10",
                "PartitionName=Phys Nodes=r02n00 AllowAccounts=phys QOS=phys Default=NO PriorityTier=10",
                "# old: no partition, the project has ended or is inactive (nodes r03n[00-01])"),
                WorkgroupPartitions.lines(TARGETS, NODES, true, " Default=NO PriorityTier=10 "));
    }

    @Test
    void noProjectBoughtNodesGivesNoPartition() {
        assertEquals(List.of("# workgroup partitions from the ledger (alpsbridge ledger slurm-partitions): 0"),
                WorkgroupPartitions.lines(TARGETS, Map.of(), true, ""));
    }
}
