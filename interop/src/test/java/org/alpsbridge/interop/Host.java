package org.alpsbridge.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.alpsbridge.slurm.harness.Programs;

/** Running programs on this host for the harness: commands with a time limit, free ports, waiting, skipping. */
final class Host {

    private Host() {
    }

    /** What a command printed and how it ended. */
    record Result(int exit, String out) {
        Result ok() {
            if (exit != 0) {
                throw new IllegalStateException("exit " + exit + ": " + out);
            }
            return this;
        }
    }

    /** Runs a command to its end (stdout and stderr together), failing after {@code limit}. */
    static Result run(Map<String, String> env, Duration limit, List<String> command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putAll(env);
            Path out = Files.createTempFile("interop-cmd", ".out");
            pb.redirectOutput(out.toFile());
            Process p = pb.start();
            p.getOutputStream().close();
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " took longer than " + limit);
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            Files.deleteIfExists(out);
            return new Result(p.exitValue(), text);
        } catch (IOException e) {
            throw new UncheckedIOException(String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static Result run(Map<String, String> env, String... command) {
        return run(env, Duration.ofSeconds(60), List.of(command));
    }

    /** A TCP port free on loopback now (the caller binds it soon after; collisions are unlikely, not impossible). */
    static int freePort() {
        try {
            return Programs.freePort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until {@code done} holds, polling; false on time out. */
    static boolean await(Duration limit, BooleanSupplier done) {
        long end = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < end) {
            if (done.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return done.getAsBoolean();
    }

    /** Writes an executable script. */
    static Path script(Path file, String text) {
        try {
            Files.writeString(file, text);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops a daemon by its pid (never by name): TERM, then KILL after 10 s. */
    static void stop(long pid) {
        Programs.stop(pid, Duration.ofSeconds(10));
    }

    static long pidFrom(Path pidFile) {
        try {
            return Long.parseLong(Files.readString(pidFile).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** Skips the calling test with the reason printed, or fails it when ALPSBRIDGE_REQUIRE_SERVICES=1. */
    static void skip(String reason) {
        Programs.unavailable(reason);
    }

    /** The repository's root (the module runs in interop/). */
    static Path repository() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("bin/apbasil")) ? here : here.getParent();
    }

    static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        text.lines().map(String::strip).filter(l -> !l.isEmpty()).forEach(out::add);
        return out;
    }
}
