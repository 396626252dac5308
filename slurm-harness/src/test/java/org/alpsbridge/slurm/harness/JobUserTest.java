package org.alpsbridge.slurm.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The jobs' user: an ordinary account that runs its commands itself, from its home, with a clean environment. */
class JobUserTest {

    @Test
    void labsStartingSideBySideInOneJvmAllGetTheUser() throws Exception {
        int uid = JobUser.ensure().uid();
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<Integer>> calls = new java.util.ArrayList<>();
            for (int i = 0; i < 64; i++) {
                calls.add(pool.submit(() -> JobUser.ensure().uid()));
            }
            for (var call : calls) {
                assertEquals(uid, call.get(), "one user, however many ask at once");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theUserIsOrdinaryAndRunsItsCommandsItselfFromItsHomeWithACleanEnvironment() throws Exception {
        JobUser user = JobUser.ensure();
        assertNotEquals(0, user.uid());
        assertEquals(user.uid(), JobUser.ensure().uid(), "created once");
        Programs.Result r = user.runProgram(Map.of("EXTRA", "1"), "sh", "-c",
                "echo $(id -ru) $(id -u) $(id -g); pwd -P; env | grep -v '^PWD=' | cut -d= -f1 | sort | tr '\\n' ' '");
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(user.uid() + " " + user.uid() + " " + user.gid(), lines.get(0));
        assertEquals(user.home().toString(), lines.get(1));
        assertEquals("EXTRA HOME LOGNAME PATH SHELL USER", lines.get(2).strip(), "nothing of the test JVM's environment");
    }

    @Test
    void anOwnedDirectoryIsTheUsersToWriteIn() throws Exception {
        JobUser user = JobUser.ensure();
        Path dir = Files.createTempDirectory("job-user-test");
        try {
            JobUser.searchable(dir);
            Path owned = user.ownedDirectory(dir.resolve("spool"));
            Programs.Result r = user.runProgram(Map.of(), "sh", "-c", "echo written > " + owned.resolve("f") + " && cat " + owned.resolve("f"));
            assertEquals(0, r.exit(), r.err());
            assertEquals("written", r.out().strip());
            assertTrue(Files.exists(owned.resolve("f")));
        } finally {
            Programs.run(List.of("rm", "-rf", dir.toString()), Map.of(), Duration.ofSeconds(30));
        }
    }
}
