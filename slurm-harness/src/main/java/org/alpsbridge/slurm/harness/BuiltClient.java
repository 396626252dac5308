package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A client {@code .ci/build-clients} builds from {@code ../shared/clients} into its cache outside the checkout
 * (e.g. {@code slurm26}: Slurm 26.05.3), found by asking the script where ({@code --where}). A build that is not
 * there yet is made by the script, or waited for while CI's background build holds its lock, when the run requires
 * it (CI=true, or ALPSBRIDGE_REQUIRE_SERVICES=1 as .ci/run sets); anywhere else the calling test is skipped with the
 * command that builds it.
 */
final class BuiltClient {

    /** A cold build on 2 cores, and a wait for CI's background build before it. */
    private static final Duration BUILD_LIMIT = Duration.ofMinutes(100);

    private BuiltClient() {
    }

    /** The installation prefix of the built client {@code name} (slurm, slurm26, openpbs). */
    static synchronized Path prefix(String name) {
        Path script = script();
        try {
            Programs.Result where = Programs.run(List.of("bash", script.toString(), "--where", name), Map.of(), Duration.ofSeconds(60));
            Path dir = Path.of(where.out().strip());
            if (where.exit() == 0) {
                return dir;
            }
            if (where.exit() != 3) {
                Programs.unavailable(script + " --where " + name + ": exit " + where.exit() + ": " + where.err().strip());
            }
            if (!required()) {
                Programs.unavailable(name + " is not built in " + dir + "; run .ci/build-clients " + name
                        + " (it is required where CI=true or ALPSBRIDGE_REQUIRE_SERVICES=1)");
            }
            System.out.println("slurm-harness: " + name + " is not built in " + dir + "; running .ci/build-clients " + name
                    + " (waits for a build already running, else builds)");
            long started = System.nanoTime();
            Programs.Result built = Programs.run(List.of("bash", script.toString(), name), Map.of(), BUILD_LIMIT);
            System.out.println("slurm-harness: .ci/build-clients " + name + " ended with exit " + built.exit() + " after "
                    + Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s: " + built.out().strip());
            if (built.exit() != 0) {
                throw new IllegalStateException(".ci/build-clients " + name + " failed (exit " + built.exit() + "): "
                        + built.out() + built.err());
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static boolean required() {
        return "true".equals(System.getenv("CI")) || "1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"));
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
}
