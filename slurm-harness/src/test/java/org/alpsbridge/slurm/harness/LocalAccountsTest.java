package org.alpsbridge.slurm.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A test's own users and groups: members of exactly the groups named, no login shell, gone after close. The names
 * carry this JVM's pid, so that builds running this test side by side do not remove each other's.
 */
class LocalAccountsTest {

    private static final String SUFFIX = "-" + ProcessHandle.current().pid();
    private static final String GROUP = "abacct-grp" + SUFFIX;
    private static final String ANN = "abacct-ann" + SUFFIX;
    private static final String BOB = "abacct-bob" + SUFFIX;

    @Test
    void usersAreInTheGroupsNamedAndGoneAfterClose() throws Exception {
        int annUid;
        try (LocalAccounts accounts = LocalAccounts.create(List.of(GROUP), Map.of(ANN, List.of(GROUP), BOB, List.of()))) {
            annUid = accounts.uid(ANN);
            assertNotEquals(0, annUid);
            assertNotEquals(annUid, accounts.uid(BOB));
            assertEquals(List.of("nogroup", GROUP), groups(ANN));
            assertEquals(List.of("nogroup"), groups(BOB));
            assertEquals(String.valueOf(accounts.gid(GROUP)), HostAccounts.entry("group", GROUP)[2]);
            assertEquals("/usr/sbin/nologin", HostAccounts.entry("passwd", ANN)[6]);
            Programs.Result r = Programs.run(List.of("runuser", "-u", ANN, "--", "id", "-u"), Map.of(), Duration.ofSeconds(30));
            assertEquals(annUid + "", r.out().strip(), "runs its commands without a login shell: " + r.err());

            accounts.leave(ANN, GROUP);
            assertEquals(List.of("nogroup"), groups(ANN));
        }
        assertNull(HostAccounts.entry("passwd", ANN), "user removed");
        assertNull(HostAccounts.entry("passwd", BOB), "user removed");
        assertNull(HostAccounts.entry("group", GROUP), "group removed");
    }

    @Test
    void whatACrashedRunLeftIsTakenOverAsAsked() throws Exception {
        LocalAccounts left = LocalAccounts.create(List.of(GROUP), Map.of(ANN, List.of()));
        int uid = left.uid(ANN);
        // not closed, as a killed JVM does not close; the next run makes the same names with other groups
        try (LocalAccounts again = LocalAccounts.create(List.of(GROUP), Map.of(ANN, List.of(GROUP)))) {
            assertEquals(uid, again.uid(ANN), "the same account");
            assertEquals(List.of("nogroup", GROUP), groups(ANN), "in the groups asked now");
        }
        assertNull(HostAccounts.entry("passwd", ANN));
    }

    @Test
    void aSystemAccountIsNotATestsToTakeOrRemove() throws Exception {
        // system accounts of this test's own, so that a broken guard removes nothing of the host's
        String system = "abacct-sys" + SUFFIX;
        try {
            HostAccounts.run(List.of("useradd", "--system", "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", system));
            IOException user = assertThrows(IOException.class, () -> LocalAccounts.create(List.of(GROUP), Map.of(system, List.of())));
            assertNotNull(HostAccounts.entry("passwd", system), "the system user stays: " + user.getMessage());
            assertNull(HostAccounts.entry("group", GROUP), "what was made before the refusal is removed");
            IOException group = assertThrows(IOException.class, () -> LocalAccounts.create(List.of(system), Map.of()));
            assertNotNull(HostAccounts.entry("group", system), "the system group stays: " + group.getMessage());
        } finally {
            Programs.run(List.of("userdel", "--force", system), Map.of(), Duration.ofSeconds(30));
            Programs.run(List.of("groupdel", system), Map.of(), Duration.ofSeconds(30));
        }
    }

    /** The user's groups as {@code id -Gn} lists them, the primary group first. */
    private static List<String> groups(String user) throws Exception {
        Programs.Result r = Programs.run(List.of("id", "-Gn", user), Map.of(), Duration.ofSeconds(30));
        assertEquals(0, r.exit(), r.err());
        return List.of(r.out().strip().split(" "));
    }
}
