package org.alpsbridge.ledger;

/**
 * Charges and holds of one user within one project and resource, from one cluster, on one allocation:
 * reports add these up (a project's balance is one number across clusters; {@code --by-cluster} splits it).
 *
 * @param cluster the cluster the reservations came from (reservation keys start with it)
 * @param allocation the allocation they were charged to
 */
public record Usage(String project, Resource resource, String owner, long jobs, long held, long charged,
                    String cluster, long allocation) {
}
