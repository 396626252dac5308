package org.alpsbridge.slurm.harness;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What the Slurm suites do on this host besides Slurm: find a program, run one with a time limit, take a free port,
 * and skip a test whose service is missing (or fail it under {@code ALPSBRIDGE_REQUIRE_SERVICES=1}, as CI runs).
 */
public final class Programs {

    private Programs() {
    }

    /** How a program ended and what it printed on each stream. */
    public record Result(int exit, String out, String err) {
    }

    /** Skips the calling test with the reason printed, or fails it when ALPSBRIDGE_REQUIRE_SERVICES=1. */
    public static void unavailable(String reason) {
        if ("1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
            Assertions.fail(reason + ", but ALPSBRIDGE_REQUIRE_SERVICES=1");
        }
        System.out.println("SKIP: " + reason);
        Assumptions.abort(reason);
    }

    /** The program on PATH or in the system's sbin and bin directories; null when there is none. */
    public static Path find(String name) {
        for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/bin:/sbin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                return Path.of(d, name);
            }
        }
        return null;
    }

    /** Runs a program with extra environment, collecting both streams; kills it (and its children) past the limit. */
    public static Result run(List<String> argv, Map<String, String> env, Duration limit) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().putAll(env);
        return run(pb, limit);
    }

    /** Runs a prepared process (its stdin from /dev/null) as {@link #run(List, Map, Duration)} does. */
    public static Result run(ProcessBuilder pb, Duration limit) throws IOException, InterruptedException {
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            throw new IOException(String.join(" ", pb.command()) + " did not finish within " + limit.toSeconds() + " s");
        }
        return new Result(p.exitValue(), out.join(), err.join());
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * A TCP port free on loopback now, chosen by the kernel: builds on the same machine running Slurms, proxies and
     * databases of their own never share a fixed block. The caller binds it soon after (a collision is unlikely, not
     * impossible).
     */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        }
    }

    /** {@code hostname -s}: the name slurm.conf gives this host (slurmctld's, and the node's on one node). */
    public static String hostname() throws IOException, InterruptedException {
        Result r = run(List.of("hostname", "-s"), Map.of(), Duration.ofSeconds(10));
        if (r.exit() != 0 || r.out().isBlank()) {
            throw new IOException("hostname -s: exit " + r.exit() + ": " + r.err());
        }
        return r.out().strip();
    }

    /** Stops a process by its pid (never by name): TERM, then KILL when it has not ended within the limit. */
    public static void stop(long pid, Duration limit) {
        ProcessHandle.of(pid).ifPresent(p -> {
            p.destroy();
            if (!awaitEnd(p, limit)) {
                p.destroyForcibly();
            }
        });
    }

    /**
     * Whether the process ended within the limit. A daemon (slurmctld, slurmdbd: orphans once they detach) that has
     * ended stays a zombie until the PID namespace's init reaps it; where the test JVM is that init ({@code unshare
     * --pid --fork --mount-proc mvn ...}) nothing does, and waiting for it would always take the whole limit. So a
     * zombie counts as ended.
     */
    private static boolean awaitEnd(ProcessHandle p, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (p.isAlive() && !zombie(p.pid())) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** The state in /proc/PID/stat (after the command's closing parenthesis) is Z. */
    private static boolean zombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.startsWith("Z", stat.lastIndexOf(')') + 2);
        } catch (IOException | RuntimeException e) {
            return false; // gone or unreadable: isAlive() decides
        }
    }
}
