package org.alpsbridge.proxy.server;

import java.nio.file.Files;
import java.nio.file.Path;
import org.alpsbridge.proxy.backend.Backend;

/** Backend specs as written in {@code backend=} and {@code --backend}. */
public final class Backends {

    /** Where the real apbasil is on Cray service nodes (OpenPBS's and Cobalt's defaults on Cray, too). */
    public static final String CRAY_APBASIL = "/opt/cray/alps/default/bin/apbasil";

    private static final String WHAT_TO_SET = "set backend= in the proxy's settings (/etc/alpsbridge/proxy.conf) or"
            + " --backend to Cray's apbasil, e.g. exec:" + CRAY_APBASIL + ", or to emulator:SPEC (e.g. emulator:xc30:16)"
            + " for a lab without ALPS";

    private Backends() {
    }

    /**
     * {@code exec:/opt/cray/alps/default/bin/apbasil} runs that program per request; {@code emulator:SPEC} runs the ALPS
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
            if (!Files.isRegularFile(program) || !Files.isExecutable(program)) {
                throw new IllegalArgumentException("backend " + spec + ": " + program + " is not an executable file"
                        + (Files.exists(program) ? "" : " (no such file)") + "; " + WHAT_TO_SET);
            }
            OwnClient.besideThisCode().why(program).ifPresent(why -> {
                throw new IllegalArgumentException("backend " + spec + " is refused: " + why
                        + ", which sends every request to an apbasil proxy, so this proxy would call itself (or another"
                        + " proxy) once per request, nested until the time limit; " + WHAT_TO_SET);
            });
            return ExecBackend.fromConfig(program, config);
        }
        if (spec.startsWith("emulator:")) {
            EmulatorBackend b = EmulatorBackend.create(spec.substring("emulator:".length()));
            // the drop-in's --latency-profile, --paggs and --users, so both forms of the emulator model ALPS the same way
            b.emulator().control().latencyProfile(config.emulatorLatencyProfile(), config.emulatorLatencySeed(), 1.0);
            if (config.emulatorPaggs()) {
                b.emulator().control().watchPaggs(org.alpsbridge.emulator.Control.HOST_PAGGS);
            }
            if (config.emulatorUsersFromHost()) {
                b.emulator().control().userIds(org.alpsbridge.emulator.Control.hostUserIds());
            }
            return b;
        }
        if (spec.startsWith("proxy:")) {
            return new ProxyBackend(spec.substring("proxy:".length()), config.longestApbasilTimeout());
        }
        throw new IllegalArgumentException("backend " + spec + ": expected exec:/path/to/apbasil, emulator:SPEC or proxy:ADDRESS");
    }
}
