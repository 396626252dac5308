package org.alpsbridge.ledger.slurm;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.ProjectShare;
import org.alpsbridge.settings.Setting;

/**
 * {@code alpsbridge ledger slurm-partitions}: Caviness's workgroup partitions as {@code slurm.conf} lines, one per
 * project that may run jobs and bought nodes (its share's {@code nodes}): the project's nodes, only its account
 * allowed, and with the workgroup QOS its QOS. A pure function of the ledger, so that a site can diff the output
 * against its slurm.conf include file and reconfigure only when it changed.
 */
public final class WorkgroupPartitions {

    /** The settings file's key of the partitions' further options; {@code --options} overrides it. */
    public static final List<Setting> SETTINGS = List.of(
            Setting.text("slurm_partition_options", "Default=NO", "slurm-partitions: what every workgroup partition"
                    + " line ends with (slurm.conf partition options, e.g. Default=NO PriorityTier=10 MaxTime=7-00:00:00)"));

    private WorkgroupPartitions() {
    }

    /**
     * Prints the lines (and a comment per project left out: ended, or no nodes bought); exit 0.
     *
     * @param qos give each partition the project's workgroup QOS ({@code QOS=}, as slurm-sync's {@code --qos workgroup})
     * @param options appended to every line
     * @param now the time at which allocations are judged ended
     */
    public static int run(Ledger ledger, boolean qos, String options, Instant now, PrintWriter out) {
        Map<String, String> nodes = new HashMap<>();
        ledger.shares(null).forEach(s -> nodes.put(s.project(), s.nodes()));
        lines(Targets.of(ledger, gid -> Set.of(), now), nodes, qos, options).forEach(out::println);
        out.flush();
        return 0;
    }

    /** The lines for the targets (in their order), given each project's nodes ({@link ProjectShare#nodes()}). */
    static List<String> lines(List<Target> targets, Map<String, String> nodes, boolean qos, String options) {
        List<String> out = new ArrayList<>();
        int partitions = 0;
        for (Target t : targets) {
            String bought = nodes.getOrDefault(t.project(), "");
            if (!t.live()) {
                if (!bought.isEmpty()) {
                    out.add("# " + t.project() + ": no partition, the project has ended or is inactive (nodes " + bought + ")");
                }
                continue;
            }
            if (bought.isEmpty()) {
                continue; // a project that bought no nodes runs in the shared partitions only
            }
            StringBuilder line = new StringBuilder("PartitionName=" + t.project() + " Nodes=" + bought
                    + " AllowAccounts=" + t.account());
            if (qos) {
                line.append(" QOS=").append(t.account());
            }
            if (options != null && !options.isBlank()) {
                line.append(' ').append(options.strip());
            }
            out.add(line.toString());
            partitions++;
        }
        out.add(0, "# workgroup partitions from the ledger (alpsbridge ledger slurm-partitions): " + partitions);
        return out;
    }
}
