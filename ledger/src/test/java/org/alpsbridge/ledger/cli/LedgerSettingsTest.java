package org.alpsbridge.ledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The site's /etc/alpsbridge/ledger.conf: what it may hold and how a mistake in it is reported. */
class LedgerSettingsTest {

    private static final Path FILE = Path.of("/etc/alpsbridge/ledger.conf");

    @Test
    void keyValueLinesWithCommentsAndCaseInsensitiveKeys() {
        assertEquals(Map.of("db", "sqlite:/var/lib/alpsbridge/ledger.db"),
                LedgerSettings.parse(FILE, "# site ledger\n\nDB = sqlite:/var/lib/alpsbridge/ledger.db  # shared\n"));
    }

    @Test
    void anUnknownKeyNamesFileLineAndTheKnownKeys() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LedgerSettings.parse(FILE, "\ndatabase=sqlite:/x.db\n"));
        assertEquals(FILE + ":2: unknown key 'database' (known keys: db, pg_pool, pg_group_writers,"
                + " pg_reconnect_seconds, slurm_cluster, slurm_ended, slurm_qos, slurm_parent, sacctmgr,"
                + " slurm_partition_options)", e.getMessage());
    }

    @Test
    void aDbThatIsNoLedgerUrlIsRefusedWithItsLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LedgerSettings.parse(FILE, "db=/var/lib/alpsbridge/ledger.db\n"));
        assertTrue(e.getMessage().startsWith(FILE + ":1: db=/var/lib/alpsbridge/ledger.db: not a ledger URL; did you mean"
                + " sqlite:/var/lib/alpsbridge/ledger.db? expected sqlite:PATH"), e.getMessage());
        assertTrue(e.getMessage().contains("http(s)://HOST:PORT"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LedgerSettings.parse(FILE, "db sqlite:/x\n"));
        assertEquals(FILE + ":1: expected key=value, got 'db sqlite:/x'", e.getMessage());
    }

    @Test
    void theStoreSettingsAreKeysOfTheFileCheckedAsTheyAreRead() {
        LedgerSettings.parse(FILE, "db=jdbc:postgresql://db1/ledger?user=ledger\npg_pool=8\nPG_RECONNECT_SECONDS=5\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LedgerSettings.parse(FILE, "pg_pool=0\n"));
        assertEquals(FILE + ":1: pg_pool=0: expected a whole number of 1 or more", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LedgerSettings.parse(FILE, "\npg_reconnect_seconds=1.5\n"));
        assertEquals(FILE + ":2: pg_reconnect_seconds=1.5: expected a whole number of 0 or more", e.getMessage());
    }

    @Test
    void aPostgresqlLedgerIsOpenedWithTheFilesStoreSettingsAndTheOthersDoNotReadIt(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path conf = dir.resolve("ledger.conf");
        java.nio.file.Files.writeString(conf, "pg_pool=none\n");
        Map<String, String> env = Map.of("ALPSBRIDGE_LEDGER_CONFIG", conf.toString());
        // the file's store settings are read for a PostgreSQL ledger, before any connection
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LedgerCommand.open("jdbc:postgresql://127.0.0.1:1/none", true, env));
        assertEquals(conf + ":1: pg_pool=none: expected a whole number of 1 or more", e.getMessage());
        // and not for SQLite, which takes none of them (as before they were settings)
        try (org.alpsbridge.ledger.Ledger ledger = LedgerCommand.open("sqlite:" + dir.resolve("l.db"), true, env)) {
            assertEquals(java.util.List.of(), ledger.check());
        }
    }

    @Test
    void noLedgerAnywhereIsAnErrorNamingTheThreeWays(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path conf = dir.resolve("ledger.conf");
        java.nio.file.Files.writeString(conf, LedgerSettings.template());
        LedgerCommand cmd = new LedgerCommand();
        org.alpsbridge.ledger.LedgerException e = assertThrows(org.alpsbridge.ledger.LedgerException.class,
                () -> cmd.url(Map.of("ALPSBRIDGE_LEDGER_CONFIG", conf.toString())));
        assertEquals("no ledger given: give --db URL, set env ALPSBRIDGE_LEDGER=URL, or set db=URL in " + conf
                + " (URL: sqlite:PATH, jdbc:postgresql://HOST:PORT/DB?user=U&password=P, or http(s)://HOST:PORT for a"
                + " ledger service)", e.getMessage());
        java.nio.file.Files.writeString(conf, "db=sqlite:/srv/ledger.db\n");
        assertEquals("sqlite:/srv/ledger.db", cmd.url(Map.of("ALPSBRIDGE_LEDGER_CONFIG", conf.toString())));
        assertEquals("sqlite:/x.db", cmd.url(Map.of("ALPSBRIDGE_LEDGER_CONFIG", conf.toString(), "ALPSBRIDGE_LEDGER", "sqlite:/x.db")));
    }

    @Test
    void aBarePathFromTheCommandLineOrTheEnvironmentAsksForSqlite() {
        LedgerCommand cmd = new LedgerCommand();
        cmd.db = "/tmp/ledger.db";
        org.alpsbridge.ledger.LedgerException e = assertThrows(org.alpsbridge.ledger.LedgerException.class,
                () -> cmd.url(Map.of()));
        assertTrue(e.getMessage().startsWith("--db /tmp/ledger.db: not a ledger URL; did you mean sqlite:/tmp/ledger.db?"),
                e.getMessage());
        LedgerCommand noFlag = new LedgerCommand();
        e = assertThrows(org.alpsbridge.ledger.LedgerException.class,
                () -> noFlag.url(Map.of("ALPSBRIDGE_LEDGER", "ledger.db")));
        assertTrue(e.getMessage().startsWith("env ALPSBRIDGE_LEDGER=ledger.db: not a ledger URL; did you mean sqlite:ledger.db?"),
                e.getMessage());
        e = assertThrows(org.alpsbridge.ledger.LedgerException.class,
                () -> org.alpsbridge.ledger.Ledger.open("/tmp/ledger.db"));
        assertTrue(e.getMessage().contains("did you mean sqlite:/tmp/ledger.db?"), e.getMessage());
    }

    @Test
    void theShippedTemplateReadsAsTheDefaultsCommentedOrNot() {
        String template = LedgerSettings.template();
        assertTrue(template.contains("\n#db=\n"), template);
        assertEquals(Map.of(), LedgerSettings.parse(FILE, template));
        assertEquals(Map.ofEntries(Map.entry("db", ""), Map.entry("pg_pool", "4"), Map.entry("pg_group_writers", "2"),
                Map.entry("pg_reconnect_seconds", "30"), Map.entry("slurm_cluster", ""), Map.entry("slurm_ended", "block"),
                Map.entry("slurm_qos", "none"), Map.entry("slurm_parent", "root"), Map.entry("sacctmgr", "sacctmgr"),
                Map.entry("slurm_partition_options", "Default=NO")),
                LedgerSettings.parse(FILE, template.replaceAll("(?m)^#([a-z_]+=)", "$1")));
    }
}
