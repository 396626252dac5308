package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.slurm.harness.MariaDb;
import org.alpsbridge.slurm.harness.SlurmDbd;
import org.alpsbridge.slurm.harness.SlurmInstallation;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The ledger's site factor reorders pending jobs in a real slurmctld (priority/multifactor with
 * {@code site_factor/ledger}, the site factor alone weighing). Three projects' jobs wait behind a job holding the
 * only CPU while {@code ledger site-factor --slurm-file} is written as a site's timer writes it. First the
 * allocation nearing its end with its credit unspent ({@code ending}) goes first, the one as near its end with a
 * fifth of its credit left ({@code spent}) second, the one with most of its period ahead ({@code young}) last. Then
 * the ledger moves on: {@code ending} runs low (a big job elsewhere spends 98% of it) and, a day later,
 * {@code young} nears its end; the timer rewrites the file, and at priority/multifactor's next recalculation
 * ({@code PriorityCalcPeriod}, a minute, Slurm's shortest) the same pending jobs are reordered the other way round
 * and start in that order. Slurm's own figures are what is checked: {@code sprio}'s site column, the jobs'
 * priorities, their start times.
 *
 * <p>The recalculation (priority/multifactor's decay thread, which calls {@code site_factor_p_update}) runs on
 * Debian's Slurm 22.05 only when accounting goes to slurmdbd ({@code priority_multifactor.c} {@code init()}), so
 * there the test starts a slurmdbd on a private MariaDB and registers the cluster, the accounts and the user; on
 * 26.05 the thread runs without it (its {@code priority_p_thread_start}), and none is started.
 */
class SlurmSiteFactorTest {

    /** The projects, one Slurm account each; their jobs are submitted in this order. */
    private static final List<String> PROJECTS = List.of("spent", "young", "ending");

    @Test
    void pendingJobsAreReorderedAsOneAllocationRunsLowAndAnotherNearsItsEnd() throws Exception {
        long began = System.nanoTime();
        try (SlurmLab lab = SlurmLab.start(null, 1, SlurmLab.Hooks.NONE, "", "")) {
            SlurmInstallation slurm = lab.installation();
            System.out.println("lab up after " + seconds(began));
            Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            try (Ledger ledger = Ledger.open(lab.db)) {
                // ending: 9 of 11 days gone, all credit left; spent: the same period, a fifth left; young: 7 of 10
                // days gone, all left
                ledger.addProject("ending", 7001, "ending");
                ledger.addProject("spent", 7002, "spent");
                ledger.addProject("young", 7003, "young");
                ledger.grant("ending", Resource.CPU, 10_000, now.minus(Duration.ofDays(9)), now.plus(Duration.ofDays(2)), "research", null);
                ledger.grant("spent", Resource.CPU, 10_000, now.minus(Duration.ofDays(9)), now.plus(Duration.ofDays(2)), "research", null);
                ledger.grant("young", Resource.CPU, 10_000, now.minus(Duration.ofDays(7)), now.plus(Duration.ofDays(3)), "research", null);
                spend(ledger, 1, "spent", 80, now); // 8,000 of 10,000 core-minutes, on a cluster outside this Slurm
            }
            Path factors = lab.dir.resolve("site-factors");
            siteFactor(lab, factors, now);
            Map<String, Long> before = read(factors);
            assertTrue(before.get("ending") > before.get("spent") && before.get("spent") > before.get("young"),
                    "the unspent allocation nearing its end first, the nearly spent one second, the young one last: " + before);

            Path plugins = HookClient.buildPlugins(slurm, lab.dir.resolve("plugins"), lab.dir.resolve("ledger-hook.conf"));
            List<AutoCloseable> accounting = new ArrayList<>();
            try {
                if (!slurm.atLeast(26, 5)) {
                    // 22.05's priority/multifactor starts its decay thread only with slurmdbd (its init()); the
                    // releases between 22.05 and 26.05 are not tested here, so they get one too
                    MariaDb db = MariaDb.start(lab.dir.resolve("mariadb"));
                    accounting.add(0, db);
                    SlurmDbd dbd = SlurmDbd.start(lab.cluster(), db);
                    accounting.add(0, dbd);
                    dbd.addAccounts(lab.user.name(), PROJECTS); // the jobs' user, as a site adds its users
                    System.out.println("MariaDB and slurmdbd up, accounts added, after " + seconds(began));
                }
                lab.appendSlurmConf(String.join("\n",
                        "PluginDir=" + HookClient.pluginDir(slurm, plugins),
                        "PriorityType=priority/multifactor",
                        "PrioritySiteFactorPlugin=site_factor/ledger",
                        "PrioritySiteFactorParameters=file=" + factors,
                        // the site factor alone orders these jobs (age, fair share and the rest weigh nothing)
                        "PriorityWeightAge=0", "PriorityWeightFairshare=0", "PriorityWeightJobSize=0",
                        "PriorityWeightPartition=0", "PriorityWeightQOS=0",
                        // the recalculation that calls site_factor_p_update: its shortest period, a minute
                        "PriorityCalcPeriod=1"));
                lab.restartSlurmctld();
                System.out.println("slurmctld restarted with the site factor after " + seconds(began));
                scenario(lab, factors, now, before);
            } finally {
                // slurmctld stops before the slurmdbd it reports to, as at a site
                lab.cluster().stopController();
                for (AutoCloseable a : accounting) {
                    a.close();
                }
            }
        }
        System.out.println("SlurmSiteFactorTest: " + seconds(began) + " in all");
    }

    private static String seconds(long since) {
        return Duration.ofNanos(System.nanoTime() - since).toSeconds() + " s";
    }

    private static void scenario(SlurmLab lab, Path factors, Instant now, Map<String, Long> before) throws Exception {
        String blocker = lab.sbatch("-A", "young", "-n", "1", "-t", "10", "--wrap", "sleep 600");
        lab.awaitState(blocker, "RUNNING", Duration.ofSeconds(60));
        Map<String, String> jobs = new LinkedHashMap<>();
        for (String account : PROJECTS) {
            jobs.put(lab.sbatch("-A", account, "-n", "1", "-t", "1", "--wrap", "sleep 2"), account);
        }
        System.out.println("site factors at submission (sprio): " + awaitSiteFactors(lab, jobs, before, Duration.ofSeconds(30)));
        assertEquals(List.of("ending", "spent", "young"), byPriority(lab, jobs), "Slurm's priorities at submission");

        // the ledger moves on: ending runs low, and a day later young nears its end; the timer rewrites the file
        try (Ledger ledger = Ledger.open(lab.db)) {
            spend(ledger, 2, "ending", 98, now);
        }
        siteFactor(lab, factors, now.plus(Duration.ofDays(1)));
        long rewritten = System.nanoTime();
        Map<String, Long> after = read(factors);
        assertTrue(after.get("young") > after.get("spent") && after.get("spent") > after.get("ending"),
                "young nearing its end first, spent second, ending (run low) last: " + after);
        // the same pending jobs take the new factors at the next recalculation, at most a PriorityCalcPeriod away
        Map<String, Long> recalculated = awaitSiteFactors(lab, jobs, after, Duration.ofSeconds(90));
        long waited = Duration.ofNanos(System.nanoTime() - rewritten).toSeconds();
        System.out.println("site factors of the same jobs " + waited + " s after the file was rewritten (sprio): " + recalculated);
        assertEquals(List.of("young", "spent", "ending"), byPriority(lab, jobs), "Slurm's priorities after the recalculation");

        // the CPU frees: the jobs start in the new order
        lab.slurm("scancel", blocker);
        long freed = System.nanoTime();
        lab.awaitQuiet(Duration.ofSeconds(120));
        System.out.println("the three jobs ran " + seconds(freed) + " after the CPU was freed");
        Map<String, String> startTimes = new HashMap<>();
        for (String id : jobs.keySet()) {
            startTimes.put(id, lab.job(id).get("StartTime"));
        }
        List<String> started = new ArrayList<>(jobs.keySet());
        started.sort(Comparator.comparing(startTimes::get));
        assertEquals(List.of("young", "spent", "ending"), started.stream().map(jobs::get).toList(),
                "start order: " + startTimes + " " + jobs);
    }

    /** {@code project} uses {@code cores} cores for 100 minutes (a job on a cluster outside this Slurm). */
    private static void spend(Ledger ledger, long resId, String project, int cores, Instant at) {
        ledger.reserve(ReserveRequest.of(resId, "elsewhere-" + resId, project, "alice", 1, cores, 100, at));
        ledger.release(ReleaseRequest.of(resId, 6_000, at));
    }

    /** {@code alpsbridge ledger site-factor --slurm-file FILE --at WHEN}, as a site's timer runs it. */
    private static void siteFactor(SlurmLab lab, Path file, Instant at) {
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new LedgerCommand());
        cmd.setErr(new PrintWriter(err));
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

    /** The pending jobs' accounts, highest priority first, as squeue shows the priorities slurmctld schedules by. */
    private static List<String> byPriority(SlurmLab lab, Map<String, String> jobs) throws Exception {
        Map<String, Long> priority = new HashMap<>();
        for (String line : lab.slurm("squeue", "-h", "-t", "PD", "-o", "%i %Q").out().strip().split("\n")) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 2 && jobs.containsKey(f[0])) {
                priority.put(jobs.get(f[0]), Long.parseLong(f[1]));
            }
        }
        assertEquals(jobs.size(), priority.size(), "every job pending: " + priority);
        List<String> order = new ArrayList<>(priority.keySet());
        order.sort(Comparator.comparing(priority::get).reversed());
        System.out.println("priorities (squeue): " + priority);
        return order;
    }

    /** Waits until sprio shows each pending job's site factor as its account's in {@code expected}. */
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
            if (shown.equals(expected)) {
                return shown;
            }
            Thread.sleep(1_000);
        }
        throw new AssertionError("sprio's site factors " + shown + ", expected " + expected + "; "
                + lab.tail("slurmctld.log"));
    }
}
