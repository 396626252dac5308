package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.settings.SettingsDocs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProxyConfigTest {

    @TempDir
    Path dir;

    @Test
    void defaultsAreTheDocumentedOnes() {
        ProxyConfig c = ProxyConfig.defaults();
        assertEquals(List.of("127.0.0.1:6830"), c.listen());
        assertEquals("exec:/opt/cray/alps/default/bin/apbasil", c.backend());
        assertTrue(c.mungeAuth());
        assertEquals(Duration.ofSeconds(60), c.apbasilTimeout("QUERY/INVENTORY"));
        assertEquals(1048576, c.maxRequestBytes());
        assertNull(c.exchangeJournal());
        assertTrue(c.allowQuery().allows(new Caller(12345, 12345)));
        assertFalse(c.allowReserve().allows(new Caller(12345, 12345)));
        assertTrue(c.allowReserve().allows(new Caller(0, 0)));
    }

    @Test
    void theModuleReadmeDocumentsEveryKeyWithItsDefaultAndNothingElse() throws Exception {
        assertEquals(SettingsDocs.declared(ProxyConfig.settings()),
                SettingsDocs.readmeTable(Path.of("../docs/admin-proxy.md"), "### Settings (`--config FILE`"));
    }

    @Test
    void theFileIsKeyValueWithCommentsAndCaseInsensitiveKeys() throws Exception {
        Path f = dir.resolve("proxy.conf");
        Files.writeString(f, "# apbasil proxy\n\nLISTEN = 0.0.0.0:7000, unix:/run/a.sock  # both\n"
                + "apbasil_timeout=30\n"
                + "apbasil_timeout.QUERY/INVENTORY=90\napbasil_timeout.reserve=10\n");
        ProxyConfig c = ProxyConfig.read(f);
        assertEquals(List.of("0.0.0.0:7000", "unix:/run/a.sock"), c.listen());
        assertEquals(Duration.ofSeconds(90), c.apbasilTimeout("QUERY/INVENTORY"));
        assertEquals(Duration.ofSeconds(30), c.apbasilTimeout("QUERY/ENGINE"));
        assertEquals(Duration.ofSeconds(10), c.apbasilTimeout("RESERVE"));
        assertEquals(Duration.ofSeconds(90), c.longestApbasilTimeout());
    }

    @Test
    void anUnknownKeyIsAnErrorNamingFileAndLine() throws Exception {
        Path f = dir.resolve("proxy.conf");
        Files.writeString(f, "listen=127.0.0.1:1\napbasil_timout=5\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfig.read(f));
        assertEquals(f + ":2: unknown key 'apbasil_timout' (known keys: listen, backend, emulator_latency_profile, emulator_latency_seed, "
                + "emulator_paggs, emulator_users, auth, munge_socket, allow_query, allow_reserve, allow_admin, apbasil_timeout, backend_concurrency, workers, queue, "
                + "max_request_bytes, max_response_bytes, request_timeout, reply_timeout, shutdown_timeout, "
                + "exchange_memory, exchange_journal, tls_cert, tls_key, ha_db, ha_name, ha_lease)", e.getMessage());
    }

    @Test
    void aBadValueInTheFileNamesFileAndLine() throws Exception {
        Path f = dir.resolve("proxy.conf");
        Files.writeString(f, "listen=127.0.0.1:1\n\nworkers=many\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfig.read(f));
        assertEquals(f + ":3: workers=many: expected a whole number above 0", e.getMessage());

        Files.writeString(f, "tls_cert=/etc/alpsbridge/proxy.pem\n");
        e = assertThrows(IllegalArgumentException.class, () -> ProxyConfig.read(f));
        assertEquals(f + ": tls_cert and tls_key go together: set both or neither", e.getMessage());
    }

    @Test
    void aFileThatIsNotUtf8IsRefusedNamingTheFile() throws Exception {
        Path f = dir.resolve("proxy.conf");
        Files.write(f, new byte[] {'l', 'i', 's', 't', 'e', 'n', '=', (byte) 0xff, '\n'});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfig.read(f));
        assertTrue(e.getMessage().startsWith(f + ": not UTF-8 text"), e.getMessage());
    }

    @Test
    void theShippedTemplateListsEveryKeyAtItsDefaultAndReadsAsTheDefaults() throws Exception {
        String template = ProxyConfig.template();
        for (ProxyConfig.Key k : ProxyConfig.Key.values()) {
            assertTrue(template.contains("\n#" + k.key() + "=" + k.defaultValue() + "\n"), k.key());
        }
        Path f = dir.resolve("proxy.conf");
        Files.writeString(f, template);
        assertEquals(ProxyConfig.defaults().listen(), ProxyConfig.read(f).listen());
        // Uncommenting every line gives the defaults too: the shown values are the real ones.
        Files.writeString(f, template.replaceAll("(?m)^#([a-z_]+=)", "$1"));
        ProxyConfig uncommented = ProxyConfig.read(f);
        for (ProxyConfig.Key k : ProxyConfig.Key.values()) {
            assertEquals(ProxyConfig.defaults().get(k), uncommented.get(k), k.key());
        }
    }

    @Test
    void aLineWithoutEqualsIsAnError() throws Exception {
        Path f = dir.resolve("proxy.conf");
        Files.writeString(f, "listen 127.0.0.1:1\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfig.read(f));
        assertTrue(e.getMessage().startsWith(f + ":1: expected key=value"), e.getMessage());
    }

    @Test
    void badValuesAreRefusedWithTheKeyNamed() {
        assertMessage("auth=kerberos: expected munge or none", Map.of("auth", "kerberos"));
        assertMessage("workers=0: expected a whole number above 0", Map.of("workers", "0"));
        assertMessage("apbasil_timeout=soon: expected seconds above 0", Map.of("apbasil_timeout", "soon"));
        assertMessage("tls_cert and tls_key go together: set both or neither", Map.of("tls_cert", "/x.pem"));
        assertMessage("allow_reserve: no user named 'nosuchuser-xyz' in /etc/passwd",
                Map.of("allow_reserve", "root,nosuchuser-xyz"));
    }

    @Test
    void accessRulesTakeNamesUidsGroupsAndEveryone() throws Exception {
        Path passwd = dir.resolve("passwd");
        Path group = dir.resolve("group");
        Files.writeString(passwd, "root:x:0:0::/root:/bin/sh\nslurm:x:64030:64030::/:/bin/false\n");
        Files.writeString(group, "root:x:0:\nhpcops:x:5000:alice\n");
        AccessRule r = AccessRule.parse("allow_reserve", "root, slurm,@hpcops, 1234", passwd, group);
        assertTrue(r.allows(new Caller(0, 0)));
        assertTrue(r.allows(new Caller(64030, 1)));
        assertTrue(r.allows(new Caller(777, 5000)));
        assertTrue(r.allows(new Caller(1234, 1)));
        assertFalse(r.allows(new Caller(777, 1)));
        assertTrue(AccessRule.parse("allow_query", "*", passwd, group).allows(new Caller(9, 9)));
        assertEquals("allow_reserve=root, slurm,@hpcops, 1234", r.toString());
    }

    private static void assertMessage(String expected, Map<String, String> settings) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxyConfig.defaults().with(settings));
        assertEquals(expected, e.getMessage());
    }

    @Test
    void aPairOfProxiesSharesAPostgresqlDatabaseNotAFile() {
        ProxyConfig single = ProxyConfig.defaults();
        assertNull(single.haDb());
        assertEquals(Duration.ofSeconds(5), single.haLease());
        ProxyConfig pair = single.with(Map.of("ha_db", "jdbc:postgresql://db1,db2/alps?targetServerType=primary",
                "ha_name", "sdb1:6830", "ha_lease", "2.5"));
        assertEquals("sdb1:6830", pair.haName());
        assertEquals(Duration.ofMillis(2500), pair.haLease());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> single.with(Map.of("ha_db", "sqlite:/var/lib/alpsbridge/pair.db")));
        assertTrue(e.getMessage().startsWith("ha_db=sqlite:/var/lib/alpsbridge/pair.db: expected jdbc:postgresql://"),
                e.getMessage());
        assertNull(pair.with(Map.of("exchange_journal", "/var/lib/j")).exchangeJournal(),
                "the packages' journal file is set aside: the pair's database keeps the exchange memory");
        e = assertThrows(IllegalArgumentException.class, () -> pair.with(Map.of("ha_lease", "0.5")));
        assertEquals("ha_lease=0.5: expected at least 1 second", e.getMessage());
    }
}
