package org.alpsbridge.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadTest {

    private static final List<String> USERS = List.of("alice", "bob");
    private static final List<String> ACCOUNTS = List.of("astro");

    @Test
    void sameSeedDrawsTheSameJobs() {
        assertEquals(Workload.generate(7, 500, 128, 30, USERS, ACCOUNTS), Workload.generate(7, 500, 128, 30, USERS, ACCOUNTS));
    }

    @Test
    void drawnJobsStayWithinTheirBoundsAndArriveInOrder() {
        List<Job> jobs = Workload.generate(11, 2000, 64, 30, USERS, ACCOUNTS);
        long last = -1;
        for (Job job : jobs) {
            assertTrue(job.nodes() >= 1 && job.nodes() <= 64, job::toString);
            assertTrue(job.wallSeconds() >= 60 && job.wallSeconds() <= 12 * 3600, job::toString);
            assertTrue(job.submitSecond() >= last, job::toString);
            last = job.submitSecond();
        }
        long small = jobs.stream().filter(j -> j.nodes() <= 8).count();
        assertTrue(small > 0.4 * jobs.size(), "log-uniform sizes put about half the jobs at 8 nodes or fewer, uniform would put 1/8: " + small);
    }

    @Test
    void readsASacctExportRelativeToTheFirstSubmission(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("sacct.txt");
        Files.writeString(file, "# JobID|NNodes|ElapsedRaw|User|Account|Submit\n"
                + "42|4|3600|alice|astro|2024-05-01T10:00:00\n"
                + "43.batch|1|60|bob|bio|2024-05-01T10:05:00\n\n");
        List<Job> jobs = Workload.readSacct(file);
        assertEquals(List.of(new Job(42, 0, 4, 3600, "alice", "astro"), new Job(43, 300, 1, 60, "bob", "bio")), jobs);
    }

    @Test
    void aMalformedSacctLineIsNamedByLineNumber(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("sacct.txt");
        Files.writeString(file, "42|4|3600|alice|astro\n43|many|60|bob|bio\n");
        IOException e = assertThrows(IOException.class, () -> Workload.readSacct(file));
        assertTrue(e.getMessage().contains("sacct.txt:2"), e::getMessage);
    }
}
