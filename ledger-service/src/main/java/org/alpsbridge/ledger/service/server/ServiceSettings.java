package org.alpsbridge.ledger.service.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.alpsbridge.address.ProxyAddress;
import org.alpsbridge.ledger.store.StoreSettings;
import org.alpsbridge.settings.Setting;
import org.alpsbridge.settings.SettingsFile;

/**
 * The ledger service's settings: {@code key=value} lines ({@code #} starts a comment, keys
 * case-insensitive) read by the one reader, {@link SettingsFile}, each key declared once in {@link Key} with a
 * default, so that an empty file is a working service. A bad key or value is refused with the file, the line and
 * what is expected; a typo never silently becomes a default (least of all a role). Immutable; {@link #with}
 * makes changed copies (command-line options win over the file).
 */
public final class ServiceSettings {

    /** Every key: a typed handle on its declaration ({@code alpsbridge ledger serve --help} and docs/admin-ledger.md). */
    public enum Key implements Setting.Handle {
        LISTEN(declare("listen", "127.0.0.1:7070", "where to listen: HOST:PORT or unix:/PATH, comma-separated",
                v -> SettingsFile.list(v).forEach(ProxyAddress::parse))),
        DB(declare("db", "", "the ledger served: sqlite:PATH or jdbc:postgresql://HOST:PORT/DB?user=U&password=P", v -> { })),
        AUTH(declare("auth", "munge", "munge (every request carries a MUNGE credential) or none (loopback labs only:"
                + " every caller is a superuser)", v -> oneOf(v, "munge", "none"))),
        MUNGE_SOCKET(declare("munge_socket", "", "munged's socket; empty = libmunge's default", v -> { })),
        TLS_CERT(declare("tls_cert", "", "PEM certificate (chain) of the service; with tls_key, TCP addresses speak HTTPS"
                + " (unix sockets stay plain)", v -> { })),
        TLS_KEY(declare("tls_key", "", "PEM (PKCS#8) private key of tls_cert", v -> { })),
        SUPERUSER_UIDS(declare("superuser_uids", "0", "uids that are superusers (everything, may act for another user)",
                ServiceSettings::ids)),
        SUPERUSER_GIDS(declare("superuser_gids", "", "gids whose members are superusers", ServiceSettings::ids)),
        ADMIN_UIDS(declare("admin_uids", "", "uids that are admins (read everything, send job events for any user)",
                ServiceSettings::ids)),
        ADMIN_GIDS(declare("admin_gids", "", "gids whose members are admins", ServiceSettings::ids)),
        CHARGER_UIDS(declare("charger_uids", "", "uids that are chargers (send job events for any user, read like standard"
                + " users, move no credit: the least privilege of the Slurm hooks' SlurmUser)", ServiceSettings::ids)),
        CHARGER_GIDS(declare("charger_gids", "", "gids whose members are chargers", ServiceSettings::ids)),
        STANDARD_JOB_EVENTS(declare("standard_job_events", "false", "whether standard users may send RESERVE, CONFIRM,"
                + " RELEASE of their own jobs (true|false)", v -> oneOf(v, "true", "false"))),
        WORKERS(declare("workers", "16", "threads that run ledger calls (each request holds one until its answer)",
                v -> positive(v, 1024))),
        MAX_BODY_BYTES(declare("max_body_bytes", "1048576", "largest request body accepted", v -> positive(v, 1 << 30))),
        GROUP_CACHE_SECONDS(declare("group_cache_seconds", "60", "how long a user's name and groups (from id(1), so"
                + " NSS/LDAP groups count) are remembered", v -> positive(v, 86_400))),
        CONSOLE(declare("console", "true", "serve the web console at / (true|false); sign in with alpsbridge ledger"
                + " web-login", v -> oneOf(v, "true", "false"))),
        CONSOLE_URL(declare("console_url", "", "the console's address as browsers reach it (a reverse proxy's), put in"
                + " sign-in links; empty = the address web-login reached the service on", v -> {
                    if (!v.isEmpty() && !v.matches("https?://[^\\s]+")) {
                        throw new IllegalArgumentException("expected http://HOST[:PORT][/PATH] or https://...");
                    }
                })),
        CONSOLE_LINK_SECONDS(declare("console_link_seconds", "60", "how long a sign-in link may wait before it is used"
                + " (it works once)", v -> positive(v, 3_600))),
        CONSOLE_SESSION_SECONDS(declare("console_session_seconds", "28800", "a console session ends this long after"
                + " sign-in, used or not", v -> positive(v, 7 * 86_400))),
        CONSOLE_IDLE_SECONDS(declare("console_idle_seconds", "1800", "a console session ends after this long without"
                + " a request", v -> positive(v, 7 * 86_400))),
        /** The PostgreSQL store's keys, declared by the store ({@link StoreSettings}), as ledger.conf lists them too. */
        PG_POOL(StoreSettings.PG_POOL),
        PG_GROUP_WRITERS(StoreSettings.PG_GROUP_WRITERS),
        PG_RECONNECT_SECONDS(StoreSettings.PG_RECONNECT_SECONDS);

        private final Setting setting;

        Key(Setting setting) {
            this.setting = setting;
        }

        @Override
        public Setting setting() {
            return setting;
        }

        static Key named(String name) {
            return Setting.Handle.named(values(), name);
        }
    }

    /** The declarations, in order (a method: a field made from {@code Key} could be read before {@code Key} is made). */
    public static List<Setting> settings() {
        return Setting.Handle.settings(Key.values());
    }

    private final Map<Key, String> values;

    private ServiceSettings(Map<Key, String> values) {
        this.values = values;
    }

    /** Every key at its default. */
    public static ServiceSettings defaults() {
        return new ServiceSettings(new EnumMap<>(Key.class));
    }

    /** Reads a settings file; refuses an unreadable file, an unknown key or a bad value with file and line. */
    public static ServiceSettings load(Path file) {
        try {
            return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("the ledger service's settings file: "
                    + org.alpsbridge.failure.Failures.describe(e) + " (the package installs"
                    + " /etc/alpsbridge/ledger-service.conf; without --config every key is at its default)");
        }
    }

    static ServiceSettings parse(String source, String text) {
        Map<Key, String> values = new EnumMap<>(Key.class);
        SettingsFile.parse(source, List.of(text.split("\n", -1)), settings())
                .forEach((k, v) -> values.put(Key.named(k), v));
        return new ServiceSettings(values);
    }

    /** A copy with {@code key} set; the value is checked like one read from a file. */
    public ServiceSettings with(Key key, String value) {
        String problem = key.setting.problem(value);
        if (problem != null) {
            throw new IllegalArgumentException("--" + key.key().replace('_', '-') + ": " + problem);
        }
        Map<Key, String> copy = new EnumMap<>(Key.class);
        copy.putAll(values);
        copy.put(key, value);
        return new ServiceSettings(copy);
    }

    /**
     * A key whose values {@code check} takes (it throws what is expected otherwise), refused as
     * {@code KEY=VALUE: what is expected (the key's meaning)}.
     */
    private static Setting declare(String name, String defaultValue, String meaning, Consumer<String> check) {
        return Setting.checked(name, defaultValue, meaning, v -> {
            try {
                check.accept(v);
                return null;
            } catch (RuntimeException e) {
                return name + "=" + v + ": " + e.getMessage() + " (" + meaning + ")";
            }
        });
    }

    public String get(Key key) {
        return values.getOrDefault(key, key.defaultValue());
    }

    /** The store's keys ({@link StoreSettings#ALL}) as set, for {@code Ledger.open(db, verify, store())}. */
    public Map<String, String> store() {
        Map<String, String> store = new java.util.LinkedHashMap<>();
        for (Setting setting : StoreSettings.ALL) {
            Key key = Key.named(setting.name());
            if (values.containsKey(key)) {
                store.put(setting.name(), values.get(key));
            }
        }
        return store;
    }

    public List<String> listen() {
        return SettingsFile.list(get(Key.LISTEN));
    }

    public boolean mungeAuth() {
        return get(Key.AUTH).equals("munge");
    }

    public Path mungeSocket() {
        return get(Key.MUNGE_SOCKET).isEmpty() ? null : Path.of(get(Key.MUNGE_SOCKET));
    }

    /** The certificate and key to serve HTTPS with, or null for plain HTTP; one without the other is refused. */
    Path[] tls() {
        String cert = get(Key.TLS_CERT);
        String key = get(Key.TLS_KEY);
        if (cert.isEmpty() != key.isEmpty()) {
            throw new IllegalArgumentException("tls_cert and tls_key go together: give both or neither");
        }
        return cert.isEmpty() ? null : new Path[] {Path.of(cert), Path.of(key)};
    }

    Set<Integer> ids(Key key) {
        return ids(get(key));
    }

    boolean standardJobEvents() {
        return get(Key.STANDARD_JOB_EVENTS).equals("true");
    }

    public int number(Key key) {
        return Integer.parseInt(get(key));
    }

    /** The file as a site would start it: every key commented out at its default, with its meaning. */
    public static String template() {
        return SettingsFile.template("# alpsbridge ledger serve --config FILE: key=value, '#' starts a"
                + " comment, unknown keys are refused.\n# Every key is shown at its default. Command-line options"
                + " override the file.\n", settings());
    }

    private static Set<Integer> ids(String v) {
        Set<Integer> out = new LinkedHashSet<>();
        for (String part : SettingsFile.list(v)) {
            try {
                int id = Integer.parseInt(part);
                if (id < 0) {
                    throw new NumberFormatException();
                }
                out.add(id);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + part + "' is not a uid/gid (comma-separated numbers)");
            }
        }
        return out;
    }

    private static void oneOf(String v, String a, String b) {
        if (!v.equals(a) && !v.equals(b)) {
            throw new IllegalArgumentException("expected " + a + " or " + b);
        }
    }

    private static void positive(String v, int max) {
        try {
            int n = Integer.parseInt(v);
            if (n < 1 || n > max) {
                throw new NumberFormatException();
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a whole number from 1 to " + max);
        }
    }
}
