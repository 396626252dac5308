package org.alpsbridge.ledger;

/**
 * A project (HADM's workgroup): the holder of allocations.
 *
 * @param name workgroup name, unique
 * @param gid Unix group id, unique
 * @param account Slurm account charged for it (the BASIL RESERVE {@code account}), unique, or null
 * @param active inactive projects get every RESERVE denied
 */
public record Project(long id, String name, int gid, String account, boolean active) {
}
