package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * This host's account files (/etc/passwd, /etc/group and their shadows) as the harness edits them: as root, one edit
 * at a time. useradd and its kin refuse rather than wait while another holds the files ("cannot lock /etc/passwd;
 * try again later"), and accounts are made by several test JVMs (builds side by side) and by several labs of one JVM
 * at once; {@link JobUser} and {@link LocalAccounts} both edit through {@link #edit}.
 */
final class HostAccounts {

    static final Duration LIMIT = Duration.ofMinutes(2);
    /** Serialises the edits between test JVMs on the host (the path JobUser has always locked). */
    private static final Path LOCK = Path.of("/run/lock/alpsbridge-job-user.lock");
    /**
     * Serialises them within this JVM: one JVM may hold a file's lock only once (a second lock() throws
     * OverlappingFileLockException).
     */
    private static final Object IN_THIS_JVM = new Object();

    private HostAccounts() {
    }

    /** An edit of the account files. */
    interface Edit<T> {
        T run() throws IOException, InterruptedException;
    }

    /** Skips the calling test (fails it under ALPSBRIDGE_REQUIRE_SERVICES=1) unless this JVM is root. */
    static void requireRoot(String what) {
        String me = System.getProperty("user.name");
        if (!"root".equals(me)) {
            Programs.unavailable(what + " needs root; this test runs as " + me);
        }
    }

    /** {@code edit} run while no other edit of this host's accounts through the harness runs. */
    static <T> T edit(Edit<T> edit) throws IOException, InterruptedException {
        synchronized (IN_THIS_JVM) {
            Files.createDirectories(LOCK.getParent());
            try (FileChannel lock = FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock held = lock.lock()) {
                return edit.run();
            }
        }
    }

    /** The fields of {@code key}'s line in getent's {@code database} (passwd, group), or null when it has none. */
    static String[] entry(String database, String key) throws IOException, InterruptedException {
        Programs.Result r = Programs.run(List.of("getent", database, key), Map.of(), LIMIT);
        return r.exit() == 0 ? r.out().strip().split(":", -1) : null;
    }

    /** Runs an account command (useradd, groupdel, ...), which must succeed. */
    static void run(List<String> argv) throws IOException, InterruptedException {
        Programs.Result r = Programs.run(argv, Map.of(), LIMIT);
        if (r.exit() != 0) {
            throw new IOException(String.join(" ", argv) + " failed (exit " + r.exit() + "): " + r.err().strip());
        }
    }
}
