package org.alpsbridge.settings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a settings file's hand-written documentation (a README table, a manual page, a shipped file) and the C clients
 * say of its keys, read as key → default so that a test compares it with the declarations and the two cannot drift:
 * every key, at its default, and nothing else. An empty default is written as an explanation in brackets
 * ("(none: no TLS)") and read as "".
 */
public final class SettingsDocs {

    private static final Pattern CODE = Pattern.compile("`([^`]*)`");
    private static final Pattern MAN_KEY = Pattern.compile("\\\\fB([a-z_]+)\\\\fR(?: \\(([^)]*)\\))?");

    private SettingsDocs() {
    }

    /** The declarations as key → default. */
    public static Map<String, String> declared(List<Setting> keys) {
        Map<String, String> out = new TreeMap<>();
        keys.forEach(k -> out.put(k.name(), k.defaultValue()));
        return out;
    }

    /**
     * The {@code | key | default | meaning |} table that follows the first line of {@code markdown} starting with
     * {@code heading}: a row may name several keys ({@code `tls_cert`, `tls_key`}) that share its default.
     */
    public static Map<String, String> readmeTable(Path markdown, String heading) throws IOException {
        List<String> lines = Files.readAllLines(markdown);
        int at = 0;
        while (at < lines.size() && !lines.get(at).startsWith(heading)) {
            at++;
        }
        if (at == lines.size()) {
            throw new AssertionError(markdown + " has no line starting with " + heading);
        }
        while (at < lines.size() && !lines.get(at).startsWith("| key |")) {
            at++;
        }
        Map<String, String> out = new TreeMap<>();
        for (at += 2; at < lines.size() && lines.get(at).startsWith("| `"); at++) {
            String[] cells = lines.get(at).split(" \\| ");
            String shown = cells[1].strip();
            String value = shown.startsWith("(") ? "" : code(shown);
            Matcher key = CODE.matcher(cells[0]);
            while (key.find()) {
                out.put(key.group(1), value == null ? "not a default: " + shown : value);
            }
        }
        return out;
    }

    /**
     * The keys of a manual page's {@code .SH SETTINGS} section: each {@code .TP} tag names keys in bold, each with
     * its default in brackets after it, none when it is empty.
     */
    public static Map<String, String> manPage(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page);
        Map<String, String> out = new TreeMap<>();
        boolean settings = false;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(".SH")) {
                settings = lines.get(i).equals(".SH SETTINGS");
            } else if (settings && lines.get(i).equals(".TP") && i + 1 < lines.size()) {
                Matcher key = MAN_KEY.matcher(lines.get(i + 1));
                while (key.find()) {
                    out.put(key.group(1), key.group(2) == null ? "" : key.group(2).replace("\\-", "-"));
                }
            }
        }
        return out;
    }

    /** The keys a settings file as shipped shows commented out, {@code #key=value}, at the value it shows. */
    public static Map<String, String> commentedOut(Path file) throws IOException {
        Map<String, String> out = new TreeMap<>();
        Matcher m = Pattern.compile("(?m)^#([a-z_]+)=(.*)$").matcher(Files.readString(file));
        while (m.find()) {
            out.put(m.group(1), m.group(2));
        }
        return out;
    }

    /** The string a C {@code #define NAME "value"} gives. */
    public static String cDefine(String source, String name) {
        Matcher m = Pattern.compile("(?m)^#define " + name + " \"([^\"]*)\"$").matcher(source);
        if (!m.find()) {
            throw new AssertionError("no #define " + name);
        }
        return m.group(1);
    }

    /** The one {@code `value`} a default cell shows, or null when it shows something else. */
    private static String code(String cell) {
        Matcher m = CODE.matcher(cell);
        return cell.startsWith("`") && m.find() ? m.group(1) : null;
    }
}
