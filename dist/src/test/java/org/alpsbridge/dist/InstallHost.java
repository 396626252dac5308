package org.alpsbridge.dist;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** What an install test needs of this machine before it may run dpkg on it, and how it says it cannot. */
final class InstallHost {

    private InstallHost() {
    }

    /** Root, dpkg, and no alpsbridge installed: the install tests never touch a real installation. */
    static void requireRootDpkgAndNoAlpsbridge() throws Exception {
        require(Shell.run("id", "-u").out().strip().equals("0"), "the install test runs dpkg and needs root");
        require(Files.isExecutable(Path.of("/usr/bin/dpkg")), "the install test needs dpkg (Debian)");
        require(Shell.run("dpkg-query", "-W", "-f=${Status}", "alpsbridge").out().contains("not-installed")
                        || Shell.run("dpkg-query", "-W", "alpsbridge").status() != 0,
                "alpsbridge is installed on this machine; the install test never touches a real installation");
    }

    /** Skips the test with the reason, or fails it under {@code ALPSBRIDGE_REQUIRE_SERVICES=1}. */
    static void require(boolean condition, String reason) {
        if (!condition && "1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
            throw new AssertionError(reason + " (ALPSBRIDGE_REQUIRE_SERVICES=1)");
        }
        Assumptions.assumeTrue(condition, reason);
    }
}
