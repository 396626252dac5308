package org.alpsbridge.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.alpsbridge.emulator.LatencyProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoTest {

    @Test
    void aSmallDemoPassesEveryOneOfItsChecksAndReportsEachPart(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Demo demo = new Demo(new Demo.Settings("xc30:256", 120, 7, 24, dir, null, 0,
                LatencyProfile.named("xc30-2256"), 11, 0), new PrintWriter(out), new PrintWriter(err));

        int exit = demo.run();

        String text = out.toString();
        assertEquals(0, exit, text + "\n" + err);
        assertTrue(text.contains("demo: all checks passed"), text);
        assertTrue(text.contains("== What ALPS was spared"), text);
        assertTrue(text.contains("ALPS latency: MODELLED, profile xc30-2256, seed 11"), "the output says the latencies are modelled:\n" + text);
        assertTrue(Files.readString(dir.resolve("basil-latency.svg")).contains("ALPS latency modelled (xc30-2256)"),
                "the chart names the profile");
        assertTrue(text.contains("found ") && text.contains("user mallory"), "the out-of-band reservation is reported:\n" + text);
        assertTrue(text.contains("insufficient balance"), "a denial names the budget:\n" + text);
        // the errors column explained, the two runs' difference said, and what the run took
        assertTrue(text.contains("errors: BASIL calls answered with a FAILURE. For RESERVE: "), text);
        assertTrue(text.contains("off-system were the ledger's refusals (PERMANENT"), text);
        assertTrue(text.contains("Not like with like in totals: only the off-system run has the ledger"), text);
        assertTrue(text.matches("(?s).*demo: took \\d+ min \\d\\d s on \\d+ cpus.*"), text);
        assertTrue(Files.size(dir.resolve("basil-latency.svg")) > 0);
        assertTrue(Files.exists(dir.resolve("ledger.db")));
    }
}
