package org.alpsbridge.ledger.service.hook;

import java.util.Map;

/**
 * One run of a Slurm job as slurmctld describes it to {@code PrologSlurmctld} and {@code EpilogSlurmctld} in
 * their environment. A run is the job at one restart count: a requeued job runs again under the same id with
 * the count one higher, so the ledger's key is (cluster, job id, restart count + 1) and each run is held and
 * charged once, never twice.
 *
 * @param user the job's user name ({@code SLURM_JOB_USER}), else its uid
 * @param nodes the ledger's node count: {@code SLURM_JOB_NUM_NODES} when every node has the same CPU count
 * @param cpusPerNode CPUs per node; when the nodes differ ({@code 4(x2),2}) the job is billed as one node of
 *     all its CPUs, which costs the same under the ledger's per-core weights (memory is not in the record)
 * @param queueKey how squeue names the job while it waits: {@code ARRAYJOB_TASK} for a task of a job array
 *     (a waiting task has no job id of its own yet), else the job id
 */
record SlurmJob(String cluster, String jobId, int restart, String account, String user, String partition,
                int nodes, int cpusPerNode, String nodeList, String queueKey) {

    /**
     * The run slurmctld describes in {@code env}.
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    static SlurmJob fromEnvironment(Map<String, String> env) {
        String jobId = required(env, "SLURM_JOB_ID");
        if (!jobId.matches("[0-9]+")) {
            throw new IllegalArgumentException("SLURM_JOB_ID='" + jobId + "' is not a job id");
        }
        int restart = number(env, "SLURM_JOB_RESTART_COUNT", env.getOrDefault("SLURM_JOB_RESTART_COUNT", "0"));
        int numNodes = number(env, "SLURM_JOB_NUM_NODES", required(env, "SLURM_JOB_NUM_NODES"));
        String cpus = required(env, "SLURM_JOB_CPUS_PER_NODE");
        int[] shape = shape(cpus, numNodes);
        String user = env.get("SLURM_JOB_USER");
        String arrayJob = env.getOrDefault("SLURM_ARRAY_JOB_ID", "");
        String arrayTask = env.getOrDefault("SLURM_ARRAY_TASK_ID", "");
        return new SlurmJob(env.getOrDefault("SLURM_CLUSTER_NAME", ""), jobId, restart,
                required(env, "SLURM_JOB_ACCOUNT"), user == null || user.isBlank() ? required(env, "SLURM_JOB_UID") : user,
                required(env, "SLURM_JOB_PARTITION"), shape[0], shape[1], env.getOrDefault("SLURM_JOB_NODELIST", ""),
                arrayJob.matches("[0-9]+") && arrayTask.matches("[0-9]+") ? arrayJob + "_" + arrayTask : jobId);
    }

    /** A job that is no task of an array: its queue key is its id. */
    SlurmJob(String cluster, String jobId, int restart, String account, String user, String partition, int nodes,
             int cpusPerNode, String nodeList) {
        this(cluster, jobId, restart, account, user, partition, nodes, cpusPerNode, nodeList, jobId);
    }

    /** The ledger's reservation id of this run: restart count + 1 (0 is never a valid id). */
    long resId() {
        return restart + 1L;
    }

    /** {@code (nodes, cpus per node)} from Slurm's {@code 4(x2),2} and the node count. */
    static int[] shape(String cpusPerNode, int numNodes) {
        int total = 0;
        int counted = 0;
        Integer same = null;
        boolean uniform = true;
        for (String part : cpusPerNode.split(",")) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]+)(?:\\(x([0-9]+)\\))?").matcher(part.strip());
            if (!m.matches()) {
                throw new IllegalArgumentException("SLURM_JOB_CPUS_PER_NODE='" + cpusPerNode + "' is not N or N(xM),...");
            }
            int cpus = Integer.parseInt(m.group(1));
            int times = m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
            total = Math.addExact(total, Math.multiplyExact(cpus, times));
            counted += times;
            uniform &= same == null || same == cpus;
            same = cpus;
        }
        if (counted != numNodes) {
            throw new IllegalArgumentException("SLURM_JOB_CPUS_PER_NODE='" + cpusPerNode + "' describes " + counted
                    + " nodes but SLURM_JOB_NUM_NODES=" + numNodes);
        }
        if (total < 1) {
            throw new IllegalArgumentException("SLURM_JOB_CPUS_PER_NODE='" + cpusPerNode + "' holds no CPU");
        }
        return uniform ? new int[] {numNodes, same} : new int[] {1, total};
    }

    private static String required(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " is not set: run this as slurmctld's PrologSlurmctld or"
                    + " EpilogSlurmctld (slurmctld sets it)");
        }
        return v.strip();
    }

    private static int number(Map<String, String> env, String name, String value) {
        try {
            int n = Integer.parseInt(value.strip());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + value + "' is not a count");
        }
    }
}
