package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Plugins built with AddressSanitizer and UndefinedBehaviorSanitizer run inside an uninstrumented host (slurmctld,
 * slurmd, slurmstepd, srun): the host's environment that loads gcc's ASan runtime first and sends every report to a
 * directory, and the reports found there. Leak checking is off: the hosts free little at exit, which is not the
 * plugins' to answer for.
 */
public final class Sanitizers {

    private Sanitizers() {
    }

    /**
     * {@code LD_PRELOAD} of gcc's shared ASan runtime (an uninstrumented host needs it first in its list; the plugins
     * bring libubsan in themselves) and both sanitizers' options, each report written under {@code logs} as
     * {@code asan.PID} or {@code ubsan.PID}. Skips the calling test when gcc has no shared ASan runtime.
     */
    public static Map<String, String> environment(Path logs) throws IOException, InterruptedException {
        Programs.Result r = Programs.run(List.of("gcc", "-print-file-name=libasan.so"), Map.of(), Duration.ofSeconds(30));
        Path lib = Path.of(r.out().strip());
        if (r.exit() != 0 || !lib.isAbsolute() || !Files.exists(lib)) {
            Programs.unavailable("no shared ASan runtime from gcc -print-file-name=libasan.so: " + r.out() + r.err());
        }
        return Map.of("LD_PRELOAD", lib.toRealPath().toString(),
                "ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0:log_path=" + logs.resolve("asan"),
                "UBSAN_OPTIONS", "print_stacktrace=1:log_path=" + logs.resolve("ubsan"));
    }

    /** The reports written under {@code logs} so far, by file name: none (no directory yet, or empty) is an empty map. */
    public static Map<String, String> reports(Path logs) throws IOException {
        Map<String, String> reports = new TreeMap<>();
        if (Files.isDirectory(logs)) {
            try (var files = Files.list(logs)) {
                for (Path f : files.toList()) {
                    reports.put(f.getFileName().toString(), Files.readString(f));
                }
            }
        }
        return reports;
    }
}
