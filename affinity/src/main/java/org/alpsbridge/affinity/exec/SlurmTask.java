package org.alpsbridge.affinity.exec;

import java.util.Map;

/**
 * This task's place in its step, from the environment srun gives each task.
 *
 * <ul>
 *   <li>local id: {@code SLURM_LOCALID};</li>
 *   <li>tasks on this node: {@code SLURM_STEP_TASKS_PER_NODE} (the step's own count), else
 *       {@code SLURM_NTASKS_PER_NODE}, else {@code SLURM_TASKS_PER_NODE} (the job's); the list forms
 *       ({@code 2(x3),1}) are indexed by {@code SLURM_NODEID};</li>
 *   <li>cpus per task: {@code RAA_CPUS_PER_TASK}, else {@code SLURM_CPUS_PER_TASK}, else 1 (Slurm 22.05 stopped
 *       passing {@code SLURM_CPUS_PER_TASK} from the job to srun; 23.11 restored it: set it or
 *       {@code RAA_CPUS_PER_TASK} explicitly when in doubt).</li>
 * </ul>
 */
final class SlurmTask {

    final int localId;
    final int tasksOnNode;
    final int cpusPerTask;
    final String tasksFrom;

    private SlurmTask(int localId, int tasksOnNode, int cpusPerTask, String tasksFrom) {
        this.localId = localId;
        this.tasksOnNode = tasksOnNode;
        this.cpusPerTask = cpusPerTask;
        this.tasksFrom = tasksFrom;
    }

    /**
     * @param cpusPerTask a value from the command line, or 0 to read the environment
     * @throws IllegalArgumentException naming the missing or malformed variable
     */
    static SlurmTask from(Map<String, String> env, int cpusPerTask) {
        int localId = number(env, "SLURM_LOCALID", true, 0);
        String[] sources = {"SLURM_STEP_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE"};
        String from = null;
        int tasks = 0;
        for (String name : sources) {
            String v = env.get(name);
            if (v != null && !v.trim().isEmpty()) {
                from = name;
                tasks = perNode(name, v.trim(), number(env, "SLURM_NODEID", false, 0));
                break;
            }
        }
        if (from == null) {
            throw new IllegalArgumentException("none of SLURM_STEP_TASKS_PER_NODE, SLURM_NTASKS_PER_NODE,"
                    + " SLURM_TASKS_PER_NODE is set: run raa-exec as the task of srun");
        }
        if (localId >= tasks) {
            throw new IllegalArgumentException("SLURM_LOCALID " + localId + " is not below the " + tasks
                    + " tasks on this node (" + from + ")");
        }
        int cpt = cpusPerTask;
        if (cpt == 0) {
            String name = env.containsKey("RAA_CPUS_PER_TASK") ? "RAA_CPUS_PER_TASK" : "SLURM_CPUS_PER_TASK";
            cpt = number(env, name, false, 1);
        }
        if (cpt < 1) {
            throw new IllegalArgumentException("cpus per task must be at least 1 (got " + cpt + ")");
        }
        return new SlurmTask(localId, tasks, cpt, from);
    }

    /** Entry {@code node} of a Slurm per-node count list such as {@code 4}, {@code 2(x3),1}. */
    static int perNode(String name, String list, int node) {
        int index = 0;
        for (String item : list.split(",")) {
            String it = item.trim();
            int count = 1;
            int paren = it.indexOf("(x");
            if (paren >= 0) {
                if (!it.endsWith(")")) {
                    throw new IllegalArgumentException(name + "='" + list + "': '" + it + "' lacks its ')'");
                }
                count = parse(name, list, it.substring(paren + 2, it.length() - 1));
                it = it.substring(0, paren);
            }
            int value = parse(name, list, it);
            if (node < index + count) {
                return value;
            }
            index += count;
        }
        throw new IllegalArgumentException(name + "='" + list + "' has " + index + " nodes, SLURM_NODEID is " + node);
    }

    private static int number(Map<String, String> env, String name, boolean required, int otherwise) {
        String v = env.get(name);
        if (v == null || v.trim().isEmpty()) {
            if (required) {
                throw new IllegalArgumentException(name + " is not set: run raa-exec as the task of srun");
            }
            return otherwise;
        }
        return parse(name, v, v.trim());
    }

    private static int parse(String name, String whole, String digits) {
        try {
            int n = Integer.parseInt(digits);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + whole + "': '" + digits + "' is not a count");
        }
    }
}
