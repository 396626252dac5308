package org.alpsbridge.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    @Test
    void aProxyListIsReadInOrderAndOneAddressIsAListOfOne() {
        assertEquals(List.of("127.0.0.1:6830"), texts(" 127.0.0.1:6830 "));
        assertEquals(List.of("10.0.0.1:6830", "[fe80::1]:6830", "unix:/run/a.sock"),
                texts("10.0.0.1:6830 ,[fe80::1]:6830,  unix:/run/a.sock"));
        assertEquals("proxy list a:1,,b:2 has an empty entry (number 2); expected host:port or unix:/path, separated "
                + "by commas", assertThrows(IllegalArgumentException.class, () -> ProxyAddress.parseList("a:1,,b:2"))
                        .getMessage());
        assertEquals("proxy address b is not host:port or unix:/path",
                assertThrows(IllegalArgumentException.class, () -> ProxyAddress.parseList("a:1, b")).getMessage());
        assertEquals("/etc/alpsbridge/apbasil.conf:2: proxy list a:1, has an empty entry (number 2); expected "
                + "host:port or unix:/path, separated by commas", assertThrows(IllegalArgumentException.class,
                        () -> ClientSettings.parse(Path.of("/etc/alpsbridge/apbasil.conf"), List.of("", "proxy=a:1,")))
                        .getMessage());
    }

    private static List<String> texts(String list) {
        return ProxyAddress.parseList(list).stream().map(ProxyAddress::text).toList();
    }
}
