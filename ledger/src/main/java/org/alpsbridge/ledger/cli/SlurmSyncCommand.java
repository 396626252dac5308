package org.alpsbridge.ledger.cli;

import java.util.List;
import java.util.Set;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.slurm.SlurmSync;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ledger slurm-sync}: slurmdbd's accounts and associations made to agree with the ledger. */
@Command(name = "slurm-sync", mixinStandardHelpOptions = true,
        description = {"Make Slurm's accounting database (slurmdbd) agree with the ledger, through sacctmgr:",
                "  - an account per project that is active and has an allocation not yet ended, described by its",
                "    share (ledger project share), with its GrpTRES cap (e.g. node=4,cpu=128,gres/gpu=8);",
                "  - a user association per member (its Unix group's members and its explicit ones), in each of",
                "    its partitions (or one for every partition when it names none); non-members' are deleted;",
                "  - with --qos workgroup (Caviness's model), a QOS per project, named as its account and marked",
                "    like it, holding its caps as the QOS's GrpTRES; its account's association gets QOS=, DefaultQOS=;",
                "  - a project whose allocations have all ended (or that is inactive): blocked (GrpSubmitJobs=0,",
                "    GrpJobs=0: Slurm refuses its new jobs) or its account deleted (--ended, slurm_ended=).",
                "It only touches accounts (and QOS) it made: their description ends with [ledger:PROJECT]. One of the",
                "same name that is not marked is left alone, named on stderr, unless --adopt says to take it over.",
                "It reads slurmdbd first (sacctmgr -nP show ...) and runs only the calls that change something, so a",
                "second run runs none. A project's changes are as few sacctmgr calls as sacctmgr allows (one per",
                "kind); when one fails, that project's earlier calls are undone and the others go on.",
                "Prints each call it runs (with --dry-run: would run) as a shell line, then a summary line."},
        footer = {"",
                "Settings (in the ledger's settings file; options override): slurm_cluster, slurm_ended (block),",
                "slurm_qos (none), slurm_parent (root), sacctmgr (sacctmgr). sacctmgr reads SLURM_CONF like every",
                "Slurm command.",
                "Run hourly by alpsbridge-ledger-slurm-sync.timer.",
                "",
                "Exit codes: 0 slurmdbd agrees with the ledger (dry run: the calls were printed); 1 a project's change",
                "failed and was undone (reason on stderr), or bad settings; 2 usage error; 3 slurmdbd did not answer",
                "or does not know the cluster, nothing changed; 4 done, but accounts named by projects belong to",
                "someone else and were left alone (named on stderr)."})
final class SlurmSyncCommand extends LedgerTask {

    @Option(names = "--cluster", paramLabel = "NAME", description = "The cluster in slurmdbd (default: slurm_cluster=).")
    String cluster;
    @Option(names = "--ended", paramLabel = "block|remove",
            description = "A project whose allocations have all ended: block its jobs, or remove its account (default: slurm_ended=, block).")
    String ended;
    @Option(names = "--parent", paramLabel = "ACCOUNT", description = "Parent of the accounts it makes (default: slurm_parent=, root).")
    String parent;
    @Option(names = "--sacctmgr", paramLabel = "PATH", description = "The sacctmgr program (default: sacctmgr= of the settings, sacctmgr).")
    String sacctmgr;
    @Option(names = "--adopt", paramLabel = "ACCOUNT", split = ",",
            description = "Take over this existing account (mark it as the ledger's) although the ledger did not make it.")
    List<String> adopt = List.of();
    @Option(names = "--adopt-all", description = "Take over every existing account a project names.")
    boolean adoptAll;
    @Option(names = "--qos", paramLabel = "none|workgroup",
            description = {"workgroup: each project gets a QOS of its own (named as its account) holding its caps as",
                    "GrpTRES, given to its account (QOS=, DefaultQOS=); none: caps on the account (default: slurm_qos=, none)."})
    String qos;
    @Option(names = "--dry-run", description = "Print the sacctmgr calls it would run; run none.")
    boolean dryRun;
    @Option(names = "--at", paramLabel = "TIME",
            description = "Judge which allocations have ended as of this time (2026-01-01 or an ISO instant; default: now).")
    String at;

    @Override
    int run(Ledger ledger) {
        LedgerSettings site = LedgerSettings.load(environment());
        SlurmSync.Options o = new SlurmSync.Options(or(cluster, site.value("slurm_cluster")),
                or(ended, site.value("slurm_ended")), or(parent, site.value("slurm_parent")),
                or(sacctmgr, site.value("sacctmgr")), Set.copyOf(adopt), adoptAll, dryRun,
                at == null ? null : time(at), or(qos, site.value("slurm_qos")));
        return SlurmSync.run(ledger, o, out(), err());
    }

    private static String or(String option, String setting) {
        return option != null && !option.isBlank() ? option : setting;
    }
}
