package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.alpsbridge.settings.SettingsDocs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The C side (the client and slurmctld's PrEp plugin, through {@code src/main/c/hook-core.c}) reads its keys of
 * {@code ledger-hook.conf} by itself, to start in a millisecond: its defaults are the JVM side's (the agent it
 * connects to, the spool it writes into, the file it reads) and the documented ones (README, ledger-prolog(1), the
 * shipped file), read from its source.
 */
class HookClientDefaultsTest {

    private static final Path HEADER = Path.of("src/main/c/hook-core.h");
    private static final Path SOURCE = Path.of("src/main/c/hook-core.c");

    @TempDir
    Path dir;

    @Test
    void theClientReadsTheAgentsFileAndFindsItsSocketAndSpoolWhereTheAgentDoes() throws Exception {
        String c = Files.readString(HEADER);
        Path empty = Files.writeString(dir.resolve("ledger-hook.conf"), "");
        HookSettings agent = HookSettings.read(Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", empty.toString()));
        assertEquals(agent.agentSocket().toString(), SettingsDocs.cDefine(c, "DEFAULT_SOCKET"));
        assertEquals(agent.spool().toString(), SettingsDocs.cDefine(c, "DEFAULT_SPOOL"));
        assertEquals(HookSettings.DEFAULT_CONFIG, SettingsDocs.cDefine(c, "DEFAULT_CONFIG"));
        String makefile = Files.readString(SOURCE.resolveSibling("Makefile"));
        assertTrue(makefile.contains("\nCONFIG ?= " + HookSettings.DEFAULT_CONFIG + "\n"),
                "the Makefile builds the same file in");
        assertTrue(makefile.contains("\nJVM_HOOK ?= " + SettingsDocs.cDefine(c, "DEFAULT_JVM_HOOK") + "\n"),
                "and the same JVM hook");
    }

    @Test
    void everyDefaultOfTheClientIsTheDocumentedOne() throws Exception {
        String c = Files.readString(HEADER);
        Map<String, String> client = clientDefaults(c);
        String source = Files.readString(SOURCE);
        assertTrue(source.contains("s->submit_refuses = 0;"), "submit_when_unavailable starts at allow");
        String readConfig = source.substring(source.indexOf("int hook_parse_settings("));
        readConfig = readConfig.substring(0, readConfig.indexOf("\n}\n"));
        Matcher read = Pattern.compile("strcmp\\(key, \"([a-z_]+)\"\\)").matcher(readConfig);
        java.util.Set<String> keys = new java.util.TreeSet<>();
        while (read.find()) {
            keys.add(read.group(1));
        }
        assertEquals(keys, client.keySet(), "every key hook_parse_settings reads has its default checked here");
        assertTrue(keys.containsAll(HookSettings.CLIENT_KEYS), "the C side reads the keys HookSettings says it reads");
        for (String key : HookSettings.CLIENT_KEYS) {
            String declared = HookSettings.KEYS.stream().filter(k -> k.name().equals(key)).findFirst().orElseThrow()
                    .defaultValue();
            assertEquals(declared, client.get(key), key + ": the C side's default is the one HookSettings declares");
        }
        Map<String, String> readme = SettingsDocs.readmeTable(Path.of("../docs/admin-ledger.md"),
                "slurm.conf passes no arguments");
        Map<String, String> page = SettingsDocs.manPage(Path.of("../dist/src/man/ledger-prolog.1"));
        Map<String, String> shipped = SettingsDocs.commentedOut(Path.of("../dist/src/etc/ledger-hook.conf"));
        client.forEach((key, value) -> {
            assertEquals(value, readme.get(key), key + " in docs/admin-ledger.md");
            assertEquals(value, page.get(key), key + " in ledger-prolog(1)");
            assertEquals(value, shipped.get(key), key + " in /etc/alpsbridge/ledger-hook.conf as shipped");
        });
    }

    /** The keys hook_parse_settings reads, at the values it starts with (hook-core.h's defaults). */
    private static Map<String, String> clientDefaults(String h) {
        Map<String, String> out = new TreeMap<>();
        out.put("agent_socket", SettingsDocs.cDefine(h, "DEFAULT_SOCKET"));
        out.put("spool", SettingsDocs.cDefine(h, "DEFAULT_SPOOL"));
        out.put("jvm_hook", SettingsDocs.cDefine(h, "DEFAULT_JVM_HOOK"));
        out.put("agent_timeout", define(h, "DEFAULT_AGENT_TIMEOUT"));
        long submitMillis = Long.parseLong(define(h, "DEFAULT_SUBMIT_TIMEOUT_MS"));
        out.put("submit_timeout", submitMillis % 1000 == 0 ? String.valueOf(submitMillis / 1000)
                : String.valueOf(submitMillis / 1000.0));
        out.put("submit_when_unavailable", "allow"); // hook_default_settings starts with submit_refuses = 0
        return out;
    }

    /** The number of {@code #define NAME N}. */
    private static String define(String h, String name) {
        Matcher m = Pattern.compile("(?m)^#define " + name + " ([0-9]+)$").matcher(h);
        assertTrue(m.find(), name);
        return m.group(1);
    }
}
