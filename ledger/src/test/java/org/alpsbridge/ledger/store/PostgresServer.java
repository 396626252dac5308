package org.alpsbridge.ledger.store;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real, throwaway PostgreSQL for tests: {@code initdb} in a temp dir, trust auth, listening on
 * 127.0.0.1 only, on a free port in this module's range 19300–19399, stopped (by its data dir, i.e.
 * its own pid file) when the test JVM exits. Run as a non-root user because PostgreSQL refuses root.
 *
 * <p>Absent binaries skip the calling test with the reason, unless ALPSBRIDGE_REQUIRE_SERVICES=1.
 */
public final class PostgresServer {

    private static PostgresServer instance;
    private static String unavailable;

    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asPostgresUser;
    private final AtomicInteger databases = new AtomicInteger();

    private PostgresServer(Path bin, Path dir, int port, boolean asPostgresUser) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.asPostgresUser = asPostgresUser;
    }

    /** The shared server, started on first use; skips (or fails under CI) when PostgreSQL is absent. */
    public static synchronized PostgresServer get() {
        if (instance == null && unavailable == null) {
            try {
                instance = start();
            } catch (Exception e) {
                unavailable = e.getMessage();
            }
        }
        if (instance == null) {
            String reason = "PostgreSQL not available: " + unavailable;
            if ("1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
                throw new IllegalStateException(reason + " (ALPSBRIDGE_REQUIRE_SERVICES=1)");
            }
            System.out.println("SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
        return instance;
    }

    /** The {@code bin} directory of the newest installed PostgreSQL, e.g. {@code /usr/lib/postgresql/15/bin}. */
    public static Path binDir() throws IOException {
        Path lib = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(lib)) {
            try (Stream<Path> versions = Files.list(lib)) {
                Path best = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("pg_ctl")))
                        .max(Comparator.comparingInt(b -> Integer.parseInt(b.getParent().getFileName().toString()
                                .replaceAll("\\D", "0"))))
                        .orElse(null);
                if (best != null) {
                    return best;
                }
            }
        }
        throw new IOException("no pg_ctl under /usr/lib/postgresql (apt-get install postgresql)");
    }

    private static PostgresServer start() throws IOException, InterruptedException {
        Path bin = binDir();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("alpsbridge-pg");
        if (root) {
            run(List.of("chown", "postgres:postgres", dir.toString()), false);
        }
        int port = freePort();
        PostgresServer s = new PostgresServer(bin, dir, port, root);
        s.pg(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-A", "trust",
                "-U", "ledger", "-E", "UTF8", "--no-sync"));
        s.pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-t", "60",
                "-l", dir.resolve("server.log").toString(), "-o",
                "-p " + port + " -c listen_addresses=127.0.0.1 -k " + dir + " -c max_connections=200", "start"));
        Runtime.getRuntime().addShutdownHook(new Thread(s::stop, "stop-test-postgresql"));
        return s;
    }

    private static int freePort() throws IOException {
        for (int port = 19310; port <= 19399; port++) {
            try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException busy) {
                // next
            }
        }
        throw new IOException("no free loopback port in 19310-19399");
    }

    private void pg(List<String> command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asPostgresUser) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        run(full, true);
    }

    private static void run(List<String> command, boolean quiet) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out.strip());
        }
    }

    public int port() {
        return port;
    }

    /** The server's unix socket (beside TCP on 127.0.0.1): a way in from another network namespace. */
    public Path socket() {
        return dir.resolve(".s.PGSQL." + port);
    }

    public Path binDirectory() {
        return bin;
    }

    /** A new, empty database; returns its JDBC URL. */
    public String newDatabase() {
        String name = "ledger_" + ProcessHandle.current().pid() + "_" + databases.incrementAndGet();
        try (Connection c = DriverManager.getConnection(adminUrl("postgres")); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database: " + e.getMessage(), e);
        }
        return adminUrl(name);
    }

    public String adminUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=ledger";
    }

    /**
     * Immediate stop (no shutdown checkpoint: the data is thrown away next, and a checkpoint of a few
     * hundred MB on a busy machine outlasts surefire's 30 s exit timeout), then the directory goes.
     */
    private void stop() {
        try {
            pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate",
                    "-w", "stop"));
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (Exception e) {
            System.err.println("stopping test PostgreSQL in " + dir + ": " + e.getMessage());
        }
    }
}
