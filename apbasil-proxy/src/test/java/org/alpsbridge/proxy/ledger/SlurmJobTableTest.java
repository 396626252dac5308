package org.alpsbridge.proxy.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The background reading of squeue that the ledger asks instead of slurmctld during a RESERVE. */
class SlurmJobTableTest {

    @Test
    void squeuesLinesGiveEachJobsAccountAndTimeLimitAndAJobGoneLeavesTheTable() {
        // its own reading fails (exit 1), so it never replaces the lines given here: with "true" its first
        // (empty) reading, on the background thread, could land after them and empty the table (seen once in CI)
        try (SlurmJobTable t = new SlurmJobTable(List.of("false"), Duration.ofHours(1))) {
            t.accept("12|chem|1:00:00\n13|(null)|UNLIMITED\n14||30\nnot a line\n");
            assertEquals(Optional.of("chem"), t.account("12"));
            assertEquals(Optional.empty(), t.account("13"), "no account: the owner's group decides");
            assertEquals(Optional.empty(), t.account("14"));
            assertEquals(3_600L, t.limits().of("12").orElseThrow().seconds());
            assertEquals(Optional.empty(), t.limits().of("13"), "no finite limit: the default");
            assertEquals(1_800L, t.limits().of("14").orElseThrow().seconds());
            t.accept("14||30\n");
            assertEquals(Optional.empty(), t.account("12"));
            assertEquals(Optional.empty(), t.limits().of("99"));
        }
    }

    @Test
    void theTableIsReadByItsCommandInTheBackground() throws Exception {
        try (SlurmJobTable t = new SlurmJobTable(List.of("printf", "7|ops|10\\n"), Duration.ofMillis(50))) {
            long end = System.nanoTime() + 10_000_000_000L;
            while (t.account("7").isEmpty() && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assertEquals(Optional.of("ops"), t.account("7"));
        }
    }
}
