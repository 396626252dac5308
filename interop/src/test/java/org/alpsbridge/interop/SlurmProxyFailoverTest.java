package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.alpsbridge.ledger.store.PostgresServer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 with a real scheduler: Slurm 18.08.9 through a proxy pair ({@code APBASIL_PROXY=A,B}, one {@code ha_db}
 * on a throwaway PostgreSQL, both proxies in front of the same drop-in emulator, whose state outlives them) while
 * the active proxy is killed -9 at a seeded point of a seeded workload, {@code rounds} times on one cluster: each
 * round submits its jobs, kills the proxy that is active then, measures the time from the kill to the first
 * successful call through the survivor, starts the killed one again (it joins as the standby) and waits for the
 * queue to drain. Round 1 kills while a RESERVE is in flight (forwarded to ALPS, not yet answered); the others at a
 * seeded choice of that or a seeded delay after the k-th RESERVE reached ALPS.
 *
 * Both proxies charge one PostgreSQL ledger. The last round makes ALPS unreachable from just before its kill for
 * {@code outage} seconds: the survivor takes over all the same and answers only TRANSIENT failures until ALPS is back.
 *
 * <p>Then: every job completed or ended with a reason its owner sees ({@code squeue -t all}), none was lost (each
 * left the queue in a final state), Slurm logged no {@code fatal}, once the survivor's orphan watch has looked
 * ({@code proxy orphans --refresh}, then {@code --release} of what it lists) ALPS holds nothing, {@code ledger
 * check} is clean and no job run has more than one hold that was not voided.
 *
 * <p>Opt-in ({@code long}: a Slurm cluster and several failovers take minutes): {@code mvn -B -ntp -Plong -pl interop
 * -am verify -Dtest=SlurmProxyFailoverTest -Dsurefire.failIfNoSpecifiedTests=false}; {@code -Dinterop.jobs=N}
 * (default 12), {@code -Dinterop.rounds=R} (default 2), {@code -Dinterop.seed=S} replays a run, {@code
 * -Dinterop.haLease=SECONDS} (default 5, the product's default), {@code -Dinterop.outage=SECONDS} (default 60; 0: ALPS
 * stays reachable).
 */
@Tag("long")
@Order(5) // the class order: src/test/resources/junit-platform.properties
class SlurmProxyFailoverTest {

    private static final List<String> DONE = List.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
            "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "PREEMPTED");

    @Test
    void aWorkloadThroughAProxyPairOutlivesTheActiveProxyKilledAtASeededPoint() throws Exception {
        int jobs = Integer.getInteger("interop.jobs", 12);
        int rounds = Integer.getInteger("interop.rounds", 2);
        int lease = Integer.getInteger("interop.haLease", 5);
        long seed = Long.getLong("interop.seed", System.nanoTime() % 100_000_000L);
        System.out.println("proxy failover: seed " + seed + " (-Dinterop.seed=" + seed + " replays), " + jobs
                + " jobs x " + rounds + " rounds, ha_lease=" + lease + " s");
        int outage = Integer.getInteger("interop.outage", 60);
        Path prefix = Clients.slurm();
        String haDb = PostgresServer.get().newDatabase();
        String ledger = ProxyPairFailover.ledgerFor(SlurmInteropTest.USERS);
        Bridge bridge = new Bridge("slurm-failover", "xc30:16", List.of("--orphan-jobs", "squeue -h -o %A",
                // both proxies charge one ledger (here on the same throwaway PostgreSQL) to each owner's group
                "--ledger", ledger, "--ledger-job-accounts", "none", "--ledger-on-deny", "none",
                "--ledger-time-limits", "none"));
        CraySlurm slurm = null;
        try {
            bridge.proxyEnvironment(CraySlurm.environment(prefix, bridge));
            bridge.startProxyPair(haDb, lease);
            slurm = CraySlurm.start(prefix, bridge);
            Random random = new Random(seed);
            ProxyPairFailover.Captured captured = new ProxyPairFailover.Captured(bridge.dir().resolve("capture"));
            Map<String, String> outcome = new LinkedHashMap<>();
            List<ProxyPairFailover.Kill> done = new ArrayList<>();
            for (int r = 1; r <= rounds; r++) {
                done.add(round(r, bridge, slurm, random, captured, jobs, outcome, r == rounds ? outage : 0));
            }
            ProxyPairFailover.report("Slurm 18.08.9", seed, jobs, lease, done);

            List<String> unfinished = outcome.entrySet().stream().filter(e -> !e.getValue().startsWith("COMPLETED"))
                    .map(e -> "job " + e.getKey() + ": " + e.getValue()).toList();
            System.out.println("jobs not COMPLETED: " + (unfinished.isEmpty() ? "none" : String.join("; ", unfinished)));
            for (Map.Entry<String, String> e : outcome.entrySet()) {
                String[] stateReason = e.getValue().split(" ", 2);
                assertTrue(DONE.contains(stateReason[0]), "job " + e.getKey() + " lost: last seen " + e.getValue());
                assertTrue(stateReason[0].equals("COMPLETED") || !stateReason[1].equals("None"),
                        "job " + e.getKey() + " ended " + e.getValue() + " with no reason its owner can see");
            }
            List<String> fatal = Stream.concat(slurm.ctldLog().lines(), slurm.slurmdLog().lines())
                    .filter(l -> l.contains("fatal")).toList();
            assertEquals(List.of(), fatal, "fatal in Slurm's logs");
            System.out.println("slurmctld released as orphans: " + slurm.ctldLog().lines()
                    .filter(l -> l.contains("orphaned ALPS reservation")).map(String::strip).toList());
            ProxyPairFailover.assertNothingLeftInAlps(bridge);
            ProxyPairFailover.assertLedgerClean(ledger, outcome.keySet(), j -> outcome.get(j).startsWith("COMPLETED"));
        } finally {
            CraySlurm.stop(slurm, bridge);
        }
    }

    /**
     * One round; with {@code outage} seconds, ALPS answers nothing (the emulator's {@code alps/down}) from just before
     * the kill for that long: the survivor must take over all the same and answer TRANSIENT, never anything else,
     * until ALPS is back.
     */
    private static ProxyPairFailover.Kill round(int number, Bridge bridge, CraySlurm slurm, Random random,
                                               ProxyPairFailover.Captured captured, int jobs,
                                               Map<String, String> outcome, int outage)
            throws IOException, InterruptedException {
        ProxyPairFailover.KillPoint at = ProxyPairFailover.KillPoint.choose(number, random, jobs);
        int before = captured.reserves();
        long interruptedBefore = ProxyPairFailover.interruptedReserves(bridge);
        List<String> submitted = slurm.submitMixed(jobs, random.nextLong(), SlurmInteropTest.USERS);
        submitted.forEach(j -> outcome.put(j, "SUBMITTED None"));
        ProxyPairFailover.Kill kill = ProxyPairFailover.kill(number, bridge, captured, before, at, outage);

        Duration drain = Duration.ofMinutes(3).plusSeconds(10L * jobs);
        assertTrue(Host.await(drain, () -> {
            for (String line : Host.lines(slurm.cmd("squeue", "-h", "-t", "all", "-o", "%i %T %r").out())) {
                String[] f = line.split(" ", 2);
                outcome.computeIfPresent(f[0], (j, old) -> f[1]);
            }
            return submitted.stream().allMatch(j -> DONE.contains(outcome.get(j).split(" ", 2)[0]));
        }), "round " + number + ": jobs left after " + drain.toSeconds() + " s: " + slurm.queue());
        System.out.println("round " + number + ": interrupted exchanges the survivor knows:\n"
                + bridge.interrupted().out().strip());
        if (kill.pending() != null) {
            // recorded in ha_db before it was forwarded: the survivor answers a retry "outcome unknown", never runs it
            assertTrue(ProxyPairFailover.interruptedReserves(bridge) > interruptedBefore, "the RESERVE in flight at the"
                    + " kill is not among the survivor's interrupted exchanges: " + bridge.interrupted().out());
        }
        return kill;
    }
}
