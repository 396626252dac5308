package org.alpsbridge.proxy.ledger;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.metrics.LedgerMetrics;
import org.alpsbridge.ledger.timelimit.TimeLimits;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.orphans.OrphanWatch;
import org.alpsbridge.proxy.policy.InventoryPolicy;
import org.alpsbridge.proxy.stats.Stats;
import picocli.CommandLine.Option;

/** The {@code proxy serve} options that put the allocation ledger in front of ALPS (a picocli mixin). */
public final class LedgerOptions {

    @Option(names = "--ledger", paramLabel = "URL",
            description = "Charge reservations to this ledger: sqlite:PATH or jdbc:postgresql://HOST:PORT/DB?user=U&password=P"
                    + " (default: no ledger).")
    String url;

    @Option(names = "--ledger-store", paramLabel = "KEY=VALUE",
            description = "A PostgreSQL ledger's store setting, repeatable: a key of ledger.conf's storage section"
                    + " (pg_pool, pg_group_writers, pg_reconnect_seconds), each at the default the shipped"
                    + " ledger.conf shows unless given; an unknown key or bad value is refused at start.")
    Map<String, String> store = new LinkedHashMap<>();

    @Option(names = "--ledger-cluster", paramLabel = "NAME", description = "Cluster name in reservation keys (default: default).")
    String cluster;

    @Option(names = "--ledger-cores-per-node", defaultValue = "32", paramLabel = "N",
            description = "Cores of a compute node; ALPS allocates whole nodes (default ${DEFAULT-VALUE}).")
    int coresPerNode;

    @Option(names = "--ledger-partition", paramLabel = "NAME", description = "Billing partition whose weights apply (default: default).")
    String partition;

    @Option(names = "--ledger-time-limits", defaultValue = "squeue", paramLabel = "SOURCE",
            description = "Where job time limits come from: squeue (%%l of squeue, read every 2 s in the background,"
                    + " never during a RESERVE: slurmctld holds its locks meanwhile), file:PATH"
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

    @Option(names = "--ledger-sweep-interval", defaultValue = "300", paramLabel = "SECONDS",
            description = "Least time between two orphan sweeps, run on the policy's full inventories (default"
                    + " ${DEFAULT-VALUE}; 0 sweeps at every inventory; needs --policy on).")
    long sweepSeconds;

    @Option(names = "--ledger-unconfirmed-grace", defaultValue = "3600", paramLabel = "SECONDS",
            description = "A hold never confirmed and gone from ALPS this long after RESERVE is voided (default ${DEFAULT-VALUE}).")
    long unconfirmedGraceSeconds;

    @Option(names = "--ledger-confirmed-grace", defaultValue = "600", paramLabel = "SECONDS",
            description = "A running job gone from ALPS this long past its time limit, never RELEASEd, is charged its"
                    + " full hold and flagged (default ${DEFAULT-VALUE}).")
    long confirmedGraceSeconds;

    @Option(names = "--ledger-job-accounts", defaultValue = "squeue", paramLabel = "squeue|qstat|none",
            description = "Whom to charge a RESERVE without account_name (Slurm 18.08 and OpenPBS send none): the"
                    + " job's account from squeue (squeue -h -o %%i|%%a|%%l, read every 2 s in the background: slurmctld"
                    + " holds its locks during RESERVE) or qstat (qstat -f ID: Account_Name), else"
                    + " the project of the job owner's primary Unix group; none: the group only (default ${DEFAULT-VALUE}).")
    String jobAccounts;

    @Option(names = "--ledger-denial-memory", defaultValue = "300", paramLabel = "SECONDS",
            description = "How long a batch id the ledger refused is refused again without asking the ledger, so a"
                    + " scheduler that retries every pass (Slurm 18.08) does not load it; 0 forgets at once"
                    + " (default ${DEFAULT-VALUE}).")
    long denialMemorySeconds;

    /** Holds a Slurm job the ledger refused, its reason in {@code squeue -o %k}: Slurm 18.08 would ask again each pass. */
    static final String SLURM_HOLD = "scontrol update JobId={job} Priority=0 Comment={reason}";

    @Option(names = "--ledger-on-deny", paramLabel = "COMMAND|none",
            description = "Run once when the ledger refuses a job, {job} and {reason} replaced in each word, after the"
                    + " refusal has been answered. Default by --ledger-job-accounts: squeue (Slurm) '" + SLURM_HOLD
                    + "', which holds the job with its reason in squeue -o %%k (a refused job left pending is asked"
                    + " for again on every scheduling pass, and its owner sees nothing); qstat (OpenPBS, which fails"
                    + " the job itself): none; with --ledger-job-accounts none it must be given. 'none' runs nothing.")
    String onDeny;

    /** The command run for a refused job: the one given, else the safe one for the scheduler served. */
    List<String> onDenyCommand() {
        String command = onDeny;
        if (command == null || command.isBlank()) {
            command = switch (jobAccounts) {
                case "squeue" -> SLURM_HOLD;
                case "qstat" -> "none";
                default -> throw new IllegalArgumentException("--ledger with --ledger-job-accounts " + jobAccounts
                        + " needs --ledger-on-deny: say what happens to a job the ledger refuses, e.g. --ledger-on-deny '"
                        + SLURM_HOLD + "' for Slurm (else the job stays pending and is asked for again on every pass),"
                        + " or --ledger-on-deny none");
            };
        }
        return command.strip().equals("none") ? List.of() : List.of(command.strip().split("\\s+"));
    }

    /**
     * The ledger layer of the backend chain ({@code server.BackendChain} places it), or null without --ledger. It
     * sweeps the ledger's orphans on each full inventory {@code inventory} fetches, and shows the ledger's call
     * latency and refusals ({@code alpsbridge_proxy_ledger_*}) on the scrape endpoint of {@code stats}, and lets
     * {@code orphans} void the hold of a reservation an interrupted RESERVE left ({@link OrphanWatch#keepHoldsWith}).
     */
    public UnaryOperator<Backend> layer(InventoryPolicy inventory, Stats stats, OrphanWatch orphans) {
        if (url == null || url.isBlank()) {
            return null;
        }
        if (sweepSeconds < 0 || unconfirmedGraceSeconds < 0 || confirmedGraceSeconds < 0) {
            throw new IllegalArgumentException("--ledger-sweep-interval and the --ledger-*-grace options must not be negative");
        }
        // one background reading of squeue for accounts and limits: never squeue inside a RESERVE (SlurmJobTable)
        SlurmJobTable table = limits.equals("squeue") || jobAccounts.equals("squeue") ? SlurmJobTable.squeue() : null;
        TimeLimits.Source source = switch (limits) {
            case "squeue" -> table.limits();
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
                LedgerBackend.WhenUnavailable.valueOf(whenUnavailable.toUpperCase(java.util.Locale.ROOT)))
                .withDenials(JobAccounts.named(jobAccounts, table), Duration.ofSeconds(denialMemorySeconds),
                        onDenyCommand());
        LedgerMetrics metrics = new LedgerMetrics(org.alpsbridge.proxy.stats.ProxyMetric.LEDGER_PREFIX);
        Ledger held = metrics.wrap(open());
        stats.exposition(metrics::prometheus);
        inventory.onFullInventory(new LedgerSweeper(held, settings.cluster(),
                Duration.ofSeconds(unconfirmedGraceSeconds), Duration.ofSeconds(confirmedGraceSeconds),
                Duration.ofSeconds(sweepSeconds), java.time.Clock.systemUTC()));
        return next -> {
            LedgerBackend charging = new LedgerBackend(next, held, settings, java.time.Clock.systemUTC(), true);
            orphans.keepHoldsWith(charging::adoptInterrupted);
            return charging;
        };
    }

    /** The ledger {@code --ledger} names, with {@code --ledger-store}'s settings (refused here when bad). */
    Ledger open() {
        return Ledger.open(url, true, store);
    }
}
