package org.alpsbridge.affinity.topology;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import org.alpsbridge.affinity.format.CpuLists;

/**
 * Reads {@code /sys/devices/system/cpu} (or a copy of its shape): the online CPUs from {@code cpu/online},
 * each one's {@code topology/physical_package_id} and {@code topology/core_id}, and the NUMA node of each CPU
 * from {@code node/node*\/cpulist} when that directory exists. Offline CPUs are left out (their topology
 * files are absent or stale); core ids are kept as the kernel gives them, gaps included.
 *
 * <p>Plain JDK file reads only: the per-task wrapper calls this on its start-up path.
 */
final class SysfsReader {

    private SysfsReader() {
    }

    static Topology read(Path root) throws TopologyException {
        Path cpuDir = root.resolve("cpu");
        BitSet online = online(cpuDir);
        Map<Integer, Integer> numaOf = numaNodes(root.resolve("node"));
        Topology.Builder b = new Topology.Builder("sysfs " + root);
        for (int cpu = online.nextSetBit(0); cpu >= 0; cpu = online.nextSetBit(cpu + 1)) {
            Path topo = cpuDir.resolve("cpu" + cpu).resolve("topology");
            int pkg = number(topo.resolve("physical_package_id"));
            int core = number(topo.resolve("core_id"));
            Integer numa = numaOf.get(cpu);
            b.pu(pkg, core, numa == null ? Topology.NO_NUMA : numa, cpu);
        }
        return b.build();
    }

    private static BitSet online(Path cpuDir) throws TopologyException {
        Path file = cpuDir.resolve("online");
        if (Files.isRegularFile(file)) {
            try {
                return CpuLists.parse(text(file));
            } catch (IllegalArgumentException e) {
                throw new TopologyException(file + ": " + e.getMessage(), e);
            }
        }
        // Very old kernels and some containers lack cpu/online: every cpuN directory counts.
        BitSet all = new BitSet();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(cpuDir, "cpu[0-9]*")) {
            for (Path d : dirs) {
                all.set(Integer.parseInt(d.getFileName().toString().substring(3)));
            }
        } catch (IOException | NumberFormatException e) {
            throw new TopologyException("cannot list CPUs in " + cpuDir + ": " + e.getMessage(), e);
        }
        if (all.isEmpty()) {
            throw new TopologyException("no cpuN directories in " + cpuDir);
        }
        return all;
    }

    private static Map<Integer, Integer> numaNodes(Path nodeDir) throws TopologyException {
        Map<Integer, Integer> numaOf = new HashMap<>();
        if (!Files.isDirectory(nodeDir)) {
            return numaOf;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(nodeDir, "node[0-9]*")) {
            for (Path d : dirs) {
                Path list = d.resolve("cpulist");
                if (!Files.isRegularFile(list)) {
                    continue;
                }
                int node = Integer.parseInt(d.getFileName().toString().substring(4));
                BitSet cpus = CpuLists.parse(text(list));
                for (int cpu = cpus.nextSetBit(0); cpu >= 0; cpu = cpus.nextSetBit(cpu + 1)) {
                    numaOf.put(cpu, node);
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new TopologyException("cannot read NUMA nodes in " + nodeDir + ": " + e.getMessage(), e);
        }
        return numaOf;
    }

    private static int number(Path file) throws TopologyException {
        String t = text(file);
        try {
            return Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new TopologyException(file + ": '" + t + "' is not a number", e);
        }
    }

    private static String text(Path file) throws TopologyException {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException e) {
            throw new TopologyException(file + " is missing (is the CPU online and this a Linux sysfs tree?)", e);
        } catch (IOException e) {
            throw new TopologyException("the topology: " + org.alpsbridge.failure.Failures.describe(e), e);
        }
    }
}
