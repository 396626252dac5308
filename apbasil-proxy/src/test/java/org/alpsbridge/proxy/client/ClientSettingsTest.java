package org.alpsbridge.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.alpsbridge.address.ProxyAddress;
import org.alpsbridge.settings.Setting;
import org.alpsbridge.settings.SettingsDocs;
import org.alpsbridge.settings.SettingsFile;
import org.junit.jupiter.api.Test;

/** The shipped /etc/alpsbridge/apbasil.conf documents every key the client reads, at its real default. */
class ClientSettingsTest {

    @Test
    void theTemplateShowsEveryKeyAtItsDefaultAndReadsBackAsTheDefaults() {
        String template = Apbasil.settingsTemplate();
        for (org.alpsbridge.settings.Setting k : ClientSettings.KEYS) {
            assertTrue(template.contains("\n#" + k.name() + "=" + k.defaultValue() + "\n"), k.name());
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
    void theManualPageAndTheReadmeDocumentEveryKeyAtItsDefaultAndNothingElse() throws Exception {
        Map<String, String> declared = SettingsDocs.declared(ClientSettings.KEYS);
        assertEquals(declared, SettingsDocs.manPage(Path.of("../dist/src/man/apbasil.1")), "apbasil(1)");
        assertEquals(declared, SettingsDocs.readmeTable(Path.of("../docs/admin-proxy.md"), "Each setting is looked up as"),
                "docs/admin-proxy.md");
    }

    @Test
    void theNativeClientReadsTheDeclaredKeysAtTheDeclaredDefaultsFromTheSameFile() throws Exception {
        String settings = Files.readString(Path.of("src/main/c/settings.c"));
        assertEquals(ClientSettings.KEYS.stream().map(Setting::name).toList(), cArray(settings, "setting_names"));
        assertEquals(ClientSettings.KEYS.stream().map(Setting::defaultValue).toList(),
                cArray(settings, "setting_defaults"), "NULL shown as empty");
        assertEquals(ClientSettings.DEFAULT_CONFIG, SettingsDocs.cDefine(settings, "DEFAULT_CONFIG"));
        // the same ranges: Infinity, NaN and what is past them refused by both
        for (String limit : List.of("MAX_SECONDS", "MAX_RETRIES")) {
            Matcher m = Pattern.compile("(?m)^#define " + limit + " (\\d+)$").matcher(settings);
            assertTrue(m.find(), "#define " + limit + " in settings.c");
            assertEquals(limit.equals("MAX_SECONDS") ? ClientSettings.MAX_SECONDS : ClientSettings.MAX_RETRIES,
                    Long.parseLong(m.group(1)), limit);
        }
        assertTrue(Files.readString(Path.of("src/main/c/Makefile"))
                .contains("\nCONFIG ?= " + ClientSettings.DEFAULT_CONFIG + "\n"), "the Makefile builds the same file in");
        // --help names each key as its environment variable, with the declared default where there is one
        String usage = Files.readString(Path.of("src/main/c/apbasil.c"));
        usage = usage.substring(usage.indexOf("static int usage(void)"));
        usage = usage.substring(0, usage.indexOf("stdout);"));
        for (Setting k : ClientSettings.KEYS) {
            String env = "APBASIL_" + k.name().toUpperCase(java.util.Locale.ROOT);
            Matcher help = Pattern.compile("\"  " + env + " +([^\"]*)").matcher(usage);
            assertTrue(help.find(), env + " in --help");
            Matcher shown = Pattern.compile("\\(default ([^;)]+)").matcher(help.group(1));
            if (shown.find() && !k.defaultValue().isEmpty()) {
                assertEquals(k.defaultValue(), shown.group(1), env + " in --help");
            }
        }
    }

    /** The strings of a C array initializer {@code NAME[...] = {"a", NULL, ...};}, NULL read as "". */
    private static List<String> cArray(String source, String name) {
        String init = source.substring(source.indexOf(name + "[KEY_COUNT] = {"));
        init = init.substring(init.indexOf('{') + 1, init.indexOf("};"));
        List<String> out = new java.util.ArrayList<>();
        Matcher item = Pattern.compile("\"([^\"]*)\"|NULL").matcher(init);
        while (item.find()) {
            out.add(item.group(1) == null ? "" : item.group(1));
        }
        return out;
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

    @Test
    void connectTimeoutIsSecondsWithZeroForNoneOfItsOwnAndIsCheckedLikeTheOtherNumbers() throws Exception {
        assertEquals(Duration.ofSeconds(3), connectTimeout(null), "the default");
        assertEquals(Duration.ofMillis(2500), connectTimeout("2.5"));
        assertEquals(Duration.ZERO, connectTimeout("0"), "none of its own: the call's timeout alone");
        assertEquals(Duration.ofMillis(1), connectTimeout("0.0001"), "above zero is at least a millisecond");
        assertEquals("connect_timeout=-1: expected seconds from 0 to 86400",
                assertThrows(IllegalArgumentException.class, () -> connectTimeout("-1")).getMessage());
        assertEquals("/etc/alpsbridge/apbasil.conf:1: connect_timeout=3s: expected seconds from 0 to 86400",
                assertThrows(IllegalArgumentException.class, () -> ClientSettings.parse(
                        Path.of("/etc/alpsbridge/apbasil.conf"), List.of("CONNECT_TIMEOUT = 3s"))).getMessage());
    }

    @Test
    void theShippedRetriesOutlastAPairsFailoverTwiceOverWithinTheShippedTimeout() throws Exception {
        double lease = Double.parseDouble(org.alpsbridge.proxy.server.ProxyConfig.Key.HA_LEASE.defaultValue());
        // the standby takes over at most ha_lease plus one poll (a third of the lease, at most 1 s) after the
        // active proxy's last renewal (docs/admin-proxy.md, "Timing")
        long takeoverMillis = (long) (lease * 1000) + Math.min((long) (lease * 1000 / 3), 1000);
        int retries = Integer.parseInt(SettingsFile.find(ClientSettings.KEYS, "retries").defaultValue());
        long waits = 0;
        for (int attempt = 2; attempt <= retries + 1; attempt++) {
            waits += Apbasil.ROUNDS.pauseBefore(attempt);
        }
        System.out.println("retries=" + retries + ": " + waits + " ms of waits; a takeover takes at most "
                + takeoverMillis + " ms at ha_lease=" + lease);
        assertTrue(waits >= 2 * takeoverMillis, "retries=" + retries + " waits " + waits + " ms, a takeover "
                + takeoverMillis + " ms: a loaded host's failover outlasts the client");
        assertTrue(waits >= 20_000, "a proxy's restart (a JVM start and its first listen) outlasts " + waits + " ms");
        double timeout = Double.parseDouble(SettingsFile.find(ClientSettings.KEYS, "timeout").defaultValue());
        double connect = Double.parseDouble(SettingsFile.find(ClientSettings.KEYS, "connect_timeout").defaultValue());
        assertTrue(waits + (retries + 1) * 2 * connect * 1000 < timeout * 1000,
                "two silent hosts in every round still leave the last round inside the call's timeout");
    }

    @Test
    void aTimeoutThatCannotBeKeptIsRefusedNamingTheKeyNotCapped() throws Exception {
        for (String v : List.of("Infinity", "-Infinity", "NaN", "1e300", "86400.5")) {
            assertEquals("connect_timeout=" + v + ": expected seconds from 0 to 86400",
                    assertThrows(IllegalArgumentException.class, () -> connectTimeout(v)).getMessage(), v);
        }
        assertEquals(Duration.ofDays(1), connectTimeout("86400"), "a day is the longest");
    }

    /** connect_timeout as the client reads it with {@code value} as the system property (null: unset), no file. */
    private static Duration connectTimeout(String value) throws Exception {
        String key = "apbasil.connect_timeout";
        String config = System.setProperty("apbasil.config", "/dev/null");
        String before = value == null ? System.clearProperty(key) : System.setProperty(key, value);
        try {
            return ClientSettings.load().connectTimeout();
        } finally {
            restore(key, before);
            restore("apbasil.config", config);
        }
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }

    private static List<String> texts(String list) {
        return ProxyAddress.parseList(list).stream().map(ProxyAddress::text).toList();
    }
}
