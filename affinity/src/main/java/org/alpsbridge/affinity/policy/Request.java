package org.alpsbridge.affinity.policy;

import java.util.BitSet;
import org.alpsbridge.affinity.format.CpuLists;

/**
 * What to place on one node: the number of local tasks, the CPUs per task, the CPUs the job (step) may use,
 * and the knobs only some policies read. Immutable; the {@code with*} methods return changed copies.
 *
 * <ul>
 *   <li>{@code allowed}: the job's CPU set on this node; {@code null} (the default) means the whole node.</li>
 *   <li>{@code nppcu}: ALPS {@code aprun -j}, hardware threads used per core (compute unit); 0 (default) = all.</li>
 *   <li>{@code pesPerNuma}: ALPS {@code aprun -S}, tasks per NUMA domain; 0 (default) = packed, no limit.</li>
 *   <li>{@code start}, {@code reverse}: LLNL auto-affinity {@code start=N} and {@code reverse}; defaults 0, false.</li>
 * </ul>
 */
public final class Request {

    private final int ntasks;
    private final int cpusPerTask;
    private final BitSet allowed;
    private final int nppcu;
    private final int pesPerNuma;
    private final int start;
    private final boolean reverse;

    private Request(int ntasks, int cpusPerTask, BitSet allowed, int nppcu, int pesPerNuma, int start, boolean reverse) {
        this.ntasks = ntasks;
        this.cpusPerTask = cpusPerTask;
        this.allowed = allowed == null ? null : (BitSet) allowed.clone();
        this.nppcu = nppcu;
        this.pesPerNuma = pesPerNuma;
        this.start = start;
        this.reverse = reverse;
    }

    /** {@code ntasks} tasks on the node, {@code cpusPerTask} CPUs each, the whole node allowed. */
    public static Request of(int ntasks, int cpusPerTask) {
        return new Request(ntasks, cpusPerTask, null, 0, 0, 0, false);
    }

    public Request withAllowed(BitSet cpus) {
        return new Request(ntasks, cpusPerTask, cpus, nppcu, pesPerNuma, start, reverse);
    }

    public Request withNppcu(int threadsPerCore) {
        return new Request(ntasks, cpusPerTask, allowed, threadsPerCore, pesPerNuma, start, reverse);
    }

    public Request withPesPerNuma(int pes) {
        return new Request(ntasks, cpusPerTask, allowed, nppcu, pes, start, reverse);
    }

    public Request withStart(int position) {
        return new Request(ntasks, cpusPerTask, allowed, nppcu, pesPerNuma, position, reverse);
    }

    public Request withReverse(boolean backwards) {
        return new Request(ntasks, cpusPerTask, allowed, nppcu, pesPerNuma, start, backwards);
    }

    public int ntasks() {
        return ntasks;
    }

    public int cpusPerTask() {
        return cpusPerTask;
    }

    /** The allowed CPUs, or {@code null} for the whole node. */
    public BitSet allowed() {
        return allowed == null ? null : (BitSet) allowed.clone();
    }

    public int nppcu() {
        return nppcu;
    }

    public int pesPerNuma() {
        return pesPerNuma;
    }

    public int start() {
        return start;
    }

    public boolean reverse() {
        return reverse;
    }

    @Override
    public String toString() {
        return ntasks + " tasks x " + cpusPerTask + " CPUs"
                + (allowed == null ? "" : ", allowed " + CpuLists.linux(allowed))
                + (nppcu == 0 ? "" : ", -j " + nppcu)
                + (pesPerNuma == 0 ? "" : ", -S " + pesPerNuma)
                + (start == 0 ? "" : ", start " + start)
                + (reverse ? ", reverse" : "");
    }
}
