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
import org.alpsbridge.settings.Setting;
import org.alpsbridge.settings.SettingsFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hooks' settings: one table, which the hooks' --help and the shipped file are held to (the C side's defaults: HookClientDefaultsTest). */
class HookSettingsTest {

    @TempDir
    Path dir;

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
        assertEquals(Path.of(SettingsFile.find(HookSettings.KEYS, "spool").defaultValue()), bare.spool());
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

    /** The agent reads the C client's keys too (and skips them): it refuses a submit_timeout the client would. */
    @Test
    void submitTimeoutIsRefusedOutsideTheClientsRangeAsTheClientSaysIt() throws Exception {
        for (String bad : List.of("soon", "0.01", "601")) {
            Path file = Files.writeString(dir.resolve("submit.conf"), "submit_timeout=" + bad + "\n");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> HookSettings.read(Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", file.toString())));
            assertEquals(file + ":1: submit_timeout takes seconds from 0.05 to 600, not '" + bad + "'", e.getMessage());
        }
        Path good = Files.writeString(dir.resolve("submit.conf"), "submit_timeout=0.5\n");
        HookSettings.read(Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", good.toString()));
    }
}
