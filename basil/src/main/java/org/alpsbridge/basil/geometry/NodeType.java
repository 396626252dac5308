package org.alpsbridge.basil.geometry;

import java.util.Locale;

/**
 * The hardware of one kind of compute node as job geometry needs it: sockets, cores (ALPS compute units) per
 * socket, hardware threads (ALPS processors) per core, and memory. Slurm's {@code CPUs} is the processor count,
 * hyperthreads included (PROTOCOL.md §11).
 */
public record NodeType(int sockets, int coresPerSocket, int threadsPerCore, long memoryMb) {

    public NodeType {
        if (sockets < 1 || coresPerSocket < 1 || threadsPerCore < 1) {
            throw new IllegalArgumentException("a node type needs at least 1 socket, 1 core per socket and 1 thread per core, not "
                    + sockets + "x" + coresPerSocket + "x" + threadsPerCore);
        }
        if (memoryMb < 1) {
            throw new IllegalArgumentException("a node type needs some memory, not " + memoryMb + " MB");
        }
    }

    /**
     * Parses {@code SOCKETSxCORESxTHREADS:MEMORY}, memory in MB or with a {@code g}/{@code m} suffix, e.g.
     * {@code 2x8x2:64g} (an XC30 node) or {@code 1x68x4:96g} (KNL).
     */
    public static NodeType parse(String spec) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        String[] hwMem = s.split(":", -1);
        String[] parts = hwMem[0].split("x", -1);
        if (hwMem.length != 2 || parts.length != 3) {
            throw new IllegalArgumentException("node type '" + spec + "' is not SOCKETSxCORESxTHREADS:MEMORY, e.g. 2x8x2:64g");
        }
        try {
            return new NodeType(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]), megabytes(hwMem[1]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("node type '" + spec + "' is not SOCKETSxCORESxTHREADS:MEMORY, e.g. 2x8x2:64g");
        }
    }

    /** A memory size: plain MB, or with suffix {@code m}, {@code g} or {@code t} (binary multiples of MB). */
    static long megabytes(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("t")) {
            unit = 1024L * 1024;
        } else if (t.endsWith("g")) {
            unit = 1024;
        }
        if (t.endsWith("t") || t.endsWith("g") || t.endsWith("m")) {
            t = t.substring(0, t.length() - 1);
        }
        return Math.multiplyExact(Long.parseLong(t), unit);
    }

    /** Cores (compute units) on the node. */
    public int cores() {
        return sockets * coresPerSocket;
    }

    /** Processors (hardware threads) on the node: Slurm's CPUs. */
    public int cpus() {
        return cores() * threadsPerCore;
    }

    @Override
    public String toString() {
        return sockets + "x" + coresPerSocket + "x" + threadsPerCore + ":" + memoryMb + "m";
    }
}
