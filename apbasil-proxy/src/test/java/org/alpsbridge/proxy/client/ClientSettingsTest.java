package org.alpsbridge.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shipped /etc/alpsbridge/apbasil.conf documents every key the client reads, at its real default. */
class ClientSettingsTest {

    @Test
    void theTemplateShowsEveryKeyAtItsDefaultAndReadsBackAsTheDefaults() {
        String template = Apbasil.settingsTemplate();
        for (String[] k : ClientSettings.KEYS) {
            assertTrue(template.contains("\n#" + k[0] + "=" + k[1] + "\n"), k[0]);
        }
        Path file = Path.of("/etc/alpsbridge/apbasil.conf");
        assertEquals(Map.of(), ClientSettings.parse(file, List.of(template.split("\n"))));
        Map<String, String> uncommented = ClientSettings.parse(file,
                List.of(template.replaceAll("(?m)^#([a-z_]+=)", "$1").split("\n")));
        assertEquals(ClientSettings.KEYS.size(), uncommented.size());
        assertEquals("127.0.0.1:6830", uncommented.get("proxy"));
        assertEquals("munge", uncommented.get("auth"));
    }
}
