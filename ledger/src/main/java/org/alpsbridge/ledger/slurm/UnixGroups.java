package org.alpsbridge.ledger.slurm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/** Who is in a Unix group: its listed members and the users whose primary group it is. */
interface UnixGroups {

    Set<String> members(int gid);

    /**
     * The system's groups through NSS (files, LDAP, SSSD): one {@code getent group} and one {@code getent passwd},
     * read once. A site whose NSS does not enumerate (SSSD's default) lists members explicitly in the ledger.
     */
    static UnixGroups system() {
        Map<Integer, Set<String>> byGid = new HashMap<>();
        for (String line : getent("group")) {
            String[] f = line.split(":", -1); // name:x:gid:members
            if (f.length >= 4 && f[2].matches("\\d+")) {
                Set<String> m = byGid.computeIfAbsent(Integer.parseInt(f[2]), k -> new TreeSet<>());
                for (String u : f[3].split(",")) {
                    if (!u.isBlank()) {
                        m.add(u.strip());
                    }
                }
            }
        }
        for (String line : getent("passwd")) {
            String[] f = line.split(":", -1); // name:x:uid:gid:...
            if (f.length >= 4 && f[3].matches("\\d+")) {
                byGid.computeIfAbsent(Integer.parseInt(f[3]), k -> new TreeSet<>()).add(f[0]);
            }
        }
        return gid -> byGid.getOrDefault(gid, Set.of());
    }

    private static List<String> getent(String database) {
        try {
            Process p = new ProcessBuilder("getent", database).redirectErrorStream(false).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("getent " + database + " failed (exit " + p.exitValue() + ")");
            }
            return out.lines().toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run getent " + database + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the Unix groups", e);
        }
    }
}
