package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A private MariaDB for a test (slurmdbd's storage): {@code mariadb-install-db} into a data directory of its own,
 * {@code mariadbd} on a free port of 127.0.0.1 with its own socket and pid file, as the user running the test
 * ({@code --user=root} when that is root, as on CI). Its root has no password (the install's default for the
 * loopback addresses). Durability is traded for speed (no binary log, no flush per commit): the data dies with the
 * test. Stopped by pid.
 */
public final class MariaDb implements AutoCloseable {

    private static final Duration START_LIMIT = Duration.ofSeconds(60);

    private final Path dir;
    private final int port;
    private long pid = -1;

    private MariaDb(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /**
     * Installs and starts MariaDB in {@code dir} (created), waiting until it answers. The calling test is skipped
     * (failed, required) when MariaDB is not installed.
     */
    public static MariaDb start(Path dir) throws IOException, InterruptedException {
        Path server = Programs.find("mariadbd");
        Path install = Programs.find("mariadb-install-db");
        if (server == null || install == null || Programs.find("mariadb") == null) {
            Programs.unavailable("MariaDB is not installed (Debian package mariadb-server; see .ci/install-deps)");
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        List<String> installArgv = new ArrayList<>(List.of(install.toString(), "--no-defaults", "--datadir=" + data,
                "--skip-test-db", "--auth-root-authentication-method=normal"));
        if (root) {
            installArgv.add("--user=root");
        }
        Programs.Result installed = Programs.run(installArgv, Map.of(), Duration.ofMinutes(3));
        if (installed.exit() != 0) {
            throw new IllegalStateException("mariadb-install-db failed (exit " + installed.exit() + "): " + installed.out()
                    + installed.err());
        }
        MariaDb db = new MariaDb(dir, Programs.freePort());
        List<String> argv = new ArrayList<>(List.of(server.toString(), "--no-defaults", "--datadir=" + data,
                "--port=" + db.port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mariadb.sock"),
                "--pid-file=" + dir.resolve("mariadb.pid"), "--log-error=" + dir.resolve("mariadb.log"),
                "--skip-log-bin", "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
                "--innodb-buffer-pool-size=64M", "--innodb-fast-shutdown=2"));
        if (root) {
            argv.add("--user=root");
        }
        Process p = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectOutput(dir.resolve("mariadb.out").toFile()).start();
        db.pid = p.pid();
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        while (db.sql("SELECT 1").exit() != 0) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                db.close();
                throw new IllegalStateException("MariaDB did not start" + (p.isAlive() ? " within " + START_LIMIT.toSeconds()
                        + " s" : " (exit " + p.exitValue() + ")") + ": " + tail(dir.resolve("mariadb.log")));
            }
            Thread.sleep(100);
        }
        return db;
    }

    /** Runs SQL statements as MariaDB's root over TCP; the client's exit and output. */
    public Programs.Result sql(String statements) throws IOException, InterruptedException {
        return Programs.run(List.of(Programs.find("mariadb").toString(), "--no-defaults", "-h127.0.0.1", "-P" + port,
                "-uroot", "-e", statements), Map.of(), Duration.ofSeconds(30));
    }

    /** The TCP port on 127.0.0.1. */
    public int port() {
        return port;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
        } catch (IOException e) {
            return "(no " + log + ")";
        }
    }

    /** Stops mariadbd by its pid; the data directory stays (the caller's). */
    @Override
    public void close() {
        if (pid > 0) {
            Programs.stop(pid, Duration.ofSeconds(30));
            pid = -1;
        }
    }
}
