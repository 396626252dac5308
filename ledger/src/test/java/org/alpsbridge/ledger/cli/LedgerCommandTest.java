package org.alpsbridge.ledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code alpsbridge ledger ...} run black-box: exit codes, stdout data, stderr reasons. */
class LedgerCommandTest {

    @TempDir
    Path dir;
    String db;
    String out;
    String err;

    static final String FROM = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(30, ChronoUnit.DAYS).toString();
    static final String TO = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(60, ChronoUnit.DAYS).toString();

    int run(String... args) {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        CommandLine cmd = new CommandLine(new LedgerCommand());
        cmd.setOut(new PrintWriter(o));
        cmd.setErr(new PrintWriter(e));
        String[] full = new String[args.length + 2];
        full[0] = "--db";
        full[1] = db;
        System.arraycopy(args, 0, full, 2, args.length);
        int code = cmd.execute(full);
        out = o.toString();
        err = e.toString();
        return code;
    }

    @BeforeEach
    void project() {
        db = "sqlite:" + dir.resolve("cli.db");
        assertEquals(0, run("project", "add", "chem", "--gid", "5001", "--account", "chem_acct"), err);
        assertEquals(0, run("grant", "chem", "--resource", "cpu", "--hours", "100", "--from", FROM, "--to", TO), err);
    }

    @Test
    void balanceAndUsageSplitByClusterAddUpToTheOneBalance() {
        for (String cluster : new String[] {"alps", "lisa"}) { // the same job and reservation ids on both
            assertEquals(0, run("reserve", "--cluster", cluster, "--id", "7", "--batch-id", "42", "--project", "chem",
                    "--user", "alice", "--nodes", "1", "--cores-per-node", "32", "--time-limit", "60"), err);
            assertEquals(0, run("release", "--cluster", cluster, "--id", "7", "--elapsed",
                    cluster.equals("alps") ? "600" : "1200"), err);
        }
        assertEquals(0, run("balance", "chem", "--json", "--by-cluster"), err);
        assertTrue(out.contains("\"used\":960"), out); // 320 + 640, one number
        assertTrue(out.contains("\"clusters\":[{\"cluster\":\"alps\",\"held\":0,\"used\":320},"
                + "{\"cluster\":\"lisa\",\"held\":0,\"used\":640}]"), out);
        assertEquals(0, run("usage", "chem", "--by-cluster"), err);
        assertTrue(out.matches("(?s).*alice\\s+alps\\s+1\\s+0\\s+320\\s.*alice\\s+lisa\\s+1\\s+0\\s+640\\s.*"), out);
        assertEquals(0, run("usage", "chem", "--json"), err);
        assertTrue(out.contains("\"user\":\"alice\",\"jobs\":2,\"held\":0,\"charged\":960"), out);
    }

    @Test
    void balanceJsonShowsGrantedHeldUsedAvailableInCoreMinutes() {
        assertEquals(0, run("balance", "chem", "--json"), err);
        assertTrue(out.contains("\"granted\":6000"), out);
        assertTrue(out.contains("\"held\":0"), out);
        assertTrue(out.contains("\"used\":0"), out);
        assertTrue(out.contains("\"available\":6000"), out);
        assertTrue(out.contains("\"expiry\":\"" + TO + "\""), out);
    }

    @Test
    void aReserveConfirmReleaseCycleChargesTheActualUse() {
        assertEquals(0, run("reserve", "--id", "11", "--batch-id", "77", "--project", "chem", "--user", "1001",
                "--nodes", "2", "--cores-per-node", "10", "--time-limit", "60"), err);
        assertTrue(out.contains("HELD") && out.contains("hold 1200"), out);
        assertEquals(0, run("confirm", "--id", "11"), err);
        assertEquals(0, run("release", "--id", "11", "--elapsed", "600", "--json"), err);
        assertTrue(out.contains("\"charge\":200") && out.contains("\"returned\":1000"), out);
        assertEquals(0, run("balance", "chem", "--json"));
        assertTrue(out.contains("\"used\":200") && out.contains("\"available\":5800"), out);
        assertEquals(0, run("job", "77"));
        assertTrue(out.contains("HOLD") && out.contains("SETTLE") && out.contains("RETURN"), out);
        assertEquals(0, run("usage", "chem", "--json"));
        assertTrue(out.contains("\"user\":\"1001\"") && out.contains("\"charged\":200"), out);
    }

    @Test
    void aDeniedReserveExitsTwoAndSaysWhy() {
        assertEquals(2, run("reserve", "--id", "12", "--batch-id", "78", "--project", "chem", "--user", "1001",
                "--nodes", "100", "--cores-per-node", "32", "--time-limit", "60"));
        assertTrue(err.contains("chem") && err.contains("192000") && err.contains("available 6000"), err);
        assertEquals(0, run("failures", "chem"));
        assertTrue(out.contains("INSUFFICIENT_BALANCE"), out);
    }

    @Test
    void badInputExitsOneWithTheReasonAndChangesNothing() {
        assertEquals(1, run("grant", "chem", "--hours", "5", "--from", FROM, "--to", "2099-01-01"));
        assertTrue(err.contains("overlaps"), err);
        assertEquals(1, run("credit", "chem", "--hours", "5", "--minutes", "5"));
        assertTrue(err.contains("exactly one"), err);
        assertEquals(1, run("grant", "chem", "--hours", "5", "--from", "yesterday", "--to", TO));
        assertTrue(err.contains("not a date"), err);
        assertEquals(2, run("reserve", "--id", "1"), "missing options are a usage error");
        assertEquals(0, run("balance", "chem", "--json"));
        assertTrue(out.contains("\"granted\":6000"), out);
    }

    @Test
    void creditWithdrawTransferAndRefundMoveCredit() {
        assertEquals(0, run("project", "add", "phys", "--gid", "5002"));
        assertEquals(0, run("grant", "phys", "--hours", "0", "--from", FROM, "--to", TO));
        assertEquals(0, run("credit", "chem", "--hours", "10", "--request-id", "c1"));
        assertEquals(0, run("credit", "chem", "--hours", "10", "--request-id", "c1"));
        assertEquals(0, run("withdraw", "chem", "--minutes", "100"));
        assertEquals(0, run("transfer", "chem", "phys", "--minutes", "500"));
        assertEquals(0, run("balance", "--json"));
        assertTrue(out.contains("\"available\":6000") && out.contains("\"available\":500"), out);
        assertEquals(1, run("withdraw", "phys", "--minutes", "501"));
        assertTrue(err.contains("only 500 available"), err);
    }

    @Test
    void siteFactorPrintsOneLinePerActiveAllocation() {
        assertEquals(0, run("site-factor"), err);
        String[] f = out.strip().split(" ");
        assertEquals("chem", f[0]);
        assertEquals("cpu", f[1]);
        assertEquals(0, run("site-factor", "--rule", "power", "--json"), err);
        assertTrue(out.contains("\"x_c\":1.0"), out);
    }

    @Test
    void siteFactorWritesTheSlurmPluginsFileByAccount() throws Exception {
        java.nio.file.Path file = dir.resolve("site-factors");
        assertEquals(0, run("site-factor", "--rule", "power", "--slurm-file", file.toString()), err);
        java.util.List<String> lines = java.nio.file.Files.readAllLines(file);
        assertTrue(lines.get(0).startsWith("# alpsbridge ledger site-factor at "), lines.toString());
        assertEquals(2, lines.size(), lines.toString()); // chem's, by its Slurm account; nothing unspent is below 0
        assertTrue(lines.get(1).matches("chem_acct [0-9]+"), lines.toString());
        assertTrue(out.contains("account(s) written to " + file), out);
        assertEquals(1, run("site-factor", "--slurm-file", dir.resolve("missing/dir/f").toString()));
        assertTrue(err.contains("cannot write") && err.contains("must exist"), err);
    }

    @Test
    void slurmPartitionsPrintsAWorkgroupPartitionFromTheNodesTheProjectBought() {
        assertEquals(0, run("project", "share", "chem", "--nodes", "r00n[00-03],r01g0"), err);
        assertTrue(out.contains("nodes r00n[00-03],r01g0"), out);
        assertEquals(0, run("project", "changes", "chem"), err);
        assertTrue(out.matches("(?s).*chem\\s+\\S+\\s+nodes\\s+'' -> r00n\\[00-03],r01g0.*"), out);
        assertEquals(0, run("slurm-partitions", "--qos", "workgroup"), err);
        assertEquals(List.of("# workgroup partitions from the ledger (alpsbridge ledger slurm-partitions): 1",
                "PartitionName=chem Nodes=r00n[00-03],r01g0 AllowAccounts=chem_acct QOS=chem_acct Default=NO"),
                out.strip().lines().toList());
        assertEquals(1, run("project", "share", "chem", "--nodes", "r00n[00-03"));
        assertTrue(err.contains("is not a Slurm node list"), err);
        assertEquals(1, run("slurm-partitions", "--qos", "all"));
        assertTrue(err.contains("expected none or workgroup"), err);
        // judged after its allocation ends, the project has no partition
        assertEquals(0, run("slurm-partitions", "--at", Instant.parse(TO).plus(1, ChronoUnit.DAYS).toString()), err);
        assertTrue(out.contains("# chem: no partition, the project has ended"), out);
    }

    @Test
    void replayRebuildsTheLedgerInAnEmptyOneAndRefusesToOverwriteIt() {
        assertEquals(0, run("reserve", "--id", "11", "--batch-id", "77", "--project", "chem", "--user", "1001",
                "--nodes", "2", "--cores-per-node", "10", "--time-limit", "60"), err);
        String copy = "sqlite:" + dir.resolve("copy.db");
        assertEquals(0, run("replay", "--into", copy, "--json"), err);
        assertTrue(out.contains("\"reservations\":1") && out.contains("\"entries\":2")
                && out.contains("\"identical\":true"), out);
        String original = db;
        db = copy;
        assertEquals(0, run("balance", "chem", "--json"), err);
        assertTrue(out.contains("\"held\":1200") && out.contains("\"available\":4800"), out);
        db = original;
        assertEquals(1, run("replay", "--into", copy));
        assertTrue(err.contains("not empty"), err);
    }

    @Test
    void checkReportsAConsistentLedger() {
        assertEquals(0, run("check"));
        assertTrue(out.contains("consistent"), out);
    }

    @Test
    void partitionsSetWeightsUsedByLaterReserves() {
        assertEquals(0, run("partition", "big", "--multiplier", "1.5"));
        assertTrue(out.contains("multiplier 1.5"), out);
        assertEquals(0, run("reserve", "--id", "13", "--batch-id", "79", "--project", "chem", "--user", "u",
                "--nodes", "1", "--cores-per-node", "10", "--time-limit", "60", "--partition", "big"));
        assertTrue(out.contains("hold 900"), out);
    }
}
