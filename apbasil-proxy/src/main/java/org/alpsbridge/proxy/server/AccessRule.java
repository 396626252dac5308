package org.alpsbridge.proxy.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.alpsbridge.proxy.backend.Caller;

/**
 * Who may do something: a comma-separated list of {@code *} (everyone), user names, numeric uids,
 * {@code @group} names and {@code @gid} numbers, e.g. {@code root,slurm,@hpcops}. Names are resolved
 * through {@code /etc/passwd} and {@code /etc/group} when the config is read; a name that does not
 * exist is an error, so a typo cannot silently lock everyone out (or in).
 */
public final class AccessRule {

    private final String key;
    private final String text;
    private final boolean everyone;
    private final Set<Integer> uids;
    private final Set<Integer> gids;

    private AccessRule(String key, String text, boolean everyone, Set<Integer> uids, Set<Integer> gids) {
        this.key = key;
        this.text = text;
        this.everyone = everyone;
        this.uids = uids;
        this.gids = gids;
    }

    /** Parses {@code text} for config key {@code key} (the key is named in refusals and errors). */
    public static AccessRule parse(String key, String text) {
        return parse(key, text, Path.of("/etc/passwd"), Path.of("/etc/group"));
    }

    static AccessRule parse(String key, String text, Path passwd, Path group) {
        boolean everyone = false;
        Set<Integer> uids = new TreeSet<>();
        Set<Integer> gids = new TreeSet<>();
        for (String raw : text.split(",")) {
            String item = raw.strip();
            if (item.isEmpty()) {
                continue;
            }
            if (item.equals("*")) {
                everyone = true;
            } else if (item.startsWith("@")) {
                gids.add(resolve(key, item.substring(1), group, "group"));
            } else {
                uids.add(resolve(key, item, passwd, "user"));
            }
        }
        return new AccessRule(key, text.strip(), everyone, Set.copyOf(uids), Set.copyOf(gids));
    }

    public boolean allows(Caller caller) {
        return everyone || uids.contains(caller.uid()) || gids.contains(caller.gid());
    }

    /** {@code allow_reserve=root,slurm}: how refusals name the rule. */
    @Override
    public String toString() {
        return key + "=" + text;
    }

    private static int resolve(String key, String name, Path database, String what) {
        if (name.chars().allMatch(Character::isDigit) && !name.isEmpty()) {
            return Integer.parseInt(name);
        }
        try {
            for (String line : Files.readAllLines(database)) {
                String[] f = line.split(":");
                if (f.length > 2 && f[0].equals(name)) {
                    return Integer.parseInt(f[2]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new IllegalArgumentException(key + ": cannot read " + database + " to resolve " + what
                    + " " + name + ": " + e.getMessage());
        }
        throw new IllegalArgumentException(key + ": no " + what + " named '" + name + "' in " + database);
    }
}
