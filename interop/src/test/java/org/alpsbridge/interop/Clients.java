package org.alpsbridge.interop;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where {@code .ci/build-clients} left the real clients: {@code $ALPSBRIDGE_CLIENTS_CACHE} (default
 * {@code /var/cache/alpsbridge-clients}) {@code /slurm-<sha256>} and {@code /openpbs-<sha256>}, keyed by the tarball
 * in {@code ../shared/clients} ({@code $ALPSBRIDGE_CLIENTS_SRC}). A missing build is made by the script when
 * ALPSBRIDGE_REQUIRE_SERVICES=1 (CI on a machine whose cache is cold), else the test is skipped with the reason.
 */
final class Clients {

    private Clients() {
    }

    static Path slurm() {
        return find("slurm", "slurm-18.08.");
    }

    /**
     * OpenPBS, installed as {@code pbs_postinstall} leaves it: {@code pbs_iff} setuid root, which authenticates the
     * commands of users other than root. A cached build from before the script did that is finished by running it.
     */
    static Path openpbs() {
        Path dir = find("openpbs", "openpbs-");
        if (!setuid(dir.resolve("sbin/pbs_iff"))) {
            Host.run(Map.of(), Duration.ofMinutes(5), List.of("bash", Host.repository().resolve(".ci/build-clients").toString(), "openpbs"));
            if (!setuid(dir.resolve("sbin/pbs_iff"))) {
                Host.skip(dir.resolve("sbin/pbs_iff") + " is not setuid root; run .ci/build-clients openpbs");
            }
        }
        return dir;
    }

    private static boolean setuid(Path program) {
        try {
            return (Integer) Files.getAttribute(program, "unix:mode") % 010000 / 04000 == 1
                    && (Integer) Files.getAttribute(program, "unix:uid") == 0;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static synchronized Path find(String name, String tarballPrefix) {
        Path src = source();
        Path tarball;
        try (Stream<Path> files = Files.list(src)) {
            tarball = files.filter(f -> f.getFileName().toString().startsWith(tarballPrefix)
                    && f.getFileName().toString().contains(".tar")).findFirst().orElse(null);
        } catch (IOException e) {
            tarball = null; // no such directory: said below
        }
        if (tarball == null) {
            Host.skip("no " + tarballPrefix + "*.tar.* in " + src + ": set ALPSBRIDGE_CLIENTS_SRC to the directory that"
                    + " holds the clients' source tarballs (default ../shared/clients beside the checkout)");
        }
        Path dir = cache().resolve(name + "-" + sha256(tarball));
        if (!Files.exists(dir.resolve(".built"))) {
            if (!"1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
                Host.skip(name + " is not built in " + dir + "; run .ci/build-clients " + name);
            }
            // The script takes the client's build lock: while CI's background build (.ci/run) holds it, this waits
            // for that build (at most ALPSBRIDGE_BUILD_WAIT s) instead of starting a second one, and fails with the
            // log's tail if it failed. The limit here covers that wait and one cold build after it.
            System.out.println("interop: " + name + " is not built in " + dir + "; running .ci/build-clients " + name
                    + " (waits for a build already running, else builds: Slurm ~10 min, OpenPBS ~15-25 min on 2 cores)");
            long started = System.nanoTime();
            Host.Result r = Host.run(Map.of(), Duration.ofMinutes(100),
                    List.of("bash", Host.repository().resolve(".ci/build-clients").toString(), name));
            System.out.println("interop: .ci/build-clients " + name + " ended with exit " + r.exit() + " after "
                    + Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s: " + r.out().strip());
            if (r.exit() != 0 || !Files.exists(dir.resolve(".built"))) {
                throw new IllegalStateException(".ci/build-clients " + name + " failed (exit " + r.exit() + "): " + r.out());
            }
        }
        return dir;
    }

    private static Path source() {
        String env = System.getenv("ALPSBRIDGE_CLIENTS_SRC");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        // no machine-specific fallback: a checkout elsewhere names its tarballs' directory
        return Host.repository().getParent().resolve("shared/clients");
    }

    private static Path cache() {
        String env = System.getenv("ALPSBRIDGE_CLIENTS_CACHE");
        return Path.of(env != null && !env.isBlank() ? env : "/var/cache/alpsbridge-clients");
    }

    private static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                d.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot hash " + file, e);
        }
    }
}
