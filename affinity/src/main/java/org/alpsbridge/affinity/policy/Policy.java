package org.alpsbridge.affinity.policy;

import org.alpsbridge.affinity.topology.Topology;

/**
 * The placement policies, so a site can compare them on the same job.
 *
 * <ul>
 *   <li>{@link #REDUCED}: CSCS reduced-auto-affinity. One CPU per core (the core's lowest allowed OS CPU), the
 *       cores of a task adjacent and inside one socket, tasks packed socket by socket in local-task order, a
 *       socket shared only by tasks that fit in it whole; anything else rejects the job.</li>
 *   <li>{@link #LLNL}: LLNL auto-affinity. Walks the position map (socket, core, then the core's threads with
 *       the higher OS number first) taking cpus-per-task consecutive positions per task, wrapping; never
 *       rejects. More tasks than allowed CPUs leaves the tasks unbound (each gets the whole allowed set).</li>
 *   <li>{@link #ALPS_CPU}, {@link #ALPS_DEPTH}, {@link #ALPS_NUMA}: Cray ALPS {@code aprun -cc cpu|depth|numa_node}
 *       with {@code -d} = cpus-per-task, {@code -j} = nppcu, {@code -S} = PEs per NUMA domain. The node's CPUs
 *       are taken core by core (the first {@code -j} threads of each), PE i gets CPUs [i*d, i*d+d) of that
 *       order; {@code -cc cpu} binds the PE to the first of them, {@code -cc depth} to all d,
 *       {@code -cc numa_node} to every usable CPU of the NUMA domains they touch.</li>
 * </ul>
 *
 * <p>Every policy computes inside the request's allowed CPU set: CPUs outside it are never handed out.
 */
public enum Policy {
    REDUCED("reduced", "reduced-auto-affinity"),
    LLNL("llnl", "auto-affinity"),
    ALPS_CPU("alps-cpu", "aprun-cc-cpu"),
    ALPS_DEPTH("alps-depth", "aprun-cc-depth"),
    ALPS_NUMA("alps-numa", "aprun-cc-numa_node");

    private final String label;
    private final String plugin;

    Policy(String label, String plugin) {
        this.label = label;
        this.plugin = plugin;
    }

    /** The name used on the command line ({@code --policy}, {@code RAA_POLICY}). */
    public String label() {
        return label;
    }

    /** The name the verbose line starts with, as the original tool printed it. */
    public String verboseName() {
        return plugin;
    }

    /** Places {@code request} on {@code topology}, or says which rule it violates. */
    public Placement place(Topology topology, Request request) throws Rejection {
        if (request.ntasks() < 1) {
            throw new Rejection(Rejection.Rule.BAD_REQUEST, "ntasks must be at least 1 (got " + request.ntasks() + ")");
        }
        if (request.cpusPerTask() < 1) {
            throw new Rejection(Rejection.Rule.BAD_REQUEST,
                    "cpus-per-task must be at least 1 (got " + request.cpusPerTask() + ")");
        }
        switch (this) {
            case REDUCED:
                return new Placement(this, Reduced.place(topology, request));
            case LLNL:
                return new Placement(this, Llnl.place(topology, request));
            default:
                return new Placement(this, Alps.place(this, topology, request));
        }
    }

    /** Parses a label as shown by {@link #label()}; the message lists the valid ones. */
    public static Policy of(String label) {
        for (Policy p : values()) {
            if (p.label.equalsIgnoreCase(label.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown policy '" + label
                + "' (reduced, llnl, alps-cpu, alps-depth, alps-numa)");
    }
}
