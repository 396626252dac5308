package org.alpsbridge.ledger;

import java.util.Locale;

/** What an allocation grants: CPU core-minutes or GPU-minutes. */
public enum Resource {
    CPU("core-minutes"),
    GPU("GPU-minutes");

    private final String unit;

    Resource(String unit) {
        this.unit = unit;
    }

    /** The unit amounts of this resource are kept in, for messages. */
    public String unit() {
        return unit;
    }

    /** Parses {@code cpu} or {@code gpu} in any case. */
    public static Resource parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new LedgerException("unknown resource '" + text + "': expected cpu or gpu");
        }
    }
}
