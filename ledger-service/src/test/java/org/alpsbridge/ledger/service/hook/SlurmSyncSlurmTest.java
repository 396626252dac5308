package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.ProjectShare;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.slurm.harness.LocalAccounts;
import org.alpsbridge.slurm.harness.MariaDb;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.SlurmDbd;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code alpsbridge ledger slurm-sync} against a real slurmdbd on a real MariaDB, and a real slurmctld enforcing
 * associations and limits ({@code AccountingStorageEnforce=associations,limits}): Slurm itself accepts, holds back
 * and refuses the jobs of unprivileged users this test makes ({@link LocalAccounts}: prefix {@code absync-}, removed
 * at the end) as the ledger says. A {@code sacctmgr} wrapper logs every call, so "nothing changed" is what slurmdbd
 * was asked, not what the sync says of itself. Two nodes ({@link SlurmLab#startNodes}), so that a project's node cap holds its second
 * whole-node job while another project's job runs on the other node.
 */
class SlurmSyncSlurmTest {

    private static final List<String> GROUPS = List.of("absync-chem", "absync-phys", "absync-old");
    /** user → its supplementary groups. */
    private static final Map<String, List<String>> USERS = Map.of("absync-ann", List.of("absync-chem"),
            "absync-bob", List.of("absync-phys"), "absync-cid", List.of("absync-chem", "absync-old"));

    @Test
    void slurmAcceptsCapsAndRefusesJobsAsTheLedgerSays() throws Exception {
        long began = System.nanoTime();
        // two nodes of two CPUs: a node cap bites only where the project's next job needs another node
        try (SlurmLab lab = SlurmLab.startNodes(2, 2)) {
            List<AutoCloseable> toClose = new ArrayList<>();
            try {
                MariaDb db = MariaDb.start(lab.dir.resolve("mariadb"));
                toClose.add(0, db);
                SlurmDbd dbd = SlurmDbd.start(lab.cluster(), db);
                toClose.add(0, dbd);
                lab.appendSlurmConf("AccountingStorageEnforce=associations,limits");
                lab.restartSlurmctld();
                System.out.println("slurmdbd and an enforcing slurmctld up after " + seconds(began));
                // the lab admits its job user to slurm.conf and munged's socket, and these users with it
                LocalAccounts users = LocalAccounts.create(GROUPS, USERS);
                toClose.add(users);
                scenario(lab, dbd, users);
            } finally {
                lab.cluster().stopController();
                for (AutoCloseable a : toClose) {
                    a.close();
                }
            }
        }
        System.out.println("SlurmSyncSlurmTest: " + seconds(began) + " in all");
    }

    private static void scenario(SlurmLab lab, SlurmDbd dbd, LocalAccounts users) throws Exception {
        Path calls = lab.dir.resolve("sacctmgr-calls");
        Path wrapper = lab.dir.resolve("sacctmgr");
        Files.writeString(wrapper, String.join("\n", "#!/bin/sh", "echo \"$*\" >> " + calls,
                "export SLURM_CONF=" + lab.dir.resolve("slurm.conf"),
                "exec " + lab.installation().program("sacctmgr") + " \"$@\"", ""));
        wrapper.toFile().setExecutable(true);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        try (Ledger ledger = Ledger.open(lab.db)) {
            ledger.addProject("chem", users.gid("absync-chem"), null);
            ledger.addProject("phys", users.gid("absync-phys"), null);
            ledger.addProject("old", users.gid("absync-old"), null);
            ledger.grant("chem", Resource.CPU, 100_000, now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(30)), "research", null);
            ledger.grant("phys", Resource.CPU, 100_000, now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(30)), "research", null);
            ledger.grant("old", Resource.CPU, 100_000, now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(1)), "research", null);
            ledger.setShare(new ProjectShare("chem", "Chemistry", "uni", List.of(), Map.of(), List.of(), ""), "test");
        }
        // before: Slurm does not know the project
        Programs.Result refused = submit(lab, "absync-ann", "chem", "true");
        assertNotEquals(0, refused.exit(), "a job of a project slurmdbd does not know yet: " + refused.out());
        System.out.println("before the sync: " + refused.err().strip());

        // a dry run prints the calls and runs none of them
        String[] dry = sync(lab, wrapper, 0, "--dry-run");
        assertTrue(dry[0].contains("sacctmgr -i add account chem cluster=lab 'description=Chemistry [ledger:chem]'"), dry[0]);
        assertTrue(dry[0].contains("add user name=absync-ann,absync-cid account=chem cluster=lab"), dry[0]);
        assertEquals(List.of(), changes(calls), "a dry run asks slurmdbd no change");
        assertNotEquals(0, submit(lab, "absync-ann", "chem", "true").exit(), "still refused after the dry run");

        // one sync: the member's job is accepted and runs; the second sync runs nothing
        long t = System.nanoTime();
        String[] first = sync(lab, wrapper, 0);
        System.out.println("first sync (" + seconds(t) + "):\n" + first[0]);
        String ran = jobId(submit(lab, "absync-ann", "chem", "true"));
        lab.awaitState(ran, "COMPLETED", Duration.ofSeconds(60));
        int before = changes(calls).size();
        String[] second = sync(lab, wrapper, 0);
        assertTrue(second[0].contains("# 0 sacctmgr call(s) for 0 project(s)"), second[0]);
        assertEquals(before, changes(calls).size(), "the second sync asks slurmdbd no change");

        // the node cap: chem holds one node at a time, phys runs on the other. Each job takes a whole node
        // (--exclusive): chem's second job would fit on the free node and waits at its cap, not for resources
        long nodeCap = System.nanoTime();
        try (Ledger ledger = Ledger.open(lab.db)) {
            ledger.setShare(new ProjectShare("chem", "Chemistry", "uni", List.of(), Map.of("node", 1L), List.of(), ""), "test");
        }
        sync(lab, wrapper, 0);
        assertEquals(Map.of("node", 1L), ProjectShare.parseCaps(assoc(lab, "chem", "", "grptres")));
        String n1 = jobId(submit(lab, "absync-ann", "chem", "sleep 300", "--exclusive"));
        lab.awaitState(n1, "RUNNING", Duration.ofSeconds(60));
        String n2 = jobId(submit(lab, "absync-ann", "chem", "sleep 300", "--exclusive"));
        awaitReason(lab, n2, "AssocGrpNodeLimit");
        String np = jobId(submit(lab, "absync-bob", "phys", "sleep 300", "--exclusive"));
        lab.awaitState(np, "RUNNING", Duration.ofSeconds(60));
        assertEquals(java.util.Set.copyOf(lab.nodes), java.util.Set.of(lab.job(n1).get("NodeList"), lab.job(np).get("NodeList")),
                "chem's first job and phys's each on a node of their own");
        assertEquals(List.of("PENDING", "AssocGrpNodeLimit"), List.of(lab.job(n2).get("JobState"), lab.job(n2).get("Reason")),
                "chem's second job waits at its node cap");
        System.out.println("node cap: " + lab.slurm("squeue", "-h", "-o", "%i %a %T %r %N").out().strip().replace('\n', ';'));
        lab.slurm("scancel", n1, n2, np);
        lab.awaitQuiet(Duration.ofSeconds(60));
        System.out.println("node cap shown in " + seconds(nodeCap));

        // the CPU cap: chem runs one CPU at a time, phys runs beside it on the CPUs left (the node cap stays: chem's
        // jobs of one CPU share a node, which Slurm counts once)
        try (Ledger ledger = Ledger.open(lab.db)) {
            ledger.setShare(new ProjectShare("chem", "Chemistry", "uni", List.of(), Map.of("node", 1L, "cpu", 1L),
                    List.of(), ""), "test");
        }
        sync(lab, wrapper, 0);
        assertEquals(Map.of("cpu", 1L, "node", 1L), ProjectShare.parseCaps(assoc(lab, "chem", "", "grptres")));
        String c1 = jobId(submit(lab, "absync-ann", "chem", "sleep 300"));
        lab.awaitState(c1, "RUNNING", Duration.ofSeconds(60));
        String c2 = jobId(submit(lab, "absync-ann", "chem", "sleep 300"));
        String p1 = jobId(submit(lab, "absync-bob", "phys", "sleep 300"));
        lab.awaitState(p1, "RUNNING", Duration.ofSeconds(60));
        awaitReason(lab, c2, "AssocGrpCpuLimit");
        assertEquals("PENDING", lab.job(c2).get("JobState"), "chem's second job waits at its cap with CPUs free");
        assertEquals("RUNNING", lab.job(p1).get("JobState"), "phys runs beside it");
        lab.slurm("scancel", c1, c2, p1);
        lab.awaitQuiet(Duration.ofSeconds(60));

        // Caviness's model: chem's caps move to a QOS of its own, marked as the ledger's, that its account is given
        String[] qos = sync(lab, wrapper, 0, "--qos", "workgroup");
        assertTrue(qos[0].contains("sacctmgr -i add qos chem 'description=Chemistry [ledger:chem]' GrpTRES=cpu=1,node=1"),
                qos[0]);
        String[] chemQos = lab.slurm("sacctmgr", "-nP", "show", "qos", "where", "name=chem",
                "format=name,description,grptres").out().strip().split("\\|", -1);
        // (slurmdbd lower-cases a QOS's description: the mark is read case-blind)
        assertEquals(List.of("chem", "chemistry [ledger:chem]"), List.of(chemQos[0], chemQos[1].toLowerCase(java.util.Locale.ROOT)));
        assertEquals(Map.of("cpu", 1L, "node", 1L), ProjectShare.parseCaps(chemQos[2]));
        assertEquals("", assoc(lab, "chem", "", "grptres"), "the account caps nothing itself");
        assertEquals("chem", assoc(lab, "chem", "", "qos"));
        before = changes(calls).size();
        String[] qosAgain = sync(lab, wrapper, 0, "--qos", "workgroup");
        assertTrue(qosAgain[0].contains("# 0 sacctmgr call(s) for 0 project(s)"), qosAgain[0]);
        assertEquals(before, changes(calls).size(), "the second sync with the workgroup QOS asks slurmdbd no change");
        String q1 = jobId(submit(lab, "absync-ann", "chem", "sleep 300"));
        lab.awaitState(q1, "RUNNING", Duration.ofSeconds(60));
        String q2 = jobId(submit(lab, "absync-ann", "chem", "sleep 300"));
        String qp = jobId(submit(lab, "absync-bob", "phys", "sleep 300"));
        lab.awaitState(qp, "RUNNING", Duration.ofSeconds(60));
        awaitReason(lab, q2, "QOSGrpCpuLimit");
        assertEquals("QOSGrpCpuLimit|chem", lab.slurm("squeue", "-h", "-j", q2, "-o", "%r|%q").out().strip(),
                "squeue shows chem's second job held by its workgroup QOS's cap");
        assertEquals("RUNNING", lab.job(qp).get("JobState"), "phys runs beside it");
        lab.slurm("scancel", q1, q2, qp);
        lab.awaitQuiet(Duration.ofSeconds(60));

        // a member removed from the group loses the association: Slurm refuses the job
        // (chem is cid's default account, the first one added: 26.05's slurmdbd refuses to delete its association
        // while cid keeps old's, so the sync first moves cid's default to old)
        assertEquals("chem", assoc(lab, "chem", "absync-cid", "account"));
        assertEquals("chem", defaultAccount(lab, "absync-cid"));
        users.leave("absync-cid", "absync-chem");
        String[] left = sync(lab, wrapper, 0);
        assertTrue(left[0].contains("sacctmgr -i modify user where name=absync-cid cluster=lab set defaultaccount=old"),
                left[0]);
        assertEquals("", assoc(lab, "chem", "absync-cid", "account"));
        assertEquals("old", defaultAccount(lab, "absync-cid"));
        assertNotEquals(0, submit(lab, "absync-cid", "chem", "true").exit(), "no longer a member");
        assertEquals(0, submit(lab, "absync-ann", "chem", "true").exit(), "a member still is");

        // old's allocation ends (judged two days on): blocked, Slurm itself refuses its new jobs
        assertEquals(0, submit(lab, "absync-cid", "old", "true").exit(), "old runs while its allocation lasts");
        lab.awaitQuiet(Duration.ofSeconds(60));
        String[] ended = sync(lab, wrapper, 0, "--at", now.plus(Duration.ofDays(2)).toString());
        assertTrue(ended[0].contains("modify account where name=old cluster=lab set GrpJobs=0 GrpSubmitJobs=0"), ended[0]);
        Programs.Result blocked = submit(lab, "absync-cid", "old", "true");
        assertNotEquals(0, blocked.exit(), "an ended project's job: " + blocked.out());
        System.out.println("ended project, blocked: " + blocked.err().strip());
        // and with ended=remove, its account goes
        sync(lab, wrapper, 0, "--at", now.plus(Duration.ofDays(2)).toString(), "--ended", "remove");
        assertEquals("", assoc(lab, "old", "", "account"));
        Programs.Result removed = submit(lab, "absync-cid", "old", "true");
        assertNotEquals(0, removed.exit());
        System.out.println("ended project, removed: " + removed.err().strip());

        // slurmdbd down: a clear refusal, exit 3, and no change asked of anyone
        try (Ledger ledger = Ledger.open(lab.db)) {
            ledger.setShare(new ProjectShare("phys", "", "", List.of(), Map.of("cpu", 2L), List.of("absync-ann"), ""), "test");
        }
        int asked = changes(calls).size();
        dbd.close();
        String[] down = sync(lab, wrapper, 3);
        assertTrue(down[1].contains("slurmdbd does not answer sacctmgr") && down[1].contains("nothing was changed"), down[1]);
        assertEquals(asked, changes(calls).size(), "no change asked with slurmdbd down");
    }

    /** {@code alpsbridge ledger slurm-sync} as the timer runs it; stdout and stderr, after checking the exit code. */
    static String[] sync(SlurmLab lab, Path sacctmgr, int expected, String... more) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new LedgerCommand());
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        List<String> args = new ArrayList<>(List.of("slurm-sync", "--db", lab.db, "--cluster", "lab", "--sacctmgr",
                sacctmgr.toString()));
        args.addAll(List.of(more));
        int code = cmd.execute(args.toArray(String[]::new));
        assertEquals(expected, code, "slurm-sync " + String.join(" ", more) + ": " + out + err);
        return new String[] {out.toString(), err.toString()};
    }

    /** The sacctmgr calls that change something ({@code -i}) made so far. */
    private static List<String> changes(Path calls) throws Exception {
        return Files.exists(calls) ? Files.readAllLines(calls).stream().filter(l -> l.startsWith("-i ")).toList() : List.of();
    }

    /** One field of an association as slurmdbd lists it ("" when there is none). */
    private static String assoc(SlurmLab lab, String account, String user, String field) throws Exception {
        Programs.Result r = lab.slurm("sacctmgr", "-nP", "show", "association", "where", "cluster=lab",
                "account=" + account, "format=user," + field);
        for (String line : r.out().split("\n")) {
            String[] f = line.split("\\|", -1);
            if (f.length == 2 && f[0].equals(user)) {
                return f[1];
            }
        }
        return "";
    }

    /** sbatch as an unprivileged user, one task, with more {@code options}. */
    private static Programs.Result submit(SlurmLab lab, String user, String account, String command, String... options)
            throws Exception {
        List<String> argv = new ArrayList<>(List.of("runuser", "-u", user, "--", "env", "SLURM_CONF=" + lab.dir.resolve("slurm.conf"),
                lab.installation().program("sbatch").toString(), "--parsable", "-A", account, "-n", "1", "-t", "10",
                "-D", "/tmp", "-o", "/dev/null"));
        argv.addAll(List.of(options));
        argv.addAll(List.of("--wrap", command));
        return Programs.run(argv, Map.of(), Duration.ofSeconds(60));
    }

    private static String jobId(Programs.Result r) {
        assertEquals(0, r.exit(), "sbatch: " + r.err());
        return r.out().strip().split(";")[0];
    }

    /** The user's default account on the lab's cluster. */
    private static String defaultAccount(SlurmLab lab, String user) throws Exception {
        return lab.slurm("sacctmgr", "-nP", "show", "user", "withassoc", "where", "name=" + user, "cluster=lab",
                "format=defaultaccount").out().strip().lines().findFirst().orElse("");
    }

    private static void awaitReason(SlurmLab lab, String job, String reason) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String now = "";
        while (System.nanoTime() < deadline) {
            now = lab.job(job).getOrDefault("Reason", "");
            if (now.equals(reason)) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("job " + job + " waits for " + now + ", not " + reason);
    }

    private static String seconds(long since) {
        return Duration.ofNanos(System.nanoTime() - since).toSeconds() + " s";
    }
}
