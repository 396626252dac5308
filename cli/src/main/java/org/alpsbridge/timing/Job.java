package org.alpsbridge.timing;

/**
 * One job of a replayed workload.
 *
 * @param id the Slurm job id, sent as the RESERVE batch_id
 * @param submitSecond when it enters the queue, in workload seconds
 * @param nodes whole nodes it asks for
 * @param wallSeconds how long it runs once started, in workload seconds
 * @param user the user name sent in RESERVE
 * @param account the account (project) the job charges
 */
public record Job(long id, long submitSecond, int nodes, long wallSeconds, String user, String account) {

    public Job {
        if (nodes < 1) {
            throw new IllegalArgumentException("job " + id + ": nodes must be at least 1, got " + nodes);
        }
        if (wallSeconds < 0 || submitSecond < 0) {
            throw new IllegalArgumentException("job " + id + ": times must not be negative");
        }
    }
}
