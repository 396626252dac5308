package org.alpsbridge.ledger.store;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real primary and streaming-replication standby for failover tests (Debian's PostgreSQL binaries):
 * {@code initdb} in a temp dir, {@code pg_basebackup -R} for the standby, both on free loopback ports,
 * trust auth. Once the standby streams, the primary is set to {@code synchronous_standby_names='*'}, so a
 * commit is acknowledged only once the standby has flushed it; the standby has none, so that once
 * promoted it commits alone.
 * {@link #url} is the multi-host JDBC URL a site would use ({@code targetServerType=primary}).
 *
 * <p>{@link #killPrimary} is {@code kill -9} of the primary's postmaster and every process under it (by
 * pid); {@link #promoteStandby} and {@link #restartPrimary} are the two ways back. Absent binaries skip
 * the calling test with the reason, unless ALPSBRIDGE_REQUIRE_SERVICES=1. {@link #close} stops both.
 */
public final class ReplicatedPostgres implements AutoCloseable {

    private final Path bin;
    private final Path dir;
    private final boolean asPostgresUser;
    private final int primaryPort;
    private final int standbyPort;
    private boolean promoted;

    private ReplicatedPostgres(Path bin, Path dir, boolean asPostgresUser, int primaryPort, int standbyPort) {
        this.bin = bin;
        this.dir = dir;
        this.asPostgresUser = asPostgresUser;
        this.primaryPort = primaryPort;
        this.standbyPort = standbyPort;
    }

    /** Starts both, with a database {@code ledger} replicated; skips (or fails under CI) without PostgreSQL. */
    public static ReplicatedPostgres start() {
        Path bin;
        try {
            bin = PostgresServer.binDir();
        } catch (IOException e) {
            String reason = "PostgreSQL not available: " + e.getMessage();
            if ("1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
                throw new IllegalStateException(reason + " (ALPSBRIDGE_REQUIRE_SERVICES=1)");
            }
            System.out.println("SKIPPED: " + reason);
            Assumptions.abort(reason);
            throw new IllegalStateException("unreachable");
        }
        try {
            boolean root = "root".equals(System.getProperty("user.name"));
            Path dir = Files.createTempDirectory("alpsbridge-pg-pair");
            if (root) {
                run(List.of("chown", "postgres:postgres", dir.toString()));
            }
            ReplicatedPostgres pair = new ReplicatedPostgres(bin, dir, root, freePort(0), 0);
            pair = new ReplicatedPostgres(bin, dir, root, pair.primaryPort, freePort(pair.primaryPort));
            pair.pg("initdb", "-D", pair.data("primary"), "-A", "trust", "-U", "ledger", "-E", "UTF8", "--no-sync");
            pair.startPrimary();
            try (Connection c = DriverManager.getConnection(pair.urlOf(pair.primaryPort, "postgres"));
                 Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE ledger");
            }
            pair.pg("pg_basebackup", "-h", "127.0.0.1", "-p", Integer.toString(pair.primaryPort), "-U", "ledger",
                    "-D", pair.data("standby"), "-R", "-X", "stream", "--no-sync", "--checkpoint=fast");
            pair.pg("pg_ctl", "-D", pair.data("standby"), "-w", "-t", "60", "-l", dir.resolve("standby.log").toString(),
                    "-o", pair.options(pair.standbyPort), "start");
            // only now: a synchronous primary without its standby would wait for ever at every commit. In the
            // primary's own configuration file, so a restart keeps it and a promoted standby never has it.
            try (Connection c = DriverManager.getConnection(pair.urlOf(pair.primaryPort, "postgres"));
                 Statement s = c.createStatement()) {
                s.execute("ALTER SYSTEM SET synchronous_standby_names = '*'");
                s.execute("SELECT pg_reload_conf()");
            }
            pair.awaitSyncStandby();
            return pair;
        } catch (IOException | InterruptedException | SQLException e) {
            throw new IllegalStateException("cannot start a replicated PostgreSQL pair: " + e.getMessage(), e);
        }
    }

    private String options(int port) {
        return "-p " + port + " -c listen_addresses=127.0.0.1 -k " + dir + " -c max_connections=200"
                + " -c wal_level=replica -c max_wal_senders=5 -c hot_standby=on";
    }

    private void startPrimary() throws IOException, InterruptedException {
        try {
            pg("pg_ctl", "-D", data("primary"), "-w", "-t", "60", "-l", dir.resolve("primary.log").toString(), "-o",
                    options(primaryPort), "start");
        } catch (IOException e) { // say why: pg_ctl only says "Examine the log output", and the log goes with dir
            List<String> log = Files.exists(dir.resolve("primary.log")) ? Files.readAllLines(dir.resolve("primary.log"))
                    : List.of();
            throw new IOException(e.getMessage() + "; the end of primary.log: "
                    + String.join(" | ", log.subList(Math.max(0, log.size() - 5), log.size())), e);
        }
    }

    /** Waits until the standby streams synchronously (or, after a restart, again). */
    private void awaitSyncStandby() throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try (Connection c = DriverManager.getConnection(urlOf(primaryPort, "postgres"));
                 Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")) {
                if (rs.next() && rs.getInt(1) > 0) {
                    return;
                }
            } catch (SQLException e) {
                // the primary is still starting
            }
            Thread.sleep(100);
        }
        throw new SQLException("the standby did not become a synchronous standby within 60 s");
    }

    /** The multi-host URL of database {@code ledger}: primary first, then standby; only a primary is used. */
    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + primaryPort + ",127.0.0.1:" + standbyPort
                + "/ledger?user=ledger&targetServerType=primary&connectTimeout=5";
    }

    /** The URL of whichever server is primary now, alone (for checking after a failover). */
    public String primaryUrl() {
        return urlOf(promoted ? standbyPort : primaryPort, "ledger");
    }

    private String urlOf(int port, String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=ledger";
    }

    /** kill -9 of the primary's postmaster and all its processes, as in a machine crash. */
    public void killPrimary() throws IOException {
        long pid = Long.parseLong(Files.readAllLines(Path.of(data("primary"), "postmaster.pid")).get(0).trim());
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow(() -> new IOException("no postmaster " + pid));
        List<ProcessHandle> all = new ArrayList<>(postmaster.descendants().toList());
        all.add(0, postmaster);
        all.forEach(ProcessHandle::destroyForcibly); // SIGKILL, by pid
        for (ProcessHandle p : all) {
            p.onExit().join();
        }
    }

    /** {@code pg_ctl promote} on the standby: it becomes the primary the multi-host URL finds. */
    public void promoteStandby() throws IOException, InterruptedException {
        pg("pg_ctl", "-D", data("standby"), "-w", "-t", "60", "promote");
        promoted = true;
    }

    /** Starts the killed primary again (crash recovery), its standby reconnecting to it. */
    public void restartPrimary() throws IOException, InterruptedException, SQLException {
        // left by kill -9; their pid is gone, and on a busy machine (pid_max 32768) may already be another
        // process's, which makes the postmaster refuse to start (the 100-restart campaign once could not restart it)
        Files.deleteIfExists(Path.of(data("primary"), "postmaster.pid"));
        Files.deleteIfExists(dir.resolve(".s.PGSQL." + primaryPort + ".lock"));
        startPrimary();
        awaitSyncStandby();
    }

    private String data(String which) {
        return dir.resolve(which).toString();
    }

    private void pg(String program, String... args) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asPostgresUser) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.add(bin.resolve(program).toString());
        full.addAll(List.of(args));
        run(full);
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out.strip());
        }
    }

    private static int freePort(int not) throws IOException {
        for (int port = 19310; port <= 19399; port++) {
            if (port == not) {
                continue;
            }
            try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException busy) {
                // next
            }
        }
        throw new IOException("no free loopback port in 19310-19399");
    }

    /** Stops both servers at once (immediate: the data is thrown away) and removes the directory. */
    @Override
    public void close() {
        for (String which : List.of("primary", "standby")) {
            try {
                if (Files.exists(Path.of(data(which), "postmaster.pid"))) {
                    pg("pg_ctl", "-D", data(which), "-m", "immediate", "-w", "stop");
                }
            } catch (Exception e) {
                System.err.println("stopping test PostgreSQL " + which + " in " + dir + ": " + e.getMessage());
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            System.err.println("removing " + dir + ": " + e.getMessage());
        }
    }
}
