package org.alpsbridge.ledger.service.hook;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.alpsbridge.slurm.harness.Programs;

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

    /** The JVM hook of this source tree ({@code bin/ledger-hook}), the client's fallback. */
    static Path jvmHook() {
        return Path.of(System.getProperty("user.dir")).resolve("../bin/ledger-hook").normalize();
    }
}
