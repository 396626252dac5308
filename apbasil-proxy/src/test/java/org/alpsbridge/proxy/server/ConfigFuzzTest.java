package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Coverage-guided fuzzing of the daemon's settings file (/etc/alpsbridge/proxy.conf): any text gives settings
 * or one IllegalArgumentException that names the file (and the line, when one line is at fault); never
 * another exception.
 */
class ConfigFuzzTest {

    private static final Path FILE = temporaryFile();

    @FuzzTest
    void theSettingsFileIsReadOrRefusedNamingFileAndLine(byte[] text) throws IOException {
        Files.write(FILE, text);
        try {
            ProxyConfig c = ProxyConfig.read(FILE);
            assertTrue(!c.listen().isEmpty(), "a config that reads is a usable config");
        } catch (IllegalArgumentException refused) {
            assertTrue(refused.getMessage().startsWith(FILE + ":"), "names the file: " + refused.getMessage());
        }
    }

    private static Path temporaryFile() {
        try {
            Path f = Files.createTempFile("proxy-conf-fuzz", ".conf");
            f.toFile().deleteOnExit();
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
