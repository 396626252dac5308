package org.alpsbridge.affinity.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.topology.Numbering;
import org.alpsbridge.affinity.topology.Topology;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Cross-checks against Debian's hwloc (2.9): our synthetic nodes against hwloc's own synthetic topologies with
 * the matching OS-index interleaving, and reduced placements against {@code hwloc-distrib} chunks reduced to one
 * PU per core with {@code hwloc-calc --no-smt}, where the two must agree (every core used, equal blocks).
 * Skips when hwloc is absent, unless ALPSBRIDGE_REQUIRE_SERVICES=1.
 */
class HwlocCrossCheckTest {

    @BeforeAll
    static void needsHwloc() {
        boolean present = onPath("hwloc-calc") && onPath("hwloc-distrib") && onPath("lstopo-no-graphics");
        if (!present) {
            String why = "hwloc tools (hwloc-calc, hwloc-distrib, lstopo-no-graphics) not on PATH; apt-get install hwloc";
            if ("1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
                fail(why);
            }
            System.out.println("SKIPPED HwlocCrossCheckTest: " + why);
            Assumptions.abort(why);
        }
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** hwloc's synthetic description of our layout: the interleave that yields the same OS numbering. */
    static String synthetic(String layout, Numbering numbering) {
        String[] n = layout.split("x");
        boolean numa = n.length == 4;
        String levels = "pack:" + n[0] + (numa ? " numa:" + n[1] : "") + " core:" + n[n.length - 2]
                + " pu:" + n[n.length - 1];
        switch (numbering) {
            case INTEL:
                return levels + (numa ? "(indexes=core:numa:pack)" : "(indexes=core:pack)");
            case ROUND_ROBIN:
                return levels + "(indexes=pack:core)";
            default:
                return levels;
        }
    }

    private static List<String> run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd) + " hung");
        assertEquals(0, p.exitValue(), String.join(" ", cmd));
        return new String(out, StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
    }

    private static List<String> view(Topology t) {
        List<String> out = new ArrayList<>();
        for (Topology.Socket s : t.sockets()) {
            for (Topology.Core c : s.cores()) {
                out.add(s.packageId() + ":" + c.pus());
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "2x8x2, intel", "2x8x2, interleaved", "2x8x2, round-robin", "2x12x2, intel", "1x12x2, intel",
        "2x16x1, intel", "2x2x8x1, intel", "2x2x4x2, interleaved", "1x68x4, intel", "2x64x2, intel",
        "2x4x16x2, intel", "2x4x16x2, round-robin",
    })
    void syntheticNodesMatchHwlocs(String layout, String numbering, @TempDir Path dir) throws Exception {
        Numbering scheme = Numbering.of(numbering);
        Path xml = dir.resolve("node.xml");
        Files.write(xml, String.join("\n", run("lstopo-no-graphics", "-i", synthetic(layout, scheme), "--of", "xml", "-"))
                .getBytes(StandardCharsets.UTF_8));
        Topology ours = Topology.synthetic(layout, scheme);
        Topology theirs = Topology.hwlocXml(xml);
        assertEquals(view(ours), view(theirs));
        if (layout.split("x").length == 4) { // without a NUMA level hwloc invents one machine-wide node
            assertEquals(ours.numaDomains().size(), theirs.numaDomains().size());
        }
    }

    @ParameterizedTest(name = "{0} {1} -n{2} -c{3}")
    @CsvSource({
        "2x8x2, intel, 4, 4", "2x8x2, interleaved, 4, 4", "2x8x2, round-robin, 4, 4", "2x8x2, intel, 2, 8",
        "2x8x2, intel, 16, 1", "2x12x2, intel, 4, 6", "1x12x2, intel, 4, 3", "2x2x8x1, intel, 4, 8",
        "2x2x4x2, interleaved, 8, 2", "1x68x4, intel, 4, 17", "2x4x16x2, intel, 8, 16", "2x64x2, intel, 2, 64",
    })
    void reducedMatchesHwlocDistribWithoutSmt(String layout, String numbering, int n, int c) throws Exception {
        Numbering scheme = Numbering.of(numbering);
        String synth = synthetic(layout, scheme);
        List<String> theirs = new ArrayList<>();
        for (String mask : run("hwloc-distrib", "-i", synth, Integer.toString(n))) {
            List<String> pus = run("hwloc-calc", "-i", synth, "--no-smt", "--po", "-I", "pu", mask.trim());
            theirs.add(CpuLists.linux(CpuLists.parse(pus.get(0))));
        }
        List<String> ours = new ArrayList<>();
        for (var m : Policy.REDUCED.place(Topology.synthetic(layout, scheme), Request.of(n, c)).masks()) {
            ours.add(CpuLists.linux(m));
        }
        assertEquals(theirs, ours);
    }
}
