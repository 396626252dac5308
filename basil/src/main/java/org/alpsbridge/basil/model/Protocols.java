package org.alpsbridge.basil.model;

import java.util.List;

/** BASIL protocol version strings and their order. */
public final class Protocols {

    /** The versions this model reads and writes, oldest first (PROTOCOL.md §2.1). */
    public static final List<String> KNOWN = List.of("1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7");

    private Protocols() {
    }

    /** True when {@code protocol} is {@code min} or later; false for a null or unparsable version. */
    public static boolean atLeast(String protocol, String min) {
        return protocol != null && compare(protocol, min) >= 0;
    }

    /** Orders {@code "1.2" < "1.10"}; unparsable parts sort first. */
    public static int compare(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int c = Integer.compare(part(x, i), part(y, i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static int part(String[] parts, int i) {
        if (i >= parts.length) {
            return 0;
        }
        try {
            return Integer.parseInt(parts[i].strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
