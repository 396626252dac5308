package org.alpsbridge.affinity.spank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.Programs.Result;

/** What Debian's {@code hwloc-calc} says about the masks tasks ran with, on this machine's real topology. */
final class HwlocView {

    private HwlocView() {
    }

    /** Skips (or, under ALPSBRIDGE_REQUIRE_SERVICES=1, fails) the calling test where hwloc-calc is missing. */
    static void required() {
        if (Programs.find("hwloc-calc") == null) {
            Programs.unavailable("hwloc-calc is not installed (Debian package hwloc; see .ci/install-deps)");
        }
    }

    /**
     * hwloc's view of each mask a task ran with: as many PUs as cores, each core's first PU (what
     * {@code hwloc-calc --no-smt} keeps), cores adjacent in hwloc's logical order, all in one package; and no
     * two tasks share a core.
     */
    static void seesReducedMasks(Map<Integer, BitSet> masks) throws Exception {
        BitSet seen = new BitSet();
        for (Map.Entry<Integer, BitSet> e : masks.entrySet()) {
            String mask = "0x" + new BigInteger(1, reverse(e.getValue().toByteArray())).toString(16);
            String what = "task " + e.getKey() + " ran with " + CpuLists.linux(e.getValue()) + " (" + mask + ")";
            assertEquals(hwloc("-N", "pu", mask), hwloc("-N", "core", mask), what + ": one PU per core");
            assertEquals(e.getValue(), CpuLists.parse(hwloc("--no-smt", "-I", "pu", "--po", "--sep", ",", mask)), what + ": the first PU of each core");
            int[] logicalCores = java.util.Arrays.stream(hwloc("-I", "core", "--sep", " ", mask).split(" ")).mapToInt(Integer::parseInt).toArray();
            assertEquals(logicalCores.length - 1, logicalCores[logicalCores.length - 1] - logicalCores[0], what + ": adjacent cores");
            assertEquals("1", hwloc("-N", "package", mask), what + ": one socket");
            assertFalse(seen.intersects(e.getValue()), what + ": shared with another task");
            seen.or(e.getValue());
        }
    }

    private static byte[] reverse(byte[] littleEndian) {
        byte[] b = new byte[littleEndian.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = littleEndian[b.length - 1 - i];
        }
        return b;
    }

    private static String hwloc(String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(Programs.find("hwloc-calc").toString()));
        argv.addAll(List.of(args));
        Result r = Programs.run(argv, Map.of(), Duration.ofSeconds(30));
        assertEquals(0, r.exit(), String.join(" ", argv) + ": " + r.err());
        return r.out().strip();
    }
}
