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

    /**
     * Numbers the hardware threads of a node described as sockets of cores (each with its own thread count,
     * so uneven nodes work too): thread t of core c of socket s gets its rank in the order this scheme walks
     * the node, which for S x C x T nodes is exactly the formula above.
     *
     * @param threads threads[s][c] = hardware threads of core c of socket s
     * @return cpus[s][c][t], the OS CPU number of each thread
     */
    int[][][] assign(int[][] threads) {
        int maxThreads = 0;
        int maxCores = 0;
        for (int[] socket : threads) {
            maxCores = Math.max(maxCores, socket.length);
            for (int t : socket) {
                maxThreads = Math.max(maxThreads, t);
            }
        }
        int[][][] cpus = new int[threads.length][][];
        for (int s = 0; s < threads.length; s++) {
            cpus[s] = new int[threads[s].length][];
            for (int c = 0; c < threads[s].length; c++) {
                cpus[s][c] = new int[threads[s][c]];
            }
        }
        int next = 0;
        switch (this) {
            case INTEL:
                for (int t = 0; t < maxThreads; t++) {
                    for (int s = 0; s < threads.length; s++) {
                        for (int c = 0; c < threads[s].length; c++) {
                            if (t < threads[s][c]) {
                                cpus[s][c][t] = next++;
                            }
                        }
                    }
                }
                break;
            case INTERLEAVED:
                for (int s = 0; s < threads.length; s++) {
                    for (int c = 0; c < threads[s].length; c++) {
                        for (int t = 0; t < threads[s][c]; t++) {
                            cpus[s][c][t] = next++;
                        }
                    }
                }
                break;
            default:
                for (int t = 0; t < maxThreads; t++) {
                    for (int c = 0; c < maxCores; c++) {
                        for (int s = 0; s < threads.length; s++) {
                            if (c < threads[s].length && t < threads[s][c]) {
                                cpus[s][c][t] = next++;
                            }
                        }
                    }
                }
        }
        return cpus;
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
