package org.alpsbridge.json;

/**
 * The one hand-written JSON string quoting: the proxy daemon's {@code --json} outputs (stats, orphans), the timing
 * report and the ledger hooks' events, which stay without a JSON library for start-up.
 */
public final class JsonText {

    private JsonText() {
    }

    /** {@code s} as a JSON string literal, quotes included; null becomes {@code null}. */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
