package org.alpsbridge.timing;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.alpsbridge.emulator.Emulator;

/** Parses the target specifications {@code alpsbridge time --target} accepts. */
public final class Targets {

    /** What {@code --target} accepts, for help texts and error messages. */
    public static final String FORMS = "exec:PATH (an apbasil-compatible program), proxy:HOST:PORT or proxy:unix:PATH "
            + "(through the drop-in client), emulator:SPEC (the ALPS emulator in process, e.g. emulator:xc30:2256)";

    private Targets() {
    }

    /** A target over an emulator the caller already holds (the demo plants faults in it). */
    public static Target of(String name, Emulator emulator) {
        return new EmulatorTarget(name, emulator);
    }

    /**
     * {@code target} with the modelled latency of the emulator behind it: each call's timing gains what
     * {@code takeModelledNanos} books (see {@link org.alpsbridge.emulator.Control#takeModelledNanos()}).
     * Exact while calls are timed one at a time, as the replay does.
     */
    public static Target withModelledLatency(Target target, java.util.function.LongSupplier takeModelledNanos) {
        return new Target() {
            @Override
            public String name() {
                return target.name();
            }

            @Override
            public byte[] call(byte[] request) throws IOException {
                return target.call(request);
            }

            @Override
            public long takeModelledNanos() {
                return takeModelledNanos.getAsLong();
            }

            @Override
            public void close() {
                target.close();
            }
        };
    }

    /** A target that calls the proxy at {@code address} through the drop-in client's code path. */
    public static Target proxy(String name, String address, Duration timeout) {
        return new ProxyTarget(name, address, timeout);
    }

    /** A target that runs {@code command} per call with extra environment, as slurmctld ran apbasil. */
    public static Target exec(String name, List<String> command, Map<String, String> environment, Duration timeout) {
        return new ExecTarget(name, command, environment, timeout.toMillis());
    }

    /**
     * @param spec one of {@link #FORMS}
     * @param timeoutMillis how long one exec or proxy call may take before it counts as failed
     */
    public static Target open(String spec, long timeoutMillis) {
        int colon = spec.indexOf(':');
        String kind = colon < 0 ? spec : spec.substring(0, colon);
        String rest = colon < 0 ? "" : spec.substring(colon + 1);
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("target '" + spec + "' names no " + kind + " to use; expected " + FORMS);
        }
        return switch (kind) {
            case "exec" -> {
                // checked here: a program that cannot run would fail every one of the workload's calls first
                java.nio.file.Path program = java.nio.file.Path.of(rest);
                if (!java.nio.file.Files.isRegularFile(program) || !java.nio.file.Files.isExecutable(program)) {
                    throw new IllegalArgumentException("target '" + spec + "': " + rest + " is not an executable file"
                            + (java.nio.file.Files.exists(program) ? "" : " (no such file)")
                            + "; name an apbasil-compatible program");
                }
                yield new ExecTarget(spec, List.of(rest), Map.of(), timeoutMillis);
            }
            case "emulator" -> new EmulatorTarget(spec, Emulator.create(rest));
            case "proxy" -> new ProxyTarget(spec, rest, Duration.ofMillis(timeoutMillis));
            default -> throw new IllegalArgumentException("unknown target kind '" + kind + "' in '" + spec + "'; expected " + FORMS);
        };
    }
}
