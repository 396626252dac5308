package org.alpsbridge.proxy.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.alpsbridge.address.ProxyAddress;
import org.alpsbridge.settings.Setting;
import org.alpsbridge.settings.SettingsFile;

/**
 * The drop-in client's settings. Each key is looked up as the system property {@code apbasil.KEY},
 * then the environment variable {@code APBASIL_KEY}, then {@code KEY=value} in the file named by
 * {@code APBASIL_CONFIG} (default {@value #DEFAULT_CONFIG}), then the default. Keys and defaults are
 * {@link #KEYS} (and docs/admin-proxy.md). A file with an unknown key or a line that is not
 * {@code key=value} is refused with its path and line: a typo must not silently fall back to a default.
 */
final class ClientSettings {

    static final String DEFAULT_CONFIG = "/etc/alpsbridge/apbasil.conf";
    static final String DEFAULT_PROXY = "127.0.0.1:6830";
    /** The longest timeout a setting takes: a day. No BASIL call should hold its scheduler longer. */
    static final long MAX_SECONDS = 86_400;
    /** The most retries a setting takes; with doubling waits the timeout ends the call long before. */
    static final long MAX_RETRIES = 100;

    /** Every key of the settings file: name, type, default (empty = none) and meaning, in the order documented. */
    static final List<Setting> KEYS = List.of(
            Setting.checked("proxy", DEFAULT_PROXY, "where the daemon listens: host:port or unix:/path; a comma-separated list (e.g. a standby proxy after the active one) is tried in order, moving on from a proxy that cannot be reached or answers that it is not active",
                    ClientSettings::proxyProblem),
            Setting.choice("auth", "munge", "munge (sign every request; the daemon's auth=munge) or none (the daemon's auth=none)",
                    "munge", "none"),
            Setting.choice("munge", "socket", "how to get a credential: socket (ask munged), program (run munge) or library (libmunge)",
                    "socket", "program", "library"),
            Setting.text("munge_socket", "", "munged's socket; empty = libmunge's default"),
            Setting.seconds("timeout", "300", "seconds to wait for an answer, retries included", MAX_SECONDS),
            Setting.seconds("connect_timeout", "3", "seconds each proxy of the list may take to accept the connection (and finish the TLS handshake) before the next is tried; 0 = no limit of its own, only timeout", MAX_SECONDS),
            Setting.count("retries", "8", "extra rounds over the proxy list for what is safe to retry, after waits of 0.1 s doubling each time (8: 25.5 s of waits in all, which outlast a proxy pair's failover and a proxy's restart)", MAX_RETRIES),
            Setting.text("tls_ca", "", "PEM file of the CA that signed the daemon's certificate; set it to use TLS over TCP"));

    private final Map<String, String> file;

    private ClientSettings(Map<String, String> file) {
        this.file = file;
    }

    static ClientSettings load() throws IOException {
        String path = lookup(null, "config");
        Path config = Path.of(path == null ? DEFAULT_CONFIG : path);
        try {
            return new ClientSettings(parse(config, Files.readAllLines(config, StandardCharsets.UTF_8)));
        } catch (java.nio.charset.CharacterCodingException e) {
            // No decoder detail: the native client (src/main/c) words every message as this class does.
            throw new IllegalArgumentException(config + ": not UTF-8 text");
        } catch (NoSuchFileException e) {
            if (path != null) {
                throw new IOException("APBASIL_CONFIG names " + config + ", which does not exist");
            }
            return new ClientSettings(Map.of());
        } catch (IOException e) {
            throw new IOException("cannot read " + config + ": " + reason(config, e));
        }
    }

    /** The system's words for why a file cannot be read (strerror's, as the native client says them). */
    static String reason(Path file, IOException e) {
        if (Files.isDirectory(file)) {
            return "Is a directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "Permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        return String.valueOf(e.getMessage());
    }

    /** {@code key=value} lines; {@code #} starts a comment; keys are case-insensitive. */
    static Map<String, String> parse(Path config, List<String> lines) {
        return SettingsFile.parse(config, lines, KEYS);
    }

    private static String proxyProblem(String value) {
        try {
            ProxyAddress.parseList(value);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** The file as shipped in {@value #DEFAULT_CONFIG}: every key commented out at its default, with its meaning. */
    static String template() {
        return SettingsFile.template("# alpsbridge drop-in apbasil client: how the scheduler's apbasil calls reach the proxy daemon.\n"
                + "# key=value, one a line; '#' starts a comment; unknown keys are refused. The environment\n"
                + "# (APBASIL_<KEY>) overrides this file; APBASIL_CONFIG names another file.\n"
                + "# Every key is shown at its default, commented out.\n", KEYS);
    }

    private static String lookup(Map<String, String> file, String key) {
        String v = System.getProperty("apbasil." + key);
        if (v == null) {
            v = System.getenv("APBASIL_" + key.toUpperCase(Locale.ROOT));
        }
        if (v == null && file != null) {
            v = file.get(key);
        }
        return v == null || v.isBlank() ? null : v.strip();
    }

    /** The key's value: property, environment, file, else its declared default (null when that is empty). */
    String get(String key) {
        String v = lookup(file, key);
        if (v == null) {
            String declared = SettingsFile.find(KEYS, key).defaultValue();
            return declared.isEmpty() ? null : declared;
        }
        String problem = SettingsFile.find(KEYS, key).problem(v);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return v;
    }

    /** {@code proxy}: where the daemon listens; a comma-separated list is tried in order. */
    String proxy() {
        return get("proxy");
    }

    /** {@code auth}: {@code munge} (default) or {@code none}. */
    boolean mungeAuth() {
        return get("auth").equals("munge");
    }

    /** {@code munge_socket}: munged's socket, or null for libmunge's default. */
    Path mungeSocket() {
        String s = get("munge_socket");
        return s == null ? null : Path.of(s);
    }

    /**
     * {@code munge}: how to get a credential — {@code socket} (default: ask munged over its socket, no
     * process started), {@code program} (run {@code munge}) or {@code library} (libmunge via JNA).
     */
    String mungeVia() {
        return get("munge");
    }

    /** {@code timeout}: seconds to wait for an answer; default 300, above the daemon's default backend timeout. */
    Duration timeout() {
        return Duration.ofMillis((long) (positive("timeout") * 1000));
    }

    /**
     * {@code connect_timeout}: how long one proxy may take to accept the connection and finish the TLS handshake;
     * default 3 s. A live daemon on a site network accepts within milliseconds (a SYN answered by the kernel, a
     * handshake of two round trips), and a loaded one within a second; a host that is down and drops packets never
     * does, and without this limit it would hold the call for the whole {@code timeout} and leave the standby
     * untried. 3 s leaves a slow network room and keeps a failover well inside issue 37's 10 s target (from losing
     * the active proxy to the first call through the survivor).
     * Zero means no limit of its own: the call's {@code timeout} alone ({@link Duration#ZERO}); any other value is
     * at least a millisecond.
     */
    Duration connectTimeout() {
        double seconds = positive("connect_timeout");
        return seconds == 0 ? Duration.ZERO : Duration.ofMillis(Math.max(1, (long) (seconds * 1000)));
    }

    /**
     * {@code retries}: extra rounds over the proxy list for what is safe to retry ({@link RetryPolicy}); default 8.
     * The waits before them double from 100 ms, so 8 retries wait 25.5 s in all: a proxy pair's failover (the
     * standby takes over at most {@code ha_lease}, 5 s by default, plus one poll of at most 1 s after the active
     * proxy's last renewal; 4.2 to 6 s measured) is caught by the 7th round (12.7 s after the first failure) with
     * twice that to spare for a loaded host, and a single proxy's restart by the last (25.5 s). Fewer lost jobs:
     * slurmstepd fatal()s when its first call, QUERY(ENGINE), gets no answer.
     */
    int retries() {
        return (int) positive("retries");
    }

    /** {@code tls_ca}: PEM file of the CA that signed the daemon's certificate; set it to use TLS over TCP. */
    Path tlsCa() {
        String s = get("tls_ca");
        return s == null ? null : Path.of(s);
    }

    private double positive(String key) {
        return Double.parseDouble(get(key));
    }
}
