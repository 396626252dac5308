package org.alpsbridge.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.alpsbridge.demo.Demo;
import org.alpsbridge.emulator.LatencyProfile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code alpsbridge demo}: the whole bridge on one machine, with no Cray and no setup. */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        header = "The whole bridge on one machine (emulated XC30, proxy, policy, orphans, ledger), with its checks.",
        description = {
                "Starts an emulated Cray XC30 behind the apbasil proxy daemon (loopback, no authentication) with a",
                "SQLite allocation ledger holding three projects, and replays a slurmctld-like workload twice: on-system",
                "(straight into ALPS) and off-system (through the daemon, as the drop-in apbasil does). Along the way it",
                "plants orphan reservations, loses a RELEASE, fails nodes and runs one project out of budget.",
                "Prints per-method timings side by side, what the proxy spared ALPS, the orphans planted and found,",
                "the ledger's balances and denials, and writes an SVG chart. ALPS's latencies are MODELLED by a named",
                "profile (default: a 2,256-node XC30; --latency-profile none for an ALPS answering at once); the output",
                "names the profile and its seed."},
        footer = {"", "Exit codes: 0 every check passed, 1 a check failed or the demo could not run, 2 usage error."})
public final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--machine", defaultValue = "xc30:2256",
            description = "The emulated machine, without service nodes (default: ${DEFAULT-VALUE}).")
    String machine;

    @Option(names = "--jobs", defaultValue = "1000", description = "Jobs in the workload (default: ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--seed", defaultValue = "7", description = "Seed of the workload (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--max-nodes", defaultValue = "128", description = "Largest job in nodes (default: ${DEFAULT-VALUE}).")
    int maxNodes;

    @Option(names = "--dir", paramLabel = "DIR",
            description = "Where the ledger, chart and logs go (default: a new directory under the system temp directory).")
    Path dir;

    @Option(names = "--process-calls", defaultValue = "10",
            description = "Calls of the drop-in bin/apbasil process to time, each a JVM start (default: ${DEFAULT-VALUE}; 0 skips).")
    int processCalls;

    @Option(names = "--latency-profile", paramLabel = "NAME", defaultValue = "xc30-2256",
            description = {"How long the emulated ALPS takes per BASIL method: " + LatencyProfile.NAMES
                    + " (default: ${DEFAULT-VALUE}). The figures of ALPS are then modelled, not measured; docs/benchmarks.md"
                    + " \"The latency model\" gives the numbers and their sources."})
    String latencyProfile;

    @Option(names = "--latency-seed", paramLabel = "N", defaultValue = "2256",
            description = "Seed of the latency profile's draws; the same seed repeats the same latencies (default: ${DEFAULT-VALUE}).")
    long latencySeed;

    @Option(names = "--latency-sleep", paramLabel = "SHARE", defaultValue = "0",
            description = {"Share (0 to 1) of each modelled latency the demo really waits; the rest is added to the call's"
                    + " timing without waiting (default: ${DEFAULT-VALUE}: the demo takes minutes, not the hours a real"
                    + " ALPS would; 1 waits it all)."})
    double latencySleep;

    @Override
    public Integer call() throws Exception {
        if (jobs < 1 || maxNodes < 1 || processCalls < 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--jobs and --max-nodes must be positive, --process-calls not negative");
        }
        if (!(latencySleep >= 0 && latencySleep <= 1)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--latency-sleep must be within 0 and 1, not " + latencySleep);
        }
        LatencyProfile profile;
        try {
            profile = LatencyProfile.named(latencyProfile);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--latency-profile: " + e.getMessage());
        }
        Path where = dir != null ? dir : Files.createTempDirectory("alpsbridge-demo-");
        Files.createDirectories(where);
        Path log = logTo(where.resolve("demo.log"));
        spec.commandLine().getErr().println("demo: log lines of the daemons it runs go to " + log);
        String home = System.getenv("ALPSBRIDGE_HOME");
        Demo.Settings settings = new Demo.Settings(machine, jobs, seed, maxNodes, where,
                home == null ? null : Path.of(home), processCalls, profile, latencySeed, latencySleep);
        return new Demo(settings, spec.commandLine().getOut(), spec.commandLine().getErr()).run();
    }

    /**
     * Sends this process's log lines to {@code file} instead of stderr: the daemons the demo runs warn as a lab
     * should (auth=none, planted faults), and those lines interleaved with the report made it hard to read.
     */
    private static Path logTo(Path file) {
        if (!(org.slf4j.LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context)) {
            return file; // another binding: it logs where it is configured to
        }
        ch.qos.logback.classic.encoder.PatternLayoutEncoder encoder = new ch.qos.logback.classic.encoder.PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n");
        encoder.start();
        ch.qos.logback.core.FileAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender = new ch.qos.logback.core.FileAppender<>();
        appender.setContext(context);
        appender.setFile(file.toString());
        appender.setEncoder(encoder);
        appender.start();
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.detachAndStopAllAppenders();
        root.addAppender(appender);
        return file;
    }
}
