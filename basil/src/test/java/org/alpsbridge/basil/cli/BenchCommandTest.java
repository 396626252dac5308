package org.alpsbridge.basil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.alpsbridge.basil.cli.CommandsTest.Run;
import org.alpsbridge.basil.fixtures.Fixtures;
import org.alpsbridge.basil.inventory.SyntheticInventory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code basil bench} on tiny documents: what it prints and when it refuses, not how fast anything is. */
class BenchCommandTest {

    private static final List<String> PASSES = List.of("full model", "streaming view", "raw woodstox", "cached encoder", "xmlwf");

    @Test
    void printsEveryPassOfEveryDocumentThenTheRatiosAgainstXmlwf(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(xmlwfInstalled(), "xmlwf (Debian package expat) is not installed; skipped");
        Run r = CommandsTest.run("bench", "--documents", "xc30:12:3,knl:2", "--warmup", "0", "--warmup-mb", "0", "--runs", "1",
                "--batch-ms", "0", "--dir", dir.toString());
        assertEquals(0, r.exit(), r.err());
        long xc30Bytes = SyntheticInventory.xc30(12, 3).bytes("1.3").length;
        for (String pass : PASSES) {
            String row = line(r.out(), "xc30:12:3", pass);
            assertTrue(row.contains(String.format("%,d", xc30Bytes)), "the row states the document's size: " + row);
            line(r.out(), "knl:2", pass);
        }
        assertTrue(line(r.out(), "xc30:12:3", "xmlwf").matches(".* -\\s+-\\s+1$"), "xmlwf's allocation and heap are not this JVM's");
        assertTrue(line(r.out(), "xc30:12:3", "streaming view").matches(".* \\d+\\.\\d\\s+\\d+\\.\\d\\s+1$"),
                "allocation, live heap, one read per sample with --batch-ms 0: " + r.out());
        String againstRaw = r.out().substring(r.out().indexOf("streaming view's speed relative to raw woodstox"),
                r.out().indexOf("speed relative to xmlwf"));
        assertTrue(againstRaw.contains("goal: median >= 0.9"), againstRaw);
        assertTrue(line(againstRaw, "xc30:12:3", "median").matches(
                " +xc30:12:3 +median (\\d+\\.\\d\\d|-) \\((\\d+\\.\\d\\d|-); wall-clock (\\d+\\.\\d\\d|-)\\)"
                        + " \\((goal met|goal 0\\.9 missed|too short to judge)\\);"
                        + " by round (\\d+\\.\\d\\d|-) \\((\\d+\\.\\d\\d|-)\\); cached encoder (\\d+\\.\\d|-) MB/s \\((\\d+\\.\\d|-) MB/s cpu\\)"),
                "one ratio per round (--runs 1) and the medians, the encoder's speed beside them: " + againstRaw);
        line(againstRaw, "knl:2", "median");
        String ratios = r.out().substring(r.out().indexOf("speed relative to xmlwf"));
        assertTrue(ratios.contains("goals: streaming view >= 1.0, full model >= 0.5"), ratios);
        assertTrue(line(ratios, "xc30:12:3", "streaming view").matches(".*cached encoder (\\d+\\.\\d\\dx|-) \\(\\d+\\.\\d\\dx\\).*"), ratios);
        assertTrue(line(ratios, "xc30:12:3", "streaming view").matches(".*streaming view (\\d+\\.\\d\\dx|-) \\(\\d+\\.\\d\\dx\\).*"),
                ratios);
        assertTrue(Files.exists(dir.resolve("xc30-12-3-1.3.xml")), "--dir keeps the generated documents");
    }

    @Test
    void withoutXmlwfTheJvmFiguresAndTheRatioToRawWoodstoxAreStillPrinted() {
        Run r = CommandsTest.run("bench", "--documents", "knl:1", "--warmup", "0", "--warmup-mb", "0", "--runs", "1",
                "--batch-ms", "0", "--xmlwf", "/no/such/dir/xmlwf");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("xmlwf: '/no/such/dir/xmlwf' not found (Debian package expat)"), r.out());
        line(r.out(), "knl:1", "streaming view");
        line(r.out(), "knl:1", "median");
        assertFalse(r.out().contains("speed relative to xmlwf"), r.out());
    }

    @Test
    void aSmallDocumentIsReadManyTimesPerSampleAndJudgedRoundByRound() {
        Run r = CommandsTest.run("bench", "--documents", "knl:1", "--warmup", "2", "--warmup-mb", "0", "--runs", "2",
                "--batch-ms", "50", "--xmlwf", "/no/such/dir/xmlwf");
        assertEquals(0, r.exit(), r.err());
        String row = line(r.out(), "knl:1", "streaming view");
        int reads = Integer.parseInt(row.substring(row.lastIndexOf(' ') + 1));
        assertTrue(reads > 1, "a 1-node inventory (19 KB) reads in far less than 50 ms of CPU, so a sample repeats it: " + row);
        assertTrue(line(r.out(), "knl:1", "raw woodstox").endsWith(" " + reads), "every pass in this JVM reads as often: " + r.out());
        String ratios = line(r.out(), "knl:1", "median");
        String byRound = ratios.substring(ratios.indexOf("by round") + "by round".length(), ratios.indexOf(';', ratios.indexOf("by round")));
        assertEquals(2, byRound.strip().split(" ").length / 2, "a CPU (wall) pair for each of the 2 rounds: " + ratios);
    }

    @Test
    void aRealInventoryFileIsMeasuredAndTheThreePassesAgreeOnIt() {
        Run r = CommandsTest.run("bench", "--documents", "none", "--file",
                Fixtures.path("1.2/query-inventory-response-gpu.xml").toString(), "--warmup", "0", "--warmup-mb", "0", "--runs", "1",
                "--batch-ms", "0", "--xmlwf", "/no/such/dir/xmlwf");
        assertEquals(0, r.exit(), r.err() + r.out());
        line(r.out(), "query-inventory-response-gpu.xml", "raw woodstox");
    }

    @Test
    void aBrokenDocumentFailsTheBenchNamingTheProblem() {
        Run r = CommandsTest.run("bench", "--documents", "none", "--file", Fixtures.path("hostile/truncated.xml").toString(),
                "--warmup", "0", "--warmup-mb", "0", "--runs", "1");
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.err().contains("8:61"), "the error names where the document broke: " + r.err());
    }

    @Test
    void aMalformedDocumentSpecificationIsAUsageError() {
        for (String spec : List.of("xc30", "xc30:0", "knl:4:2", "t3e:100", "xc30:many")) {
            Run r = CommandsTest.run("bench", "--documents", spec);
            assertEquals(2, r.exit(), spec + ": " + r.err());
        }
        assertEquals(2, CommandsTest.run("bench", "--runs", "0").exit());
        assertEquals(2, CommandsTest.run("bench", "--warmup-mb", "-1").exit());
        assertEquals(2, CommandsTest.run("bench", "--batch-ms", "-1").exit());
    }

    private static String line(String out, String document, String pass) {
        return Arrays.stream(out.split("\n")).filter(l -> l.strip().startsWith(document + " ") && l.contains(" " + pass + " "))
                .findFirst().orElseGet(() -> fail("no '" + pass + "' line for " + document + " in:\n" + out));
    }

    private static boolean xmlwfInstalled() {
        boolean found = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(d -> Files.isExecutable(Path.of(d.isEmpty() ? "." : d, "xmlwf")));
        if (!found && "1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
            fail("xmlwf is not installed, but ALPSBRIDGE_REQUIRE_SERVICES=1 (.ci/install-deps installs expat)");
        }
        return found;
    }
}
