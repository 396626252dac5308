package org.alpsbridge.basil.geometry;

/**
 * The parts of a Slurm job request that decide its ALPS geometry. {@code null} means "not given", as Slurm's
 * NO_VAL does; counts are positive when given.
 *
 * @param ntasks {@code --ntasks}
 * @param ntasksPerNode {@code --ntasks-per-node}
 * @param cpusPerTask {@code --cpus-per-task}
 * @param ntasksPerCore {@code --ntasks-per-core}
 * @param minNodes {@code --nodes} (the minimum node count)
 * @param memPerNodeMb {@code --mem}, MB per node
 * @param memPerCpuMb {@code --mem-per-cpu}, MB per CPU
 */
public record JobRequest(Long ntasks, Long ntasksPerNode, Long cpusPerTask, Integer ntasksPerCore, Long minNodes,
                         Long memPerNodeMb, Long memPerCpuMb) {

    public JobRequest {
        positive("ntasks", ntasks);
        positive("ntasks-per-node", ntasksPerNode);
        positive("cpus-per-task", cpusPerTask);
        positive("ntasks-per-core", ntasksPerCore == null ? null : ntasksPerCore.longValue());
        positive("nodes", minNodes);
        positive("mem", memPerNodeMb);
        positive("mem-per-cpu", memPerCpuMb);
        if (memPerNodeMb != null && memPerCpuMb != null) {
            throw new IllegalArgumentException("--mem and --mem-per-cpu are mutually exclusive (as in Slurm)");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code --cpus-per-task}, 1 when not given. */
    long cpusPerTaskOrOne() {
        return cpusPerTask == null ? 1 : cpusPerTask;
    }

    private static void positive(String option, Long value) {
        if (value != null && value < 1) {
            throw new IllegalArgumentException("--" + option + " must be at least 1, not " + value);
        }
    }

    /** Builds a request option by option, as a command line would. */
    public static final class Builder {
        private Long ntasks;
        private Long ntasksPerNode;
        private Long cpusPerTask;
        private Integer ntasksPerCore;
        private Long minNodes;
        private Long memPerNodeMb;
        private Long memPerCpuMb;

        public Builder ntasks(long v) {
            ntasks = v;
            return this;
        }

        public Builder ntasksPerNode(long v) {
            ntasksPerNode = v;
            return this;
        }

        public Builder cpusPerTask(long v) {
            cpusPerTask = v;
            return this;
        }

        public Builder ntasksPerCore(int v) {
            ntasksPerCore = v;
            return this;
        }

        public Builder nodes(long v) {
            minNodes = v;
            return this;
        }

        public Builder memPerNodeMb(long v) {
            memPerNodeMb = v;
            return this;
        }

        public Builder memPerCpuMb(long v) {
            memPerCpuMb = v;
            return this;
        }

        public JobRequest build() {
            return new JobRequest(ntasks, ntasksPerNode, cpusPerTask, ntasksPerCore, minNodes, memPerNodeMb, memPerCpuMb);
        }
    }
}
