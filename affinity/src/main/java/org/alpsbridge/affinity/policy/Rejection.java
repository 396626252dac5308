package org.alpsbridge.affinity.policy;

/**
 * The request cannot be placed under the policy's rules. The message is one line naming the violated rule
 * with its numbers, e.g. "cpus-per-task 9 exceeds the 8 cores of a socket"; {@link #rule()} is the rule as a
 * stable code for programs.
 */
public final class Rejection extends Exception {

    /** The rules a placement can violate. */
    public enum Rule {
        /** ntasks or cpus-per-task (or another knob) below its minimum. */
        BAD_REQUEST,
        /** The allowed CPU set holds no CPU of this node. */
        NO_ALLOWED_CPUS,
        /** One task needs more cores than one socket has (or than one block of adjacent allowed cores). */
        TASK_EXCEEDS_SOCKET,
        /** Not all tasks fit side by side within the sockets. */
        TASKS_EXCEED_SOCKETS,
        /** ALPS: ntasks x depth exceeds the usable CPUs of the node. */
        TASKS_EXCEED_NODE,
        /** ALPS -S: the PEs of one NUMA domain do not fit in it, or there are not enough domains. */
        TASKS_EXCEED_NUMA
    }

    private final Rule rule;

    Rejection(Rule rule, String message) {
        super(message, null, false, false);
        this.rule = rule;
    }

    public Rule rule() {
        return rule;
    }
}
