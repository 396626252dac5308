package org.alpsbridge.affinity.topology;

/**
 * How a synthetic node's OS CPU numbers are laid over sockets (S), cores per socket (C) and threads per core
 * (T). Real firmware uses all three; a calculator that assumes one of them places tasks on the wrong CPUs on
 * the others.
 */
public enum Numbering {
    /**
     * Intel/ACPI order, also AMD EPYC and KNL under Linux: all first threads socket by socket, then all second
     * threads: {@code cpu = t*S*C + s*C + c} (XC30 2x8x2: socket 0 = 0-7 and 16-23).
     */
    INTEL("intel"),
    /** Siblings adjacent (hwloc synthetic default, some AMD/ARM/POWER firmware): {@code cpu = (s*C + c)*T + t}. */
    INTERLEAVED("interleaved"),
    /** Sockets round-robin, then siblings: {@code cpu = t*S*C + c*S + s} (socket 0 = 0,2,4,...). */
    ROUND_ROBIN("round-robin");

    private final String label;

    Numbering(String label) {
        this.label = label;
    }

    /** The name used on the command line. */
    public String label() {
        return label;
    }

    /** The OS CPU number of thread {@code t} of core {@code c} of socket {@code s}. */
    public int cpu(int s, int c, int t, int sockets, int cores, int threads) {
        switch (this) {
            case INTEL:
                return t * sockets * cores + s * cores + c;
            case INTERLEAVED:
                return (s * cores + c) * threads + t;
            default:
                return t * sockets * cores + c * sockets + s;
        }
    }

    /** Parses a label as shown by {@link #label()}; the message lists the valid ones. */
    public static Numbering of(String label) {
        for (Numbering n : values()) {
            if (n.label.equalsIgnoreCase(label.trim())) {
                return n;
            }
        }
        throw new IllegalArgumentException("unknown numbering '" + label + "' (intel, interleaved, round-robin)");
    }
}
