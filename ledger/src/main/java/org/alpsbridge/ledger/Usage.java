package org.alpsbridge.ledger;

/** Charges and holds of one user within one project and resource. */
public record Usage(String project, Resource resource, String owner, long jobs, long held, long charged) {
}
