package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which Slurm a suite runs: the system's (Debian's 22.05, programs on PATH and in /usr/sbin) or one installed under
 * a prefix ({@code bin/}, {@code sbin/}, {@code lib/slurm/}, {@code include/}), such as the Slurm 18.08 that
 * {@code .ci/build-clients} leaves in /var/cache/alpsbridge-clients. Its version is what its {@code slurmd -V} says:
 * slurm.conf lines that changed between versions are chosen by it.
 */
public final class SlurmInstallation {

    /** The system property naming a prefix for the suites that run the system's Slurm by default. */
    public static final String PREFIX_PROPERTY = "alpsbridge.slurm.prefix";

    /** null: the system's. */
    private final Path prefix;
    /** The .ci/build-clients client it was selected by (slurm26), or null. */
    private final String client;
    private final int major;
    private final int minor;
    private final String version;

    private SlurmInstallation(Path prefix, String version, String client) {
        this.prefix = prefix;
        this.client = client;
        this.version = version;
        Matcher m = Pattern.compile("(\\d+)\\.(\\d+)").matcher(version);
        if (!m.find()) {
            throw new IllegalStateException("no version in '" + version + "' (slurmd -V)");
        }
        this.major = Integer.parseInt(m.group(1));
        this.minor = Integer.parseInt(m.group(2));
    }

    /**
     * The prefix named by {@code -Dalpsbridge.slurm.prefix=DIR} (or the environment's
     * {@code ALPSBRIDGE_SLURM_PREFIX}), else the system's: what the hook and SPANK suites run. A name without a
     * slash is a client of {@code .ci/build-clients} ({@code slurm26}: Slurm 26.05.3), found in the clients' cache,
     * built (or waited for) where CI requires it, else the calling test is skipped ({@link BuiltClient}).
     */
    public static SlurmInstallation selected() {
        String named = System.getProperty(PREFIX_PROPERTY, System.getenv("ALPSBRIDGE_SLURM_PREFIX"));
        if (named == null || named.isBlank()) {
            return system();
        }
        return named.contains("/") ? at(Path.of(named)) : at(BuiltClient.prefix(named.strip()), named.strip());
    }

    /** The system's Slurm; the calling test is skipped when slurmd is not installed. */
    public static SlurmInstallation system() {
        return new SlurmInstallation(null, versionOf(Programs.find("slurmd"), "Debian packages slurmctld, slurmd,"
                + " slurm-client; see .ci/install-deps"), null);
    }

    /** The Slurm installed under {@code prefix}; the calling test is skipped when it has no sbin/slurmd. */
    public static SlurmInstallation at(Path prefix) {
        return at(prefix, null);
    }

    private static SlurmInstallation at(Path prefix, String client) {
        Path slurmd = prefix.resolve("sbin/slurmd");
        return new SlurmInstallation(prefix, versionOf(Files.isExecutable(slurmd) ? slurmd : null, "no Slurm under " + prefix), client);
    }

    private static String versionOf(Path slurmd, String missing) {
        if (slurmd == null) {
            Programs.unavailable("slurmd is not installed (" + missing + ")");
        }
        try {
            Programs.Result r = Programs.run(List.of(slurmd.toString(), "-V"), Map.of(), Duration.ofSeconds(30));
            if (r.exit() != 0) {
                throw new IllegalStateException(slurmd + " -V: exit " + r.exit() + ": " + r.err());
            }
            return r.out().strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The prefix, or null for the system's Slurm. */
    public Path prefix() {
        return prefix;
    }

    /** As {@code slurmd -V} says it, e.g. "slurm-wlm 22.05.8" or "slurm 18.08.9". */
    public String version() {
        return version;
    }

    /** Whether this Slurm is {@code major.minor} or newer (Slurm's versions are YY.MM). */
    public boolean atLeast(int major, int minor) {
        return this.major > major || this.major == major && this.minor >= minor;
    }

    /** The program of this installation (bin/ or sbin/), or null when it has none. */
    public Path program(String name) {
        if (prefix == null) {
            return Programs.find(name);
        }
        for (String d : List.of("bin", "sbin")) {
            if (Files.isExecutable(prefix.resolve(d).resolve(name))) {
                return prefix.resolve(d).resolve(name);
            }
        }
        return null;
    }

    /** Skips the calling test (or fails it, required) when one of these programs is missing. */
    public void require(String... programs) {
        for (String p : programs) {
            if (program(p) == null) {
                Programs.unavailable(p + " is not installed" + (prefix == null
                        ? " (Debian packages munge, slurmctld, slurmd, slurm-client; see .ci/install-deps)" : " under " + prefix));
            }
        }
    }

    /** Where {@code slurm/spank.h} and the other headers are. */
    public Path includeDir() {
        return prefix == null ? Path.of("/usr/include") : prefix.resolve("include");
    }

    /**
     * The {@code .ci/build-clients} client this Slurm was selected by ({@code slurm26}), or null (the system's, or a
     * prefix named by its directory): what {@code .ci/slurm-plugin-source} prepares the configured source of.
     */
    public String builtClient() {
        return client;
    }

    /** slurm.conf's {@code PluginDir} for a prefix (null for the system's, which knows its own). */
    public Path pluginDir() {
        return prefix == null ? null : prefix.resolve("lib/slurm");
    }

    /** The environment of this Slurm's commands against {@code conf}: SLURM_CONF, and its programs first on PATH. */
    public Map<String, String> environment(Path conf) {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_CONF", conf.toString());
        if (prefix != null) {
            env.put("PATH", prefix.resolve("bin") + ":" + prefix.resolve("sbin") + ":" + System.getenv("PATH"));
        }
        return env;
    }

    @Override
    public String toString() {
        return version + (prefix == null ? " (system)" : " in " + prefix);
    }
}
