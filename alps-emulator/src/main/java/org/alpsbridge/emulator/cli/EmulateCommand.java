package org.alpsbridge.emulator.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.alpsbridge.emulator.LatencyProfile;
import org.alpsbridge.emulator.StateDirectory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code alpsbridge basil emulate}: the emulated ALPS as a drop-in {@code apbasil}. Reads one BASIL request
 * on stdin, writes one response on stdout, keeps the machine's state in a directory.
 */
@Command(name = "emulate",
        mixinStandardHelpOptions = true,
        description = {
            "A drop-in apbasil backed by the ALPS emulator: one BASIL request on stdin, one response on stdout,",
            "the machine's state (node states, reservations, counters, faults) kept in --state DIR so that",
            "successive and concurrent invocations see each other's effects. Bad requests get a BASIL FAILURE",
            "document, as from a real ALPS.",
            "",
            "Machine specs: [mixed:]KIND:N(+KIND:N)*[,service=S][,interactive=I][,engine=VERSION]",
            "  kinds: xc30 (2x8 cores x2 threads, 64 GiB), xe6 (2x Interlagos, 16 compute units x2),",
            "         knl (68x4, 96 GiB + 16 GiB MCDRAM), xk7 and xc50-gpu (one GPU per node);",
            "         append -NNg for another memory size (xc30-32g).",
            "  or inventory:FILE to replay a captured QUERY INVENTORY response.",
            "Example: echo '<BasilRequest protocol=\"1.0\" method=\"QUERY\" type=\"ENGINE\"/>' |",
            "         alpsbridge basil emulate --machine xc30:2256 --state /tmp/alps"},
        subcommands = {EmulateControlCommand.class, EmulateBenchCommand.class},
        footer = {"", "Exit codes: 0 a response was written (it may be a FAILURE), 1 the state directory could not be",
            "used (reason on stderr), 2 usage error."})
public final class EmulateCommand implements Callable<Integer> {

    @Option(names = "--machine", paramLabel = "SPEC",
            description = "The machine to emulate; must match the one the state directory already holds, if any.")
    String machine;

    @Option(names = "--state", paramLabel = "DIR",
            description = "Required. Directory holding the machine's state between invocations (created if missing).")
    Path state;

    @Option(names = "--latency-profile", paramLabel = "NAME", defaultValue = "none",
            description = {"How long each call takes, as a real ALPS would: " + LatencyProfile.NAMES + " (default: ${DEFAULT-VALUE}).",
                "The modelled latency is waited before answering; a method with a fault set (control) is not modelled."})
    String latencyProfile;

    @Option(names = "--latency-seed", paramLabel = "N", defaultValue = "2256",
            description = {"Seed of the profile's draws, mixed with the request and the machine's state, so one request on",
                "one state always waits the same time (default: ${DEFAULT-VALUE})."})
    long latencySeed;

    @Option(names = "--paggs", defaultValue = "none", paramLabel = "none|host",
            description = "host: a confirmed reservation's pagg_id is a claim while a process on this host has it as its"
                    + " process group or session (as ALPS counted the job container), so a RELEASE sent while the job"
                    + " still runs leaves the reservation until it ends (default ${DEFAULT-VALUE}: no pagg is a claim).")
    String paggs;

    @Option(names = "--users", defaultValue = "names", paramLabel = "names|host",
            description = "Where the uid and gid written in a user's reservations come from: names derives them from the"
                    + " user name (the same on every host); host asks this host's password database (getent passwd), as"
                    + " ALPS asks its own, falling back to the name for a user it does not know. Use host beside an"
                    + " apbasil proxy that looks users up (proxy serve --user-ids nss) (default ${DEFAULT-VALUE}).")
    String users;

    @Spec
    CommandSpec spec;

    /**
     * Adds {@code emulate} to the {@code basil} command, which lives in the basil module and knows no emulator.
     * It goes before {@code bench}, where {@code basil --help} and its manual page list it.
     */
    public static void install(CommandLine basil) {
        CommandLine bench = basil.getCommandSpec().removeSubcommand("bench");
        basil.addSubcommand("emulate", new CommandLine(new EmulateCommand()));
        if (bench != null) {
            basil.addSubcommand("bench", bench);
        }
    }

    /**
     * Runs the drop-in from its jars alone, without the launcher: {@code java -cp alps-emulator.jar:basil.jar:...
     * org.alpsbridge.emulator.cli.EmulateCommand --machine SPEC --state DIR}. Same options and exit codes.
     */
    public static void main(String[] args) {
        CommandLine cmd = new CommandLine(new EmulateCommand());
        cmd.setExecutionExceptionHandler((ex, line, parsed) -> {
            line.getErr().println("emulate: " + ex.getMessage());
            return 1;
        });
        System.exit(cmd.execute(args));
    }

    @Override
    public Integer call() throws IOException {
        if (state == null) {
            // Not required by picocli itself, so that `emulate control --state DIR` needs it only once.
            throw new ParameterException(spec.commandLine(), "Missing required option: '--state=DIR'");
        }
        LatencyProfile profile;
        try {
            profile = LatencyProfile.named(latencyProfile);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--latency-profile: " + e.getMessage());
        }
        byte[] request = System.in.readAllBytes();
        OutputStream out = new BufferedOutputStream(System.out, 1 << 16);
        StateDirectory dir = new StateDirectory(state);
        switch (paggs) {
            case "host" -> dir.watchingPaggs(org.alpsbridge.emulator.Control.HOST_PAGGS);
            case "none" -> { }
            default -> throw new ParameterException(spec.commandLine(), "--paggs is none or host, not '" + paggs + "'");
        }
        switch (users) {
            case "host" -> dir.userIds(org.alpsbridge.emulator.Control.hostUserIds());
            case "names" -> { }
            default -> throw new ParameterException(spec.commandLine(), "--users is names or host, not '" + users + "'");
        }
        dir.apbasil(machine, request, out, profile, latencySeed);
        out.flush();
        return 0;
    }
}
