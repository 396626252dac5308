package org.alpsbridge.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.alpsbridge.timing.Chart;
import org.alpsbridge.timing.Job;
import org.alpsbridge.timing.Recorder;
import org.alpsbridge.timing.Replay;
import org.alpsbridge.timing.Report;
import org.alpsbridge.timing.Target;
import org.alpsbridge.timing.Targets;
import org.alpsbridge.timing.Workload;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code alpsbridge time}: replay a workload against BASIL targets and time every call as the caller sees it. */
@Command(name = "time",
        mixinStandardHelpOptions = true,
        header = "Times every BASIL call of a slurmctld-like replay against apbasil targets, side by side.",
        description = {
                "Replays a job workload against one or more apbasil-compatible targets the way slurmctld drove ALPS",
                "(a QUERY per scheduling pass, RESERVE/CONFIRM/RELEASE per job) and times every BASIL call.",
                "Prints a table per method (count, min, p50, p90, p99, max, mean response bytes, errors) with each",
                "target side by side and its median as a ratio of the first target's."},
        footer = {"", "Targets: " + Targets.FORMS,
                "Exit codes: 0 measured, 1 a target failed every call or could not be opened, 2 usage error."})
public final class TimeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--target", required = true, paramLabel = "SPEC",
            description = "A target to measure; repeat to compare. The first is the baseline of the ratios.")
    List<String> targets;

    @Option(names = "--jobs", defaultValue = "200", description = "Jobs drawn from the seeded distribution (default: ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the workload distribution (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--max-nodes", defaultValue = "64", description = "Largest job in nodes; sizes are log-uniform from 1 (default: ${DEFAULT-VALUE}).")
    int maxNodes;

    @Option(names = "--mean-gap", defaultValue = "30", paramLabel = "SECONDS",
            description = "Mean workload seconds between job submissions (default: ${DEFAULT-VALUE}).")
    double meanGap;

    @Option(names = "--workload", paramLabel = "FILE",
            description = "Read jobs from a sacct export (sacct -a -X -P -n -o JobID,NNodes,ElapsedRaw,User,Account,Submit) instead.")
    Path workloadFile;

    @Option(names = "--protocol", defaultValue = "1.3", description = "BASIL level for QUERY/RESERVE/RELEASE; ENGINE and CONFIRM stay 1.0 as in Slurm (default: ${DEFAULT-VALUE}).")
    String protocol;

    @Option(names = "--query", defaultValue = "INVENTORY", description = "What each scheduling pass asks: INVENTORY (as Slurm) or SUMMARY (default: ${DEFAULT-VALUE}).")
    String queryType;

    @Option(names = "--pass-seconds", defaultValue = "60", description = "Workload seconds between scheduling passes (default: ${DEFAULT-VALUE}).")
    long passSeconds;

    @Option(names = "--pes-per-node", defaultValue = "16", description = "PEs reserved per node, one per core (default: ${DEFAULT-VALUE}, an XC30 node).")
    int pesPerNode;

    @Option(names = "--states", split = ",", defaultValue = "idle", paramLabel = "idle|busy",
            description = "Machine states to measure each target in: idle (empty) and/or busy (--busy-reservations held) (default: ${DEFAULT-VALUE}).")
    List<String> states;

    @Option(names = "--busy-reservations", defaultValue = "300", description = "Reservations held during a busy run (default: ${DEFAULT-VALUE}).")
    int busyReservations;

    @Option(names = "--max-passes", defaultValue = "100000", description = "Stop after this many scheduling passes (default: ${DEFAULT-VALUE}).")
    int maxPasses;

    @Option(names = "--timeout-ms", defaultValue = "120000", description = "Longest one exec call may take (default: ${DEFAULT-VALUE}).")
    long timeoutMillis;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Option(names = "--chart", paramLabel = "FILE.svg", description = "Also write an SVG chart: one bar group per method, one bar per target.")
    Path chart;

    @Option(names = "--progress", negatable = true, description = "Show a progress bar on stderr (default: when stderr is a terminal).")
    Boolean progress;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        for (String state : states) {
            if (!state.equals("idle") && !state.equals("busy")) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--states takes idle and/or busy, not '" + state + "'");
            }
        }
        List<Job> workload = workloadFile != null
                ? Workload.readSacct(workloadFile)
                : Workload.generate(seed, jobs, maxNodes, meanGap, List.of("alice", "bob", "carol", "dave"), List.of("astro", "bio", "chem"));
        boolean showProgress = progress != null ? progress : System.console() != null;
        List<Recorder> recorders = new ArrayList<>();
        Map<String, Object> outcomes = new LinkedHashMap<>();
        boolean anySucceeded = false;
        for (String targetSpec : targets) {
            for (String state : states) {
                String label = states.size() > 1 ? targetSpec + " (" + state + ")" : targetSpec;
                Replay replay = new Replay(new Replay.Settings(protocol, queryType.toUpperCase(java.util.Locale.ROOT), passSeconds,
                        pesPerNode, state.equals("busy") ? busyReservations : 0, maxPasses));
                Recorder recorder = new Recorder(label);
                ProgressBar bar = new ProgressBar(err, label, workload.size(), showProgress);
                Replay.Outcome outcome;
                try (Target target = Targets.open(targetSpec, timeoutMillis)) {
                    outcome = replay.run(target, workload, recorder, bar::update);
                } finally {
                    bar.finish();
                }
                recorders.add(recorder);
                outcomes.put(label, outcome.started() + " started, " + outcome.finished() + " finished, "
                        + outcome.deniedPermanent() + " denied, " + outcome.unplaced() + " never placed, "
                        + outcome.passes() + " passes" + (outcome.busyPlanted() > 0 ? ", " + outcome.busyPlanted() + " busy reservations held" : ""));
                anySucceeded |= outcome.started() > 0 || workload.isEmpty();
                for (String reason : outcome.permanentReasons()) {
                    err.println(label + ": denied: " + reason);
                }
            }
        }
        Report report = new Report(recorders);
        if (json) {
            report.printJson(out, Map.of("outcomes", new ArrayList<>(outcomes.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList())));
        } else {
            report.printTable(out);
            outcomes.forEach((label, text) -> out.println(label + ": " + text));
        }
        if (chart != null) {
            Chart.writeSvg(report, "BASIL call latency, " + workload.size() + " jobs", chart);
            (json ? err : out).println("chart: " + chart.toAbsolutePath());
        }
        out.flush();
        if (!anySucceeded) {
            err.println("time: no job could be started on any target; see the errors column and the denials above");
            return 1;
        }
        return 0;
    }
}
