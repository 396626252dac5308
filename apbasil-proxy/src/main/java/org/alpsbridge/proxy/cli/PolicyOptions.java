package org.alpsbridge.proxy.cli;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.ledger.LedgerOptions;
import org.alpsbridge.proxy.orphans.JobSource;
import org.alpsbridge.proxy.orphans.OrphanWatch;
import org.alpsbridge.proxy.policy.InventoryPolicy;
import org.alpsbridge.proxy.policy.PolicySettings;
import org.alpsbridge.proxy.policy.UserIds;
import org.alpsbridge.proxy.server.BackendChain;
import org.alpsbridge.proxy.server.EmulatorBackend;
import org.alpsbridge.proxy.server.ProxyDaemon;
import org.alpsbridge.proxy.stats.MetricsServer;
import org.alpsbridge.proxy.stats.Stats;
import picocli.CommandLine.Option;

/**
 * The {@code proxy serve} options of the SUMMARY/INVENTORY policy, the orphan watch and the timing (a picocli
 * mixin); {@link BackendChain} puts them into the daemon. Defaults are documented in docs/admin-proxy.md.
 */
final class PolicyOptions {

    @Option(names = "--policy", defaultValue = "on", paramLabel = "on|off",
            description = "Answer INVENTORY from the SUMMARY-checked cache (default ${DEFAULT-VALUE}); off passes every call through.")
    String policy;

    @Option(names = "--refresh-interval", defaultValue = "60", paramLabel = "SECONDS",
            description = "Oldest a cached inventory may get since its fetch or last renewing reservations check; also the"
                    + " orphan detection latency with no scheduler asking (default ${DEFAULT-VALUE}).")
    long refreshSeconds;

    @Option(names = "--full-refresh-interval", defaultValue = "600", paramLabel = "SECONDS",
            description = "Oldest a cached inventory may get while reservations-only INVENTORYs find nothing unseen and"
                    + " renew it; node labels and roles reach the scheduler within it; at most --refresh-interval:"
                    + " a full INVENTORY at every refresh (default ${DEFAULT-VALUE}).")
    long fullRefreshSeconds;

    @Option(names = "--summary-interval", defaultValue = "0", paramLabel = "SECONDS",
            description = "How long one check (SUMMARY, then the reservations alone) covers; 0 checks before every cached"
                    + " answer (default ${DEFAULT-VALUE}).")
    long summarySeconds;

    @Option(names = "--fallback-interval", defaultValue = "10", paramLabel = "SECONDS",
            description = "Backends without SUMMARY (BASIL < 1.3): fetch INVENTORY at most this often (default ${DEFAULT-VALUE}).")
    long fallbackSeconds;

    @Option(names = "--patch", defaultValue = "true", paramLabel = "true|false",
            description = "Apply forwarded RESERVE results to the cache; false refreshes after each RESERVE (default ${DEFAULT-VALUE}).")
    boolean patch;

    @Option(names = "--user-ids", defaultValue = "nss", paramLabel = "nss|learn",
            description = "Where a user's uid/gid come from before an inventory shows them: nss asks this host's name service"
                    + " (getent passwd), as ALPS does; with an emulator: backend, the emulator's own table. learn: from"
                    + " inventories only, a full INVENTORY per new user (default ${DEFAULT-VALUE}).")
    String userIds;

    @Option(names = "--metrics", paramLabel = "HOST:PORT",
            description = "Serve Prometheus text on http://HOST:PORT/metrics (default: no endpoint).")
    String metrics;

    @Option(names = "--orphan-jobs", paramLabel = "COMMAND",
            description = "Command listing live batch job ids, one a line, e.g. 'squeue -h -o %%A' (default: none).")
    String jobsCommand;

    @Option(names = "--orphan-jobs-file", paramLabel = "FILE",
            description = "File listing live batch job ids, one a line, read at each inventory (default: none).")
    Path jobsFile;

    @Option(names = "--apkill", defaultValue = "/usr/bin/apkill", paramLabel = "PATH",
            description = "apkill program for releasing orphans (default ${DEFAULT-VALUE}, as cray.conf).")
    Path apkill;

    @Option(names = "--command-timeout", defaultValue = "30", paramLabel = "SECONDS",
            description = "Limit for the job list command and each apkill (default ${DEFAULT-VALUE}).")
    long commandSeconds;

    /**
     * Builds the policy, the orphan watch and the timing, has {@code ledger} make its layer (if any), and puts them
     * into the daemon in the order {@link BackendChain} owns; the metrics endpoint stops with the chain.
     */
    void decorate(ProxyDaemon.Builder daemon, Backend backend, LedgerOptions ledger) throws InterruptedException {
        if (jobsCommand != null && jobsFile != null) {
            throw new IllegalArgumentException("--orphan-jobs and --orphan-jobs-file exclude each other");
        }
        if (!policy.equals("on") && !policy.equals("off")) {
            throw new IllegalArgumentException("--policy must be on or off, not " + policy);
        }
        if (!userIds.equals("nss") && !userIds.equals("learn")) {
            throw new IllegalArgumentException("--user-ids must be nss or learn, not " + userIds);
        }
        Stats stats = new Stats();
        PolicySettings settings = new PolicySettings(Duration.ofSeconds(refreshSeconds), Duration.ofSeconds(summarySeconds),
                Duration.ofSeconds(fallbackSeconds), patch, policy.equals("on"), Duration.ofSeconds(fullRefreshSeconds));
        InventoryPolicy inventory = new InventoryPolicy(settings, userIds(backend), stats);
        Duration commandTimeout = Duration.ofSeconds(commandSeconds);
        JobSource jobs = jobsCommand != null ? JobSource.command(jobsCommand, commandTimeout)
                : jobsFile != null ? JobSource.file(jobsFile) : null;
        OrphanWatch orphans = new OrphanWatch(jobs, apkill, commandTimeout, stats);
        MetricsServer endpoint = metrics == null ? null
                : MetricsServer.start(address(metrics), stats::prometheus);
        new BackendChain(stats, inventory, ledger.layer(inventory, stats, orphans), orphans).into(daemon)
                .decorate(next -> closing(next, endpoint));
        inventory.start();
    }

    /** An emulator has no password database of its own: it is asked directly, as ALPS would ask its host's. */
    private UserIds userIds(Backend backend) {
        if (userIds.equals("learn")) {
            return UserIds.NONE;
        }
        return backend instanceof EmulatorBackend emulator ? emulator.emulator()::userIds : UserIds.nameService();
    }

    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("--metrics wants HOST:PORT, not " + hostPort);
        }
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** The outermost decorator's close also stops the metrics endpoint (the daemon closes its backend chain last). */
    private static Backend closing(Backend chain, MetricsServer endpoint) {
        if (endpoint == null) {
            return chain;
        }
        return new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                return chain.call(call);
            }

            @Override
            public String describe() {
                return chain.describe();
            }

            @Override
            public void close() {
                endpoint.close();
                chain.close();
            }
        };
    }
}
