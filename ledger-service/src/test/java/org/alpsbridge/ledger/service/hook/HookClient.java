package org.alpsbridge.ledger.service.hook;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

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
        if (built != null) {
            return built;
        }
        for (String p : List.of("make", "cc")) {
            if (SlurmLab.program(p) == null) {
                SlurmLab.unavailable(p + " is not installed: the hooks' C client cannot be built (Debian: build-essential)");
            }
        }
        Path module = Path.of(System.getProperty("user.dir"));
        Path out = module.resolve("target/c");
        SlurmLab.Result r = SlurmLab.run(List.of("make", "-s", "-C", module.resolve("src/main/c").toString(),
                "OUT=" + out, "JVM_HOOK=" + jvmHook()), Duration.ofMinutes(2));
        if (r.exit() != 0) {
            throw new AssertionError("make of the hooks' C client failed: " + r.out() + r.err());
        }
        built = out.resolve("ledger-hook-client");
        if (!Files.isExecutable(built)) {
            throw new AssertionError(built + " was not built");
        }
        return built;
    }

    /** The JVM hook of this source tree ({@code bin/ledger-hook}), the client's fallback. */
    static Path jvmHook() {
        return Path.of(System.getProperty("user.dir")).resolve("../bin/ledger-hook").normalize();
    }
}
