package org.alpsbridge.proxy.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Coverage-guided fuzzing of the drop-in client's settings file (/etc/alpsbridge/apbasil.conf): settings
 * whose every value the client accepts, or one IllegalArgumentException naming the file and line.
 */
class ClientSettingsFuzzTest {

    private static final Path FILE = Path.of("/etc/alpsbridge/apbasil.conf");

    @FuzzTest
    void theSettingsFileIsReadOrRefusedNamingFileAndLine(String text) {
        if (text == null) {
            return;
        }
        Map<String, String> settings;
        try {
            settings = ClientSettings.parse(FILE, List.of(text.split("\n", -1)));
        } catch (IllegalArgumentException refused) {
            assertTrue(refused.getMessage().matches("(?s)" + java.util.regex.Pattern.quote(FILE.toString()) + ":\\d+: .+"),
                    "names file and line: " + refused.getMessage());
            return;
        }
        for (String key : settings.keySet()) {
            assertTrue(ClientSettings.KEYS.stream().anyMatch(k -> k.name().equals(key)), "only known keys: " + key);
        }
    }
}
