package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.Weights;
import org.alpsbridge.ledger.timelimit.SlurmTime;
import org.junit.jupiter.api.Test;

/**
 * The hooks charged by a real slurmctld (Slurm 22.05) through a real ledger service with real MUNGE: three
 * projects, jobs of several sizes in two partitions with different billing weights, a project that runs out
 * and has its next job denied (cancelled by slurmctld, the reason on the job and in {@code ledger failures}),
 * scancel of a running and a pending job, a job past its time limit, a node failure under running jobs (one
 * requeued), a slurmctld restart and a killed (-9) and restarted service with jobs in flight. At the end
 * nothing is held, every run is settled once, each charge is SPEC's formula on Slurm's own elapsed time, and
 * {@code ledger check} is clean. The hooks are deployed as a site deploys them: the C client and the agent
 * (killed -9 once with settlements spooled, which are settled after its restart, once). They run as root with
 * the least role that charges ({@code charger}); the jobs are submitted by, run as and charged to the unprivileged
 * job user. The same scenario runs twice: with the script hooks
 * (PrologSlurmctld/EpilogSlurmctld) and with the PrEp plugin {@code prep/ledger} inside slurmctld, which must
 * charge exactly as they do; each also restarts slurmctld while prologs wait for a stopped agent. It runs on
 * Debian's Slurm 22.05 and again on Slurm 26.05.3 (the pom's {@code slurm-26.05} execution).
 */
class SlurmHookSlurmTest {

    static final Instant FROM = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(1));
    static final Instant TO = FROM.plus(Duration.ofDays(30));
    /** Partition multiplier of {@code big}, in thousandths; {@code debug} is 1.000. */
    static final long BIG_MULTIPLIER = 2_000;

    @Test
    void slurmChargesThroughTheHooks() throws Exception {
        scenario(SlurmLab.Hooks.AGENT);
    }

    @Test
    void slurmChargesThroughThePrepPluginAsThroughTheHooks() throws Exception {
        scenario(SlurmLab.Hooks.PREP);
    }

    private static void scenario(SlurmLab.Hooks hooks) throws Exception {
        long started = System.nanoTime();
        try (SlurmLab lab = SlurmLab.start(null, 16, hooks, "superuser_uids=4242\ncharger_uids=0",
                "prolog_retry_for=40")) {
            Map<String, Integer> cpus = new HashMap<>();
            try (Ledger ledger = Ledger.open(lab.db)) {
                ledger.addProject("chem", 5001, "chem");
                ledger.addProject("phys", 5002, "phys");
                ledger.addProject("bio", 5003, "bio");
                ledger.grant("chem", Resource.CPU, 6_000, FROM, TO, "research", null);
                ledger.grant("phys", Resource.CPU, 6_000, FROM, TO, "research", null);
                ledger.grant("bio", Resource.CPU, 10, FROM, TO, "education", null); // one 2-CPU 4-minute job
                ledger.setWeights("debug", Weights.UNIT);
                ledger.setWeights("big", new Weights(1000, 0, 1000, BIG_MULTIPLIER));
            }

            // --- sizes and partitions, a project that runs out, scancel, a time limit
            String a1 = submit(lab, cpus, 2, "-A", "chem", "-t", "2", "--wrap", "sleep 3");
            String a2 = submit(lab, cpus, 4, "-A", "phys", "-p", "big", "-t", "3", "--wrap", "sleep 4");
            String a3 = submit(lab, cpus, 1, "-A", "chem", "-t", "0:15", "--wrap", "sleep 300");
            String b1 = submit(lab, cpus, 2, "-A", "bio", "-t", "4", "--wrap", "sleep 15");
            String c1 = submit(lab, cpus, 1, "-A", "phys", "-p", "big", "-t", "5", "--wrap", "sleep 300");
            String c2 = submit(lab, cpus, 1, "-A", "phys", "-t", "5", "--begin=now+3600", "--wrap", "sleep 1");
            lab.awaitState(b1, "RUNNING", Duration.ofSeconds(60));
            String b2 = submit(lab, cpus, 2, "-A", "bio", "-t", "4", "--wrap", "sleep 1");
            lab.awaitState(b2, "CANCELLED", Duration.ofSeconds(60));
            String shown = lab.job(b2).get("_raw");
            assertTrue(shown.contains("AdminComment=ledger denied: ") && shown.contains("bio"),
                    "the owner sees the denial in scontrol show job: " + shown);
            assertTrue(shown.contains("Requeue=0"), shown);
            lab.awaitState(c1, "RUNNING", Duration.ofSeconds(60));
            Thread.sleep(2_000);
            lab.slurm("scancel", c1);
            lab.slurm("scancel", c2);
            lab.awaitQuietAndSettled(Duration.ofSeconds(120));
            assertEquals("TIMEOUT", lab.job(a3).get("JobState"));
            assertEquals("CANCELLED", lab.job(c1).get("JobState"));

            // --- node failure under two running jobs: one not requeueable, one requeued (then cancelled)
            String n1 = submit(lab, cpus, 2, "--no-requeue", "-A", "chem", "-t", "5", "--wrap", "sleep 300");
            String n2 = submit(lab, cpus, 1, "--requeue", "-A", "chem", "-t", "5", "--wrap", "sleep 300");
            lab.awaitState(n1, "RUNNING", Duration.ofSeconds(60));
            lab.awaitState(n2, "RUNNING", Duration.ofSeconds(60));
            Thread.sleep(3_000);
            lab.slurm("scontrol", "update", "NodeName=" + lab.host, "State=DOWN", "Reason=lab-node-failure");
            awaitEpilogs(lab, List.of(n1, n2));
            lab.awaitSettled(Duration.ofSeconds(60)); // settled while the node is down: no charge
            lab.slurm("scancel", n2);
            lab.slurm("scontrol", "update", "NodeName=" + lab.host, "State=RESUME");
            lab.awaitIdle();
            lab.awaitQuiet(Duration.ofSeconds(60));
            assertEquals("NODE_FAIL", lab.job(n1).get("JobState"));

            // --- slurmctld restarted with jobs running
            String r1 = submit(lab, cpus, 2, "-A", "chem", "-t", "3", "--wrap", "sleep 12");
            String r2 = submit(lab, cpus, 3, "-A", "phys", "-p", "big", "-t", "3", "--wrap", "sleep 10");
            lab.awaitState(r1, "RUNNING", Duration.ofSeconds(60));
            lab.awaitState(r2, "RUNNING", Duration.ofSeconds(60));
            lab.restartSlurmctld();
            lab.awaitQuietAndSettled(Duration.ofSeconds(90));

            // --- slurmctld restarted while two prologs wait for the agent (stopped); slurmctld kills them as it
            // stops. Slurm 22.05 runs them again at start-up: held once each. Slurm 26.05 takes a prolog killed at
            // shutdown for a success and saves the job as started, never launched: the agent, whose answer was not
            // heard, voids the hold and requeues the job (its next run, after the lab's requeue delay, is held and
            // settled)
            lab.pauseAgent(true);
            String p1 = submit(lab, cpus, 1, "-A", "chem", "-t", "2", "--wrap", "sleep 2");
            String p2 = submit(lab, cpus, 2, "-A", "phys", "-t", "2", "--wrap", "sleep 3");
            lab.awaitState(p1, "CONFIGURING", Duration.ofSeconds(60));
            lab.awaitState(p2, "CONFIGURING", Duration.ofSeconds(60));
            lab.restartSlurmctld();
            lab.pauseAgent(false);
            lab.awaitQuietAndSettled(Duration.ofSeconds(120));
            List<String> unheard = List.of(p1, p2);

            // --- the service killed -9 and restarted, then stopped and started, with jobs in flight
            String s1 = submit(lab, cpus, 2, "-A", "chem", "-t", "3", "--wrap", "sleep 6");
            String s2 = submit(lab, cpus, 1, "-A", "phys", "-t", "3", "--wrap", "sleep 4");
            lab.awaitState(s1, "RUNNING", Duration.ofSeconds(60));
            lab.stopService(true);
            String s3 = submit(lab, cpus, 1, "-A", "chem", "-t", "2", "--wrap", "sleep 2"); // its prolog waits
            Thread.sleep(8_000); // s2 ends while the service is down: its epilog waits
            lab.startService();
            String s4 = submit(lab, cpus, 2, "-A", "phys", "-t", "2", "--wrap", "sleep 5");
            lab.awaitState(s4, "RUNNING", Duration.ofSeconds(60));
            lab.stopService(false);
            Thread.sleep(2_000);
            lab.startService();
            lab.awaitQuietAndSettled(Duration.ofSeconds(120));

            // --- the agent killed -9 with settlements spooled (the service down), then both started again
            String k1 = submit(lab, cpus, 1, "-A", "chem", "-t", "2", "--wrap", "sleep 3");
            String k2 = submit(lab, cpus, 2, "-A", "phys", "-p", "big", "-t", "2", "--wrap", "sleep 4");
            lab.awaitState(k1, "RUNNING", Duration.ofSeconds(60));
            lab.awaitState(k2, "RUNNING", Duration.ofSeconds(60));
            lab.stopService(true);
            lab.awaitQuiet(Duration.ofSeconds(60));
            awaitEpilogs(lab, List.of(k1, k2));
            assertEquals(2, lab.spooled().size(), "spooled while the service is down: " + lab.spooled());
            lab.stopAgent(true);
            lab.startService();
            lab.startAgent();
            lab.awaitSettled(Duration.ofSeconds(60));
            assertTrue(Files.readString(lab.dir.resolve("agent.log")).contains("2 spooled epilog(s) from before the start"),
                    lab.tail("agent.log"));

            // --- the ledger agrees with Slurm
            List<String> settled = List.of(a1, a2, a3, b1, c1, r1, r2, p1, p2, s1, s2, s3, s4, k1, k2);
            try (Ledger ledger = Ledger.open(lab.db)) {
                assertEquals(List.of(), ledger.check(), "ledger check");
                assertEquals(List.of(), ledger.holds(null), "nothing left held");
                assertSettledAsSlurmSays(lab, ledger, settled, cpus);
                // the prologs killed at the restart: their run held once (22.05), or voided and requeued (26.05)
                String agentSaid = Files.readString(lab.dir.resolve("slurmctld.log"));
                for (String id : settled) {
                    for (Reservation r : ledger.reservations("lab", id)) {
                        if (r.state() == State.VOIDED) {
                            assertTrue(unheard.contains(id), () -> "only an unheard prolog's run is voided: " + r);
                            assertEquals(0, r.charge(), r::toString);
                            assertTrue(agentSaid.contains("ledger hook-agent: job " + id + " run " + r.resId()
                                    + ": slurmctld started it without the prolog's answer"), () -> lab.tail("slurmctld.log"));
                        }
                    }
                }
                // the denial: remembered with its reason; no hold; the job never ran
                List<Reservation> denied = ledger.reservations("lab", b2);
                assertEquals(1, denied.size());
                assertEquals(State.DENIED, denied.get(0).state());
                assertTrue(ledger.failures("bio", 10).stream().anyMatch(f -> f.batchId().equals(b2)));
                // scancel of a pending job: never held
                assertEquals(List.of(), ledger.reservations("lab", c2));
                // node failure: charged nothing, the requeued job's run too
                for (String id : List.of(n1, n2)) {
                    List<Reservation> runs = ledger.reservations("lab", id);
                    assertEquals(1, runs.size(), () -> "job " + id + ": " + runs);
                    assertEquals(0, runs.get(0).charge(), () -> runs.get(0).toString());
                    assertEquals("NODE_FAILURE", runs.get(0).reason(), () -> runs.get(0).toString());
                }
                // balances: used is the sum of the charges
                for (String p : List.of("chem", "phys", "bio")) {
                    long used = ledger.balances(p).get(0).used();
                    long charged = 0;
                    for (String id : settled) {
                        for (Reservation r : ledger.reservations("lab", id)) {
                            charged += r.project().equals(p) ? r.charge() : 0;
                        }
                    }
                    assertEquals(charged, used, "used of " + p);
                    assertTrue(ledger.balances(p).get(0).available() >= 0, p);
                }
            }
            String log = Files.readString(lab.dir.resolve("slurmctld.log"));
            assertTrue(log.contains("ledger prolog: job " + b2 + " run 1: DENIED: "), "the denial in slurmctld's log");
            assertTrue(log.contains("ledger epilog: job " + s2 + " run 1: settled "), "a settlement in slurmctld's log");
        } finally {
            System.out.printf("SlurmHookSlurmTest (%s): %.1f s%n", hooks, (System.nanoTime() - started) / 1e9);
        }
    }

    /** Each job ran once, is settled once, and was charged SPEC's formula on Slurm's own RunTime. */
    static void assertSettledAsSlurmSays(SlurmLab lab, Ledger ledger, List<String> ids, Map<String, Integer> cpus)
            throws Exception {
        for (String id : ids) {
            Map<String, String> job = lab.job(id);
            // a run that never started (voided: slurmctld started it without the prolog's answer, below) is not one
            List<Reservation> runs = ledger.reservations("lab", id).stream().filter(r -> r.state() != State.VOIDED).toList();
            assertEquals(1, runs.size(), () -> "one run of job " + id + ": " + runs);
            Reservation r = runs.get(0);
            assertEquals(State.SETTLED, r.state(), () -> "job " + id + ": " + r);
            // run by the unprivileged job user (by name, or by uid where Slurm gave no name), not root
            assertTrue(List.of(lab.user.name(), Integer.toString(lab.user.uid())).contains(r.owner()), () -> "job " + id + ": " + r);
            long elapsed = SlurmTime.parse(job.get("RunTime")).orElseThrow();
            long limit = SlurmTime.parse(job.get("TimeLimit")).orElseThrow();
            long multiplier = "big".equals(job.get("Partition")) ? BIG_MULTIPLIER : 1_000;
            long expected = ceilDiv(BigInteger.valueOf(multiplier).multiply(BigInteger.valueOf(1_000L * cpus.get(id)))
                    .multiply(BigInteger.valueOf(Math.min(elapsed, limit))), 60_000_000L);
            assertEquals(expected, r.charge(), () -> "job " + id + " (" + cpus.get(id) + " CPUs, " + elapsed
                    + " s of " + limit + " s, " + job.get("Partition") + "): " + r);
            assertTrue(r.charge() <= r.hold(), r.toString());
            assertEquals(r.charge() > 0 ? 1 : 0, ledger.journal(r.key()).stream()
                    .filter(e -> e.kind() == JournalEntry.Kind.SETTLE).count(), () -> "settled once: " + r);
        }
    }

    /**
     * The ledger of the shorter scenarios: chem with 6,000 CPU-minutes, bio with {@code bioMinutes}, from {@link #FROM}
     * to {@link #TO}; partition {@code debug} at unit weights, {@code big} at {@link #BIG_MULTIPLIER}.
     */
    static void grantChemAndBio(SlurmLab lab, long bioMinutes) throws Exception {
        try (Ledger ledger = Ledger.open(lab.db)) {
            ledger.addProject("chem", 5001, "chem");
            ledger.addProject("bio", 5003, "bio");
            ledger.grant("chem", Resource.CPU, 6_000, FROM, TO, "research", null);
            ledger.grant("bio", Resource.CPU, bioMinutes, FROM, TO, "education", null);
            ledger.setWeights("debug", Weights.UNIT);
            ledger.setWeights("big", new Weights(1000, 0, 1000, BIG_MULTIPLIER));
        }
    }

    static String submit(SlurmLab lab, Map<String, Integer> cpus, int n, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("-n", Integer.toString(n)));
        argv.addAll(List.of(args));
        String id = lab.sbatch(argv.toArray(String[]::new));
        cpus.put(id, n);
        return id;
    }

    private static void awaitEpilogs(SlurmLab lab, List<String> ids) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            List<String> done = lab.hookCalls("epilog").stream().map(SlurmLab.HookCall::jobId).toList();
            if (done.containsAll(ids)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no epilog for " + ids + ": " + lab.tail("slurmctld.log"));
    }

    private static long ceilDiv(BigInteger a, long b) {
        BigInteger[] qr = a.divideAndRemainder(BigInteger.valueOf(b));
        return qr[0].add(qr[1].signum() == 0 ? BigInteger.ZERO : BigInteger.ONE).longValueExact();
    }
}
