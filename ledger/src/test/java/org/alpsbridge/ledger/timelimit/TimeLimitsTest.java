package org.alpsbridge.ledger.timelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.alpsbridge.ledger.LedgerException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimeLimitsTest {

    @TempDir
    Path dir;

    @Test
    void slurmTimesInEveryFormSqueuePrints() {
        assertEquals(Optional.of(5_400L), TimeLimits.parseSlurmTime("90"));
        assertEquals(Optional.of(5_430L), TimeLimits.parseSlurmTime("90:30"));
        assertEquals(Optional.of(7_200L), TimeLimits.parseSlurmTime("2:00:00"));
        assertEquals(Optional.of(93_600L), TimeLimits.parseSlurmTime("1-02"));
        assertEquals(Optional.of(93_780L), TimeLimits.parseSlurmTime("1-02:03"));
        assertEquals(Optional.of(93_784L), TimeLimits.parseSlurmTime("1-02:03:04"));
        assertEquals(Optional.empty(), TimeLimits.parseSlurmTime("UNLIMITED"));
        assertThrows(LedgerException.class, () -> TimeLimits.parseSlurmTime("1:2:3:4"));
        assertThrows(LedgerException.class, () -> TimeLimits.parseSlurmTime("soon"));
        assertThrows(LedgerException.class, () -> TimeLimits.parseSlurmTime("-5"));
    }

    @Test
    void aFileSourceIsPreferredAndThePartitionDefaultFillsIn() throws Exception {
        Path f = dir.resolve("limits");
        Files.writeString(f, "# job limit\n4242 1-00:00:00\n77=30\n");
        TimeLimits limits = new TimeLimits(TimeLimits.file(f), Map.of("debug", 1_800L), 3_600);
        assertEquals(86_400, limits.resolve("4242", "debug").seconds());
        assertEquals(1_800, limits.resolve("77", null).seconds());
        TimeLimit fallback = limits.resolve("9", "debug");
        assertEquals(1_800, fallback.seconds());
        assertEquals("partition debug default", fallback.source());
        assertEquals("site default", limits.resolve("9", "other").source());
    }

    @Test
    void aCommandSourceReadsTheFirstLineAndTreatsFailureAsUnknown() {
        TimeLimits.Source echo = TimeLimits.command(List.of("echo", "2:00:00"), 5_000);
        assertEquals(7_200, echo.of("5").orElseThrow().seconds());
        assertEquals(Optional.empty(), TimeLimits.command(List.of("false"), 5_000).of("5"));
        assertEquals(Optional.empty(), TimeLimits.command(List.of("/nonexistent/squeue"), 5_000).of("5"));
        assertEquals(Optional.empty(), echo.of("5; rm -rf /"), "odd ids never reach a command line");
    }
}
