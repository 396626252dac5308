package org.alpsbridge.proxy.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** BASIL documents and throwaway apbasil scripts for the daemon's tests. */
final class Fixtures {

    private Fixtures() {
    }

    /** A document from {@code src/test/resources/basil/}. */
    static byte[] basil(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/basil/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture basil/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes an executable {@code /bin/sh} script standing in for apbasil. */
    static Path script(Path dir, String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    /** A fake apbasil that stores its stdin in {@code request.out} and prints {@code response} (a fixture name). */
    static Path answering(Path dir, String response) throws IOException {
        Path canned = dir.resolve("canned-" + response);
        Files.write(canned, basil(response));
        return script(dir, "apbasil-" + response, "cat > '" + dir.resolve("request.out") + "'\ncat '" + canned + "'");
    }
}
