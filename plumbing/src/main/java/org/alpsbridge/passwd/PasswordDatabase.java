package org.alpsbridge.passwd;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A user's uid and primary gid from this host's password database, through {@code getent passwd NAME}: files,
 * LDAP, SSSD, whatever NSS is configured with. ALPS writes these ids in a reservation's pseudo-application; the
 * apbasil proxy on the service node looks them up to patch a user's first reservation into its cache, and the
 * emulator ({@code --users host}) writes them as ALPS would on this host, so the two agree.
 */
public final class PasswordDatabase {

    /** How long one lookup may take before it counts as unknown. */
    public static final long LOOKUP_TIMEOUT_MILLIS = 5_000;

    private PasswordDatabase() {
    }

    /**
     * @return {uid, gid} of {@code user}, or null when the name is not known here, is not a plain user name, or the
     *     lookup failed or took longer than {@link #LOOKUP_TIMEOUT_MILLIS}
     */
    public static long[] lookup(String user) {
        // getent also takes numeric uids, and options: only a plain name is looked up, and the answer must name it
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
            return p.exitValue() == 0 ? entry(new String(out, StandardCharsets.UTF_8), user) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** {uid, gid} from a passwd(5) line for {@code user}, or null when the line is not one. */
    static long[] entry(String line, String user) {
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
