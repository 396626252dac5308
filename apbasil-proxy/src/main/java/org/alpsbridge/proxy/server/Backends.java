package org.alpsbridge.proxy.server;

import java.nio.file.Files;
import java.nio.file.Path;
import org.alpsbridge.proxy.backend.Backend;

/** Backend specs as written in {@code backend=} and {@code --backend}. */
public final class Backends {

    private Backends() {
    }

    /**
     * {@code exec:/usr/bin/apbasil} runs that program per request; {@code emulator:SPEC} runs the ALPS
     * emulator in this process (SPEC as the emulator documents it, e.g. {@code xc30:2256}); {@code proxy:ADDRESS}
     * asks another daemon as {@code bin/apbasil} would, from this process.
     *
     * @throws IllegalArgumentException naming what is wrong with the spec
     */
    public static Backend of(String spec, ProxyConfig config) {
        if (spec.startsWith("exec:")) {
            Path program = Path.of(spec.substring("exec:".length()));
            if (!program.isAbsolute()) {
                throw new IllegalArgumentException("backend " + spec + ": the apbasil path must be absolute");
            }
            if (!Files.isExecutable(program)) {
                throw new IllegalArgumentException("backend " + spec + ": " + program + " is not an executable file");
            }
            return ExecBackend.fromConfig(program, config);
        }
        if (spec.startsWith("emulator:")) {
            EmulatorBackend b = EmulatorBackend.create(spec.substring("emulator:".length()));
            // the drop-in's --latency-profile and --paggs, so both forms of the emulator model ALPS the same way
            b.emulator().control().latencyProfile(config.emulatorLatencyProfile(), config.emulatorLatencySeed(), 1.0);
            if (config.emulatorPaggs()) {
                b.emulator().control().watchPaggs(org.alpsbridge.basil.emulator.Control.HOST_PAGGS);
            }
            return b;
        }
        if (spec.startsWith("proxy:")) {
            return new ProxyBackend(spec.substring("proxy:".length()), config.longestApbasilTimeout());
        }
        throw new IllegalArgumentException("backend " + spec + ": expected exec:/path/to/apbasil, emulator:SPEC or proxy:ADDRESS");
    }
}
