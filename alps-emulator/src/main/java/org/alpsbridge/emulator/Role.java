package org.alpsbridge.emulator;

import java.util.Locale;

/** A compute node's role: BATCH nodes are for reservations, INTERACTIVE ones for aprun from login nodes. */
enum Role {
    BATCH, INTERACTIVE;

    static Role parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown node role '" + s + "'; expected BATCH or INTERACTIVE");
        }
    }
}
