package org.alpsbridge.ledger.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.store.StoreSettings;
import org.alpsbridge.settings.Setting;
import org.alpsbridge.settings.SettingsFile;

/**
 * The site's ledger settings file, {@value #DEFAULT_FILE} (or the file named by env
 * {@code ALPSBRIDGE_LEDGER_CONFIG}): what the ledger commands use when the command line does not say.
 * {@code key=value} lines, {@code #} starts a comment, keys case-insensitive; an unknown key or a line
 * that is not {@code key=value} is refused with the file and line, so a typo never silently falls back to
 * a per-user database.
 */
final class LedgerSettings {

    static final String DEFAULT_FILE = "/etc/alpsbridge/ledger.conf";

    /** Every key: name, type, default (empty = none) and meaning; then the store's ({@link StoreSettings#ALL}). */
    private static final List<Setting> KEYS = java.util.stream.Stream.concat(java.util.stream.Stream.of(
            Setting.checked("db", "", "the ledger the commands open when --db and env ALPSBRIDGE_LEDGER are not given: "
                    + "sqlite:PATH, jdbc:postgresql://HOST:PORT/DB?user=U&password=P or http(s)://HOST:PORT (a ledger service,"
                    + " see man alpsbridge-ledger for its client settings: ALPSBRIDGE_LEDGER_AUTH, ALPSBRIDGE_LEDGER_TLS_CA,"
                    + " ALPSBRIDGE_MUNGE_SOCKET); empty = none: every command then needs --db or env ALPSBRIDGE_LEDGER",
                    v -> v.isEmpty() || urlProblem(v) == null ? null : "db=" + v + ": " + urlProblem(v))),
            java.util.stream.Stream.concat(StoreSettings.ALL.stream(),
                    java.util.stream.Stream.concat(org.alpsbridge.ledger.slurm.SlurmSync.SETTINGS.stream(),
                            org.alpsbridge.ledger.slurm.WorkgroupPartitions.SETTINGS.stream()))).toList();

    private final Map<String, String> values;

    private LedgerSettings(Map<String, String> values) {
        this.values = values;
    }

    /** The settings file's path: env {@code ALPSBRIDGE_LEDGER_CONFIG} if set, else {@value #DEFAULT_FILE}. */
    static Path file(Map<String, String> env) {
        String named = env.get("ALPSBRIDGE_LEDGER_CONFIG");
        return Path.of(named != null && !named.isBlank() ? named : DEFAULT_FILE);
    }

    /** The settings file: env {@code ALPSBRIDGE_LEDGER_CONFIG} if set (it must exist), else the default if present. */
    static LedgerSettings load(Map<String, String> env) {
        String named = env.get("ALPSBRIDGE_LEDGER_CONFIG");
        Path file = file(env);
        try {
            return new LedgerSettings(parse(file, Files.readString(file, StandardCharsets.UTF_8)));
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalArgumentException(file + ": not UTF-8 text (" + e + ")");
        } catch (NoSuchFileException e) {
            if (named != null && !named.isBlank()) {
                throw new IllegalArgumentException("ALPSBRIDGE_LEDGER_CONFIG names " + file + ", which does not exist");
            }
            return new LedgerSettings(Map.of());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the ledger settings " + file + " ("
                    + (e instanceof java.nio.file.AccessDeniedException ? "permission denied" : e.toString()) + "); fix its permissions, or name another file with env ALPSBRIDGE_LEDGER_CONFIG");
        }
    }

    static Map<String, String> parse(Path file, String text) {
        return SettingsFile.parse(file, List.of(text.split("\n", -1)), KEYS);
    }

    /** The configured ledger URL, or null when the file leaves it to each user. */
    String db() {
        String v = values.getOrDefault("db", "");
        return v.isEmpty() ? null : v;
    }

    /** A key's value in the file, else its declared default. */
    String value(String key) {
        String v = values.get(key);
        return v != null ? v : KEYS.stream().filter(k -> k.name().equals(key)).findFirst().orElseThrow().defaultValue();
    }

    /** What the file sets of the store's settings ({@link StoreSettings#ALL}), by key: for a PostgreSQL ledger. */
    Map<String, String> store() {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        StoreSettings.ALL.forEach(s -> {
            if (values.containsKey(s.name())) {
                out.put(s.name(), values.get(s.name()));
            }
        });
        return out;
    }

    /** The file as shipped in {@value #DEFAULT_FILE}: every key commented out at its default, with its meaning. */
    static String template() {
        return SettingsFile.template("# alpsbridge ledger: what `alpsbridge ledger ...` uses when its command line does not say.\n"
                + "# key=value, one a line; '#' starts a comment; unknown keys are refused.\n"
                + "# ALPSBRIDGE_LEDGER_CONFIG names another file. Every key is shown at its default, commented out.\n", KEYS);
    }

    /** The ledger URLs the commands take, as their errors list them. */
    static final String URL_FORMS = "sqlite:PATH, jdbc:postgresql://HOST:PORT/DB?user=U&password=P, or"
            + " http(s)://HOST:PORT for a ledger service";

    /**
     * What is wrong with a ledger URL given to the commands, or null when it has one of the accepted forms (the
     * stores' own, {@code jdbc:sqlite:}, {@code postgresql://}, are taken too). A bare path is a file meant for
     * SQLite, most likely.
     */
    static String urlProblem(String url) {
        String u = url.strip();
        if (u.matches("(?i)https?://.*")) {
            // "db=https://" passed a prefix check and failed only at the first command (found by
            // LedgerSettingsFuzzTest): a service URL names its host
            return hasHost(u) ? null : "a ledger service URL names its host: http://HOST:PORT or https://HOST:PORT";
        }
        for (String prefix : new String[] {"sqlite:", "jdbc:sqlite:", "jdbc:postgresql:", "postgresql:", "postgres://"}) {
            if (u.startsWith(prefix)) {
                return null;
            }
        }
        String hint = u.startsWith("/") || u.startsWith("./") || u.startsWith("~") || u.endsWith(".db")
                ? "did you mean sqlite:" + u + "? " : "";
        return "not a ledger URL; " + hint + "expected " + URL_FORMS;
    }

    private static boolean hasHost(String url) {
        try {
            return java.net.URI.create(url).getHost() != null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
