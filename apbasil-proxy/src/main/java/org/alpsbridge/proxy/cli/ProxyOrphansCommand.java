package org.alpsbridge.proxy.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code alpsbridge proxy orphans}: ALPS reservations no live scheduler job owns, from the daemon's last full inventory. */
@Command(name = "orphans",
        mixinStandardHelpOptions = true,
        description = {
            "Lists the orphan reservations the daemon found in its last full inventory (at most one refresh",
            "interval old): reservation id, user, account, batch id, nodes, age and why it is an orphan —",
            "not created through the proxy, its RELEASE failed, released but still present, or its batch job",
            "is gone. Reservations with batch_id UNKNOWN (aprun on interactive nodes) are never orphans.",
            "With --release, releases them the safe way: RELEASE first, so no new aprun can start, then",
            "apkill -9 for each application the inventory shows in the reservation."},
        footer = {"", "Examples:",
            "  alpsbridge proxy orphans --connect 127.0.0.1:6830",
            "  alpsbridge proxy orphans --json --release",
            "  alpsbridge proxy orphans --refresh    (list from an inventory fetched now)",
            "", "Exit codes: 0 ok (also when orphans are found), 1 the daemon could not be reached or refused",
            "(reason on stderr), 2 usage error."})
public final class ProxyOrphansCommand implements Callable<Integer> {

    @Mixin
    AdminConnection daemon = new AdminConnection();

    @Option(names = "--json", description = "One JSON object with an orphans array (reservationId, user, batchId, nodes, reasons, ...).")
    boolean json;

    @Option(names = "--refresh",
            description = "Have the daemon fetch and inspect a full inventory first (one backend INVENTORY), instead of listing from the last one.")
    boolean refresh;

    @Option(names = "--release", description = "Release every listed orphan: RELEASE, then apkill -9 its applications.")
    boolean release;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("format", json ? "json" : "table");
        if (refresh) {
            args.put("refresh", "true");
        }
        if (release) {
            args.put("release", "true");
        }
        spec.commandLine().getOut().print(daemon.run("orphans", args));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
