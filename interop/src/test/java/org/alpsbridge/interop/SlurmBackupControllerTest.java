package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
 * Issue 37, the scheduler's side: Slurm 18.08.9 with a backup controller (two {@code SlurmctldHost} lines, the
 * backup {@value CraySlurm#BACKUP} as a host of its own on 127.0.0.2, one StateSaveLocation, one cray.conf whose
 * {@code apbasil=} is the native drop-in client listing the proxy pair) while jobs run and wait: the primary
 * slurmctld killed -9 with the jobs settled, the backup takes over; the active proxy killed -9 while the backup is in control; the running
 * jobs end under the backup (their slurmstepds' RELEASEs through the surviving proxy); the primary started again
 * takes control back and the pending jobs run; then {@code scontrol takeover} hands a live primary's running jobs to
 * the backup, and they end there.
 *
 * <p>Slurm 18.08's backup on an ALPS system does not schedule (controller.c: {@code scheduling_disabled} for every
 * backup under {@code HAVE_ALPS_CRAY}; NEWS: "Enable backup controller to run outside of the Cray to accept new job
 * submissions and most other operations on the pending jobs"): while it is in control the pending jobs stay pending,
 * with their reason, and the test checks that none of them is started or lost; they run once the primary is back.
 *
 * <p>Slurm's own durability window is left out of the kill points: slurmctld acknowledges a submission and starts a
 * job before it saves them (at most every 5 s, not while a scheduling pass holds the job lock across its apbasil
 * calls), so a job submitted just before a kill -9 is unknown to the backup, and one started just before it runs
 * again (the backup aborts the run slurmd reports for a job PENDING in the saved state), and an end it took just
 * before is lost (the job stays RUNNING). The kill comes 15 s after the jobs started; a start backfill made later
 * still falls in the window (the job runs twice), and the ledger check counts slurmctld's starts as runs.
 *
 * <p>Then, as for the proxy pair alone ({@link SlurmProxyFailoverTest}): every job COMPLETED or ended with a reason
 * its owner sees, none lost, no {@code fatal} in any Slurm log, once the survivor's orphan watch has looked ALPS holds
 * nothing, {@code ledger check} is clean and no job run has more than one hold that was not voided. Prints the time
 * from each kill (and from {@code scontrol takeover}) to the first successful call through the survivor.
 *
 * <p>{@code -Dinterop.jobs=N} (default 8) gated jobs of the seeded mixed workload plus one job of the whole machine,
 * which waits; {@code -Dinterop.seed=S} replays; {@code -Dinterop.slurmctldTimeout=S} (default 10) the backup's
 * SlurmctldTimeout. Opt-in ({@code long}).
 */
@Tag("long")
@Order(5) // the class order: src/test/resources/junit-platform.properties
class SlurmBackupControllerTest {

    /** Each kill and handover, what answered first after it and when (ms). */
    private final Map<String, Long> timings = new LinkedHashMap<>();
    private final Map<String, String> outcome = new LinkedHashMap<>();

    @Test
    void jobsOutliveThePrimarySlurmctldAndTheActiveProxyKilledAndAHandoverToTheBackup() throws Exception {
        int jobs = Integer.getInteger("interop.jobs", 8);
        int timeout = Integer.getInteger("interop.slurmctldTimeout", 10);
        long seed = Long.getLong("interop.seed", System.nanoTime() % 100_000_000L);
        System.out.println("backup slurmctld: seed " + seed + " (-Dinterop.seed=" + seed + " replays), " + jobs
                + " jobs, SlurmctldTimeout=" + timeout + " s, ha_lease=5 s");
        Path prefix = Clients.slurm();
        String ledger = ProxyPairFailover.ledgerFor(SlurmInteropTest.USERS);
        Bridge bridge = new Bridge("slurm-backup", "xc30:16", List.of("--orphan-jobs", "squeue -h -o %A",
                "--ledger", ledger, "--ledger-job-accounts", "none", "--ledger-on-deny", "none",
                "--ledger-time-limits", "none"));
        Path gates = Files.createTempDirectory(Path.of("/tmp"), "interop-gates");
        Files.setPosixFilePermissions(gates, PosixFilePermissions.fromString("rwxr-xr-x"));
        CraySlurm slurm = null;
        try {
            bridge.proxyEnvironment(CraySlurm.environment(prefix, bridge));
            bridge.startProxyPair(PostgresServer.get().newDatabase(), 5);
            slurm = CraySlurm.startWithBackup(prefix, bridge, timeout);
            Random random = new Random(seed);

            // jobs running (until their gate opens) and waiting: a job of the whole machine cannot start meanwhile
            String one = "while [ ! -e " + gates.resolve("one") + " ]; do sleep 1; done";
            List<String> first = new ArrayList<>(slurm.submitMixed(jobs, random.nextLong(), SlurmInteropTest.USERS, one));
            first.add(slurm.submit("nobody", one, "-N" + slurm.nodes().size(), "--time=10"));
            first.forEach(j -> outcome.put(j, "SUBMITTED None"));
            CraySlurm s = slurm;
            assertTrue(Host.await(Duration.ofMinutes(4), () -> {
                poll(s);
                long running = first.stream().filter(j -> outcome.get(j).startsWith("RUNNING")).count();
                return running >= Math.min(3, jobs) && bridge.requests("CONFIRM") >= running;
            }), "the jobs did not start: " + slurm.queue());
            // Every kill point comes once the jobs are in the state slurmctld saved. It saves at most every 5 s
            // (state_save.c SAVE_MAX_WAIT) and not while a scheduling pass holds the job lock across its apbasil
            // calls: a job submitted after the last save is unknown to the backup (lost by Slurm, acknowledged all
            // the same), one started after it is PENDING there and aborted when slurmd reports it (run again later).
            Thread.sleep(15_000);
            // the kill point: the running jobs settled, the others waiting. Not between a RESERVE's forward and its
            // answer: a RESERVE comes right after a submission or an end, which a kill then loses (Slurm's window,
            // README); the proxy pair's kill with a RESERVE in flight is SlurmProxyFailoverTest's
            String point = "jobs running (started 15 s before or more) and waiting, no RESERVE in flight";

            // the primary slurmctld killed -9: the backup takes over
            long killed = System.nanoTime();
            slurm.killController();
            timings.put("slurmctld primary kill -9 at " + point + " -> the backup answers squeue",
                    backupAnswers(slurm, killed, 1));
            poll(slurm);
            List<String> running = first.stream().filter(j -> outcome.get(j).startsWith("RUNNING")).toList();
            List<String> pending = first.stream().filter(j -> outcome.get(j).startsWith("PENDING")).toList();
            System.out.println("the backup in control: running " + running + ", pending " + pending);
            assertTrue(!pending.isEmpty(), "no job pending: " + slurm.queue());

            // the backup accepts work while in control; ALPS-wise it schedules nothing
            String late = slurm.submit("bin", one, "-N1", "--time=10");
            outcome.put(late, "SUBMITTED None");
            pending = new ArrayList<>(pending);
            pending.add(late);

            // the active proxy killed -9 while the backup is in control and the jobs run
            int active = bridge.activePort();
            assertTrue(active != 0, "no proxy of the pair is active");
            int survivor = bridge.proxyPorts().stream().filter(p -> p != active).findFirst().orElseThrow();
            long proxyKilled = System.nanoTime();
            bridge.killProxy(active);
            timings.put("active proxy kill -9 -> first success through the survivor",
                    ProxyPairFailover.firstAnswer(bridge, survivor, proxyKilled));
            bridge.operateOn(survivor);
            bridge.restartProxy(active); // back as the standby

            // the running jobs end under the backup: their slurmstepds release through the survivor
            Files.createFile(gates.resolve("one"));
            assertTrue(Host.await(Duration.ofMinutes(4), () -> {
                poll(s);
                return running.stream().allMatch(j -> SlurmPairChecks.DONE.contains(state(j)));
            }), "the jobs that ran at the kill did not end under the backup: " + slurm.queue());
            List<String> waiting = pending.stream().map(j -> j + " " + outcome.get(j)).toList();
            System.out.println("under the backup: the running jobs ended (" + running.stream().map(j -> j + " "
                    + outcome.get(j)).toList() + "); the pending ones wait: " + waiting);
            assertTrue(pending.stream().allMatch(j -> state(j).equals("PENDING")),
                    "Slurm 18.08's backup on ALPS schedules nothing, yet: " + waiting);

            // the primary back: it takes control from the backup and runs what waited
            long restarted = System.nanoTime();
            slurm.startController();
            assertTrue(Host.await(Duration.ofMinutes(2), () -> s.backupLog().contains("REQUEST_CONTROL")),
                    "the backup was not asked to hand control back:\n" + slurm.backupLog());
            timings.put("primary started again -> it has control (the backup handed it back)",
                    (System.nanoTime() - restarted) / 1_000_000);
            awaitEnded(slurm, first, Duration.ofMinutes(6));
            awaitEnded(slurm, List.of(late), Duration.ofMinutes(2));

            // scontrol takeover with jobs running: the live primary hands them to the backup
            String two = "while [ ! -e " + gates.resolve("two") + " ]; do sleep 1; done";
            List<String> second = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                second.add(slurm.submit(SlurmInteropTest.USERS.get(i), two, "-N2", "--time=10"));
            }
            second.forEach(j -> outcome.put(j, "SUBMITTED None"));
            assertTrue(Host.await(Duration.ofMinutes(4), () -> {
                poll(s);
                return second.stream().allMatch(j -> outcome.get(j).startsWith("RUNNING"));
            }), "the second jobs did not run: " + slurm.queue());
            long asked = System.nanoTime();
            assertEquals(0, slurm.cmd("scontrol", "takeover").exit(), "scontrol takeover");
            timings.put("scontrol takeover -> the backup answers squeue", backupAnswers(slurm, asked, 2));
            Files.createFile(gates.resolve("two"));
            awaitEnded(slurm, second, Duration.ofMinutes(4));

            System.out.println("backup slurmctld with a proxy pair under Slurm 18.08.9, seed " + seed + ":");
            timings.forEach((what, ms) -> System.out.println("  " + what + ": " + ms + " ms"));
            List<String> notCompleted = outcome.entrySet().stream().filter(e -> !e.getValue().startsWith("COMPLETED"))
                    .map(e -> e.getKey() + " " + e.getValue()).toList();
            System.out.println("jobs: " + outcome.size() + ", not COMPLETED: " + (notCompleted.isEmpty() ? "none" : notCompleted));
            // Slurm's own window: a job started after the primary's last state save is PENDING to the backup, which
            // aborts its batch script when slurmd reports it; it runs again later (twice charged, one run each)
            System.out.println("jobs the backup found running though PENDING in the saved state, and aborted: "
                    + slurm.backupLog().lines().filter(l -> l.contains("Registered PENDING")).map(String::strip).toList());
            SlurmPairChecks.assertEndedWithAReason(outcome);
            List<String> fatal = Stream.of(slurm.ctldLog(), slurm.backupLog(), slurm.slurmdLog()).flatMap(String::lines)
                    .filter(l -> l.contains("fatal")).toList();
            assertEquals(List.of(), fatal, "fatal in Slurm's logs");
            ProxyPairFailover.assertNothingLeftInAlps(bridge);
            Map<String, Integer> starts = SlurmPairChecks.starts(slurm.ctldLog(), slurm.backupLog());
            ProxyPairFailover.assertLedgerClean(ledger, outcome.keySet(), j -> outcome.get(j).startsWith("COMPLETED"),
                    j -> starts.getOrDefault(j, 0));
        } finally {
            CraySlurm.stop(slurm, bridge);
            Host.run(Map.of(), Duration.ofSeconds(30), List.of("rm", "-rf", gates.toString()));
        }
    }

    /**
     * Waits until the backup's log says it took over for the {@code nth} time and squeue answers (through it); the
     * ms since {@code since}.
     */
    private static long backupAnswers(CraySlurm slurm, long since, int nth) {
        assertTrue(Host.await(Duration.ofMinutes(2), () -> slurm.backupLog().lines()
                .filter(l -> l.contains("taking over")).count() >= nth && slurm.cmd("squeue", "-h").exit() == 0),
                "the backup did not take over:\n" + slurm.backupLog());
        return (System.nanoTime() - since) / 1_000_000;
    }

    /** Each job's last state and reason, from {@code squeue -t all} (whichever controller answers). */
    private void poll(CraySlurm slurm) {
        Host.Result r = slurm.cmd("squeue", "-h", "-t", "all", "-o", "%i %T %r");
        if (r.exit() != 0) {
            return;
        }
        for (String line : Host.lines(r.out())) {
            String[] f = line.split(" ", 2);
            outcome.computeIfPresent(f[0], (j, old) -> f[1]);
        }
    }

    private String state(String job) {
        return outcome.get(job).split(" ", 2)[0];
    }

    private void awaitEnded(CraySlurm slurm, List<String> jobs, Duration limit) {
        assertTrue(Host.await(limit, () -> {
            poll(slurm);
            return jobs.stream().allMatch(j -> SlurmPairChecks.DONE.contains(state(j)));
        }), "jobs left after " + limit.toSeconds() + " s: " + slurm.queue());
    }
}
