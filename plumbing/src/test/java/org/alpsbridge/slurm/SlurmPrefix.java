package org.alpsbridge.slurm;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Which Slurm the hook and SPANK suites run: the system's (Debian's 22.05, on PATH) unless
 * {@code -Dalpsbridge.slurm.prefix} (or the environment's {@code ALPSBRIDGE_SLURM_PREFIX}) names another, as a
 * directory (an installation prefix: {@code bin/}, {@code sbin/}, {@code include/}) or as a client of
 * {@code .ci/build-clients} ({@code slurm26}: Slurm 26.05.3, built into the clients' cache outside the checkout).
 * A client not built yet is built by the script (or waited for, while CI's background build holds its lock) where
 * the run requires it (CI=true, or ALPSBRIDGE_REQUIRE_SERVICES=1 as .ci/run sets); anywhere else the calling test is
 * skipped with the command that builds it.
 */
public final class SlurmPrefix {

    /** The system property naming the Slurm; unset: the system's. */
    public static final String PROPERTY = "alpsbridge.slurm.prefix";

    /** A wait for CI's background build, then a cold build on 2 cores. */
    private static final Duration BUILD_LIMIT = Duration.ofMinutes(100);

    private static Path resolved;

    private SlurmPrefix() {
    }

    /** The selected installation prefix, or null for the system's Slurm. */
    public static synchronized Path selected() {
        String named = System.getProperty(PROPERTY, System.getenv("ALPSBRIDGE_SLURM_PREFIX"));
        if (named == null || named.isBlank()) {
            return null;
        }
        if (resolved == null) {
            resolved = named.contains("/") ? Path.of(named) : built(named.strip());
            if (!Files.isExecutable(resolved.resolve("sbin/slurmd"))) {
                unavailable("no Slurm under " + resolved + " (" + PROPERTY + "=" + named + ")");
            }
        }
        return resolved;
    }

    /** {@code name} of the selected prefix ({@code bin/} or {@code sbin/}), or null: look on PATH. */
    public static Path program(String name) {
        Path prefix = selected();
        for (String d : List.of("bin", "sbin")) {
            if (prefix != null && Files.isExecutable(prefix.resolve(d).resolve(name))) {
                return prefix.resolve(d).resolve(name);
            }
        }
        return null;
    }

    /**
     * The command with a bare program name of the selected Slurm's replaced by its path: a child's PATH does not
     * choose the program a ProcessBuilder starts (the JVM's own PATH does).
     */
    public static List<String> resolve(List<String> argv) {
        Path own = argv.isEmpty() || argv.get(0).contains("/") ? null : program(argv.get(0));
        if (own == null) {
            return argv;
        }
        List<String> resolved = new java.util.ArrayList<>(argv);
        resolved.set(0, own.toString());
        return resolved;
    }

    /** PATH with the prefix's programs first, for processes that run Slurm's commands by name; empty for the system's. */
    public static Map<String, String> environment() {
        Path prefix = selected();
        return prefix == null ? Map.of()
                : Map.of("PATH", prefix.resolve("bin") + ":" + prefix.resolve("sbin") + ":" + System.getenv("PATH"));
    }

    /** Where {@code slurm/spank.h} and Slurm's other headers are. */
    public static Path includeDir() {
        Path prefix = selected();
        return prefix == null ? Path.of("/usr/include") : prefix.resolve("include");
    }

    /** For test output: "the system's Slurm" or the prefix. */
    public static String describe() {
        Path prefix = selected();
        return prefix == null ? "the system's Slurm" : "the Slurm in " + prefix;
    }

    private static Path built(String client) {
        Path script = script();
        Result where = run(List.of("bash", script.toString(), "--where", client), Duration.ofSeconds(60));
        Path dir = Path.of(where.out.strip());
        if (where.exit == 0) {
            return dir;
        }
        if (where.exit != 3) {
            throw new IllegalStateException(script + " --where " + client + ": exit " + where.exit + ": " + where.out);
        }
        if (!"true".equals(System.getenv("CI")) && !"1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
            System.out.println("SKIP: " + client + " is not built in " + dir + "; run .ci/build-clients " + client);
            Assumptions.abort(client + " is not built in " + dir + "; run .ci/build-clients " + client);
        }
        System.out.println("SlurmPrefix: " + client + " is not built in " + dir + "; running .ci/build-clients " + client
                + " (waits for a build already running, else builds)");
        long started = System.nanoTime();
        Result built = run(List.of("bash", script.toString(), client), BUILD_LIMIT);
        System.out.println("SlurmPrefix: .ci/build-clients " + client + " ended with exit " + built.exit + " after "
                + Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s: " + built.out.strip());
        if (built.exit != 0) {
            throw new IllegalStateException(".ci/build-clients " + client + " failed (exit " + built.exit + "): " + built.out);
        }
        return dir;
    }

    private static void unavailable(String reason) {
        if ("1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES")) || "true".equals(System.getenv("CI"))) {
            Assertions.fail(reason + ", but the run requires it (CI=true or ALPSBRIDGE_REQUIRE_SERVICES=1)");
        }
        System.out.println("SKIP: " + reason);
        Assumptions.abort(reason);
    }

    /** .ci/build-clients of the checkout the tests run in (a module's directory is their working directory). */
    private static Path script() {
        for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve(".ci/build-clients"))) {
                return d.resolve(".ci/build-clients");
            }
        }
        throw new IllegalStateException("no .ci/build-clients above " + System.getProperty("user.dir"));
    }

    private record Result(int exit, String out) {
    }

    /** Runs the script, both streams together; kills it past the limit. */
    private static Result run(List<String> argv, Duration limit) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Thread reader = new Thread(() -> {
                try (var in = p.getInputStream()) {
                    in.transferTo(out);
                } catch (IOException e) {
                    // the process ended or was killed; what was read stands
                }
            });
            reader.start();
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor();
            }
            reader.join();
            return new Result(p.isAlive() ? -1 : p.exitValue(), out.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
