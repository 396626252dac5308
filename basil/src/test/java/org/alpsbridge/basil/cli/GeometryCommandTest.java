package org.alpsbridge.basil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.inventory.SyntheticInventory;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class GeometryCommandTest {

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new BasilCommand());
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        String[] full = new String[args.length + 1];
        full[0] = "geometry";
        System.arraycopy(args, 0, full, 1, args.length);
        int exit = cmd.execute(full);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void printsTheReserveParametersAndTheLineSlurmLogged() {
        Run r = run("--node", "2x8x2:64g", "--ntasks", "64", "--one-task-per-core", "--mem", "60G");
        assertEquals(0, r.exit, r.err);
        assertEquals("nodes=4 width=64 depth=1 nppn=16 nppcu=1 memory_per_pe_mb=3840 usable_cpus_per_node=16 node_type=2x8x2:65536m\n"
                + "BASIL -n 64 -N 16 -d 1 -m 3840\n", r.out);
    }

    @Test
    void aRejectedGeometryExitsOneWithTheLimitOnStderr() {
        Run r = run("--node", "2x8x2:64g", "--ntasks-per-node", "24", "--one-task-per-core");
        assertEquals(1, r.exit);
        assertEquals("", r.out);
        assertTrue(r.err.startsWith("geometry: rejected: --ntasks-per-node=24 x --cpus-per-task=1 needs 24 processors per node"), r.err);
        assertTrue(r.err.contains("(8 too many)"), r.err);
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, run("--ntasks", "4").exit);
        assertEquals(2, run("--node", "2x8x2:64g", "--mem", "lots").exit);
        assertEquals(2, run("--node", "2x8x2", "--ntasks", "4").exit);
        assertEquals(2, run("--node", "2x8x2:64g", "--mem", "1G", "--mem-per-cpu", "1G").exit);
        assertEquals(2, run("--node", "2x8x2:64g", "--protocol", "9.9").exit);
        assertEquals(2, run("--node", "2x8x2:64g", "--allocated", "1-x").exit);
    }

    @Test
    void theXmlIsAReserveRequestWithTheAllocatedNodes() throws Exception {
        Run r = run("--node", "2x8x2:64g", "--ntasks", "64", "--one-task-per-core", "--allocated", "20-23", "--xml",
                "--user", "alice", "--batch-id", "1234");
        assertEquals(0, r.exit, r.err);
        BasilRequest req = BasilCodec.standard().readRequest(r.out.getBytes(StandardCharsets.UTF_8));
        assertEquals("alice", req.user());
        assertEquals("1234", req.batchId());
        ReserveParam p = req.reserveParams().get(0);
        assertEquals(64L, p.width());
        assertEquals(1L, p.nppcu());
        assertEquals(List.of("20-23"), p.nodeParams());
    }

    @Test
    void theNodeTypeAndTheMachineSizeComeFromAnInventory(@TempDir Path dir) throws Exception {
        Path inv = dir.resolve("inv.xml");
        Files.write(inv, SyntheticInventory.xc30(10, 2).bytes("1.3"));
        Run ok = run("--inventory", inv.toString(), "--ntasks", "160", "--one-task-per-core");
        assertEquals(0, ok.exit, ok.err);
        assertTrue(ok.out.startsWith("nodes=10 width=160 depth=1 nppn=16 nppcu=1 "), ok.out);
        Run tooBig = run("--inventory", inv.toString(), "--ntasks", "161", "--one-task-per-core");
        assertEquals(1, tooBig.exit);
        assertTrue(tooBig.err.contains("needs 11 nodes") && tooBig.err.contains("(1 short)"), tooBig.err);
        assertEquals(1, run("--inventory", inv.toString(), "--nid", "99").exit);
        assertEquals(1, run("--inventory", dir.resolve("missing.xml").toString()).exit);
    }
}
