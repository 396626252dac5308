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
 * The C client ({@code src/main/c/ledger-hook-client.c}) reads its keys of {@code ledger-hook.conf} by itself, to
 * start in a millisecond: its defaults are the JVM side's (the agent it connects to, the spool it writes into, the
 * file it reads) and the documented ones (README, ledger-prolog(1), the shipped file), read from its source.
 */
class HookClientDefaultsTest {

    private static final Path SOURCE = Path.of("src/main/c/ledger-hook-client.c");

    @TempDir
    Path dir;

    @Test
    void theClientReadsTheAgentsFileAndFindsItsSocketAndSpoolWhereTheAgentDoes() throws Exception {
        String c = Files.readString(SOURCE);
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
        String c = Files.readString(SOURCE);
        Map<String, String> client = clientDefaults(c);
        String readConfig = c.substring(c.indexOf("static int read_config(void)"));
        readConfig = readConfig.substring(0, readConfig.indexOf("\n}\n"));
        Matcher read = Pattern.compile("strcmp\\(key, \"([a-z_]+)\"\\)").matcher(readConfig);
        java.util.Set<String> keys = new java.util.TreeSet<>();
        while (read.find()) {
            keys.add(read.group(1));
        }
        assertEquals(keys, client.keySet(), "every key read_config reads has its default checked here");
        Map<String, String> readme = SettingsDocs.readmeTable(Path.of("../ledger/README.md"),
                "slurm.conf passes no arguments");
        Map<String, String> page = SettingsDocs.manPage(Path.of("../dist/src/man/ledger-prolog.1"));
        Map<String, String> shipped = SettingsDocs.commentedOut(Path.of("../dist/src/etc/ledger-hook.conf"));
        client.forEach((key, value) -> {
            assertEquals(value, readme.get(key), key + " in ledger/README.md");
            assertEquals(value, page.get(key), key + " in ledger-prolog(1)");
            assertEquals(value, shipped.get(key), key + " in /etc/alpsbridge/ledger-hook.conf as shipped");
        });
    }

    /** The keys read_config reads, at the values the client starts with. */
    private static Map<String, String> clientDefaults(String c) {
        Map<String, String> out = new TreeMap<>();
        out.put("agent_socket", SettingsDocs.cDefine(c, "DEFAULT_SOCKET"));
        out.put("spool", SettingsDocs.cDefine(c, "DEFAULT_SPOOL"));
        out.put("jvm_hook", SettingsDocs.cDefine(c, "DEFAULT_JVM_HOOK"));
        out.put("agent_timeout", initial(c, "long agent_timeout"));
        long submitMillis = Long.parseLong(initial(c, "long submit_timeout_ms"));
        out.put("submit_timeout", submitMillis % 1000 == 0 ? String.valueOf(submitMillis / 1000)
                : String.valueOf(submitMillis / 1000.0));
        out.put("submit_when_unavailable", initial(c, "int submit_refuses").equals("0") ? "allow" : "refuse");
        return out;
    }

    /** The initial value of {@code static TYPE NAME = VALUE;}. */
    private static String initial(String c, String declaration) {
        Matcher m = Pattern.compile("(?m)^static " + declaration + " = ([0-9]+);").matcher(c);
        assertTrue(m.find(), declaration);
        return m.group(1);
    }
}
