package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;

/**
 * slurmdbd for a {@link SlurmCluster}, storing in a {@link MariaDb}: its slurmdbd.conf beside the cluster's
 * slurm.conf (where slurmdbd looks for it), on a free port of 127.0.0.1, authenticated by the cluster's munged,
 * running as the cluster's SlurmUser (root). Starting it points the cluster's slurm.conf at it (slurmctld accounts
 * through it from its next start, under the cluster ID slurmdbd gives it) and registers the cluster with
 * {@code sacctmgr}. Stopped by pid.
 */
public final class SlurmDbd implements AutoCloseable {

    private static final Duration START_LIMIT = Duration.ofSeconds(60);

    private final SlurmCluster cluster;
    private long pid = -1;

    private SlurmDbd(SlurmCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * Starts slurmdbd on {@code db}, waits until it answers {@code sacctmgr}, and adds the cluster. The calling test
     * is skipped (failed, required) when the installation has no slurmdbd or sacctmgr.
     */
    public static SlurmDbd start(SlurmCluster cluster, MariaDb db) throws IOException, InterruptedException {
        cluster.installation().require("slurmdbd", "sacctmgr");
        Path dir = cluster.dir();
        int port = Programs.freePort();
        Path conf = dir.resolve("slurmdbd.conf");
        // slurmdbd refuses a slurmdbd.conf others can read (it holds the storage's password)
        Files.deleteIfExists(conf);
        Files.createFile(conf, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(conf, String.join("\n",
                "AuthType=auth/munge",
                "AuthInfo=socket=" + cluster.munge(),
                "DbdHost=" + cluster.host(),
                "DbdAddr=127.0.0.1",
                "DbdPort=" + port,
                "SlurmUser=root",
                "PidFile=" + dir.resolve("slurmdbd.pid"),
                "LogFile=" + dir.resolve("slurmdbd.log"),
                "StorageType=accounting_storage/mysql",
                "StorageHost=127.0.0.1",
                "StoragePort=" + db.port(),
                "StorageUser=root",
                "StorageLoc=slurm_acct_db",
                ""));
        cluster.setConf("AccountingStorageType", "accounting_storage/slurmdbd");
        cluster.setConf("AccountingStorageHost", "127.0.0.1");
        cluster.setConf("AccountingStoragePort", Integer.toString(port));
        // what slurmctld and the commands authenticate to slurmdbd with: for auth/munge, munged's socket
        cluster.setConf("AccountingStoragePass", cluster.munge().toString());
        // A slurmctld newer than 22.05 (26.05 here) that ran without accounting saved the ClusterID it made up
        // (StateSaveLocation/clustername), and at its next start, with slurmdbd, stops with "CLUSTER ID MISMATCH"
        // as slurmdbd gave the cluster another. Removing the file is what that message says to do: slurmctld then
        // takes slurmdbd's ID. (22.05 keeps only the cluster's name there, and writes it again.)
        Files.deleteIfExists(cluster.file("state/clustername"));
        SlurmDbd dbd = new SlurmDbd(cluster);
        try {
            Files.deleteIfExists(dir.resolve("slurmdbd.pid"));
            Programs.Result r = Programs.run(List.of(cluster.installation().program("slurmdbd").toString()),
                    cluster.environment(), START_LIMIT);
            if (r.exit() != 0) {
                throw new SlurmCluster.NotStarted("slurmdbd did not start (exit " + r.exit() + "): " + r.out().strip()
                        + " " + r.err().strip() + " " + cluster.tail("slurmdbd.log"));
            }
            long deadline = System.nanoTime() + START_LIMIT.toNanos();
            Programs.Result answer;
            while ((answer = cluster.run("sacctmgr", "-n", "-P", "show", "cluster", "format=cluster")).exit() != 0) {
                if (System.nanoTime() > deadline) {
                    throw new SlurmCluster.NotStarted("slurmdbd does not answer sacctmgr after " + START_LIMIT.toSeconds()
                            + " s: " + answer.err().strip() + "; " + cluster.tail("slurmdbd.log"));
                }
                Thread.sleep(100);
            }
            dbd.pid = pidFrom(dir.resolve("slurmdbd.pid"));
            dbd.sacctmgr("add", "cluster", cluster.name());
            return dbd;
        } catch (IOException | RuntimeException e) {
            dbd.close();
            throw e;
        }
    }

    /** Adds the accounts to the cluster, each with {@code user} in it (the first is the user's default). */
    public void addAccounts(String user, List<String> accounts) throws IOException, InterruptedException {
        String names = String.join(",", accounts);
        sacctmgr("add", "account", names, "cluster=" + cluster.name());
        sacctmgr("add", "user", user, "account=" + names, "defaultaccount=" + accounts.get(0), "cluster=" + cluster.name());
    }

    /** {@code sacctmgr -i ARGS}, which must succeed. */
    public Programs.Result sacctmgr(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("-i"));
        argv.addAll(List.of(args));
        Programs.Result r = cluster.run(Map.of(), "sacctmgr", argv.toArray(String[]::new));
        Assertions.assertEquals(0, r.exit(), () -> "sacctmgr " + String.join(" ", args) + ": " + r.out() + r.err());
        return r;
    }

    private static long pidFrom(Path pidFile) {
        try {
            return Long.parseLong(Files.readString(pidFile).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** Stops slurmdbd by its pid. */
    @Override
    public void close() {
        long p = pid > 0 ? pid : pidFrom(cluster.dir().resolve("slurmdbd.pid"));
        if (p > 0) {
            Programs.stop(p, Duration.ofSeconds(20));
        }
        pid = -1;
    }
}
