package org.alpsbridge.proxy.policy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Where the policy finds the uid and gid ALPS will write in the pseudo-application of a user's reservation
 * when no inventory has shown that user yet. A RESERVE request names the user but not the ids; ALPS takes
 * them from the system's password database, so a daemon on the same system asks the same database, and the
 * first RESERVE of each user can be applied to the cache instead of costing a full INVENTORY.
 *
 * <p>Ids seen in inventories always win over a lookup, and each refresh compares the looked-up ids with what
 * ALPS wrote: the policy stops looking up (and says so in its log) the first time they differ.
 */
@FunctionalInterface
public interface UserIds {

    /**
     * @return {uid, gid} as ALPS will write them, or null when the user is not known here (the RESERVE then
     *     costs a full INVENTORY, as without a lookup)
     */
    long[] lookup(String user);

    /** No lookups: ids are learned from full inventories only (one refresh per user's first reservation). */
    UserIds NONE = user -> null;

    /** How long one {@link #nameService()} lookup may take before it counts as unknown. */
    long LOOKUP_TIMEOUT_MILLIS = 5_000;

    /**
     * The daemon host's name service through {@code getent passwd NAME}: files, LDAP, SSSD, whatever NSS is
     * configured with on the service node, which is what ALPS on that system consults. The gid is the user's
     * primary group.
     */
    static UserIds nameService() {
        return user -> {
            // getent also takes numeric uids, and options: only a plain name is looked up, and the answer
            // must name it
            if (user == null || user.isEmpty() || user.startsWith("-") || !user.matches("[A-Za-z0-9._@-]+")) {
                return null;
            }
            try {
                Process p = new ProcessBuilder("getent", "passwd", user).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                // one passwd line fits the pipe, so getent never waits on us: wait first, then read
                if (!p.waitFor(LOOKUP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    return null;
                }
                byte[] out;
                try (InputStream in = p.getInputStream()) {
                    out = in.readNBytes(4096);
                }
                return p.exitValue() == 0 ? passwdEntry(new String(out, StandardCharsets.UTF_8), user) : null;
            } catch (IOException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        };
    }

    /** {uid, gid} from a passwd(5) line for {@code user}, or null when the line is not one. */
    static long[] passwdEntry(String line, String user) {
        String[] f = line.strip().split(":", -1);
        if (f.length < 7 || !f[0].equals(user)) {
            return null;
        }
        try {
            long uid = Long.parseLong(f[2]);
            long gid = Long.parseLong(f[3]);
            return uid < 0 || gid < 0 ? null : new long[] {uid, gid};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
