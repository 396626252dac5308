package org.alpsbridge.proxy.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the proxy logs when {@code --ledger-on-deny} fails: what it printed, bounded, and what to check. */
class OnDenyCommandTest {

    @TempDir
    Path dir;

    /** A program named {@code name} running {@code body} (sh). */
    private Path program(String name, String body) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void aScontrolThatCannotReachTheClusterIsLoggedWithWhatItPrintedAndWhatToCheck() throws Exception {
        // what Slurm's scontrol prints when slurmctld does not answer
        Path scontrol = program("scontrol", "echo 'slurm_update error: Unable to contact slurm controller (connect"
                + " failure)' >&2; exit 1");
        String line = OnDenyCommand.run(List.of(scontrol.toString(), "update", "JobId=2", "Priority=0",
                "Comment=ledger: project chem: insufficient balance"), "2", Duration.ofSeconds(30));
        assertTrue(line.startsWith("on-deny command for job 2 (" + scontrol + " update JobId=2 Priority=0 Comment=ledger:"),
                line);
        assertTrue(line.contains(" exited 1, printing: slurm_update error: Unable to contact slurm controller (connect"
                + " failure); the job is not held"), line);
        assertTrue(line.contains("check that " + scontrol + " is on the proxy's PATH, that the proxy's user may run it"),
                line);
        assertTrue(line.contains("scontrol ping"), line);
    }

    @Test
    void aCommandThatSucceedsHasNothingToSay() throws Exception {
        assertNull(OnDenyCommand.run(List.of(program("hold", "echo held").toString()), "3", Duration.ofSeconds(30)));
    }

    @Test
    void aFloodOfOutputIsCutAndAHungCommandIsKilledAtItsTimeout() throws Exception {
        String flood = OnDenyCommand.run(List.of(program("loud", "head -c 100000 /dev/zero | tr '\\0' x; exit 2")
                .toString()), "4", Duration.ofSeconds(30));
        assertTrue(flood.contains(" exited 2, printing: " + "x".repeat(OnDenyCommand.MAX_OUTPUT) + "; "), flood);
        long t = System.nanoTime();
        String hung = OnDenyCommand.run(List.of(program("hung", "echo waiting; exec sleep 60").toString()), "5",
                Duration.ofSeconds(1));
        assertTrue(hung.contains("took longer than 1 s and was killed, printing: waiting;"), hung);
        assertTrue(System.nanoTime() - t < 20e9, "killed near its timeout");
        assertEquals(false, hung.contains("scontrol ping"), "the scontrol hint only for scontrol: " + hung);
    }

    @Test
    void whatItPrintsStaysOnOneLogLine() throws Exception {
        String line = OnDenyCommand.run(List.of(program("odd", "printf 'a\\nb\\033[31mc\\r'; exit 1").toString()), "7",
                Duration.ofSeconds(30));
        assertTrue(line.contains("printing: a | b?[31mc;"), line);
    }

    @Test
    void aCommandThatCannotStartSaysSo() throws Exception {
        String line = OnDenyCommand.run(List.of(dir.resolve("missing").toString()), "6", Duration.ofSeconds(5));
        assertTrue(line.startsWith("cannot run the on-deny command for job 6 (" + dir.resolve("missing") + "): "), line);
    }
}
