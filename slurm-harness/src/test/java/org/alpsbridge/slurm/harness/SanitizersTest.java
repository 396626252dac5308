package org.alpsbridge.slurm.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program that is not built with ASan, started with {@link Sanitizers#environment}, loads a library that is, and
 * the report of its heap overflow is what {@link Sanitizers#reports} finds.
 */
class SanitizersTest {

    @TempDir
    Path dir;

    @Test
    void aReportFromAnInstrumentedLibraryInAnUninstrumentedHostIsFound() throws Exception {
        Path logs = Files.createDirectories(dir.resolve("sanitizer"));
        assertEquals(Map.of(), Sanitizers.reports(dir.resolve("none yet")));
        assertEquals(Map.of(), Sanitizers.reports(logs));
        Files.writeString(dir.resolve("overflow.c"), """
                #include <stdlib.h>
                int overflow(int at) {
                    volatile int *block = malloc(4 * sizeof(int));
                    int past = block[at];
                    free((void *) block);
                    return past;
                }
                """, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("host.c"), """
                int overflow(int at);
                int main(void) { return overflow(4) == 12345; }
                """, StandardCharsets.UTF_8);
        Programs.Result lib = Programs.run(List.of("gcc", "-shared", "-fPIC", "-fsanitize=address", "-o",
                dir.resolve("liboverflow.so").toString(), dir.resolve("overflow.c").toString()), Map.of(), Duration.ofMinutes(2));
        assertEquals(0, lib.exit(), lib.err());
        Programs.Result host = Programs.run(List.of("gcc", "-o", dir.resolve("host").toString(),
                dir.resolve("host.c").toString(), "-L" + dir, "-loverflow", "-Wl,-rpath," + dir), Map.of(), Duration.ofMinutes(2));
        assertEquals(0, host.exit(), host.err());

        Programs.Result ran = Programs.run(List.of(dir.resolve("host").toString()), Sanitizers.environment(logs),
                Duration.ofMinutes(1));

        Map<String, String> reports = Sanitizers.reports(logs);
        assertEquals(1, reports.size(), "one report: " + reports + ", exit " + ran.exit() + ": " + ran.err());
        String name = reports.keySet().iterator().next();
        assertTrue(name.startsWith("asan."), name);
        assertTrue(reports.get(name).contains("heap-buffer-overflow"), reports.get(name));
    }
}
