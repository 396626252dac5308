package org.alpsbridge.proxy.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code alpsbridge proxy stats}: per-method timing of a running daemon. */
@Command(name = "stats",
        mixinStandardHelpOptions = true,
        description = {
            "Shows how each BASIL method fared at the daemon since it started: calls from clients, calls that",
            "reached the backend, errors, cache hits, backend calls saved, and latency (min, p50, p90, p99, max),",
            "with the backend's and the cache's own latency on indented lines; then the policy's and the orphan",
            "watch's counters (full refreshes by reason, orphans found, ...)."},
        footer = {"", "Examples:",
            "  alpsbridge proxy stats --connect 127.0.0.1:6830",
            "  alpsbridge proxy stats --json | jq '.methods[\"QUERY/INVENTORY\"].backendCallsSaved'",
            "", "Exit codes: 0 ok, 1 the daemon could not be reached or refused (reason on stderr), 2 usage error."})
public final class ProxyStatsCommand implements Callable<Integer> {

    @Mixin
    AdminConnection daemon = new AdminConnection();

    @Option(names = "--json", description = "One JSON object: methods keyed QUERY/INVENTORY, RESERVE, ... with requests, backendCalls, errors, p50Micros, ...")
    boolean json;

    @Option(names = "--prometheus", description = "The Prometheus text the metrics endpoint serves.")
    boolean prometheus;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        String format = json ? "json" : prometheus ? "prometheus" : "table";
        spec.commandLine().getOut().print(daemon.run("stats", Map.of("format", format)));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
