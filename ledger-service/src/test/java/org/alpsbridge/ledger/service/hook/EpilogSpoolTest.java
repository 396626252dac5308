package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's spool of settlements: the ones it writes, the ones the C client writes and names to it, and the ones whose notice was lost. */
class EpilogSpoolTest {

    @TempDir
    Path dir;

    private static AgentRequest epilog(String jobId) {
        return new AgentRequest(false, List.of(), Map.of("SLURM_JOB_ID", jobId, "SLURM_CLUSTER_NAME", "lab"),
                Instant.parse("2026-11-26T12:00:00.123456Z"));
    }

    private static SlurmJob run(String jobId) {
        return new SlurmJob("lab", jobId, 0, "chem", "alice", "debug", 1, 1, "n1");
    }

    /** Writes a settlement as the C client does, without telling anyone. */
    private Path written(String jobId) throws Exception {
        Path file = dir.resolve(EpilogSpool.name(run(jobId)));
        Files.write(file, AgentCodec.frame(epilog(jobId)));
        return file;
    }

    private static void awaitSettled(List<String> settled, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (settled.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    @Test
    void aSettlementTheClientWroteIsSettledOnItsNoticeAndThenGone() throws Exception {
        List<String> settled = new CopyOnWriteArrayList<>();
        try (EpilogSpool spool = new EpilogSpool(dir, 1, r -> {
            settled.add(r.env().get("SLURM_JOB_ID") + "@" + r.at());
            return Hook.OK;
        }, new PrintStream(new ByteArrayOutputStream(), true))) {
            Path file = written("31");
            assertTrue(spool.adopt(file.getFileName().toString()));
            awaitSettled(settled, 1);
            assertEquals(List.of("31@2026-11-26T12:00:00.123456Z"), settled, "settled with the epilog's own time");
            for (int i = 0; i < 100 && Files.exists(file); i++) {
                Thread.sleep(10);
            }
            assertFalse(Files.exists(file), "deleted once settled");
            assertFalse(spool.adopt(file.getFileName().toString()), "a notice that came twice finds nothing");
            assertEquals(1, settled.size());
        }
    }

    @Test
    void aSettlementWhoseNoticeWasLostIsFoundByTheRescanOnce() throws Exception {
        List<String> settled = new CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        try (EpilogSpool spool = new EpilogSpool(dir, 1, r -> {
            settled.add(r.env().get("SLURM_JOB_ID"));
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Hook.OK;
        }, new PrintStream(new ByteArrayOutputStream(), true))) {
            written("41");
            Files.writeString(dir.resolve(".tmp-job-42-run-1-lab.epilog-c99"), "half written");  // never renamed
            assertEquals(1, spool.rescan());
            assertEquals(0, spool.rescan(), "queued (or being settled) already");
            hold.countDown();
            awaitSettled(settled, 1);
            assertEquals(List.of("41"), settled);
        }
    }

    @Test
    void onlyASettlementsPlainNameIsTaken() throws Exception {
        try (EpilogSpool spool = new EpilogSpool(dir, 1, r -> Hook.OK, new PrintStream(new ByteArrayOutputStream(), true))) {
            for (String bad : List.of("../job-1-run-1.epilog", "job-1-run-1.epilog/x", ".tmp-job-1-run-1.epilog",
                    "job-x-run-1.epilog", "job-1-run-1.txt", "/etc/passwd")) {
                assertFalse(EpilogSpool.isSpoolName(bad), bad);
                assertThrows(IllegalArgumentException.class, () -> spool.adopt(bad), bad);
            }
            assertTrue(EpilogSpool.isSpoolName("job-12-run-3-lab.epilog"));
            assertTrue(EpilogSpool.isSpoolName("job-12-run-3.epilog"));
        }
    }
}
