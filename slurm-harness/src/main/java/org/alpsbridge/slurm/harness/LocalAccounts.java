package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Groups and users of this host that a test makes for itself where the one {@link JobUser} is not enough: several
 * users in supplementary groups, as a site's project members are. Each user has no home, no login shell
 * ({@code /usr/sbin/nologin}; {@code runuser -u NAME -- program} runs its commands all the same) and no group of its
 * own (its primary group is {@code nogroup}), so the groups it is in are exactly those the test named. Made and
 * removed under the lock JobUser takes ({@link HostAccounts#edit}), since labs make accounts side by side.
 *
 * <pre>{@code
 * try (LocalAccounts accounts = LocalAccounts.create(List.of("p-chem", "p-phys"),
 *         Map.of("p-ann", List.of("p-chem"), "p-bob", List.of("p-chem", "p-phys")))) {   // needs root
 *     int chem = accounts.gid("p-chem");
 *     accounts.leave("p-bob", "p-chem");     // as an administrator's gpasswd -d
 * }                                          // users and groups removed
 * }</pre>
 *
 * <p>Idempotent: groups and users of these names that a crashed run left behind are taken over (a user's groups set
 * to the ones asked), so a test need not clean up first. Names of this host's system accounts (ids below 1000,
 * Debian's UID_MIN and GID_MIN) and users with a login shell are refused: close would remove them.
 */
public final class LocalAccounts implements AutoCloseable {

    private static final String NO_SHELL = "/usr/sbin/nologin";
    private static final String PRIMARY_GROUP = "nogroup";
    private static final int FIRST_REGULAR_ID = 1000;

    private final Map<String, Integer> gids;
    private final Map<String, Integer> uids;

    private LocalAccounts(Map<String, Integer> gids, Map<String, Integer> uids) {
        this.gids = gids;
        this.uids = uids;
    }

    /**
     * Makes {@code groups}, then {@code users} (name → its supplementary groups, the test's or the host's). The calling
     * test is skipped (failed under {@code ALPSBRIDGE_REQUIRE_SERVICES=1}) when this JVM is not root.
     */
    public static LocalAccounts create(List<String> groups, Map<String, List<String>> users)
            throws IOException, InterruptedException {
        HostAccounts.requireRoot("creating the users " + users.keySet() + " and groups " + groups);
        Map<String, Integer> gids = new LinkedHashMap<>();
        Map<String, Integer> uids = new LinkedHashMap<>();
        try {
            HostAccounts.edit(() -> {
                for (String g : groups) {
                    gids.put(g, group(g));
                }
                for (Map.Entry<String, List<String>> u : users.entrySet()) {
                    uids.put(u.getKey(), user(u.getKey(), u.getValue()));
                }
                return null;
            });
        } catch (IOException | InterruptedException | RuntimeException e) {
            try {
                new LocalAccounts(gids, uids).close(); // what was made before the failure goes too
            } catch (IOException | InterruptedException | RuntimeException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        return new LocalAccounts(gids, uids);
    }

    /** The group's gid, made if absent. */
    private static int group(String name) throws IOException, InterruptedException {
        String[] known = HostAccounts.entry("group", name);
        if (known == null) {
            HostAccounts.run(List.of("groupadd", name));
            known = HostAccounts.entry("group", name);
        }
        int gid = Integer.parseInt(known[2]);
        if (gid < FIRST_REGULAR_ID) {
            throw new IOException("group " + name + " exists as a system group (gid " + gid + "): not a test's to take");
        }
        return gid;
    }

    /** The user's uid, made if absent, in exactly {@code groups} besides nogroup. */
    private static int user(String name, List<String> groups) throws IOException, InterruptedException {
        String[] known = HostAccounts.entry("passwd", name);
        if (known == null) {
            List<String> argv = new ArrayList<>(List.of("useradd", "--no-create-home", "--no-user-group",
                    "--gid", PRIMARY_GROUP, "--shell", NO_SHELL, "--comment", "alpsbridge test user"));
            if (!groups.isEmpty()) {
                argv.addAll(List.of("--groups", String.join(",", groups)));
            }
            argv.add(name);
            HostAccounts.run(argv);
            known = HostAccounts.entry("passwd", name);
        } else if (Integer.parseInt(known[2]) < FIRST_REGULAR_ID || !NO_SHELL.equals(known[6])) {
            throw new IOException("user " + name + " exists (uid " + known[2] + ", shell " + known[6]
                    + ") and is not one a test made: not a test's to take");
        } else {
            HostAccounts.run(List.of("usermod", "--gid", PRIMARY_GROUP, "--groups", String.join(",", groups), name));
        }
        return Integer.parseInt(known[2]);
    }

    /** The uid of one of these users. */
    public int uid(String user) {
        return id(uids, user, "user");
    }

    /** The gid of one of these groups. */
    public int gid(String group) {
        return id(gids, group, "group");
    }

    private static int id(Map<String, Integer> ids, String name, String what) {
        Integer id = ids.get(name);
        if (id == null) {
            throw new IllegalArgumentException("no " + what + " " + name + " among " + ids.keySet());
        }
        return id;
    }

    /** Takes {@code user} out of {@code group} ({@code gpasswd -d}), as an administrator does. */
    public void leave(String user, String group) throws IOException, InterruptedException {
        uid(user);
        HostAccounts.edit(() -> {
            HostAccounts.run(List.of("gpasswd", "--delete", user, group));
            return null;
        });
    }

    /** Removes the users, then the groups; every removal is tried, and what failed is thrown after. */
    @Override
    public void close() throws IOException, InterruptedException {
        List<String> failures = HostAccounts.edit(() -> {
            List<String> failed = new ArrayList<>();
            for (String u : uids.keySet()) {
                remove(List.of("userdel", "--force", u), failed);
            }
            for (String g : gids.keySet()) {
                remove(List.of("groupdel", g), failed);
            }
            return failed;
        });
        if (!failures.isEmpty()) {
            throw new IOException("removing test accounts: " + String.join("; ", failures));
        }
    }

    private static void remove(List<String> argv, List<String> failed) throws IOException, InterruptedException {
        try {
            HostAccounts.run(argv);
        } catch (IOException e) {
            failed.add(e.getMessage());
        }
    }
}
