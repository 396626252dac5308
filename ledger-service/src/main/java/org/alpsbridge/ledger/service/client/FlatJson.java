package org.alpsbridge.ledger.service.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the Slurm hooks read, by hand: they start a JVM per call on slurmctld's dispatch path, and
 * Jackson's start-up alone costs several times a JVM's (measured: 0.25 s against 0.06 s of CPU with a CDS
 * archive). Reads the top-level scalar fields of an object (the API's {@code Outcome},
 * {@code Reservation} and error answers), skipping nested values; {@link ServiceHttp} reads the service's
 * refusals with it, the hooks' {@code EventJson} writes their requests.
 */
public final class FlatJson {

    private final String text;
    private int at;

    private FlatJson(String text) {
        this.text = text;
    }

    /**
     * The top-level fields of a JSON object whose values are strings, numbers, booleans or null, as text
     * (null for JSON null); nested objects and arrays are skipped.
     *
     * @throws IllegalArgumentException when the text is not one JSON object
     */
    public static Map<String, String> fields(String json) {
        FlatJson p = new FlatJson(json);
        Map<String, String> out = p.object();
        p.end();
        return out;
    }

    /**
     * {@link #fields} of each object of a JSON array of objects (the answer of {@code POST /v1/starts}), in order.
     *
     * @throws IllegalArgumentException when the text is not one JSON array of objects
     */
    public static List<Map<String, String>> objects(String json) {
        FlatJson p = new FlatJson(json);
        List<Map<String, String>> out = new ArrayList<>();
        p.expect('[');
        if (p.peek() != ']') {
            do {
                out.add(p.object());
            } while (p.comma());
        }
        p.expect(']');
        p.end();
        return out;
    }

    private Map<String, String> object() {
        Map<String, String> out = new HashMap<>();
        expect('{');
        if (peek() != '}') {
            do {
                String key = string();
                expect(':');
                String value = value(true);
                out.put(key, value);
            } while (comma());
        }
        expect('}');
        return out;
    }

    private void end() {
        space();
        if (at != text.length()) {
            throw new IllegalArgumentException("text after the JSON value at " + at);
        }
    }

    private String value(boolean keep) {
        char c = peek();
        switch (c) {
            case '"' -> {
                return string();
            }
            case '{', '[' -> {
                char close = c == '{' ? '}' : ']';
                at++;
                if (peek() != close) {
                    do {
                        if (c == '{') {
                            string();
                            expect(':');
                        }
                        value(false);
                    } while (comma());
                }
                expect(close);
                return keep ? null : "";
            }
            default -> {
                int start = at;
                while (at < text.length() && "+-.0123456789eEtrufalsn".indexOf(text.charAt(at)) >= 0) {
                    at++;
                }
                String word = text.substring(start, at);
                if (word.isEmpty()) {
                    throw new IllegalArgumentException("unexpected '" + c + "' at " + start);
                }
                return word.equals("null") ? null : word;
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw new IllegalArgumentException("unterminated string");
            }
            char ch = text.charAt(at++);
            if (ch == '"') {
                return b.toString();
            }
            if (ch != '\\') {
                b.append(ch);
                continue;
            }
            char e = text.charAt(at++);
            switch (e) {
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    b.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> b.append(e);
            }
        }
    }

    private boolean comma() {
        if (peek() == ',') {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (peek() != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + at);
        }
        at++;
    }

    private char peek() {
        space();
        if (at >= text.length()) {
            throw new IllegalArgumentException("JSON ends early");
        }
        return text.charAt(at);
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }
}
