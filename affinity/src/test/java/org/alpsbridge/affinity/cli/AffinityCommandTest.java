package org.alpsbridge.affinity.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;

/** {@code alpsbridge affinity}; {@link #run} also serves other tests that compare their answers with it. */
public class AffinityCommandTest {

    public record Run(int exit, String out, String err) {
    }

    public static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new AffinityCommand());
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int exit = cmd.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void verbosePrintsTheTalkLinesInLocalTaskOrder() {
        Run r = run("--layout", "2x8x2", "-n4", "-c4", "--verbose");
        assertEquals(0, r.exit(), r.err());
        assertEquals("reduced-auto-affinity: local task 0: CPUs: 0-3\n"
                + "reduced-auto-affinity: local task 1: CPUs: 4-7\n"
                + "reduced-auto-affinity: local task 2: CPUs: 8-11\n"
                + "reduced-auto-affinity: local task 3: CPUs: 12-15\n", r.out());
        assertEquals("", r.err());
    }

    @Test
    void tasksFormatIsLocalIdAndLinuxList() {
        Run r = run("--layout", "2x8x2", "--ntasks", "2", "--cpus-per-task", "2", "--allowed", "4-7", "--format", "tasks");
        assertEquals(0, r.exit(), r.err());
        assertEquals("0 4-5\n1 6-7\n", r.out());
    }

    @Test
    void everyNodeFormatIsOneLine() {
        assertEquals("--cpu-bind=mask_cpu:0xf,0xf0,0xf00,0xf000\n",
                run("--layout", "2x8x2", "-n4", "-c4", "--format", "slurm").out());
        assertEquals("-cc 0,1,2,3:4,5,6,7\n", run("--layout", "2x8x2", "-n2", "-c4", "--format", "aprun").out());
        assertEquals("0 {0},{1}\n1 {2},{3}\n", run("--layout", "2x8x2", "-n2", "-c2", "--format", "omp").out());
        assertEquals("0xf\n0xf0\n", run("--layout", "2x8x2", "-n2", "-c4", "--format", "hex").out());
    }

    @Test
    void rejectionExitsOneWithOneLineOnStderr() {
        Run r = run("--layout", "2x8x2", "-n1", "-c9", "--format", "tasks");
        assertEquals(1, r.exit());
        assertEquals("", r.out());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("cpus-per-task 9 exceeds the 8 cores of a socket"), r.err());
    }

    @Test
    void usageErrorsExitTwo() {
        String[][] cases = {
            {"--layout", "2x8x2"},
            {"--layout", "2y8", "-n1"},
            {"--layout", "2x8x2", "-n1", "--numbering", "nope"},
            {"--layout", "2x8x2", "-n1", "--policy", "nope"},
            {"--layout", "2x8x2", "-n1", "--format", "nope"},
            {"--layout", "2x8x2", "-n1", "--allowed", "0-x"},
            {"--layout", "2x8x2", "-n1", "--topology", "sysfs"},
        };
        for (String[] args : cases) {
            Run r = run(args);
            assertEquals(2, r.exit(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.err().contains("Usage:"), r.err());
        }
    }

    @Test
    void basilInventoryNodeIsATopologySource(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("inventory.xml");
        java.nio.file.Files.write(file, org.alpsbridge.basil.inventory.SyntheticInventory.xc30(2, 1).bytes("1.3"));
        Run r = run("--topology", "basil:" + file, "--nid", "2", "-n4", "-c4", "--verbose");
        assertEquals(0, r.exit(), r.err());
        assertEquals(run("--layout", "2x8x2", "-n4", "-c4", "--verbose").out(), r.out());
        Run missing = run("--topology", "basil:" + file, "--nid", "9", "-n1");
        assertEquals(1, missing.exit());
        assertTrue(missing.err().contains("no node with NID 9"), missing.err());
    }

    @Test
    void sysfsTopologyOfThisMachineGivesOneCpuPerTask() {
        Run r = run("--topology", "sysfs", "-n1", "-c1", "--format", "tasks");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().matches("0 \\d+\n"), r.out());
    }
}
