package org.alpsbridge.proxy.ledger;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.timelimit.TimeLimits;
import org.alpsbridge.proxy.server.ProxyDaemon;
import picocli.CommandLine.Option;

/** The {@code proxy serve} options that put the allocation ledger in front of ALPS (a picocli mixin). */
public final class LedgerOptions {

    @Option(names = "--ledger", paramLabel = "URL",
            description = "Charge reservations to this ledger: sqlite:PATH or postgresql://HOST:PORT/DB?user=U"
                    + " (default: no ledger).")
    String url;

    @Option(names = "--ledger-cluster", paramLabel = "NAME", description = "Cluster name in reservation keys (default: default).")
    String cluster;

    @Option(names = "--ledger-cores-per-node", defaultValue = "32", paramLabel = "N",
            description = "Cores of a compute node; ALPS allocates whole nodes (default ${DEFAULT-VALUE}).")
    int coresPerNode;

    @Option(names = "--ledger-partition", paramLabel = "NAME", description = "Billing partition whose weights apply (default: default).")
    String partition;

    @Option(names = "--ledger-time-limits", defaultValue = "squeue", paramLabel = "SOURCE",
            description = "Where job time limits come from: squeue (squeue -h -j ID -o %%l), file:PATH"
                    + " (lines 'JOBID LIMIT') or none (default ${DEFAULT-VALUE}).")
    String limits;

    @Option(names = "--ledger-partition-limit", paramLabel = "PARTITION=MINUTES",
            description = "Default time limit of a partition when the source does not know the job; repeatable.")
    Map<String, Long> partitionLimits = new LinkedHashMap<>();

    @Option(names = "--ledger-default-limit", defaultValue = "60", paramLabel = "MINUTES",
            description = "Time limit when nothing else knows it (default ${DEFAULT-VALUE}).")
    long defaultLimitMinutes;

    @Option(names = "--ledger-when-unavailable", defaultValue = "refuse", paramLabel = "refuse|allow",
            description = "RESERVE when the ledger cannot be reached: refuse (TRANSIENT failure, the scheduler"
                    + " retries) or allow (forward unledgered, reconcile from the alerts) (default ${DEFAULT-VALUE}).")
    String whenUnavailable;

    /** Adds the ledger decorator (outermost, so a denial never reaches the policy or ALPS) when --ledger is set. */
    public void decorate(ProxyDaemon.Builder daemon) {
        if (url == null || url.isBlank()) {
            return;
        }
        TimeLimits.Source source = switch (limits) {
            case "squeue" -> TimeLimits.squeue();
            case "none" -> null;
            default -> {
                if (!limits.startsWith("file:")) {
                    throw new IllegalArgumentException("--ledger-time-limits must be squeue, file:PATH or none");
                }
                yield TimeLimits.file(Path.of(limits.substring(5)));
            }
        };
        Map<String, Long> seconds = new LinkedHashMap<>();
        partitionLimits.forEach((p, m) -> seconds.put(p, Math.multiplyExact(m, 60L)));
        LedgerBackend.Settings settings = new LedgerBackend.Settings(cluster, coresPerNode, partition,
                new TimeLimits(source, seconds, Math.multiplyExact(defaultLimitMinutes, 60L)),
                LedgerBackend.WhenUnavailable.valueOf(whenUnavailable.toUpperCase(java.util.Locale.ROOT)));
        Ledger ledger = Ledger.open(url);
        daemon.decorate(next -> new LedgerBackend(next, ledger, settings, java.time.Clock.systemUTC(), true));
    }
}
