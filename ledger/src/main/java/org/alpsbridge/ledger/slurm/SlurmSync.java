package org.alpsbridge.ledger.slurm;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.settings.Setting;

/**
 * {@code alpsbridge ledger slurm-sync}: makes slurmdbd agree with the ledger through {@code sacctmgr}. Reads
 * slurmdbd's state first (refusing, with nothing changed, when slurmdbd does not answer), plans the calls of each
 * project ({@link Plan}), then runs them project by project; a project whose call fails has its earlier calls
 * undone, and the others go on.
 */
public final class SlurmSync {

    /** Exit codes: in agreement (or would be, dry run). */
    public static final int OK = 0;
    /** A project's change failed (undone; the reason on stderr), or the ledger could not be read. */
    public static final int FAILED = 1;
    /** slurmdbd did not answer or does not know the cluster: nothing was changed. */
    public static final int UNREACHABLE = 3;
    /** Done, but accounts the ledger wanted are someone else's and were left alone (named on stderr). */
    public static final int LEFT_ALONE = 4;

    /** The settings file's keys of the sync (in {@code /etc/alpsbridge/ledger.conf}); options override them. */
    public static final List<Setting> SETTINGS = List.of(
            Setting.text("slurm_cluster", "", "slurm-sync: the cluster whose associations it keeps (as slurmdbd"
                    + " knows it, sacctmgr show cluster); empty = --cluster must say"),
            Setting.choice("slurm_ended", "block", "slurm-sync: a project whose allocations have all ended (or that is"
                    + " inactive): block = keep its associations with GrpSubmitJobs=0 and GrpJobs=0 (Slurm refuses its"
                    + " new jobs, its usage stays in sacct/sreport under it), remove = delete its account on the"
                    + " cluster", "block", "remove"),
            Setting.choice("slurm_qos", "none", "slurm-sync: none = a project's caps are its account's GrpTRES;"
                    + " workgroup = Caviness's model: each project gets a QOS named as its account, holding its caps as"
                    + " the QOS's GrpTRES, and its account's association is given that QOS (QOS= and DefaultQOS=)",
                    "none", "workgroup"),
            Setting.text("slurm_parent", "root", "slurm-sync: the parent account of the accounts it makes"),
            Setting.text("sacctmgr", "sacctmgr", "slurm-sync: the sacctmgr program (found on PATH unless a path)"));

    /**
     * What to do.
     *
     * @param cluster the cluster's name in slurmdbd
     * @param ended {@code block} or {@code remove}
     * @param parent parent account of new accounts
     * @param sacctmgr the program
     * @param adopt accounts the ledger may take over although it did not make them (their description gets the mark)
     * @param adoptAll take over every account named by a project
     * @param dryRun print the calls, run none
     * @param at the time at which allocations are judged ended (null: now)
     * @param qos {@code none} or {@code workgroup} (a QOS per project holding its caps)
     */
    public record Options(String cluster, String ended, String parent, String sacctmgr, Set<String> adopt,
                          boolean adoptAll, boolean dryRun, Instant at, String qos) {
        public Options {
            adopt = Set.copyOf(adopt);
        }

        /** Without a workgroup QOS. */
        public Options(String cluster, String ended, String parent, String sacctmgr, Set<String> adopt,
                       boolean adoptAll, boolean dryRun, Instant at) {
            this(cluster, ended, parent, sacctmgr, adopt, adoptAll, dryRun, at, "none");
        }
    }

    private SlurmSync() {
    }

    /** Runs the sync on the system's Unix groups and sacctmgr; the exit code. */
    public static int run(Ledger ledger, Options o, PrintWriter out, PrintWriter err) {
        return run(ledger, o, UnixGroups.system(), new Sacctmgr(o.sacctmgr(), Duration.ofSeconds(120)),
                o.at() == null ? Instant.now() : o.at(), out, err);
    }

    static int run(Ledger ledger, Options o, UnixGroups groups, Sacctmgr sacctmgr, Instant now, PrintWriter out,
                   PrintWriter err) {
        if (o.cluster() == null || o.cluster().isBlank()) {
            err.println("ledger slurm-sync: no cluster: give --cluster NAME or set slurm_cluster= in the settings file");
            return FAILED;
        }
        Plan.Ended ended;
        try {
            ended = Plan.Ended.valueOf(o.ended().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            err.println("ledger slurm-sync: --ended " + o.ended() + ": expected block or remove");
            return FAILED;
        }
        if (!o.qos().equals("none") && !o.qos().equals("workgroup")) {
            err.println("ledger slurm-sync: --qos " + o.qos() + ": expected none or workgroup");
            return FAILED;
        }
        long began = System.nanoTime();
        Plan.Result plan;
        try {
            sacctmgr.reachable(o.cluster());
            SlurmState state = sacctmgr.state(o.cluster());
            List<Target> targets = Targets.of(ledger, groups, now);
            plan = Plan.of(targets, state, new Plan.Policy(o.cluster().toLowerCase(Locale.ROOT), ended, o.parent(),
                    o.adopt(), o.adoptAll(), o.qos().equals("workgroup")));
        } catch (Sacctmgr.Unreachable e) {
            err.println("ledger slurm-sync: " + e.getMessage());
            return UNREACHABLE;
        }
        plan.leftAlone().forEach(l -> err.println("ledger slurm-sync: " + l));
        int failed = 0;
        for (Plan.Step s : plan.steps()) {
            out.println("# project " + s.project() + " (account " + s.account() + ")");
            if (o.dryRun()) {
                s.forward().forEach(c -> out.println(c.shell()));
            } else if (!apply(s, sacctmgr, out, err)) {
                failed++;
            }
        }
        out.printf("# %s%d sacctmgr call(s) for %d project(s)%s, in %d ms%n", o.dryRun() ? "dry run: " : "",
                plan.commands(), plan.steps().size(), failed == 0 ? "" : ", " + failed + " failed and undone",
                Duration.ofNanos(System.nanoTime() - began).toMillis());
        out.flush();
        return failed > 0 ? FAILED : plan.leftAlone().isEmpty() ? OK : LEFT_ALONE;
    }

    /** Runs one project's calls; on a failure undoes the ones that succeeded, latest first. */
    private static boolean apply(Plan.Step s, Sacctmgr sacctmgr, PrintWriter out, PrintWriter err) {
        for (int i = 0; i < s.forward().size(); i++) {
            Command c = s.forward().get(i);
            out.println(c.shell());
            Sacctmgr.Result r = sacctmgr.apply(c);
            if (r.exit() != 0) {
                err.println("ledger slurm-sync: project " + s.project() + ": `" + c.shell() + "` failed (exit " + r.exit()
                        + "): " + r.said() + (i == 0 ? "" : "; undoing its " + i + " earlier call(s)"));
                for (int j = i - 1; j >= 0; j--) {
                    for (Command u : s.undo().get(j)) {
                        Sacctmgr.Result ur = sacctmgr.apply(u);
                        if (ur.exit() != 0) {
                            err.println("ledger slurm-sync: project " + s.project() + ": could not undo with `"
                                    + u.shell() + "` (exit " + ur.exit() + "): " + ur.said() + "; run it by hand");
                        }
                    }
                }
                return false;
            }
        }
        return true;
    }
}
