package org.alpsbridge.timing;

import java.util.List;
import java.util.Map;

/** Parses the target specifications {@code alpsbridge time --target} accepts. */
public final class Targets {

    /** What {@code --target} accepts, for help texts and error messages. */
    public static final String FORMS = "exec:PATH (an apbasil-compatible program), proxy:HOST:PORT or proxy:unix:PATH "
            + "(through the drop-in client), emulator:SPEC (the ALPS emulator in process, e.g. emulator:xc30:2256)";

    private Targets() {
    }

    /**
     * @param spec one of {@link #FORMS}
     * @param timeoutMillis how long one exec call may take before it counts as failed
     */
    public static Target open(String spec, long timeoutMillis) {
        int colon = spec.indexOf(':');
        String kind = colon < 0 ? spec : spec.substring(0, colon);
        String rest = colon < 0 ? "" : spec.substring(colon + 1);
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("target '" + spec + "' names no " + kind + " to use; expected " + FORMS);
        }
        return switch (kind) {
            case "exec" -> new ExecTarget(spec, List.of(rest), Map.of(), timeoutMillis);
            default -> throw new IllegalArgumentException("unknown target kind '" + kind + "' in '" + spec + "'; expected " + FORMS);
        };
    }
}
