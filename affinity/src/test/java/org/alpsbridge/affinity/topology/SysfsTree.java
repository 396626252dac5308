package org.alpsbridge.affinity.topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import org.alpsbridge.affinity.format.CpuLists;

/** Writes a sysfs-shaped tree (cpu/online, cpuN/topology/*, node/nodeN/cpulist) for a node, for reader tests. */
public final class SysfsTree {

    private SysfsTree() {
    }

    /**
     * @param offline CPUs listed as present but offline: a cpuN directory without topology, absent from online
     */
    public static Path write(Path root, Topology node, BitSet offline) throws IOException {
        Path cpu = Files.createDirectories(root.resolve("cpu"));
        Files.writeString(cpu.resolve("online"), CpuLists.linux(node.cpus()) + "\n");
        Map<Integer, BitSet> numa = new HashMap<>();
        for (Topology.Socket s : node.sockets()) {
            for (Topology.Core c : s.cores()) {
                for (int pu : c.pus()) {
                    Path topo = Files.createDirectories(cpu.resolve("cpu" + pu).resolve("topology"));
                    Files.writeString(topo.resolve("physical_package_id"), s.packageId() + "\n");
                    Files.writeString(topo.resolve("core_id"), c.coreId() + "\n");
                    if (c.numaNode() != Topology.NO_NUMA) {
                        numa.computeIfAbsent(c.numaNode(), k -> new BitSet()).set(pu);
                    }
                }
            }
        }
        for (int off = offline.nextSetBit(0); off >= 0; off = offline.nextSetBit(off + 1)) {
            Files.createDirectories(cpu.resolve("cpu" + off));
            Files.writeString(cpu.resolve("cpu" + off).resolve("online"), "0\n");
        }
        for (Map.Entry<Integer, BitSet> n : numa.entrySet()) {
            Path dir = Files.createDirectories(root.resolve("node").resolve("node" + n.getKey()));
            Files.writeString(dir.resolve("cpulist"), CpuLists.linux(n.getValue()) + "\n");
        }
        // A memory-only NUMA node (KNL MCDRAM) has an empty cpulist.
        Files.createDirectories(root.resolve("node").resolve("node99"));
        Files.writeString(root.resolve("node").resolve("node99").resolve("cpulist"), "\n");
        return root;
    }
}
