package org.alpsbridge.ledger.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import java.util.Map;

/**
 * Coverage-guided fuzzing of the site's ledger settings file (/etc/alpsbridge/ledger.conf): settings with a
 * usable ledger URL, or one IllegalArgumentException naming the file and line.
 */
class LedgerSettingsFuzzTest {

    private static final Path FILE = Path.of("/etc/alpsbridge/ledger.conf");

    @FuzzTest
    void theSettingsFileIsReadOrRefusedNamingFileAndLine(String text) {
        if (text == null) {
            return;
        }
        Map<String, String> settings;
        try {
            settings = LedgerSettings.parse(FILE, text);
        } catch (IllegalArgumentException refused) {
            assertTrue(refused.getMessage().matches("(?s)" + java.util.regex.Pattern.quote(FILE.toString()) + ":\\d+: .+"),
                    "names file and line: " + refused.getMessage());
            return;
        }
        String db = settings.getOrDefault("db", "");
        assertTrue(db.isEmpty() || db.startsWith("sqlite:") || db.startsWith("jdbc:postgresql:")
                || (db.startsWith("http://") || db.startsWith("https://")) && java.net.URI.create(db).getHost() != null,
                "a ledger URL: " + db);
    }
}
