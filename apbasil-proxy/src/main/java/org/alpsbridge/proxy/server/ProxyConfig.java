package org.alpsbridge.proxy.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.alpsbridge.emulator.LatencyProfile;
import org.alpsbridge.settings.Setting;
import org.alpsbridge.settings.SettingsFile;

/**
 * The daemon's settings, read from a {@code key=value} file in the style of {@code cray.conf} by the one reader,
 * {@link SettingsFile}: one setting a line, {@code #} starts a comment, keys are case-insensitive, unknown keys
 * are errors. Command-line flags override the file. Every key, its meaning, its default and the check of its
 * value is declared once, in {@link Key}; the shipped file, {@code proxy serve --help} and docs/admin-proxy.md's
 * table come from (or are tested against) those declarations.
 *
 * <p>Immutable once built: the daemon reads it at start-up only.
 */
public final class ProxyConfig {

    /** Every key the file may hold: a typed handle on its declaration. */
    public enum Key implements Setting.Handle {
        LISTEN(Setting.checked("listen", "127.0.0.1:6830",
                "where to listen: host:port or unix:/path, comma-separated for several",
                v -> SettingsFile.list(v).isEmpty() ? "listen is empty: give at least one host:port or unix:/path" : null)),
        BACKEND(Setting.text("backend", "exec:" + Backends.CRAY_APBASIL,
                "exec:/path/to/apbasil (Cray's, run per request as Slurm did; never alpsbridge's drop-in /usr/bin/apbasil,"
                        + " which would call this proxy), emulator:SPEC (in-process ALPS emulator, for a lab) or"
                        + " proxy:HOST:PORT|proxy:unix:/path (another daemon, asked as bin/apbasil asks, in this process)")),
        EMULATOR_LATENCY_PROFILE(Setting.checked("emulator_latency_profile", "none",
                "emulator: backend: how long each call takes, as the drop-in's --latency-profile (xc30-2256 or none)",
                v -> refusal("emulator_latency_profile: ", () -> LatencyProfile.named(v)))),
        EMULATOR_LATENCY_SEED(Setting.expecting("emulator_latency_seed", "2256",
                "emulator: backend: seed of the latency profile's draws", "a whole number", v -> {
                    Long.parseLong(v);
                    return true;
                })),
        EMULATOR_PAGGS(Setting.choice("emulator_paggs", "none",
                "emulator: backend: host makes a confirmed reservation's pagg_id a claim while a process on this host has it"
                        + " as its process group or session, as the drop-in's --paggs host; none: no pagg is a claim",
                "host", "none")),
        EMULATOR_USERS(Setting.choice("emulator_users", "names",
                "emulator: backend: where the uid and gid in users' reservations come from, as the drop-in's --users: names"
                        + " derives them from the user name; host asks this host's password database (getent passwd), as ALPS"
                        + " does, the name's ids for a user it does not know",
                "names", "host")),
        AUTH(Setting.choice("auth", "munge", "munge (credential required on every request) or none (lab use on loopback only)",
                "munge", "none")),
        MUNGE_SOCKET(Setting.text("munge_socket", "", "munged's socket; empty = libmunge's default")),
        ALLOW_QUERY(access("allow_query", "*", "who may send QUERY: *, user names, uids, @group, @gid")),
        ALLOW_RESERVE(access("allow_reserve", "root",
                "who may send RESERVE/CONFIRM/RELEASE/SWITCH; add SlurmUser, e.g. root,slurm")),
        ALLOW_ADMIN(access("allow_admin", "root", "who may run operator commands (stats, orphans, ...)")),
        APBASIL_TIMEOUT(seconds("apbasil_timeout", "60",
                "seconds a backend call may take before the caller gets a TRANSIENT failure (like cray.conf ApbasilTimeout); "
                        + "per method: apbasil_timeout.RESERVE=..., apbasil_timeout.QUERY/INVENTORY=...")),
        BACKEND_CONCURRENCY(wholeAbove0("backend_concurrency", "8", "most backend calls running at once (exec: child processes)")),
        WORKERS(wholeAbove0("workers", "64", "threads for blocking work; the event loop never blocks")),
        QUEUE(wholeAbove0("queue", "4096", "requests waiting for a worker before new ones are refused as busy (TRANSIENT)")),
        MAX_REQUEST_BYTES(wholeAbove0("max_request_bytes", "1048576",
                "largest request frame accepted; larger ones are refused before any allocation")),
        MAX_RESPONSE_BYTES(wholeAbove0("max_response_bytes", "268435456", "largest backend response passed on")),
        REQUEST_TIMEOUT(seconds("request_timeout", "10", "seconds a client has to send its whole request after connecting")),
        REPLY_TIMEOUT(seconds("reply_timeout", "60",
                "seconds a client has to take its whole answer; one that stops reading is cut off")),
        SHUTDOWN_TIMEOUT(seconds("shutdown_timeout", "30", "seconds a graceful stop waits for requests in flight")),
        EXCHANGE_MEMORY(seconds("exchange_memory", "900",
                "seconds the answer to a RESERVE/CONFIRM/RELEASE/SWITCH is kept by exchange id for retries and duplicates")),
        EXCHANGE_JOURNAL(Setting.text("exchange_journal", "",
                "file that keeps exchange ids across restarts; empty = in memory only; not used with ha_db")),
        TLS_CERT(Setting.text("tls_cert", "", "PEM certificate chain for TLS on TCP listeners; empty = no TLS")),
        TLS_KEY(Setting.text("tls_key", "", "PEM PKCS#8 private key for tls_cert")),
        HA_DB(Setting.checked("ha_db", "",
                "two proxies, one Cray: jdbc:postgresql://... of the database both proxies share (the lease and the exchange"
                        + " memory live there); empty = a single proxy",
                v -> v.isBlank() || v.startsWith("jdbc:postgresql:") ? null
                        : "ha_db=" + v + ": expected jdbc:postgresql://HOST[:PORT]/DATABASE?..."
                                + " (both proxies of a pair must share one PostgreSQL; a file cannot survive its host)")),
        HA_NAME(Setting.text("ha_name", "",
                "host:port clients reach this proxy at, told to them by the standby; empty = the first listen address as bound")),
        HA_LEASE(Setting.checked("ha_lease", "5",
                "seconds the active proxy's lease lasts without renewal; the standby takes over at most this long after the"
                        + " active one dies",
                v -> !isSeconds(v) ? "ha_lease=" + v + ": expected seconds above 0"
                        : millis(v) < 1000 ? "ha_lease=" + v + ": expected at least 1 second" : null));

        private final Setting setting;

        Key(Setting setting) {
            this.setting = setting;
        }

        @Override
        public Setting setting() {
            return setting;
        }

        static Key of(String name) {
            return Setting.Handle.named(values(), name);
        }
    }

    /**
     * The declarations, in the order the shipped file and the help show them. A method, not a field: {@link Key}'s
     * constants call this class's factories, so a field of this class made from them would be read before they
     * exist whenever {@code Key} is the first of the two a program touches.
     */
    public static List<Setting> settings() {
        return Setting.Handle.settings(Key.values());
    }

    private final Map<String, String> values;

    private ProxyConfig(Map<String, String> values) {
        this.values = Map.copyOf(values);
        validate();
    }

    /** All defaults. */
    public static ProxyConfig defaults() {
        return new ProxyConfig(Map.of());
    }

    /** Reads a config file; errors name the file, line and key (and, for an unknown key, the known ones). */
    public static ProxyConfig read(Path file) throws IOException {
        Map<String, String> values = parse(file);
        try {
            return defaults().with(values);
        } catch (IllegalArgumentException e) {
            // A rule between keys (tls_cert without tls_key): no single line is at fault.
            throw new IllegalArgumentException(file + ": " + e.getMessage());
        }
    }

    /**
     * The settings file as shipped in {@code /etc/alpsbridge/proxy.conf}: every key commented out at its
     * default, with its meaning, so the file documents itself and cannot drift from {@link Key}.
     */
    public static String template() {
        return SettingsFile.template("# alpsbridge apbasil proxy daemon (alpsbridge proxy serve --config /etc/alpsbridge/proxy.conf)\n"
                + "# key=value, one a line; '#' starts a comment; unknown keys are refused at start.\n"
                + "# Every key is shown at its default, commented out. Command-line flags override this file.\n", settings());
    }

    /** Parses {@code key=value} lines into a map, without defaults; each value is checked on its own line. */
    static Map<String, String> parse(Path file) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalArgumentException(file + ": not UTF-8 text (" + e + ")");
        } catch (java.nio.file.FileSystemException e) {
            throw new IllegalArgumentException("the proxy's settings file: " + org.alpsbridge.failure.Failures.file(e)
                    + " (the package installs /etc/alpsbridge/proxy.conf; without --config every key is at its default)");
        }
        return SettingsFile.parse(file, lines, e -> problem(e.key(), e.value()));
    }

    /** This config with some keys replaced (command-line flags, tests). */
    public ProxyConfig with(Map<String, String> overrides) {
        Map<String, String> merged = new LinkedHashMap<>(values);
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            String key = e.getKey().toLowerCase(Locale.ROOT);
            if (declaration(key) == null) {
                throw new IllegalArgumentException(SettingsFile.unknownKey(key, settings()));
            }
            merged.put(key, e.getValue());
        }
        return new ProxyConfig(merged);
    }

    public ProxyConfig with(Key key, String value) {
        return with(Map.of(key.key(), value));
    }

    /**
     * The declaration of {@code key}, or null: a per-method {@code apbasil_timeout.METHOD} is a key of its own, checked
     * as {@code apbasil_timeout} is.
     */
    private static Setting declaration(String key) {
        if (key.startsWith("apbasil_timeout.")) {
            return seconds(key, "", "");
        }
        Key k = Key.of(key);
        return k == null ? null : k.setting;
    }

    /** What is wrong with {@code key=value} on its own, or null. */
    private static String problem(String key, String value) {
        Setting declared = declaration(key);
        return declared == null ? SettingsFile.unknownKey(key, settings()) : declared.problem(value);
    }

    String get(Key key) {
        return values.getOrDefault(key.key(), key.defaultValue());
    }

    public List<String> listen() {
        return SettingsFile.list(get(Key.LISTEN));
    }

    public String backend() {
        return get(Key.BACKEND);
    }

    public boolean mungeAuth() {
        return get(Key.AUTH).equals("munge");
    }

    public Path mungeSocket() {
        return path(Key.MUNGE_SOCKET);
    }

    public AccessRule allowQuery() {
        return AccessRule.parse(Key.ALLOW_QUERY.key(), get(Key.ALLOW_QUERY));
    }

    public AccessRule allowReserve() {
        return AccessRule.parse(Key.ALLOW_RESERVE.key(), get(Key.ALLOW_RESERVE));
    }

    public AccessRule allowAdmin() {
        return AccessRule.parse(Key.ALLOW_ADMIN.key(), get(Key.ALLOW_ADMIN));
    }

    /**
     * The backend time limit for a method key such as {@code QUERY/INVENTORY} or {@code RESERVE}: the most
     * specific of {@code apbasil_timeout.QUERY/INVENTORY}, {@code apbasil_timeout.QUERY}, {@code apbasil_timeout}.
     */
    public Duration apbasilTimeout(String methodKey) {
        String v = null;
        if (methodKey != null) {
            v = values.get("apbasil_timeout." + methodKey.toLowerCase(Locale.ROOT));
            int slash = methodKey.indexOf('/');
            if (v == null && slash > 0) {
                v = values.get("apbasil_timeout." + methodKey.substring(0, slash).toLowerCase(Locale.ROOT));
            }
        }
        return Duration.ofMillis(millis(v != null ? v : get(Key.APBASIL_TIMEOUT)));
    }

    /** The longest of all configured backend time limits. */
    Duration longestApbasilTimeout() {
        Duration max = apbasilTimeout(null);
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (e.getKey().startsWith("apbasil_timeout.")) {
                Duration d = Duration.ofMillis(millis(e.getValue()));
                if (d.compareTo(max) > 0) {
                    max = d;
                }
            }
        }
        return max;
    }

    public int backendConcurrency() {
        return Integer.parseInt(get(Key.BACKEND_CONCURRENCY));
    }

    public int workers() {
        return Integer.parseInt(get(Key.WORKERS));
    }

    public int queue() {
        return Integer.parseInt(get(Key.QUEUE));
    }

    public int maxRequestBytes() {
        return Integer.parseInt(get(Key.MAX_REQUEST_BYTES));
    }

    public int maxResponseBytes() {
        return Integer.parseInt(get(Key.MAX_RESPONSE_BYTES));
    }

    public Duration requestTimeout() {
        return seconds(Key.REQUEST_TIMEOUT);
    }

    public Duration replyTimeout() {
        return seconds(Key.REPLY_TIMEOUT);
    }

    public Duration shutdownTimeout() {
        return seconds(Key.SHUTDOWN_TIMEOUT);
    }

    public Duration exchangeMemory() {
        return seconds(Key.EXCHANGE_MEMORY);
    }

    /**
     * The exchange journal file, or null; always null with {@code ha_db}, whose database keeps the exchange memory
     * where the other proxy finds it (the packages' defaults name a journal file: it is set aside, not an error).
     */
    public Path exchangeJournal() {
        return haDb() == null ? path(Key.EXCHANGE_JOURNAL) : null;
    }

    public Path tlsCert() {
        return path(Key.TLS_CERT);
    }

    public Path tlsKey() {
        return path(Key.TLS_KEY);
    }

    /** The shared database of a pair of proxies, or null for a single proxy. */
    public String haDb() {
        String v = get(Key.HA_DB);
        return v.isBlank() ? null : v;
    }

    /** The address this proxy advertises to clients, or null for its first listen address as bound. */
    public String haName() {
        String v = get(Key.HA_NAME);
        return v.isBlank() ? null : v;
    }

    public Duration haLease() {
        return seconds(Key.HA_LEASE);
    }

    /** The latency profile an {@code emulator:} backend answers with. */
    public LatencyProfile emulatorLatencyProfile() {
        return LatencyProfile.named(get(Key.EMULATOR_LATENCY_PROFILE));
    }

    public long emulatorLatencySeed() {
        return Long.parseLong(get(Key.EMULATOR_LATENCY_SEED));
    }

    /** Whether an {@code emulator:} backend takes users' ids from this host's password database. */
    public boolean emulatorUsersFromHost() {
        return get(Key.EMULATOR_USERS).equals("host");
    }

    /** Whether an {@code emulator:} backend counts this host's process groups and sessions as claims. */
    public boolean emulatorPaggs() {
        return get(Key.EMULATOR_PAGGS).equals("host");
    }

    /**
     * Every value as its declaration checks it (in the declared order, the per-method timeouts last), then the rule
     * between keys: a config that is built is usable.
     */
    private void validate() {
        Map<String, String> all = new LinkedHashMap<>();
        Stream.of(Key.values()).forEach(k -> all.put(k.key(), get(k)));
        all.putAll(new java.util.TreeMap<>(values));
        all.forEach((key, value) -> {
            String problem = problem(key, value);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
        });
        if ((tlsCert() == null) != (tlsKey() == null)) {
            throw new IllegalArgumentException("tls_cert and tls_key go together: set both or neither");
        }
    }

    private Path path(Key key) {
        String v = get(key);
        return v.isBlank() ? null : Path.of(v);
    }

    private Duration seconds(Key key) {
        return Duration.ofMillis(millis(get(key)));
    }

    /** A key of seconds above 0 (fractions allowed, below 10^9). */
    private static Setting seconds(String name, String defaultValue, String help) {
        return Setting.expecting(name, defaultValue, help, "seconds above 0", ProxyConfig::isSeconds);
    }

    private static boolean isSeconds(String v) {
        try {
            double d = Double.parseDouble(v);
            return d > 0 && d < 1e9;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static long millis(String seconds) {
        return Math.round(Double.parseDouble(seconds) * 1000);
    }

    /** A key of whole numbers above 0. */
    private static Setting wholeAbove0(String name, String defaultValue, String help) {
        return Setting.expecting(name, defaultValue, help, "a whole number above 0", v -> Integer.parseInt(v) > 0);
    }

    /** A key of users and groups allowed something: {@link AccessRule}'s words for a name that is no one. */
    private static Setting access(String name, String defaultValue, String help) {
        return Setting.checked(name, defaultValue, help, v -> refusal("", () -> AccessRule.parse(name, v)));
    }

    /** {@code prefix} and the message of the IllegalArgumentException {@code use} throws, or null when it throws none. */
    private static String refusal(String prefix, Runnable use) {
        try {
            use.run();
            return null;
        } catch (IllegalArgumentException e) {
            return prefix + e.getMessage();
        }
    }
}
