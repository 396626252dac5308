package org.alpsbridge.munge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A real, test-private {@code munged}: its own key, socket, pid and log in a temporary directory,
 * stopped by pid. When {@code munged} is not installed the calling test is skipped with the reason
 * printed, or fails when {@code ALPSBRIDGE_REQUIRE_SERVICES=1}.
 */
public final class MungeDaemon implements AutoCloseable {

    private final Path dir;
    private final long pid;

    private MungeDaemon(Path dir, long pid) {
        this.dir = dir;
        this.pid = pid;
    }

    public static MungeDaemon start() throws IOException, InterruptedException {
        Path munged = findProgram("munged", "/usr/sbin/munged", "/usr/local/sbin/munged");
        Path mungekey = findProgram("mungekey", "/usr/sbin/mungekey", "/usr/local/sbin/mungekey");
        if (munged == null || mungekey == null || findProgram("munge", "/usr/bin/munge") == null) {
            String reason = "munged/mungekey/munge not installed (Debian package 'munge'); MUNGE tests skipped";
            if ("1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
                Assertions.fail(reason + ", but ALPSBRIDGE_REQUIRE_SERVICES=1");
            }
            System.out.println("SKIP: " + reason);
            Assumptions.abort(reason);
        }
        Path dir = Files.createTempDirectory("munged");
        dir.toFile().setExecutable(true, false);
        run(List.of(mungekey.toString(), "--create", "--keyfile=" + dir.resolve("munge.key")));
        List<String> argv = new ArrayList<>(List.of(munged.toString(),
                "--socket=" + dir.resolve("munge.sock"), "--key-file=" + dir.resolve("munge.key"),
                "--pid-file=" + dir.resolve("munged.pid"), "--log-file=" + dir.resolve("munged.log"),
                "--seed-file=" + dir.resolve("munged.seed"), "--num-threads=4"));
        if ("root".equals(System.getProperty("user.name"))) {
            argv.add("--force"); // munged refuses root without it; the key and socket are private to this test
        }
        run(argv);
        Path pidFile = dir.resolve("munged.pid");
        for (int i = 0; i < 200 && !(Files.exists(pidFile) && Files.exists(dir.resolve("munge.sock"))); i++) {
            Thread.sleep(10);
        }
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        return new MungeDaemon(dir, pid);
    }

    public Path socket() {
        return dir.resolve("munge.sock");
    }

    public Path log() {
        return dir.resolve("munged.log");
    }

    @Override
    public void close() throws IOException {
        ProcessHandle.of(pid).ifPresent(p -> {
            p.destroy();
            try {
                p.onExit().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        });
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(dir);
    }

    private static void run(List<String> argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", argv) + " failed: " + out);
        }
    }

    private static Path findProgram(String name, String... candidates) {
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return Path.of(c);
            }
        }
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                return Path.of(d, name);
            }
        }
        return null;
    }
}
