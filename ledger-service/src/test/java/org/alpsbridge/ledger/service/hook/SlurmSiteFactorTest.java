package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The ledger's site factor in a real slurmctld's priority (Slurm 22.05, priority/multifactor with
 * {@code site_factor/ledger}): three projects' jobs wait behind a job holding the only CPU while
 * {@code ledger site-factor --slurm-file} is written as a timer would, now and eight days later. Now, the
 * allocation nearing its end with its credit unspent goes first, the one as near its end but nearly spent second,
 * and the young one last (the seed's product rule counts credit left only as the period runs out), and the jobs
 * start in that order; eight days later the other two have ended and the allocation that was young is the one
 * nearing its end, and jobs submitted then are ordered the other way round. Slurm's own figures ({@code sprio}'s
 * site column, the jobs' start times) are what is checked. (Pending jobs are re-evaluated every
 * PriorityCalcPeriod only with slurmdbd, which this lab does not run.)
 */
class SlurmSiteFactorTest {

    @Test
    void pendingJobsAreReorderedAsAllocationsNearTheirEndAndRunLow() throws Exception {
        try (SlurmLab lab = SlurmLab.start(null, 1, SlurmLab.Hooks.NONE, "", "")) {
            Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            try (Ledger ledger = Ledger.open(lab.db)) {
                // young: a tenth of its period gone, all its credit left; ending: nine tenths gone, all left;
                // spent: nine tenths gone, 2% of its credit left
                ledger.addProject("young", 7001, "young");
                ledger.addProject("ending", 7002, "ending");
                ledger.addProject("spent", 7003, "spent");
                ledger.grant("young", Resource.CPU, 10_000, now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(9)), "research", null);
                ledger.grant("ending", Resource.CPU, 10_000, now.minus(Duration.ofDays(9)), now.plus(Duration.ofDays(1)), "research", null);
                ledger.grant("spent", Resource.CPU, 10_000, now.minus(Duration.ofDays(9)), now.plus(Duration.ofDays(1)), "research", null);
                // 98% used: a run of 98 cores for 100 minutes (cluster "elsewhere", outside this Slurm)
                ledger.reserve(org.alpsbridge.ledger.ReserveRequest.of(1, "elsewhere-1", "spent", "alice", 1, 98, 100, now));
                ledger.release(org.alpsbridge.ledger.ReleaseRequest.of(1, 6_000, now));
            }
            Path factors = lab.dir.resolve("site-factors");
            siteFactor(lab, factors, now);
            Path plugins = HookClient.buildPlugins(lab.installation(), lab.dir.resolve("plugins"), lab.dir.resolve("ledger-hook.conf"));
            lab.appendSlurmConf(String.join("\n",
                    "PluginDir=" + HookClient.pluginDir(lab.installation(), plugins),
                    "PriorityType=priority/multifactor",
                    "PrioritySiteFactorPlugin=site_factor/ledger",
                    "PrioritySiteFactorParameters=file=" + factors,
                    // the site factor alone orders these jobs (age and the rest weigh nothing)
                    "PriorityWeightAge=0", "PriorityWeightFairshare=0", "PriorityWeightJobSize=0",
                    "PriorityWeightPartition=0", "PriorityWeightQOS=0",
                    // the recalculation that calls site_factor_p_update: its shortest period, a minute; 22.05 runs
                    // it only with slurmdbd, 26.05 without too: there an hour, past this scenario, in which pending
                    // jobs keep the factor they were submitted with
                    "PriorityCalcPeriod=" + (lab.installation().atLeast(26, 5) ? 60 : 1)));
            lab.restartSlurmctld();

            String blocker = lab.sbatch("-A", "young", "-n", "1", "-t", "10", "--wrap", "sleep 600");
            lab.awaitState(blocker, "RUNNING", Duration.ofSeconds(60));
            Map<String, String> jobs = new HashMap<>();
            for (String account : List.of("spent", "young", "ending")) {
                jobs.put(lab.sbatch("-A", account, "-n", "1", "-t", "1", "--wrap", "sleep 2"), account);
            }
            Map<String, Long> file = read(factors);
            // the seed's rule (a product): credit left counts only as the period runs out, so the young allocation
            // gets nothing yet and the nearly spent one little
            assertTrue(file.get("ending") > file.get("spent") && file.get("spent") > file.get("young"),
                    "now: the unspent allocation nearing its end first, then the spent one, the young one last: " + file);
            Map<String, Long> site = awaitSiteFactors(lab, jobs, file, Duration.ofSeconds(30));
            System.out.println("site factors now (sprio): " + site);

            // eight days later: 'ending' and 'spent' have ended, 'young' is the one near its end; a job submitted
            // now gets the new factors (site_factor_p_set reads the rewritten file). The jobs already pending keep
            // theirs here: Slurm re-evaluates them (site_factor_p_update) in priority/multifactor's decay thread,
            // which runs only with slurmdbd, and this lab has none.
            siteFactor(lab, factors, now.plus(Duration.ofDays(8)));
            Map<String, Long> later = read(factors);
            assertEquals(Map.of("young", later.get("young")), later, "only young's allocation is still active");
            assertTrue(later.get("young") > file.get("ending") / 2, later + " after " + file);
            Map<String, String> laterJobs = new HashMap<>();
            for (String account : List.of("spent", "young", "ending")) {
                laterJobs.put(lab.sbatch("-A", account, "-n", "1", "-t", "1", "--wrap", "sleep 2"), account);
            }
            Map<String, Long> laterSite = awaitSiteFactors(lab, laterJobs,
                    Map.of("young", later.get("young"), "ending", 0L, "spent", 0L), Duration.ofSeconds(30));
            System.out.println("site factors of jobs submitted eight days later (sprio): " + laterSite);
            assertEquals(site, awaitSiteFactors(lab, jobs, file, Duration.ofSeconds(5)), "the earlier jobs keep theirs");

            // the node frees: the first jobs start in the order of their site factors
            lab.slurm("scancel", blocker);
            lab.awaitQuiet(Duration.ofSeconds(180));
            List<String> started = new ArrayList<>(jobs.keySet());
            Map<String, String> startTimes = new HashMap<>();
            for (String id : started) {
                startTimes.put(id, lab.job(id).get("StartTime"));
            }
            started.sort(Comparator.comparing((String id) -> startTimes.get(id)).thenComparingLong(Long::parseLong));
            assertEquals(List.of("ending", "spent", "young"), started.stream().map(jobs::get).toList(),
                    "start order of the first three: " + startTimes + " " + jobs);
        }
    }

    /** {@code alpsbridge ledger site-factor --slurm-file FILE --at WHEN}, as a site's timer runs it. */
    private static void siteFactor(SlurmLab lab, Path file, Instant at) {
        java.io.StringWriter err = new java.io.StringWriter();
        CommandLine cmd = new CommandLine(new LedgerCommand());
        cmd.setErr(new java.io.PrintWriter(err));
        int code = cmd.execute("site-factor", "--db", lab.db, "--slurm-file", file.toString(), "--at", at.toString());
        assertEquals(0, code, err.toString());
    }

    private static Map<String, Long> read(Path file) throws Exception {
        Map<String, Long> m = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.startsWith("#")) {
                String[] f = line.split(" ");
                m.put(f[0], Long.parseLong(f[1]));
            }
        }
        return m;
    }

    /** Waits until sprio shows each pending job's site factor as its account's in {@code expected} (0 if absent). */
    private static Map<String, Long> awaitSiteFactors(SlurmLab lab, Map<String, String> jobs, Map<String, Long> expected,
                                                      Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        Map<String, Long> shown = Map.of();
        while (System.nanoTime() < deadline) {
            shown = new HashMap<>();
            for (String line : lab.slurm("sprio", "-h", "-o", "%i %S").out().strip().split("\n")) {
                String[] f = line.strip().split("\\s+");
                if (f.length == 2 && jobs.containsKey(f[0])) {
                    shown.put(jobs.get(f[0]), Long.parseLong(f[1]));
                }
            }
            Map<String, Long> want = new HashMap<>();
            jobs.values().forEach(a -> want.put(a, expected.getOrDefault(a, 0L)));
            if (shown.equals(want)) {
                return shown;
            }
            Thread.sleep(1_000);
        }
        throw new AssertionError("sprio's site factors " + shown + ", expected " + expected + "; "
                + lab.tail("slurmctld.log"));
    }
}
