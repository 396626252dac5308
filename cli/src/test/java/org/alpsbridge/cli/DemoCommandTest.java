package org.alpsbridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {

    private static String usageError(String... args) {
        CommandLine cmd = Main.commandLine();
        StringWriter err = new StringWriter();
        cmd.setErr(new PrintWriter(err));
        cmd.setOut(new PrintWriter(new StringWriter()));
        assertEquals(2, cmd.execute(args), err::toString);
        return err.toString();
    }

    @Test
    void anUnknownLatencyProfileIsAUsageErrorNamingTheProfilesThereAre() {
        String err = usageError("demo", "--latency-profile", "xc40-5000");
        assertTrue(err.contains("--latency-profile: unknown latency profile 'xc40-5000'") && err.contains("xc30-2256")
                && err.contains("none"), err);
    }

    @Test
    void aSleepShareOutsideZeroToOneOrNotANumberIsAUsageError() {
        assertTrue(usageError("demo", "--latency-sleep", "1.5").contains("--latency-sleep must be within 0 and 1, not 1.5"));
        assertTrue(usageError("demo", "--latency-sleep", "-0.1").contains("--latency-sleep"));
        assertTrue(usageError("demo", "--latency-sleep", "half").contains("half"));
        assertTrue(usageError("demo", "--latency-seed", "x").contains("--latency-seed"));
    }

    @Test
    void helpNamesTheLatencyKnobsWithTheirDefaults() {
        CommandLine cmd = Main.commandLine();
        StringWriter out = new StringWriter();
        cmd.setOut(new PrintWriter(out));
        assertEquals(0, cmd.execute("demo", "--help"));
        String help = out.toString().replaceAll("\\s+", " ");
        assertTrue(help.contains("--latency-profile=NAME") && help.contains("(default: xc30-2256)"), help);
        assertTrue(help.contains("--latency-seed=N") && help.contains("(default: 2256)"), help);
        assertTrue(help.contains("--latency-sleep=SHARE") && help.contains("(default: 0"), help);
    }
}
