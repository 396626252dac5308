package org.alpsbridge.affinity.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Coverage-guided fuzzing of the sysfs reader (raa-exec reads {@code /sys/devices/system/cpu}, or a copy an admin
 * points it at): a tree whose files hold whatever the fuzzer wrote ({@code cpu/online}, each CPU's package and
 * core ids, NUMA cpulists, some files missing, some CPUs without a directory) is read into a topology or refused
 * with one {@link TopologyException} naming the problem, never another exception. What is read holds exactly
 * the online CPUs, each in the package and core its files name, each in one core.
 */
class SysfsFuzzTest {

    @FuzzTest
    void aSysfsTreeIsReadAsWrittenOrRefusedWithAReason(FuzzedDataProvider data) throws IOException {
        Path root = Files.createTempDirectory("sysfs-fuzz");
        try {
            Map<Integer, String[]> written = writeTree(root, data);
            Topology t;
            try {
                t = SysfsReader.read(root);
            } catch (TopologyException refused) {
                assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank(),
                        "a refusal names the problem");
                return;
            }
            BitSet seen = new BitSet();
            for (Topology.Socket s : t.sockets()) {
                for (Topology.Core c : s.cores()) {
                    for (int pu : c.pus()) {
                        assertFalse(seen.get(pu), "CPU " + pu + " in two cores");
                        seen.set(pu);
                        String[] ids = written.get(pu);
                        assertTrue(ids != null && ids[0] != null && ids[1] != null,
                                "CPU " + pu + " was read but its topology files were not written");
                        assertEquals(Integer.parseInt(ids[0].trim()), s.packageId(), "package of CPU " + pu);
                        assertEquals(Integer.parseInt(ids[1].trim()), c.coreId(), "core of CPU " + pu);
                    }
                }
            }
            assertEquals(t.cpus(), seen, "the CPU set is the union of the cores'");
        } finally {
            try (Stream<Path> all = Files.walk(root)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Writes the tree; returns, for each CPU given a topology directory, its package and core id texts. */
    private static Map<Integer, String[]> writeTree(Path root, FuzzedDataProvider data) throws IOException {
        Path cpu = Files.createDirectories(root.resolve("cpu"));
        if (data.consumeBoolean()) {
            write(cpu.resolve("online"), data.consumeString(40));
        }
        Map<Integer, String[]> written = new HashMap<>();
        int cpus = data.consumeInt(0, 12);
        for (int i = 0; i < cpus; i++) {
            int n = data.consumeInt(0, 70);
            Path topo = Files.createDirectories(cpu.resolve("cpu" + n).resolve("topology"));
            // A CPU drawn twice keeps the files the first draw wrote and the second did not rewrite.
            String[] ids = written.computeIfAbsent(n, k -> new String[2]);
            if (data.consumeBoolean()) {
                ids[0] = write(topo.resolve("physical_package_id"), data.consumeString(12));
            }
            if (data.consumeBoolean()) {
                ids[1] = write(topo.resolve("core_id"), data.consumeString(12));
            }
        }
        int nodes = data.consumeInt(0, 3);
        for (int i = 0; i < nodes; i++) {
            Path node = Files.createDirectories(root.resolve("node").resolve("node" + data.consumeInt(0, 9)));
            write(node.resolve("cpulist"), data.consumeString(30));
        }
        return written;
    }

    /** Writes the text as sysfs would hold it (ASCII) and returns what the file now says. */
    private static String write(Path file, String text) throws IOException {
        byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        Files.write(file, ascii);
        return new String(ascii, StandardCharsets.US_ASCII);
    }
}
