package org.alpsbridge.ledger.slurm;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one project should be in Slurm, made from the ledger: its account, whether it may run jobs now, and (when it
 * may) its description, organisation, cap and members' associations.
 *
 * @param project the ledger's project name
 * @param account the Slurm account (the project's account, else its name; lower case, as slurmdbd keeps it)
 * @param live the project is active and one of its allocations has not ended
 * @param partitions the partitions its members may use (empty: all, one association without a partition)
 * @param caps its {@code GrpTRES}, by resource
 * @param members the users to associate: its Unix group's and its explicit members
 */
record Target(String project, String account, boolean live, String description, String organization,
              List<String> partitions, Map<String, Long> caps, Set<String> members) {

    Target {
        partitions = List.copyOf(partitions);
        caps = Map.copyOf(caps);
        members = Set.copyOf(members);
    }

    /** The description slurmdbd is given: the project's own, then the mark that says the ledger made the account. */
    String markedDescription() {
        return (description.isEmpty() ? "" : description + " ") + Ownership.mark(project);
    }
}
