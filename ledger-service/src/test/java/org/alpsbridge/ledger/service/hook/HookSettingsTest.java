package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.alpsbridge.settings.Setting;
import org.alpsbridge.settings.SettingsFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hooks' settings: one table, which the C client's defaults and the hooks' --help are held to. */
class HookSettingsTest {

    static final Path C_CLIENT = Path.of("src/main/c/ledger-hook-client.c");

    @TempDir
    Path dir;

    static String declared(String key) {
        return SettingsFile.find(HookSettings.KEYS, key).defaultValue();
    }

    static String cDefine(String c, String name) {
        Matcher m = Pattern.compile("#define " + name + " \"([^\"]*)\"").matcher(c);
        assertTrue(m.find(), name + " in " + C_CLIENT);
        return m.group(1);
    }

    static String cStatic(String c, String variable) {
        Matcher m = Pattern.compile("static \\w+ " + variable + " = ([^;]+);").matcher(c);
        assertTrue(m.find(), variable + " in " + C_CLIENT);
        return m.group(1).strip();
    }

    @Test
    void theCClientsDefaultsAreTheDeclaredOnes() throws Exception {
        String c = Files.readString(C_CLIENT);
        assertEquals(HookSettings.DEFAULT_CONFIG, cDefine(c, "DEFAULT_CONFIG"));
        assertEquals(declared("agent_socket"), cDefine(c, "DEFAULT_SOCKET"));
        assertEquals(declared("spool"), cDefine(c, "DEFAULT_SPOOL"));
        assertEquals(declared("jvm_hook"), cDefine(c, "DEFAULT_JVM_HOOK"));
        assertEquals(declared("agent_timeout"), cStatic(c, "agent_timeout"));
        assertEquals(Double.parseDouble(declared("submit_timeout")) * 1000, Double.parseDouble(cStatic(c, "submit_timeout_ms")));
        assertEquals(declared("submit_when_unavailable").equals("refuse") ? "1" : "0", cStatic(c, "submit_refuses"));
        for (String key : HookSettings.CLIENT_KEYS) {
            assertTrue(c.contains("strcmp(key, \"" + key + "\")"), "the C client reads " + key);
        }
    }

    @Test
    void theHelpShowsEveryKeyAtItsDefault() {
        for (Setting k : HookSettings.KEYS) {
            assertTrue(SlurmHook.HELP.contains(k.name() + "=" + k.defaultValue()), k.name() + "=" + k.defaultValue()
                    + " in ledger-prolog --help");
        }
    }

    @Test
    void thePackagedFileShowsEveryKeyAtItsDefault() throws Exception {
        String conf = Files.readString(Path.of("../dist/src/etc/ledger-hook.conf"));
        for (Setting k : HookSettings.KEYS) {
            String line = "#" + k.name() + "=" + (k.name().equals("db") ? "http://" : k.defaultValue());
            assertTrue(conf.contains("\n" + line), line + " in dist/src/etc/ledger-hook.conf");
        }
    }

    @Test
    void fileThenOptionsThenDefaultsAndTheEnvironmentOnlyWhereTheFileIsSilent() throws Exception {
        Path file = Files.writeString(dir.resolve("hook.conf"), "db=http://file:1\ntimeout=3\nmunge_socket=/file/munge\n");
        Map<String, String> env = Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", file.toString(), "ALPSBRIDGE_LEDGER",
                "http://env:1", "ALPSBRIDGE_MUNGE_SOCKET", "/env/munge", "ALPSBRIDGE_LEDGER_TLS_CA", "/env/ca.pem");
        HookSettings s = HookSettings.read(env);
        assertEquals("http://file:1", s.service());
        assertEquals(3_000, s.timeoutMillis());
        assertEquals(Path.of("/file/munge"), s.mungeSocket());
        assertEquals(Path.of("/env/ca.pem"), s.tlsCa());
        assertTrue(s.sign());
        assertEquals(5_000, s.prologRetryMillis());
        assertEquals(64, s.agentThreads());
        assertFalse(s.allow());
        HookSettings o = s.withOptions(true, List.of("--db", "http://option:1", "--retry-for", "7", "--when-unavailable",
                "allow", "--timeout", "0"));
        assertEquals("http://option:1", o.service());
        assertEquals(7_000, o.prologRetryMillis());
        assertEquals(60_000, o.epilogRetryMillis());
        assertTrue(o.allow());
        assertEquals(1_000, o.timeoutMillis(), "a timeout below a second is one");
        HookSettings bare = HookSettings.read(Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", "/dev/null", "ALPSBRIDGE_LEDGER_AUTH", "none"));
        assertNull(bare.mungeSocket());
        assertNull(bare.tlsCa());
        assertFalse(bare.sign());
        assertEquals(Path.of(declared("spool")), bare.spool());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, bare::service);
        assertTrue(e.getMessage().startsWith("no ledger service"), e.getMessage());
    }

    @Test
    void aBadValueIsRefusedNamingTheFileLineOrOption() throws Exception {
        Path file = Files.writeString(dir.resolve("hook.conf"), "# hooks\nagent_workers=many\n");
        Map<String, String> env = Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", file.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HookSettings.read(env));
        assertEquals(file + ":2: agent_workers takes a whole number, not 'many'", e.getMessage());
        Map<String, String> none = Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", "/dev/null");
        e = assertThrows(IllegalArgumentException.class, () -> HookSettings.read(none, true, List.of("--when-unavailable", "maybe")));
        assertEquals("--when-unavailable takes refuse or allow, not 'maybe'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> HookSettings.read(none, true, List.of("--timeout")));
        assertEquals("--timeout needs a value", e.getMessage());
    }
}
