package org.alpsbridge.proxy.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;

/**
 * The drop-in client's settings. Each key is looked up as the system property {@code apbasil.KEY},
 * then the environment variable {@code APBASIL_KEY}, then {@code KEY=value} in the file named by
 * {@code APBASIL_CONFIG} (default {@value #DEFAULT_CONFIG}), then the default. Keys and defaults are
 * listed in the module README.
 */
final class ClientSettings {

    static final String DEFAULT_CONFIG = "/etc/alpsbridge/apbasil.conf";
    static final String DEFAULT_PROXY = "127.0.0.1:6830";

    private final Properties file;

    private ClientSettings(Properties file) {
        this.file = file;
    }

    static ClientSettings load() throws IOException {
        String path = lookup(null, "config");
        Properties p = new Properties();
        Path config = Path.of(path == null ? DEFAULT_CONFIG : path);
        try (InputStream in = Files.newInputStream(config)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            if (path != null) {
                throw new IOException("APBASIL_CONFIG names " + config + ", which does not exist");
            }
        }
        return new ClientSettings(p);
    }

    private static String lookup(Properties file, String key) {
        String v = System.getProperty("apbasil." + key);
        if (v == null) {
            v = System.getenv("APBASIL_" + key.toUpperCase(Locale.ROOT));
        }
        if (v == null && file != null) {
            v = file.getProperty(key);
        }
        return v == null || v.isBlank() ? null : v.strip();
    }

    String get(String key, String defaultValue) {
        String v = lookup(file, key);
        return v == null ? defaultValue : v;
    }

    /** {@code proxy}: where the daemon listens. */
    String proxy() {
        return get("proxy", DEFAULT_PROXY);
    }

    /** {@code auth}: {@code munge} (default) or {@code none}. */
    boolean mungeAuth() {
        String auth = get("auth", "munge");
        if (!auth.equals("munge") && !auth.equals("none")) {
            throw new IllegalArgumentException("auth=" + auth + ": expected munge or none");
        }
        return auth.equals("munge");
    }

    /** {@code munge_socket}: munged's socket, or null for libmunge's default. */
    Path mungeSocket() {
        String s = get("munge_socket", null);
        return s == null ? null : Path.of(s);
    }

    /**
     * {@code munge}: how to get a credential — {@code socket} (default: ask munged over its socket, no
     * process started), {@code program} (run {@code munge}) or {@code library} (libmunge via JNA).
     */
    String mungeVia() {
        String via = get("munge", "socket");
        if (!via.equals("socket") && !via.equals("program") && !via.equals("library")) {
            throw new IllegalArgumentException("munge=" + via + ": expected socket, program or library");
        }
        return via;
    }

    /** {@code timeout}: seconds to wait for an answer; default 300, above the daemon's default backend timeout. */
    Duration timeout() {
        return Duration.ofMillis((long) (positive("timeout", "300") * 1000));
    }

    /** {@code retries}: extra attempts for what is safe to retry; default 2. */
    int retries() {
        return (int) positive("retries", "2");
    }

    /** {@code tls_ca}: PEM file of the CA that signed the daemon's certificate; set it to use TLS over TCP. */
    Path tlsCa() {
        String s = get("tls_ca", null);
        return s == null ? null : Path.of(s);
    }

    private double positive(String key, String defaultValue) {
        String v = get(key, defaultValue);
        try {
            double d = Double.parseDouble(v);
            if (d >= 0) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(key + "=" + v + ": expected a number of 0 or more");
    }
}
