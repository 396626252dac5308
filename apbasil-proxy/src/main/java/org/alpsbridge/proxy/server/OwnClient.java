package org.alpsbridge.proxy.server;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises alpsbridge's own drop-in {@code apbasil} client given as the proxy's {@code exec:} backend. The
 * client forwards every request to a proxy, so with the shipped settings the proxy would call itself: each
 * request nests proxy calls until the time limit kills them. The package installs its client as
 * {@code /usr/bin/apbasil}, the path Slurm's {@code cray.conf} defaults to, which makes the mistake easy.
 *
 * <p>A program is the client when it is the same file (device and inode, after following links) as the
 * client beside this jar ({@code PREFIX/bin/apbasil} for {@code PREFIX/share/alpsbridge/alpsbridge.jar}, or
 * the checkout's {@code bin/apbasil}); when its bytes name the client's main class or its
 * {@code APBASIL_PROXY} setting (any form of the client reads that setting; Cray's apbasil does not); or
 * when it is a script that names such a program by absolute path (a wrapper that execs the client).
 */
final class OwnClient {

    /** Only a file's start is read: the client script and the native client are far smaller. */
    private static final int SCANNED_BYTES = 8 << 20;
    private static final int WRAPPER_DEPTH = 3;
    private static final List<byte[]> MARKERS = List.of(
            "org.alpsbridge.proxy.client.Apbasil".getBytes(StandardCharsets.US_ASCII),
            "APBASIL_PROXY".getBytes(StandardCharsets.US_ASCII));
    private static final Pattern ABSOLUTE_PATH = Pattern.compile("(?<![\\w.$/-])/[\\w./+-]+");

    private final List<Path> knownClients;

    OwnClient(List<Path> knownClients) {
        this.knownClients = List.copyOf(knownClients);
    }

    /** The clients installed beside the running code: the package's or the checkout's {@code bin/apbasil}. */
    static OwnClient besideThisCode() {
        Set<Path> known = new LinkedHashSet<>();
        try {
            Path jar = Path.of(OwnClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            // PREFIX/share/alpsbridge/alpsbridge.jar (packages, tarball) or ROOT/cli/target/alpsbridge.jar (checkout).
            for (Path up = jar.getParent(); up != null; up = up.getParent()) {
                known.add(up.resolve("bin/apbasil"));
                if (known.size() == 3) {
                    break;
                }
            }
        } catch (URISyntaxException | RuntimeException e) {
            // No code location (an unusual class loader): the content markers still recognise the client.
        }
        String home = System.getenv("ALPSBRIDGE_HOME");
        if (home != null && !home.isBlank()) {
            known.add(Path.of(home, "bin/apbasil"));
        }
        return new OwnClient(new ArrayList<>(known));
    }

    /**
     * Why {@code program} is this proxy's own client, e.g. "it is the same file as /usr/bin/apbasil, the
     * drop-in client installed with this proxy"; empty when it is not recognised as the client.
     */
    Optional<String> why(Path program) {
        return why(program, WRAPPER_DEPTH);
    }

    private Optional<String> why(Path program, int depth) {
        for (Path client : knownClients) {
            if (sameFile(program, client)) {
                return Optional.of(program.equals(client)
                        ? "it is the drop-in client installed with this proxy"
                        : "it is the same file (device and inode) as " + client + ", the drop-in client installed with this proxy");
            }
        }
        byte[] head = head(program);
        for (byte[] marker : MARKERS) {
            if (indexOf(head, marker) >= 0) {
                return Optional.of("it is alpsbridge's drop-in client (it reads "
                        + new String(marker, StandardCharsets.US_ASCII) + ")");
            }
        }
        if (depth > 0 && head.length > 2 && head[0] == '#' && head[1] == '!') {
            Matcher m = ABSOLUTE_PATH.matcher(new String(head, StandardCharsets.ISO_8859_1));
            while (m.find()) {
                Path named = Path.of(m.group());
                if (!named.equals(program) && Files.isRegularFile(named) && Files.isExecutable(named)) {
                    Optional<String> inner = why(named, depth - 1);
                    if (inner.isPresent()) {
                        return Optional.of("it is a script that runs " + named + ", and " + inner.get());
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static boolean sameFile(Path a, Path b) {
        try {
            return Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    private static byte[] head(Path program) {
        try (InputStream in = Files.newInputStream(program)) {
            return in.readNBytes(SCANNED_BYTES);
        } catch (IOException e) {
            return new byte[0]; // unreadable: running it will say why
        }
    }

    private static int indexOf(byte[] data, byte[] marker) {
        outer:
        for (int i = 0; i + marker.length <= data.length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (data[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
