package org.alpsbridge.proxy.orphans;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobSourceTest {

    @TempDir
    Path dir;

    Path script(String body) throws IOException {
        Path p = dir.resolve("squeue");
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    @Test
    void aCommandListsOneJobIdPerLineLikeSqueue() throws Exception {
        Path squeue = script("[ \"$1 $2 $3\" = \"-h -o %A\" ] || exit 3\nprintf '101\\n  102 \\n\\n103_4\\n'");
        JobSource source = JobSource.command(squeue + " -h -o %A", Duration.ofSeconds(10));
        assertEquals(Set.of("101", "102", "103_4"), source.liveJobIds());
        assertTrue(source.describe().endsWith("squeue -h -o %A"), source.describe());
    }

    @Test
    void aCommandThatFailsIsAnErrorNotAnEmptyList() throws Exception {
        Path squeue = script("echo 'slurm_load_jobs error: Unable to contact slurm controller' >&2; exit 1");
        IOException e = assertThrows(IOException.class, () -> JobSource.command(squeue.toString(), Duration.ofSeconds(10)).liveJobIds());
        assertTrue(e.getMessage().contains("exited with status 1"), e.getMessage());
    }

    @Test
    void aCommandThatHangsIsKilledAtTheTimeout() throws Exception {
        Path squeue = script("exec sleep 30");
        long start = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> JobSource.command(squeue.toString(), Duration.ofMillis(300)).liveJobIds());
        assertTrue(e.getMessage().contains("no answer within 300 ms"), e.getMessage());
        assertTrue(System.nanoTime() - start < 10_000_000_000L);
    }

    @Test
    void outputThatIsNotAJobListNamesTheLine() throws Exception {
        Path squeue = script("printf '101\\n<html>oops</html>\\n'");
        IOException e = assertThrows(IOException.class, () -> JobSource.command(squeue.toString(), Duration.ofSeconds(10)).liveJobIds());
        assertTrue(e.getMessage().contains("line 2 is not a job id"), e.getMessage());
    }

    @Test
    void aFileIsReadAtEveryCallAndAMissingFileIsAnError() throws Exception {
        Path list = dir.resolve("jobs.txt");
        JobSource source = JobSource.file(list);
        assertThrows(IOException.class, source::liveJobIds);
        Files.writeString(list, "7\n8\n");
        assertEquals(Set.of("7", "8"), source.liveJobIds());
        Files.writeString(list, "9.sdb\n");
        assertEquals(Set.of("9.sdb"), source.liveJobIds());
    }

    @Test
    void anEmptyCommandIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> JobSource.command("  ", Duration.ofSeconds(1)));
    }
}
