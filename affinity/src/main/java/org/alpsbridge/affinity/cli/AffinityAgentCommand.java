package org.alpsbridge.affinity.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.alpsbridge.affinity.agent.AffinityAgent;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code alpsbridge affinity agent}: the resident mask generator the SPANK plugin asks instead of starting one. */
@Command(name = "agent",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Answers the reduced-auto-affinity SPANK plugin's mask requests on a compute node, so that no JVM starts"
                + " per srun step: the plugin asks over a unix socket what it would otherwise start"
                + " 'raa-exec affinity --topology sysfs -n N -c C --allowed CPUS --policy P --format tasks' for, and"
                + " gets exactly what that program would print and exit with (the same Java calculator answers).",
            "The node's topology is read from sysfs once, and again when its online CPUs change. Only root (slurmstepd)"
                + " and the agent's own user are served. Without an agent the plugin starts the generator itself"
                + " (slower; it says so once in slurmd's log).",
            "Run it on every compute node (the systemd unit alpsbridge-affinity-agent does, as user alpsbridge).",
            "",
            "Example:",
            "  alpsbridge affinity agent --socket /run/alpsbridge-affinity/agent.sock"
        },
        footer = {"", "Stops on SIGTERM/SIGINT (answers the calls in flight, removes the socket).",
            "Exit codes: 0 (143 after SIGTERM, as every JVM) stopped cleanly; 1 could not start (reason on stderr: the socket held by another agent,"
                + " or its directory not writable); 2 usage error."})
public final class AffinityAgentCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--socket", paramLabel = "PATH", defaultValue = AffinityAgent.DEFAULT_SOCKET,
            description = "The unix socket to listen on (plugstack.conf: agent=PATH). Default: ${DEFAULT-VALUE}.")
    Path socket;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "4",
            description = "Requests answered at once (each takes well under a millisecond). Default: ${DEFAULT-VALUE}.")
    int threads;

    @Override
    public Integer call() throws InterruptedException {
        if (threads < 1) {
            throw new ParameterException(spec.commandLine(), "--threads must be 1 or more, not " + threads);
        }
        AffinityAgent agent;
        try {
            agent = AffinityAgent.start(socket, Path.of("/sys/devices/system"), threads, System.err);
        } catch (IOException e) {
            spec.commandLine().getErr().println("affinity agent: " + e.getMessage());
            return 1;
        }
        System.err.println("affinity agent: listening on " + agent.socket());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            agent.close();
            stopped.countDown();
        }, "affinity-agent-shutdown"));
        stopped.await();
        return 0;
    }
}
