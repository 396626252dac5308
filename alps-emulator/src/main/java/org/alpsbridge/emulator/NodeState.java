package org.alpsbridge.emulator;

import java.util.Locale;

/** The node states an ALPS inventory reports; only UP nodes take new reservations. */
enum NodeState {
    UP, DOWN, UNAVAILABLE, ROUTING, SUSPECT, ADMIN, UNKNOWN;

    static NodeState parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown node state '" + s + "'; expected one of UP, DOWN, UNAVAILABLE, ROUTING, SUSPECT, ADMIN, UNKNOWN");
        }
    }
}
