package org.alpsbridge.ledger.cli;

import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.slurm.WorkgroupPartitions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ledger slurm-partitions}: Caviness-style workgroup partitions for slurm.conf, from the nodes projects bought. */
@Command(name = "slurm-partitions", mixinStandardHelpOptions = true,
        description = {"Print a slurm.conf partition line per project that bought nodes (Caviness's workgroup",
                "partitions): its nodes, only its own account allowed, and with --qos workgroup its QOS:",
                "  PartitionName=chem Nodes=r00n[00-17],r01g[00-03] AllowAccounts=chem QOS=chem Default=NO",
                "The nodes a project bought are its share's (ledger project share NAME --nodes r00n[00-17]);",
                "a project that bought none gets no line, one that has ended (no allocation left, or inactive)",
                "gets a comment instead. The QOS is the one slurm-sync --qos workgroup keeps: run slurm-sync first",
                "(a partition naming a QOS slurmdbd does not know is refused by slurmctld).",
                "The output changes only when the ledger does: write it to a file slurm.conf includes",
                "(Include /etc/slurm/workgroups.conf), and run scontrol reconfigure when it differs."},
        footer = {"",
                "Settings (in the ledger's settings file; options override): slurm_qos (none),",
                "slurm_partition_options (Default=NO).",
                "",
                "Exit codes: 0 the lines were printed; 1 the ledger could not be read or bad settings; 2 usage error."})
final class SlurmPartitionsCommand extends LedgerTask {

    @Option(names = "--qos", paramLabel = "none|workgroup",
            description = "workgroup: each partition's QOS= is its project's workgroup QOS (default: slurm_qos=, none).")
    String qos;
    @Option(names = "--options", paramLabel = "TEXT",
            description = "What every line ends with (default: slurm_partition_options=, Default=NO).")
    String options;
    @Option(names = "--at", paramLabel = "TIME",
            description = "Judge which projects have ended as of this time (2026-01-01 or an ISO instant; default: now).")
    String at;

    @Override
    int run(Ledger ledger) {
        LedgerSettings site = LedgerSettings.load(environment());
        String q = qos != null ? qos : site.value("slurm_qos");
        if (!q.equals("none") && !q.equals("workgroup")) {
            throw new LedgerException("--qos " + q + ": expected none or workgroup");
        }
        return WorkgroupPartitions.run(ledger, q.equals("workgroup"),
                options != null ? options : site.value("slurm_partition_options"), time(at), out());
    }
}
