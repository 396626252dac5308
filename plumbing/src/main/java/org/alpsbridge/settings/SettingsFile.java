package org.alpsbridge.settings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
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
        return parse(file, lines, e -> {
            Setting setting = find(keys, e.key());
            return setting == null ? unknownKey(e.key(), keys) : setting.problem(e.value());
        });
    }

    /**
     * The same for a reader whose keys follow rules of their own ({@code problem} says what is wrong with an entry,
     * or null): each line is checked as it is read, so that of several wrong lines the first is the one named.
     *
     * @throws IllegalArgumentException {@code FILE:LINE: problem}, or {@code FILE:LINE: expected key=value, got '...'}
     */
    public static Map<String, String> parse(Object file, List<String> lines, Function<Entry, String> problem) {
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
            Entry e = new Entry(file, n, t.substring(0, eq).strip().toLowerCase(Locale.ROOT), t.substring(eq + 1).strip());
            String wrong = problem.apply(e);
            if (wrong != null) {
                throw e.problem(wrong);
            }
            out.put(e.key(), e.value());
        }
        return out;
    }

    /** What an unknown key is told: {@code unknown key 'NAME' (known keys: a, b, c)}. */
    public static String unknownKey(String name, List<Setting> keys) {
        return "unknown key '" + name + "' (known keys: " + keys.stream().map(Setting::name).collect(Collectors.joining(", ")) + ")";
    }

    /** One {@code key=value} line: the key in lower case, the value stripped, and where it stands. */
    public record Entry(Object file, int line, String key, String value) {

        /** {@code FILE:LINE: problem}, the form every settings error takes. */
        public IllegalArgumentException problem(String problem) {
            return new IllegalArgumentException(file + ":" + line + ": " + problem);
        }
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

    /**
     * Every key as a command's help lists it: name, default ({@code (empty)} for none) and meaning in three columns,
     * the meaning wrapped within 118 columns under its own column (a help footer would otherwise be wrapped back to
     * its first column) and started on the next line after a default too long for its column.
     */
    public static List<String> table(List<Setting> keys) {
        int nameWidth = Math.max(20, keys.stream().mapToInt(k -> k.name().length()).max().orElse(0));
        String indent = " ".repeat(2 + nameWidth + 1 + 15 + 1);
        List<String> out = new ArrayList<>();
        for (Setting k : keys) {
            String shown = k.defaultValue().isEmpty() ? "(empty)" : k.defaultValue();
            StringBuilder line = new StringBuilder(String.format("  %-" + nameWidth + "s %-15s ", k.name(), shown));
            if (shown.length() > 15) {
                out.add(line.toString().stripTrailing());
                line = new StringBuilder(indent);
            }
            for (String word : k.help().split(" ")) {
                if (line.length() > indent.length() && line.length() + word.length() > 118) {
                    out.add(line.toString().stripTrailing());
                    line = new StringBuilder(indent);
                }
                line.append(word).append(' ');
            }
            out.add(line.toString().stripTrailing());
        }
        return out;
    }

    /** The entries of a comma-separated value, stripped, empty ones left out. */
    public static List<String> list(String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                out.add(part.strip());
            }
        }
        return out;
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
