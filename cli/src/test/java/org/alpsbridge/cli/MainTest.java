package org.alpsbridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest {

    @Test
    void helpListsEveryModuleCommand() {
        CommandLine cmd = Main.commandLine();
        StringWriter out = new StringWriter();
        cmd.setOut(new PrintWriter(out));
        assertEquals(0, cmd.execute("--help"));
        for (String sub : new String[] {"basil", "proxy", "affinity", "ledger"}) {
            assertTrue(out.toString().contains(sub), () -> "help lacks " + sub + ":\n" + out);
        }
    }

    @Test
    void versionNamesTheVersionAndTheCommitItWasBuiltFrom() throws Exception {
        CommandLine cmd = Main.commandLine();
        StringWriter out = new StringWriter();
        cmd.setOut(new PrintWriter(out));
        assertEquals(0, cmd.execute("--version"));
        // From a git checkout the commit is an abbreviated hash (maybe -dirty); from an unpacked source tarball, "unknown".
        String commit = java.nio.file.Files.exists(java.nio.file.Path.of("..", ".git")) ? "[0-9a-f]{7,40}(-dirty)?" : "unknown";
        assertTrue(out.toString().matches("alpsbridge \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit " + commit + "\\)\\R"),
                out::toString);
    }

    @Test
    void unknownSubcommandIsAUsageErrorWithExitTwo() {
        CommandLine cmd = Main.commandLine();
        StringWriter err = new StringWriter();
        cmd.setErr(new PrintWriter(err));
        assertEquals(2, cmd.execute("no-such-command"));
        assertTrue(err.toString().contains("no-such-command"), err::toString);
    }

    @Test
    void commandListsShowEachSubcommandsFirstWholeSentence() {
        CommandLine cmd = Main.commandLine();
        StringWriter out = new StringWriter();
        cmd.setOut(new PrintWriter(out));
        assertEquals(0, cmd.execute("ledger", "--help"));
        assertTrue(out.toString().matches("(?s).*\\n  release +Settle a reservation: charge the actual use \\(bounded by the hold\\), return the rest\\.\\n.*"),
                out::toString);
        assertTrue(out.toString().matches("(?s).*\\n  confirm +Mark a reservation running\\.\\n.*"), out::toString);
    }

    @Test
    void aFirstSentenceEndsAtAFullStopOrAtAColonAfterFortyCharacters() {
        CommandLine.Model.CommandSpec spec = CommandLine.Model.CommandSpec.create();
        spec.usageMessage().description("Balances: granted, held, used.", "More.");
        assertEquals("Balances: granted, held, used.", Main.firstSentence(spec));
        spec.usageMessage().description("Lists the orphan reservations of the last inventory: id, user", "and more.");
        assertEquals("Lists the orphan reservations of the last inventory.", Main.firstSentence(spec));
        spec.usageMessage().header("One line.");
        assertEquals("One line.", Main.firstSentence(spec));
    }
}
