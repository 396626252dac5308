package org.alpsbridge.affinity.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.BitSet;
import java.util.concurrent.Callable;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.format.OutputFormat;
import org.alpsbridge.affinity.policy.Placement;
import org.alpsbridge.affinity.policy.Policy;
import org.alpsbridge.affinity.policy.Rejection;
import org.alpsbridge.affinity.policy.Request;
import org.alpsbridge.affinity.topology.BasilNodes;
import org.alpsbridge.affinity.topology.Numbering;
import org.alpsbridge.affinity.topology.Topology;
import org.alpsbridge.affinity.topology.TopologyException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code alpsbridge affinity}: the CPU set of every local task of one node, or why the job is rejected. */
@Command(name = "affinity",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        subcommands = AffinityAgentCommand.class,
        description = {
            "Computes the CPU set of every local task of one node under a placement policy and prints it.",
            "The default policy, reduced, is CSCS reduced-auto-affinity: one CPU per core (hyperthread siblings"
                + " left out), cpus-per-task adjacent cores per task, each task inside one socket, tasks packed"
                + " socket by socket; a job that does not fit that way is rejected, never straddled.",
            "",
            "Examples:",
            "  alpsbridge affinity --layout 2x8x2 -n4 -c4 --verbose",
            "  alpsbridge affinity --topology sysfs -n2 -c1 --allowed 0-1 --format tasks",
            "  alpsbridge affinity --layout 2x8x2 --numbering interleaved -n4 -c4 --policy llnl --format hex",
            "  alpsbridge affinity --topology node.xml -n8 -c2 --format slurm      (node.xml from lstopo --of xml)",
            "  alpsbridge affinity --topology basil:inventory.xml --nid 42 -n2 -c8 --format tasks"
        },
        footer = {"",
            "Exit codes: 0 the masks were printed; 1 the job is rejected or the topology unreadable (one line on"
                + " stderr says why); 2 usage error."})
public final class AffinityCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--layout", paramLabel = "SxCxT",
            description = "A synthetic node: sockets x cores x threads (2x8x2), or sockets x NUMA domains per socket"
                    + " x cores per domain x threads (2x4x16x2). Excludes --topology.")
    String layout;

    @Option(names = "--numbering", paramLabel = "SCHEME", defaultValue = "intel",
            description = "OS CPU numbering of --layout and basil:FILE: intel (first threads socket by socket, then siblings),"
                    + " interleaved (siblings adjacent), round-robin (sockets alternate). Default: ${DEFAULT-VALUE}.")
    String numbering;

    @Option(names = "--topology", paramLabel = "sysfs|FILE|basil:FILE",
            description = "Where the node's topology comes from: sysfs (this machine, the default when --layout is"
                    + " absent), an hwloc XML export (lstopo --of xml), or basil:FILE, a BASIL QUERY(INVENTORY)"
                    + " response of any protocol version (with --nid; CPU numbers by --numbering).")
    String topology;

    @Option(names = "--nid", paramLabel = "NID", defaultValue = "-1",
            description = "With --topology basil:FILE, the node to use; default the first node of the inventory.")
    long nid;

    // Required, but checked in call(): picocli would demand a required option of this command before its
    // subcommand too ('alpsbridge affinity agent').
    @Option(names = {"-n", "--ntasks"}, paramLabel = "N", description = "Tasks on this node (required).")
    Integer ntasks;

    @Option(names = {"-c", "--cpus-per-task"}, paramLabel = "C", defaultValue = "1",
            description = "CPUs per task (reduced: cores per task; ALPS: depth -d). Default: ${DEFAULT-VALUE}.")
    int cpusPerTask;

    @Option(names = "--allowed", paramLabel = "CPULIST",
            description = "The CPUs the job may use on this node (Linux list, e.g. 0-7,16-23); default the whole"
                    + " node. Every policy computes inside this set and never hands out a CPU outside it.")
    String allowed;

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "reduced",
            description = "reduced, llnl, alps-cpu, alps-depth or alps-numa. Default: ${DEFAULT-VALUE}.")
    String policy;

    @Option(names = {"-j", "--nppcu"}, paramLabel = "J", defaultValue = "0",
            description = "ALPS policies: hardware threads used per core (aprun -j); 0 = all. Default: ${DEFAULT-VALUE}.")
    int nppcu;

    @Option(names = {"-S", "--pes-per-numa"}, paramLabel = "S", defaultValue = "0",
            description = "ALPS policies: tasks per NUMA domain (aprun -S); 0 = packed. Default: ${DEFAULT-VALUE}.")
    int pesPerNuma;

    @Option(names = "--start", paramLabel = "P", defaultValue = "0",
            description = "llnl policy: first position (auto-affinity start=P). Default: ${DEFAULT-VALUE}.")
    int start;

    @Option(names = "--reverse", description = "llnl policy: walk the positions backwards (auto-affinity reverse).")
    boolean reverse;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "verbose, tasks (<localid> <cpulist>), list, hex, slurm (--cpu-bind=mask_cpu:...),"
                    + " aprun (-cc ...) or omp (OMP_PLACES per task). Default: list, or only the verbose lines"
                    + " with --verbose.")
    String format;

    @Option(names = {"-v", "--verbose"},
            description = "Print '<policy>: local task <id>: CPUs: <list>' per task to standard output, in"
                    + " local-task order (before the --format output, if one is given too).")
    boolean verbose;

    @Option(names = "--show-topology", description = "Print the node's sockets, cores and CPUs before the masks.")
    boolean showTopology;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (ntasks == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--ntasks=N'");
        }
        Policy chosen = parse(() -> Policy.of(policy));
        OutputFormat outputFormat = format == null ? null : parse(() -> OutputFormat.of(format));
        Request request = Request.of(ntasks, cpusPerTask).withNppcu(nppcu).withPesPerNuma(pesPerNuma)
                .withStart(start).withReverse(reverse);
        if (allowed != null) {
            BitSet cpus = parse(() -> CpuLists.parse(allowed));
            request = request.withAllowed(cpus);
        }
        Topology node;
        try {
            node = topology();
        } catch (TopologyException e) {
            err.println("affinity: " + e.getMessage());
            return 1;
        }
        if (showTopology) {
            out.print(node.describe());
        }
        Placement placement;
        try {
            placement = chosen.place(node, request);
        } catch (Rejection e) {
            err.println("affinity: rejected: " + e.getMessage());
            err.flush();
            return 1;
        }
        if (verbose) {
            out.print(OutputFormat.VERBOSE.render(chosen.verboseName(), placement.masks()));
        }
        if (outputFormat != null ? !(verbose && outputFormat == OutputFormat.VERBOSE) : !verbose) {
            OutputFormat f = outputFormat == null ? OutputFormat.LIST : outputFormat;
            out.print(f.render(chosen.verboseName(), placement.masks()));
        }
        out.flush();
        return 0;
    }

    private Topology topology() throws TopologyException {
        if (layout != null && topology != null) {
            throw new ParameterException(spec.commandLine(), "--layout and --topology exclude each other");
        }
        if (layout != null) {
            Numbering scheme = parse(() -> Numbering.of(numbering));
            return parse(() -> Topology.synthetic(layout, scheme));
        }
        if (topology == null || topology.equals("sysfs")) {
            return Topology.sysfs();
        }
        Numbering scheme = parse(() -> Numbering.of(numbering));
        if (topology.startsWith("basil:")) {
            return BasilNodes.read(Paths.get(topology.substring("basil:".length())), nid, scheme);
        }
        Path file = Paths.get(topology);
        return Topology.hwlocXml(file);
    }

    private interface Parse<T> {
        T get();
    }

    /** Runs a parse whose IllegalArgumentException is a usage error (exit 2) naming the bad value. */
    private <T> T parse(Parse<T> parser) {
        try {
            return parser.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }
}
