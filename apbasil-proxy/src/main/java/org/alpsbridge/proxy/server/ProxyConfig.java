package org.alpsbridge.proxy.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.alpsbridge.settings.SettingsFile;

/**
 * The daemon's settings, read from a {@code key=value} file in the style of {@code cray.conf}:
 * one setting a line, {@code #} starts a comment, keys are case-insensitive, unknown keys are errors.
 * Command-line flags override the file. Every key, its meaning and its default is in {@link Key}
 * (and in the module README, which lists the same table).
 *
 * <p>Immutable once built: the daemon reads it at start-up only.
 */
public final class ProxyConfig {

    /** Every key the file may hold, with its default. */
    public enum Key {
        LISTEN("listen", "127.0.0.1:6830",
                "where to listen: host:port or unix:/path, comma-separated for several"),
        BACKEND("backend", "exec:" + Backends.CRAY_APBASIL,
                "exec:/path/to/apbasil (Cray's, run per request as Slurm did; never alpsbridge's drop-in /usr/bin/apbasil,"
                        + " which would call this proxy), emulator:SPEC (in-process ALPS emulator, for a lab) or"
                        + " proxy:HOST:PORT|proxy:unix:/path (another daemon, asked as bin/apbasil asks, in this process)"),
        EMULATOR_LATENCY_PROFILE("emulator_latency_profile", "none",
                "emulator: backend: how long each call takes, as the drop-in's --latency-profile (xc30-2256 or none)"),
        EMULATOR_LATENCY_SEED("emulator_latency_seed", "2256", "emulator: backend: seed of the latency profile's draws"),
        EMULATOR_PAGGS("emulator_paggs", "none",
                "emulator: backend: host makes a confirmed reservation's pagg_id a claim while a process on this host has it"
                        + " as its process group or session, as the drop-in's --paggs host; none: no pagg is a claim"),
        AUTH("auth", "munge", "munge (credential required on every request) or none (lab use on loopback only)"),
        MUNGE_SOCKET("munge_socket", "", "munged's socket; empty = libmunge's default"),
        ALLOW_QUERY("allow_query", "*", "who may send QUERY: *, user names, uids, @group, @gid"),
        ALLOW_RESERVE("allow_reserve", "root",
                "who may send RESERVE/CONFIRM/RELEASE/SWITCH; add SlurmUser, e.g. root,slurm"),
        ALLOW_ADMIN("allow_admin", "root", "who may run operator commands (stats, orphans, ...)"),
        APBASIL_TIMEOUT("apbasil_timeout", "60",
                "seconds a backend call may take before the caller gets a TRANSIENT failure (like cray.conf ApbasilTimeout); "
                        + "per method: apbasil_timeout.RESERVE=..., apbasil_timeout.QUERY/INVENTORY=..."),
        BACKEND_CONCURRENCY("backend_concurrency", "8", "most backend calls running at once (exec: child processes)"),
        WORKERS("workers", "64", "threads for blocking work; the event loop never blocks"),
        QUEUE("queue", "4096", "requests waiting for a worker before new ones are refused as busy (TRANSIENT)"),
        MAX_REQUEST_BYTES("max_request_bytes", "1048576",
                "largest request frame accepted; larger ones are refused before any allocation"),
        MAX_RESPONSE_BYTES("max_response_bytes", "268435456", "largest backend response passed on"),
        REQUEST_TIMEOUT("request_timeout", "10", "seconds a client has to send its whole request after connecting"),
        REPLY_TIMEOUT("reply_timeout", "60",
                "seconds a client has to take its whole answer; one that stops reading is cut off"),
        SHUTDOWN_TIMEOUT("shutdown_timeout", "30", "seconds a graceful stop waits for requests in flight"),
        EXCHANGE_MEMORY("exchange_memory", "900",
                "seconds the answer to a RESERVE/CONFIRM/RELEASE/SWITCH is kept by exchange id for retries and duplicates"),
        EXCHANGE_JOURNAL("exchange_journal", "",
                "file that keeps exchange ids across restarts; empty = in memory only; not used with ha_db"),
        TLS_CERT("tls_cert", "", "PEM certificate chain for TLS on TCP listeners; empty = no TLS"),
        TLS_KEY("tls_key", "", "PEM PKCS#8 private key for tls_cert"),
        HA_DB("ha_db", "",
                "two proxies, one Cray: jdbc:postgresql://... of the database both proxies share (the lease and the exchange"
                        + " memory live there); empty = a single proxy"),
        HA_NAME("ha_name", "",
                "host:port clients reach this proxy at, told to them by the standby; empty = the first listen address as bound"),
        HA_LEASE("ha_lease", "5",
                "seconds the active proxy's lease lasts without renewal; the standby takes over at most this long after the"
                        + " active one dies");

        final String name;
        final String defaultValue;
        final String help;

        Key(String name, String defaultValue, String help) {
            this.name = name;
            this.defaultValue = defaultValue;
            this.help = help;
        }

        public String key() {
            return name;
        }

        public String defaultValue() {
            return defaultValue;
        }

        public String help() {
            return help;
        }

        static Key of(String name) {
            for (Key k : values()) {
                if (k.name.equals(name)) {
                    return k;
                }
            }
            return null;
        }
    }

    private final Map<String, String> values;

    private ProxyConfig(Map<String, String> values) {
        this(values, true);
    }

    private ProxyConfig(Map<String, String> values, boolean acrossKeys) {
        this.values = Map.copyOf(values);
        validate(acrossKeys);
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
        StringBuilder out = new StringBuilder()
                .append("# alpsbridge apbasil proxy daemon (alpsbridge proxy serve --config /etc/alpsbridge/proxy.conf)\n")
                .append("# key=value, one a line; '#' starts a comment; unknown keys are refused at start.\n")
                .append("# Every key is shown at its default, commented out. Command-line flags override this file.\n");
        for (Key k : Key.values()) {
            out.append("\n# ").append(k.help).append("\n#").append(k.name).append('=').append(k.defaultValue).append('\n');
        }
        return out.toString();
    }

    /** Parses {@code key=value} lines into a map, without defaults. */
    static Map<String, String> parse(Path file) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalArgumentException(file + ": not UTF-8 text (" + e + ")");
        } catch (java.nio.file.FileSystemException e) {
            throw new IllegalArgumentException("the proxy's settings file: " + org.alpsbridge.basil.cli.Failures.file(e)
                    + " (the package installs /etc/alpsbridge/proxy.conf; without --config every key is at its default)");
        }
        for (SettingsFile.Entry e : SettingsFile.entries(file, lines)) {
            try {
                checkKnown(e.key());
                new ProxyConfig(Map.of(e.key(), e.value()), false); // the value on its own, so its line can be named
            } catch (IllegalArgumentException ex) {
                throw e.problem(ex.getMessage());
            }
            out.put(e.key(), e.value());
        }
        return out;
    }

    /** This config with some keys replaced (command-line flags, tests). */
    public ProxyConfig with(Map<String, String> overrides) {
        Map<String, String> merged = new LinkedHashMap<>(values);
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            String key = e.getKey().toLowerCase(Locale.ROOT);
            checkKnown(key);
            merged.put(key, e.getValue());
        }
        return new ProxyConfig(merged);
    }

    public ProxyConfig with(Key key, String value) {
        return with(Map.of(key.name, value));
    }

    private static void checkKnown(String key) {
        String base = key.startsWith("apbasil_timeout.") ? "apbasil_timeout" : key;
        if (Key.of(base) == null) {
            StringBuilder known = new StringBuilder();
            for (Key k : Key.values()) {
                known.append(known.length() == 0 ? "" : ", ").append(k.name);
            }
            throw new IllegalArgumentException("unknown key '" + key + "' (known keys: " + known + ")");
        }
    }

    String get(Key key) {
        return values.getOrDefault(key.name, key.defaultValue);
    }

    public List<String> listen() {
        List<String> out = new ArrayList<>();
        for (String s : get(Key.LISTEN).split(",")) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
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
        return AccessRule.parse(Key.ALLOW_QUERY.name, get(Key.ALLOW_QUERY));
    }

    public AccessRule allowReserve() {
        return AccessRule.parse(Key.ALLOW_RESERVE.name, get(Key.ALLOW_RESERVE));
    }

    public AccessRule allowAdmin() {
        return AccessRule.parse(Key.ALLOW_ADMIN.name, get(Key.ALLOW_ADMIN));
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
        return seconds("apbasil_timeout", v != null ? v : get(Key.APBASIL_TIMEOUT));
    }

    /** The longest of all configured backend time limits. */
    Duration longestApbasilTimeout() {
        Duration max = apbasilTimeout(null);
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (e.getKey().startsWith("apbasil_timeout.")) {
                Duration d = seconds(e.getKey(), e.getValue());
                if (d.compareTo(max) > 0) {
                    max = d;
                }
            }
        }
        return max;
    }

    public int backendConcurrency() {
        return positiveInt(Key.BACKEND_CONCURRENCY);
    }

    public int workers() {
        return positiveInt(Key.WORKERS);
    }

    public int queue() {
        return positiveInt(Key.QUEUE);
    }

    public int maxRequestBytes() {
        return positiveInt(Key.MAX_REQUEST_BYTES);
    }

    public int maxResponseBytes() {
        return positiveInt(Key.MAX_RESPONSE_BYTES);
    }

    public Duration requestTimeout() {
        return seconds(Key.REQUEST_TIMEOUT.name, get(Key.REQUEST_TIMEOUT));
    }

    public Duration replyTimeout() {
        return seconds(Key.REPLY_TIMEOUT.name, get(Key.REPLY_TIMEOUT));
    }

    public Duration shutdownTimeout() {
        return seconds(Key.SHUTDOWN_TIMEOUT.name, get(Key.SHUTDOWN_TIMEOUT));
    }

    public Duration exchangeMemory() {
        return seconds(Key.EXCHANGE_MEMORY.name, get(Key.EXCHANGE_MEMORY));
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
        return seconds(Key.HA_LEASE.name, get(Key.HA_LEASE));
    }

    private void validate(boolean acrossKeys) {
        String auth = get(Key.AUTH);
        if (!auth.equals("munge") && !auth.equals("none")) {
            throw new IllegalArgumentException("auth=" + auth + ": expected munge or none");
        }
        if (listen().isEmpty()) {
            throw new IllegalArgumentException("listen is empty: give at least one host:port or unix:/path");
        }
        if (acrossKeys && (tlsCert() == null) != (tlsKey() == null)) {
            throw new IllegalArgumentException("tls_cert and tls_key go together: set both or neither");
        }
        allowQuery();
        allowReserve();
        allowAdmin();
        longestApbasilTimeout();
        for (Key k : List.of(Key.BACKEND_CONCURRENCY, Key.WORKERS, Key.QUEUE, Key.MAX_REQUEST_BYTES,
                Key.MAX_RESPONSE_BYTES)) {
            positiveInt(k);
        }
        String haDb = get(Key.HA_DB);
        if (!haDb.isBlank() && !haDb.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("ha_db=" + haDb + ": expected jdbc:postgresql://HOST[:PORT]/DATABASE?..."
                    + " (both proxies of a pair must share one PostgreSQL; a file cannot survive its host)");
        }
        if (haLease().compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("ha_lease=" + get(Key.HA_LEASE) + ": expected at least 1 second");
        }
        requestTimeout();
        replyTimeout();
        shutdownTimeout();
        exchangeMemory();
        emulatorLatencyProfile();
        emulatorLatencySeed();
        emulatorPaggs();
    }

    /** The latency profile an {@code emulator:} backend answers with. */
    public org.alpsbridge.basil.emulator.LatencyProfile emulatorLatencyProfile() {
        try {
            return org.alpsbridge.basil.emulator.LatencyProfile.named(get(Key.EMULATOR_LATENCY_PROFILE));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(Key.EMULATOR_LATENCY_PROFILE.name + ": " + e.getMessage());
        }
    }

    public long emulatorLatencySeed() {
        String v = get(Key.EMULATOR_LATENCY_SEED);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(Key.EMULATOR_LATENCY_SEED.name + "=" + v + ": expected a whole number");
        }
    }

    /** Whether an {@code emulator:} backend counts this host's process groups and sessions as claims. */
    public boolean emulatorPaggs() {
        String v = get(Key.EMULATOR_PAGGS);
        if (!v.equals("host") && !v.equals("none")) {
            throw new IllegalArgumentException(Key.EMULATOR_PAGGS.name + "=" + v + ": expected host or none");
        }
        return v.equals("host");
    }

    private Path path(Key key) {
        String v = get(key);
        return v.isBlank() ? null : Path.of(v);
    }

    private int positiveInt(Key key) {
        String v = get(key);
        try {
            int i = Integer.parseInt(v);
            if (i > 0) {
                return i;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(key.name + "=" + v + ": expected a whole number above 0");
    }

    private static Duration seconds(String key, String v) {
        try {
            double d = Double.parseDouble(v);
            if (d > 0 && d < 1e9) {
                return Duration.ofMillis(Math.round(d * 1000));
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(key + "=" + v + ": expected seconds above 0");
    }
}
