package org.alpsbridge.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Cray SDB Slurm 18.08 reads at start ({@code XTAdmin.processor}: each NID's torus coordinates and type), as a
 * private MariaDB on a free loopback port with its own data directory, its rows generated from the emulated
 * machine's inventory. Stopped by pid.
 */
final class Sdb implements AutoCloseable {

    private static final Pattern NODE = Pattern.compile("<Node node_id=\"(\\d+)\" name=\"c(\\d+)-(\\d+)c(\\d+)s(\\d+)n(\\d+)\"");

    private final Path dir;
    private final int port;
    private final long pid;

    private Sdb(Path dir, int port, long pid) {
        this.dir = dir;
        this.port = port;
        this.pid = pid;
    }

    /** Starts MariaDB in {@code dir} and fills {@code XTAdmin.processor} from a QUERY(INVENTORY) answer. */
    static Sdb start(Path dir, String inventoryXml) throws IOException {
        if (!Files.isExecutable(Path.of("/usr/sbin/mariadbd")) || !Files.isExecutable(Path.of("/usr/bin/mariadb-install-db"))) {
            Host.skip("MariaDB is not installed (Debian package mariadb-server): Slurm 18.08's SDB");
        }
        Path data = dir.resolve("sdb");
        Files.createDirectories(data);
        Host.run(Map.of(), Duration.ofMinutes(3), List.of("/usr/bin/mariadb-install-db", "--no-defaults",
                "--datadir=" + data, "--user=root", "--skip-test-db", "--auth-root-authentication-method=normal")).ok();
        int port = Host.freePort();
        Path pidFile = dir.resolve("sdb.pid");
        new ProcessBuilder("/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + data, "--user=root",
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("sdb.sock"),
                "--pid-file=" + pidFile, "--skip-grant-tables", "--log-error=" + dir.resolve("sdb.log"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("sdb.out").toFile()).start();
        Sdb sdb = new Sdb(dir, port, -1);
        if (!Host.await(Duration.ofSeconds(60), () -> sdb.sql("SELECT 1").exit() == 0)) {
            sdb.close();
            throw new IllegalStateException("MariaDB did not start: " + Files.readString(dir.resolve("sdb.log")));
        }
        try {
            fill(sdb, inventoryXml);
        } catch (RuntimeException e) {
            sdb.close(); // by its pid file
            throw e;
        }
        return new Sdb(dir, port, Host.pidFrom(pidFile));
    }

    private static void fill(Sdb sdb, String inventoryXml) {
        StringBuilder rows = new StringBuilder();
        Matcher m = NODE.matcher(inventoryXml);
        while (m.find()) {
            // cname cX-YcCsSnN: cabinet X, row Y, chassis C, slot S, node N; one torus coordinate per node (Aries)
            int x = Integer.parseInt(m.group(2));
            int y = Integer.parseInt(m.group(3)) * 3 + Integer.parseInt(m.group(4));
            int z = Integer.parseInt(m.group(5)) * 4 + Integer.parseInt(m.group(6));
            rows.append(rows.length() == 0 ? "" : ",").append('(').append(m.group(1)).append(',').append(x).append(',')
                    .append(y).append(',').append(z).append(",'compute')");
        }
        if (rows.length() == 0) {
            throw new IllegalStateException("no Node in the inventory: " + inventoryXml);
        }
        // from a file: at 4,392 nodes the statement passes the 128 kB a single argument may have
        Path file = sdb.dir.resolve("processor.sql");
        try {
            Files.writeString(file, "CREATE DATABASE XTAdmin; CREATE TABLE XTAdmin.processor (processor_id INT PRIMARY KEY,"
                    + " x_coord INT, y_coord INT, z_coord INT, processor_type VARCHAR(16));"
                    + " INSERT INTO XTAdmin.processor VALUES " + rows + ";\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        sdb.sql("source " + file).ok();
    }

    Host.Result sql(String statements) {
        return Host.run(Map.of(), Duration.ofSeconds(30), List.of("mariadb", "--no-defaults", "-h127.0.0.1",
                "-P" + port, "-uroot", "-e", statements));
    }

    int port() {
        return port;
    }

    @Override
    public void close() {
        Host.stop(pid > 0 ? pid : Host.pidFrom(dir.resolve("sdb.pid")));
    }
}
