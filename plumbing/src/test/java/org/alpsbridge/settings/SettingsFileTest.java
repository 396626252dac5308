package org.alpsbridge.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One reader for every key=value settings file: what it takes, and how it refuses the rest (file and line). */
class SettingsFileTest {

    private static final List<Setting> KEYS = List.of(
            Setting.text("name", "", "a name"),
            Setting.choice("auth", "munge", "munge or none", "munge", "none"),
            Setting.choice("via", "socket", "how", "socket", "program", "library"),
            Setting.seconds("timeout", "300", "seconds", 86400),
            Setting.count("retries", "8", "attempts", 100),
            Setting.checked("even", "2", "an even number", v -> v.matches("[0-9]*[02468]") ? null : "even=" + v + ": odd"),
            Setting.expecting("port", "6830", "a port", "a port number",
                    v -> Integer.parseInt(v) > 0 && Integer.parseInt(v) < 65536));

    private static String refusal(String... lines) {
        return assertThrows(IllegalArgumentException.class, () -> SettingsFile.parse("/etc/x.conf", List.of(lines), KEYS))
                .getMessage();
    }

    @Test
    void readsKeysCaseInsensitivelyWithCommentsAndBlankLines() {
        assertEquals(Map.of("name", "a b", "auth", "none", "timeout", "0.5"), SettingsFile.parse("/etc/x.conf",
                List.of("# site", "", "  NAME = a b  # who", "Auth=none", "timeout=0.5"), KEYS));
    }

    @Test
    void refusesNamingFileLineAndWhatIsWrong() {
        assertEquals("/etc/x.conf:2: expected key=value, got 'name'", refusal("", "name"));
        assertEquals("/etc/x.conf:1: unknown key 'nmae' (known keys: name, auth, via, timeout, retries, even, port)",
                refusal("nmae=x"));
        assertEquals("/etc/x.conf:1: auth=yes: expected munge or none", refusal("auth=yes"));
        assertEquals("/etc/x.conf:1: via=pipe: expected socket, program or library", refusal("via=pipe"));
        assertEquals("/etc/x.conf:3: timeout=-1: expected seconds from 0 to 86400", refusal("", "", "timeout=-1"));
        assertEquals("/etc/x.conf:1: timeout=soon: expected seconds from 0 to 86400", refusal("timeout=soon"));
        assertEquals("/etc/x.conf:1: even=3: odd", refusal("even=3"));
    }

    @Test
    void aNumberOutOfRangeIsRefusedNamingItsKeyInfinityAndNaNIncluded() {
        for (String v : List.of("Infinity", "+Infinity", "-Infinity", "NaN", "86400.5", "1e9", "-0.001")) {
            assertEquals("/etc/x.conf:1: timeout=" + v + ": expected seconds from 0 to 86400", refusal("timeout=" + v),
                    v);
        }
        assertEquals(Map.of("timeout", "86400"), SettingsFile.parse("/etc/x.conf", List.of("timeout=86400"), KEYS));
        assertEquals(Map.of("timeout", "0"), SettingsFile.parse("/etc/x.conf", List.of("timeout=0"), KEYS));
        for (String v : List.of("Infinity", "NaN", "2.5", "101", "-1")) {
            assertEquals("/etc/x.conf:1: retries=" + v + ": expected a whole number from 0 to 100",
                    refusal("retries=" + v), v);
        }
        assertEquals(Map.of("retries", "8.0"), SettingsFile.parse("/etc/x.conf", List.of("retries=8.0"), KEYS));
        assertEquals("/etc/x.conf:1: port=0: expected a port number", refusal("port=0"));
        assertEquals("/etc/x.conf:1: port=http: expected a port number", refusal("port=http"), "not a number: refused");
        assertEquals("/etc/x.conf:2: auth=yes: expected munge or none", refusal("", "auth=yes", "name"),
                "of several wrong lines, the first");
    }

    @Test
    void aListIsItsCommaSeparatedEntriesStrippedWithoutEmptyOnes() {
        assertEquals(List.of("a:1", "unix:/run/b"), SettingsFile.list(" a:1 ,, unix:/run/b ,"));
        assertEquals(List.of(), SettingsFile.list(" , "));
    }

    @Test
    void theTemplateShowsEveryKeyCommentedOutAtItsDefaultAndReadsBackEmpty() {
        String template = SettingsFile.template("# x\n", KEYS);
        assertEquals("# x\n\n# a name\n#name=\n\n# munge or none\n#auth=munge\n\n# how\n#via=socket\n\n# seconds\n"
                + "#timeout=300\n\n# attempts\n#retries=8\n\n# an even number\n#even=2\n\n# a port\n#port=6830\n", template);
        assertEquals(Map.of(), SettingsFile.parse("t", List.of(template.split("\n")), KEYS));
        assertEquals(7, SettingsFile.parse("t", List.of(template.replaceAll("(?m)^#([a-z]+=)", "$1").split("\n")), KEYS)
                .size());
    }

    @Test
    void theHelpTableShowsEveryKeyWithItsDefaultAndWrapsTheMeaningUnderItsColumn() {
        String meaning = "word ".repeat(30).strip();
        List<String> table = SettingsFile.table(List.of(Setting.text("short", "", "a name"),
                Setting.text("long", "exec:/opt/cray/alps/default/bin/apbasil", meaning)));
        String indent = " ".repeat(2 + 20 + 1 + 15 + 1);
        assertEquals(List.of("  short                (empty)         a name",
                "  long                 exec:/opt/cray/alps/default/bin/apbasil",
                indent + "word ".repeat(16).strip(), indent + "word ".repeat(14).strip()), table);
        assertEquals(List.of("  a_name_longer_than_twenty 1               one"),
                SettingsFile.table(List.of(Setting.text("a_name_longer_than_twenty", "1", "one"))));
    }
}
