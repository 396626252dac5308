package org.alpsbridge.ledger.service.hook;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.SlurmInstallation;

/**
 * The C client ({@code src/main/c/ledger-hook-client.c}) built for the tests with {@code make} into
 * {@code target/c}, as {@code .ci/run} and dist build it. Skips (fails under ALPSBRIDGE_REQUIRE_SERVICES=1)
 * when there is no C compiler.
 */
final class HookClient {

    private static Path built;

    private HookClient() {
    }

    static synchronized Path build() throws Exception {
        if (built == null) {
            built = build(Path.of(System.getProperty("user.dir")).resolve("target/c"), null);
        }
        return built;
    }

    /**
     * The client built into {@code out}, with {@code config} (null: the default /etc/alpsbridge/ledger-hook.conf)
     * as the settings file it reads: slurmctld runs a PrologSlurmctld with the job's environment only, so a lab
     * that slurmctld runs the client in directly, as a site does, builds its own settings' path in.
     */
    static Path build(Path out, Path config) throws Exception {
        return build(out, config, null);
    }

    /** As {@link #build(Path, Path)}, under {@code sanitizer} (make's SANITIZE, e.g. address,undefined) when given. */
    static Path build(Path out, Path config, String sanitizer) throws Exception {
        for (String p : List.of("make", "cc")) {
            if (Programs.find(p) == null) {
                Programs.unavailable(p + " is not installed: the hooks' C client cannot be built (Debian: build-essential)");
            }
        }
        Path module = Path.of(System.getProperty("user.dir"));
        List<String> argv = new java.util.ArrayList<>(List.of("make", "-s", "-C", module.resolve("src/main/c").toString(),
                "OUT=" + out, "JVM_HOOK=" + jvmHook()));
        if (config != null) {
            argv.add("CONFIG=" + config);
        }
        if (sanitizer != null) {
            argv.add("SANITIZE=" + sanitizer);
        }
        Programs.Result r = Programs.run(argv, java.util.Map.of(), Duration.ofMinutes(2));
        if (r.exit() != 0) {
            throw new AssertionError("make of the hooks' C client failed: " + r.out() + r.err());
        }
        Path client = out.resolve("ledger-hook-client");
        if (!Files.isExecutable(client)) {
            throw new AssertionError(client + " was not built");
        }
        return client;
    }

    /**
     * slurmctld's plugins ({@code src/main/c/prep_ledger.c}, {@code site_factor_ledger.c}) built into {@code out}
     * against the configured source of {@code slurm} ({@code .ci/slurm-plugin-source} prepares it, cached: Debian's
     * source package for the system's Slurm, the tarball of a {@code .ci/build-clients} client such as slurm26), the
     * PrEp plugin reading {@code config}: a plugin runs only in the Slurm version it was compiled with. Skipped for a
     * Slurm named by its directory, whose source the tests cannot know.
     */
    static Path buildPlugins(SlurmInstallation slurm, Path out, Path config) throws Exception {
        return buildPlugins(slurm, out, config, null);
    }

    /**
     * As {@link #buildPlugins(SlurmInstallation, Path, Path)}, built with the sanitizers {@code sanitize} names (the
     * Makefile's {@code SANITIZE}, e.g. {@code address,undefined}; null: none) for a run inside the real daemon.
     */
    static Path buildPlugins(SlurmInstallation slurm, Path out, Path config, String sanitize) throws Exception {
        Path module = Path.of(System.getProperty("user.dir"));
        List<String> prepare = new java.util.ArrayList<>(List.of("bash",
                module.resolve("../.ci/slurm-plugin-source").normalize().toString()));
        if (slurm.prefix() != null) {
            if (slurm.builtClient() == null) {
                Programs.unavailable("slurmctld's plugins are built here against the source of Debian's Slurm or of a"
                        + " .ci/build-clients client (-Dalpsbridge.slurm.prefix=slurm26), not " + slurm);
            }
            prepare.add(slurm.builtClient());
        }
        Programs.Result source = Programs.run(prepare, Map.of(), Duration.ofMinutes(10));
        if (source.exit() == 2) {
            Programs.unavailable("no source of " + slurm + " to build slurmctld's plugins against: " + source.err());
        }
        if (source.exit() != 0) {
            throw new AssertionError("the Slurm source for slurmctld's plugins could not be prepared: " + source.err());
        }
        List<String> make = new java.util.ArrayList<>(List.of("make", "-s", "-C", module.resolve("src/main/c").toString(),
                "plugins", "OUT=" + out, "JVM_HOOK=" + jvmHook(), "CONFIG=" + config, "SLURM_SRC=" + source.out().strip()));
        if (sanitize != null) {
            make.add("SANITIZE=" + sanitize);
        }
        Programs.Result r = Programs.run(make, Map.of(), Duration.ofMinutes(2));
        if (r.exit() != 0) {
            throw new AssertionError("make of slurmctld's plugins failed: " + r.out() + r.err());
        }
        return out;
    }

    /**
     * slurm.conf's {@code PluginDir} for {@code slurm} with the plugins built into {@code plugins}: Slurm's own
     * directory first (Debian: /usr/lib/x86_64-linux-gnu/slurm-wlm; a prefix's lib/slurm), then ours.
     */
    static String pluginDir(SlurmInstallation slurm, Path plugins) throws java.io.IOException, InterruptedException {
        if (slurm.prefix() != null) {
            return slurm.pluginDir() + ":" + plugins;
        }
        Programs.Result r = Programs.run(List.of("sh", "-c", "dirname \"$(dpkg -L slurm-wlm-basic-plugins 2>/dev/null"
                + " | grep '/prep_script.so$' | head -1)\""), Map.of(), Duration.ofSeconds(30));
        String dir = r.out().strip();
        if (r.exit() != 0 || dir.isEmpty() || dir.equals(".")) {
            throw new AssertionError("cannot find the installed Slurm's plugin directory (prep_script.so): " + r.err());
        }
        return dir + ":" + plugins;
    }

    /** The JVM hook of this source tree ({@code bin/ledger-hook}), the client's fallback. */
    static Path jvmHook() {
        return Path.of(System.getProperty("user.dir")).resolve("../bin/ledger-hook").normalize();
    }
}
