package org.alpsbridge.passwd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The password database as ALPS consults it: by plain user name only, uid and primary gid. */
class PasswordDatabaseTest {

    @Test
    void aUserHasTheUidAndPrimaryGidThatIdGives() throws Exception {
        String me = System.getProperty("user.name");
        long[] ids = PasswordDatabase.lookup(me);
        assertArrayEquals(new long[] {Long.parseLong(run("id", "-u")), Long.parseLong(run("id", "-g"))}, ids,
                "getent passwd " + me + " gave " + Arrays.toString(ids));
    }

    @Test
    void unknownUsersNumbersAndOptionsAreNotUsers() {
        assertNull(PasswordDatabase.lookup("no-such-user-alpsbridge"));
        assertNull(PasswordDatabase.lookup("0"), "getent passwd 0 answers root's entry, which is not user \"0\"");
        assertNull(PasswordDatabase.lookup("--help"));
        assertNull(PasswordDatabase.lookup("a b"));
        assertNull(PasswordDatabase.lookup(""));
        assertNull(PasswordDatabase.lookup(null));
    }

    @Test
    void aPasswdLineGivesItsUidAndGidOnlyForTheUserItNames() {
        assertArrayEquals(new long[] {1001, 100}, PasswordDatabase.entry("alice:x:1001:100:Alice:/home/alice:/bin/bash\n", "alice"));
        assertNull(PasswordDatabase.entry("alice:x:1001:100:Alice:/home/alice:/bin/bash", "bob"));
        assertNull(PasswordDatabase.entry("alice:x:one:100:Alice:/home/alice:/bin/bash", "alice"));
        assertNull(PasswordDatabase.entry("alice:x:-1:100:Alice:/home/alice:/bin/bash", "alice"));
        assertNull(PasswordDatabase.entry("alice:x:1001", "alice"));
        assertNull(PasswordDatabase.entry("", "alice"));
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.waitFor(), String.join(" ", command));
        return out;
    }
}
