package org.alpsbridge.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a command to completion and keeps what it printed: the install tests' only way to touch the system. */
final class Shell {

    record Result(List<String> command, int status, String out, String err) {

        Result ok() {
            if (status != 0) {
                throw new AssertionError(String.join(" ", command) + " exited " + status + "\nstdout:\n" + out
                        + "\nstderr:\n" + err);
            }
            return this;
        }
    }

    private Shell() {
    }

    static Result run(String... command) throws IOException, InterruptedException {
        return run(Map.of(), null, null, command);
    }

    static Result run(Map<String, String> env, Path dir, byte[] stdin, String... command)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        Process p = pb.start();
        CompletableFuture<String> out = drain(p.getInputStream());
        CompletableFuture<String> err = drain(p.getErrorStream());
        try (var in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin);
            }
        }
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish in 5 minutes");
        }
        return new Result(List.of(command), p.exitValue(), out.join(), err.join());
    }

    static CompletableFuture<String> drain(java.io.InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(unreadable: " + e.getMessage() + ")";
            }
        });
    }
}
