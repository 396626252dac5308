package org.alpsbridge.ledger.timelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
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
        assertEquals(Optional.of(5_400L), SlurmTime.parse("90"));
        assertEquals(Optional.of(5_430L), SlurmTime.parse("90:30"));
        assertEquals(Optional.of(7_200L), SlurmTime.parse("2:00:00"));
        assertEquals(Optional.of(93_600L), SlurmTime.parse("1-02"));
        assertEquals(Optional.of(93_780L), SlurmTime.parse("1-02:03"));
        assertEquals(Optional.of(93_784L), SlurmTime.parse("1-02:03:04"));
        assertEquals(Optional.empty(), SlurmTime.parse("UNLIMITED"));
        assertThrows(LedgerException.class, () -> SlurmTime.parse("1:2:3:4"));
        assertThrows(LedgerException.class, () -> SlurmTime.parse("soon"));
        assertThrows(LedgerException.class, () -> SlurmTime.parse("-5"));
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
}
