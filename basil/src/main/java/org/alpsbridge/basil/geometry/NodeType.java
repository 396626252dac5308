package org.alpsbridge.basil.geometry;

import java.util.Locale;
import org.alpsbridge.basil.inventory.NodeView;

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
     * The node type of an inventory node, whatever protocol version described it. Before BASIL 1.3 an inventory
     * does not say which processors are threads of one core, so such nodes have one thread per core.
     *
     * @throws IllegalArgumentException if the node has no processors or memory, or sockets or cores of unequal size
     */
    public static NodeType of(NodeView node) {
        int sockets = node.sockets().size();
        int cores = node.coreCount();
        int cpus = node.processorCount();
        if (sockets == 0 || cores == 0 || cores % sockets != 0 || cpus % cores != 0) {
            throw new IllegalArgumentException("node " + node.nodeId() + " (" + node.name() + ") has " + sockets + " sockets, " + cores
                    + " cores and " + cpus + " processors: not a node type of equal sockets and cores");
        }
        return new NodeType(sockets, cores / sockets, cpus / cores, node.memoryMb());
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
        int[] counts = new int[3];
        for (int i = 0; i < 3; i++) {
            try {
                counts[i] = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("node type '" + spec + "': '" + parts[i] + "' is not a count; expected SOCKETSxCORESxTHREADS:MEMORY, e.g. 2x8x2:64g");
            }
        }
        return new NodeType(counts[0], counts[1], counts[2], megabytes(hwMem[1]));
    }

    /**
     * A memory size as Slurm's {@code --mem} takes it: MB, or with suffix {@code M}, {@code G} or {@code T}
     * (binary multiples of MB).
     *
     * @throws IllegalArgumentException naming the text when it is not such a size
     */
    public static long megabytes(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        int shift = 0;
        if (!t.isEmpty() && "mgt".indexOf(t.charAt(t.length() - 1)) >= 0) {
            shift = 10 * "mgt".indexOf(t.charAt(t.length() - 1));
            t = t.substring(0, t.length() - 1);
        }
        if (t.isEmpty() || t.length() > 12 || !t.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + text + "' is not a memory size such as 2000, 2000M, 64G or 1T");
        }
        return Long.parseLong(t) << shift;
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
