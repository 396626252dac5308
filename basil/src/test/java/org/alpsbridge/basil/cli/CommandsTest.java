package org.alpsbridge.basil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.fixtures.Fixtures;
import org.alpsbridge.basil.inventory.SyntheticInventory;
import org.alpsbridge.basil.model.BasilRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** check, request and convert as a user runs them: output, errors and exit codes. */
class CommandsTest {

    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new BasilCommand());
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        int exit = cmd.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void checkPrintsOneLinePerFileAndExitsOneWhenAnyFails() {
        String inventory = Fixtures.path("1.3/query-inventory-response.xml").toString();
        String truncated = Fixtures.path("hostile/truncated.xml").toString();
        Run r = run("check", inventory, truncated, "no/such/file.xml");
        assertEquals(1, r.exit());
        String[] lines = r.out().split("\n");
        assertEquals(3, lines.length, r.out());
        assertEquals(inventory + ": OK protocol=1.3 response QUERY/INVENTORY"
                + " status=SUCCESS nodes=4 processors=128 reservations=1", lines[0]);
        assertTrue(lines[1].startsWith(truncated + ": ERROR 8:61: "), lines[1]);
        assertEquals("no/such/file.xml: ERROR no such file", lines[2]);
        assertEquals(0, run("check", Fixtures.path("1.0/reserve-request.xml").toString()).exit());
    }

    @Test
    void checkStreamsALargeInventoryFile(@TempDir Path dir) throws Exception {
        Path big = dir.resolve("big.xml");
        try (var out = Files.newOutputStream(big)) {
            SyntheticInventory.xc30(6000, 300).write(out, "1.3");
        }
        assertTrue(Files.size(big) >= Documents.STREAM_THRESHOLD, "the file must take the streaming path");
        Run r = run("check", big.toString());
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().endsWith("OK protocol=1.3 response QUERY/INVENTORY status=SUCCESS nodes=6000"
                + " processors=192000 reservations=300\n"), r.out());
    }

    @Test
    void requestReservePrintsTheIssueExampleAsAWellFormedRequest() throws Exception {
        Run r = run("request", "reserve", "--user", "alice", "--batch-id", "1234", "--width", "64", "--nppn", "32",
                "--nppcu", "1", "--nodes", "1-2", "--protocol", "1.3");
        assertEquals(0, r.exit(), r.err());
        BasilRequest req = BasilCodec.standard().readRequest(r.out().getBytes(StandardCharsets.US_ASCII));
        assertEquals("1234", req.batchId());
        assertEquals(1L, req.reserveParams().get(0).nppcu());
        assertEquals("1-2", req.reserveParams().get(0).nodeParams().get(0));
        assertTrue(r.out().startsWith("<?xml version=\"1.0\"?>"), r.out());
    }

    @Test
    void requestReserveCarriesLabelsThatCheckThenReports(@TempDir Path dir) throws Exception {
        Run r = run("request", "reserve", "--user", "a", "--width", "4", "--label", "fast", "--label", "old:soft:repel",
                "--protocol", "1.3");
        assertEquals(0, r.exit(), r.err());
        Path request = dir.resolve("reserve.xml");
        Files.writeString(request, r.out(), StandardCharsets.US_ASCII);
        assertTrue(run("check", request.toString()).out().endsWith(
                "RESERVE user=a width=4 label=fast:HARD:ATTRACT label=old:SOFT:REPEL\n"), run("check", request.toString()).out());
        Run bad = run("request", "reserve", "--user", "a", "--width", "4", "--label", "x:MUST", "--protocol", "1.3");
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("--label wants NAME[:HARD|SOFT[:ATTRACT|REPEL]], got 'x:MUST'"), bad.err());
    }

    @Test
    void requestRefusesWhatTheProtocolDoesNotKnow() {
        Run r = run("request", "reserve", "--user", "a", "--width", "1", "--nppcu", "1", "--protocol", "1.2");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--nppcu needs protocol 1.3 or later"), r.err());
        assertEquals(2, run("request", "switch", "--reservation-id", "5", "--action", "OUT", "--protocol", "1.1").exit());
        assertEquals(2, run("request", "query", "--type", "SYSTEM", "--protocol", "1.3").exit());
        assertEquals(2, run("request", "reserve", "--user", "a", "--width", "1", "--nodes", "3-1x", "--protocol", "1.3")
                .exit());
        assertEquals(2, run("request", "release", "--reservation-id", "5", "--protocol", "9.9").exit());
    }

    @Test
    void requestConfirmUsesAdminCookieIn10AndPaggIdLater() {
        assertTrue(run("request", "confirm", "--reservation-id", "7", "--pagg-id", "99", "--job-name", "1234",
                "--protocol", "1.0").out().contains("admin_cookie=\"99\""));
        assertTrue(run("request", "confirm", "--reservation-id", "7", "--pagg-id", "99", "--protocol", "1.3").out()
                .contains("pagg_id=\"99\""));
    }

    @Test
    void convertAnInventoryTo10SaysWhatIsLostAndKeepsTheProcessors(@TempDir Path dir) throws Exception {
        String inventory = Fixtures.path("1.3/query-inventory-response.xml").toString();
        Run r = run("convert", "--protocol", "1.0", inventory);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("not expressible in 1.0: compute units"), r.err());
        assertTrue(r.err().contains("(4 times)"), r.err());
        assertTrue(r.err().contains("applications do not exist in 1.0"), r.err());
        Path converted = dir.resolve("v10.xml");
        Files.writeString(converted, r.out());
        Run check = run("check", converted.toString());
        assertTrue(check.out().contains("OK protocol=1.0 response QUERY/INVENTORY status=SUCCESS nodes=4 processors=128"
                + " reservations=1"), check.out());
        assertEquals(1, run("convert", "--strict", "--protocol", "1.0", inventory).exit());
    }

    @Test
    void convertUpwardsLosesNothing() {
        Run r = run("convert", "--protocol", "1.3", Fixtures.path("1.2/query-inventory-response.xml").toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals("", r.err());
        assertTrue(r.out().contains("<ComputeUnit ordinal=\"0\">"), r.out());
    }

    @Test
    void convertARequestDropsNppcuBefore13AndRefusesSwitchBefore12() {
        Run r = run("convert", "--protocol", "1.2", Fixtures.path("1.3/reserve-request.xml").toString());
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.out().contains("nppcu"), r.out());
        assertTrue(r.err().contains("nppcu does not exist before 1.3"), r.err());
        Run s = run("convert", "--protocol", "1.1", Fixtures.path("1.3/switch-request.xml").toString());
        assertEquals(1, s.exit());
        assertTrue(s.err().contains("SWITCH exists from protocol 1.2 only"), s.err());
        Run c = run("convert", "--protocol", "1.0", Fixtures.path("1.3/confirm-request.xml").toString());
        assertTrue(c.out().contains("admin_cookie=\"424242\""), c.out());
    }

    @Test
    void convertAResponseRewritesTheVersionSpecificAttributes() {
        Run r = run("convert", "--protocol", "1.0", Fixtures.path("1.3/reserve-response.xml").toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("admin_cookie=\"0\""), r.out());
        assertTrue(r.err().contains("ReservedNodeArray does not exist in 1.0"), r.err());
        Run f = run("convert", "--protocol", "1.7", Fixtures.path("1.2/release-response-failure.xml").toString());
        assertTrue(f.out().contains("protocol=\"1.7\"") && f.out().contains("No entry for resId 1000"), f.out());
    }
}
