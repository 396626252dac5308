package org.alpsbridge.settings;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The one reader of alpsbridge's {@code key=value} settings files ({@code cray.conf}'s style): one setting a line,
 * {@code #} starts a comment, keys are case-insensitive, and a line that is not {@code key=value}, an unknown key or
 * a value its {@link Setting} refuses is an error naming the file and line, because a typo must never fall back
 * silently to a default.
 */
public final class SettingsFile {

    private SettingsFile() {
    }

    /**
     * The values {@code lines} set, by key (lower case), without defaults.
     *
     * @param file what errors name (the file's path)
     * @throws IllegalArgumentException {@code FILE:LINE: problem}
     */
    public static Map<String, String> parse(Object file, List<String> lines, List<Setting> keys) {
        Map<String, String> out = new LinkedHashMap<>();
        int n = 0;
        for (String line : lines) {
            n++;
            String t = line.strip();
            int hash = t.indexOf('#');
            if (hash >= 0) {
                t = t.substring(0, hash).strip();
            }
            if (t.isEmpty()) {
                continue;
            }
            int eq = t.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(file + ":" + n + ": expected key=value, got '" + line.strip() + "'");
            }
            String key = t.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            Setting setting = find(keys, key);
            if (setting == null) {
                throw new IllegalArgumentException(file + ":" + n + ": unknown key '" + key + "' (known keys: "
                        + keys.stream().map(Setting::name).collect(Collectors.joining(", ")) + ")");
            }
            String value = t.substring(eq + 1).strip();
            String problem = setting.problem(value);
            if (problem != null) {
                throw new IllegalArgumentException(file + ":" + n + ": " + problem);
            }
            out.put(key, value);
        }
        return out;
    }

    /** The key named {@code name}, or null. */
    public static Setting find(List<Setting> keys, String name) {
        for (Setting k : keys) {
            if (k.name().equals(name)) {
                return k;
            }
        }
        return null;
    }

    /** The file as shipped: {@code header}, then every key commented out at its default under its meaning. */
    public static String template(String header, List<Setting> keys) {
        StringBuilder out = new StringBuilder(header);
        for (Setting k : keys) {
            out.append("\n# ").append(k.help()).append("\n#").append(k.name()).append('=').append(k.defaultValue()).append('\n');
        }
        return out.toString();
    }
}
