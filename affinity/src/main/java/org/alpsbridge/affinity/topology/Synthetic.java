package org.alpsbridge.affinity.topology;

/**
 * Synthetic nodes from a spec: {@code SxCxT} (sockets, cores per socket, threads per core) or
 * {@code SxNxCxT} (sockets, NUMA domains per socket, cores per NUMA domain, threads per core), e.g.
 * {@code 2x8x2} (XC30), {@code 1x68x4} (KNL), {@code 2x4x16x2} (Rome NPS4), {@code 2x2x8x1} (Interlagos as
 * integer cores), {@code 2x2x4x2} (Interlagos as compute units of two integer cores).
 */
final class Synthetic {

    /** Keeps synthetic nodes within what real kernels number (CONFIG_NR_CPUS). */
    private static final int MAX_CPUS = 8192;

    private Synthetic() {
    }

    static Topology build(String spec, Numbering numbering) {
        String[] parts = spec.trim().toLowerCase(java.util.Locale.ROOT).split("x", -1);
        if (parts.length != 3 && parts.length != 4) {
            throw new IllegalArgumentException("layout '" + spec
                    + "' is not SOCKETSxCORESxTHREADS (e.g. 2x8x2) or SOCKETSxNUMAxCORESxTHREADS (e.g. 2x4x16x2)");
        }
        int[] n = new int[parts.length];
        long product = 1;
        for (int i = 0; i < parts.length; i++) {
            try {
                n[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("layout '" + spec + "': '" + parts[i] + "' is not a number");
            }
            if (n[i] < 1) {
                throw new IllegalArgumentException("layout '" + spec + "': every count must be at least 1");
            }
            product *= n[i];
            if (product > MAX_CPUS) {
                throw new IllegalArgumentException("layout '" + spec + "' has more than " + MAX_CPUS + " CPUs");
            }
        }
        int sockets = n[0];
        int numaPerSocket = parts.length == 4 ? n[1] : 1;
        int coresPerNuma = n[parts.length - 2];
        int threads = n[parts.length - 1];
        int cores = numaPerSocket * coresPerNuma;
        int[][] shape = new int[sockets][cores];
        for (int[] socket : shape) {
            java.util.Arrays.fill(socket, threads);
        }
        int[][][] cpus = numbering.assign(shape);
        Topology.Builder b = new Topology.Builder("layout " + spec.trim() + " (" + numbering.label() + " numbering)");
        try {
            for (int s = 0; s < sockets; s++) {
                for (int c = 0; c < cores; c++) {
                    int numa = parts.length == 4 ? s * numaPerSocket + c / coresPerNuma : Topology.NO_NUMA;
                    for (int t = 0; t < threads; t++) {
                        b.pu(s, c, numa, cpus[s][c][t]);
                    }
                }
            }
            return b.build();
        } catch (TopologyException e) {
            throw new IllegalStateException("numbering " + numbering + " is not a bijection", e);
        }
    }
}
