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
        assertEquals(FILE + ":2: unknown key 'database' (known keys: db)", e.getMessage());
    }

    @Test
    void aDbThatIsNoLedgerUrlIsRefusedWithItsLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LedgerSettings.parse(FILE, "db=/var/lib/alpsbridge/ledger.db\n"));
        assertTrue(e.getMessage().startsWith(FILE + ":1: db=/var/lib/alpsbridge/ledger.db: expected sqlite:PATH"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LedgerSettings.parse(FILE, "db sqlite:/x\n"));
        assertEquals(FILE + ":1: expected key=value, got 'db sqlite:/x'", e.getMessage());
    }

    @Test
    void theShippedTemplateReadsAsTheDefaultsCommentedOrNot() {
        String template = LedgerSettings.template();
        assertTrue(template.contains("\n#db=\n"), template);
        assertEquals(Map.of(), LedgerSettings.parse(FILE, template));
        assertEquals(Map.of("db", ""), LedgerSettings.parse(FILE, template.replaceAll("(?m)^#([a-z_]+=)", "$1")));
    }
}
