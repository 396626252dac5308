package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The unprivileged user a Slurm scenario's jobs run as, as a site's users run theirs: {@value #NAME}, an ordinary
 * account of this host (uid from the regular range, a group of its own, a home it owns, a login shell) that runs
 * {@code srun}, {@code sbatch} and the other clients itself. Jobs run as root only where the test is about root.
 *
 * <pre>{@code
 * JobUser user = JobUser.ensure();          // creates the account once per host (needs root)
 * SlurmCluster slurm = SlurmCluster.configure(spec);
 * user.admit(slurm);                        // the user can reach slurm.conf, its neighbours and MUNGE's socket
 * Programs.Result r = user.run(slurm, Map.of(), "srun", "-n1", "id", "-u");   // as the user, from its home
 * Path spool = user.ownedDirectory(slurm.dir().resolve("job-files"));         // where its jobs may write
 * }</pre>
 *
 * <p>The user's commands run through {@code runuser} (as root may; no password, no PAM session) with a clean
 * environment (HOME, USER, LOGNAME, SHELL, PATH, the cluster's SLURM_CONF and what the caller adds), from the
 * user's home: nothing of the test JVM's environment or working directory reaches them.
 */
public final class JobUser {

    /** The account's name. */
    public static final String NAME = "alpsbridge-test";
    /** Its home, which it owns (mode 0755: its jobs' working directory, readable like a site's homes). */
    public static final Path HOME = Path.of("/var/lib", NAME);
    /** The PATH its commands get (a cluster's own programs are named by absolute path). */
    public static final String PATH = "/usr/local/bin:/usr/bin:/bin";
    private static final Duration LIMIT = HostAccounts.LIMIT;

    private final int uid;
    private final int gid;

    private JobUser(int uid, int gid) {
        this.uid = uid;
        this.gid = gid;
    }

    /**
     * The user, created first if this host has none ({@code useradd}: a regular account with its own group and home).
     * The calling test is skipped (failed under {@code ALPSBRIDGE_REQUIRE_SERVICES=1}) when this JVM is not root.
     * Labs start side by side, in one JVM and in several: the account is looked up and made under
     * {@link HostAccounts#edit}, as {@link LocalAccounts} makes theirs.
     */
    public static JobUser ensure() throws IOException, InterruptedException {
        HostAccounts.requireRoot("creating the jobs' user " + NAME);
        return HostAccounts.edit(() -> {
            JobUser known = lookUp();
            if (known != null) {
                return known;
            }
            HostAccounts.run(List.of("useradd", "--create-home", "--home-dir", HOME.toString(), "--shell", "/bin/sh",
                    "--user-group", "--comment", "alpsbridge test jobs", NAME));
            JobUser made = lookUp();
            if (made == null) {
                throw new IOException("useradd " + NAME + " succeeded, but getent passwd does not know it");
            }
            Files.setPosixFilePermissions(HOME, PosixFilePermissions.fromString("rwxr-xr-x"));
            return made;
        });
    }

    /** The account as getent knows it, or null. */
    private static JobUser lookUp() throws IOException, InterruptedException {
        String[] f = HostAccounts.entry("passwd", NAME);
        return f == null ? null : new JobUser(Integer.parseInt(f[2]), Integer.parseInt(f[3]));
    }

    /** The user's name, {@value #NAME}. */
    public String name() {
        return NAME;
    }

    /** Its uid (never 0). */
    public int uid() {
        return uid;
    }

    /** Its primary group's gid. */
    public int gid() {
        return gid;
    }

    /** Its home, {@link #HOME}. */
    public Path home() {
        return HOME;
    }

    /**
     * Lets the user use {@code cluster} as a site's users use theirs: the cluster's directory and MUNGE's socket
     * directory become searchable by others (o+x: files are reached by name, the directories are not listed), so
     * the clients read slurm.conf, plugstack.conf and what else the suite writes there readable by all (the usual
     * umask), and authenticate through munged. State and keys stay as private as their own modes make them.
     */
    public void admit(SlurmCluster cluster) throws IOException {
        searchable(cluster.dir());
        searchable(cluster.munge().getParent());
    }

    /** Adds o+x (and g+x) to a directory. */
    public static void searchable(Path dir) throws IOException {
        Set<PosixFilePermission> p = EnumSet.copyOf(Files.getPosixFilePermissions(dir));
        p.add(PosixFilePermission.OTHERS_EXECUTE);
        p.add(PosixFilePermission.GROUP_EXECUTE);
        Files.setPosixFilePermissions(dir, p);
    }

    /** A directory the user owns (made if absent, mode 0755): where its jobs and tools may write. */
    public Path ownedDirectory(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        chown(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    /** Gives a file or directory to the user and its group. */
    public void chown(Path p) throws IOException, InterruptedException {
        Programs.Result r = Programs.run(List.of("chown", uid + ":" + gid, p.toString()), Map.of(), LIMIT);
        if (r.exit() != 0) {
            throw new IOException("chown " + p + ": " + r.err().strip());
        }
    }

    /**
     * One of {@code cluster}'s commands (srun, sbatch, squeue, ...) run by the user itself from its home, with a clean
     * environment plus {@code env}; killed after two minutes.
     */
    public Programs.Result run(SlurmCluster cluster, Map<String, String> env, String command, String... args)
            throws IOException, InterruptedException {
        Path program = cluster.installation().program(command);
        return run(cluster.environment(), env, program != null ? program.toString() : command, args);
    }

    /** Any program run by the user from its home, with a clean environment plus {@code env}; killed after two minutes. */
    public Programs.Result runProgram(Map<String, String> env, String program, String... args) throws IOException, InterruptedException {
        return run(Map.of(), env, program, args);
    }

    private Programs.Result run(Map<String, String> base, Map<String, String> env, String program, String... args)
            throws IOException, InterruptedException {
        Map<String, String> all = new TreeMap<>();
        all.put("HOME", HOME.toString());
        all.put("USER", NAME);
        all.put("LOGNAME", NAME);
        all.put("SHELL", "/bin/sh");
        all.putAll(base);
        all.put("PATH", PATH + (base.containsKey("PATH") ? ":" + base.get("PATH") : ""));
        all.putAll(env);
        List<String> argv = new ArrayList<>(List.of("runuser", "-u", NAME, "--", "env", "-i"));
        all.forEach((k, v) -> argv.add(k + "=" + v));
        argv.add(program);
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(HOME.toFile());
        return Programs.run(pb, LIMIT);
    }
}
