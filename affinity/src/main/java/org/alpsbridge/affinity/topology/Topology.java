package org.alpsbridge.affinity.topology;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node's CPUs as sockets → cores → hardware threads (PUs), each PU named by its OS CPU number.
 *
 * <p>Sockets are ordered by package id, cores inside a socket by core id (ids need not be contiguous: only
 * their order counts, and "adjacent cores" means neighbours in that order), PUs inside a core ascending.
 * A core also carries its NUMA domain, or {@link #NO_NUMA} when the source does not say (the socket is then
 * the NUMA domain). Immutable.
 *
 * <p>Build one with {@link #synthetic}, {@link #sysfs}, {@link #hwlocXml} or {@link Builder}.
 */
public final class Topology {

    /** NUMA domain of a core whose source named none. */
    public static final int NO_NUMA = -1;

    /** One socket (package). */
    public record Socket(int packageId, List<Core> cores) {
        public Socket {
            cores = List.copyOf(cores);
        }
    }

    /** One core (or compute unit) and its hardware threads, ascending OS CPU numbers. */
    public record Core(int coreId, int numaNode, List<Integer> pus) {
        public Core {
            pus = List.copyOf(pus);
        }

        /** The lowest OS CPU number of the core: the PU that {@code hwloc-calc --no-smt} keeps. */
        public int firstPu() {
            return pus.get(0);
        }
    }

    private final String source;
    private final List<Socket> sockets;
    private final BitSet cpus;

    private Topology(String source, List<Socket> sockets) {
        this.source = source;
        this.sockets = List.copyOf(sockets);
        this.cpus = new BitSet();
        for (Socket s : this.sockets) {
            for (Core c : s.cores()) {
                for (int pu : c.pus()) {
                    cpus.set(pu);
                }
            }
        }
    }

    /** A synthetic node, e.g. {@code 2x8x2} or {@code 2x2x8x1}; see {@link Synthetic}. */
    public static Topology synthetic(String spec, Numbering numbering) {
        return Synthetic.build(spec, numbering);
    }

    /** This machine's topology from {@code /sys/devices/system}. */
    public static Topology sysfs() throws TopologyException {
        return SysfsReader.read(java.nio.file.Paths.get("/sys/devices/system"));
    }

    /**
     * The topology under a sysfs-shaped tree: {@code ROOT/cpu/online}, {@code ROOT/cpu/cpuN/topology/...} and,
     * when present, {@code ROOT/node/nodeN/cpulist}.
     */
    public static Topology sysfs(java.nio.file.Path root) throws TopologyException {
        return SysfsReader.read(root);
    }

    /** The topology in an hwloc XML export ({@code lstopo --of xml}, hwloc 1.x or 2.x). */
    public static Topology hwlocXml(java.nio.file.Path file) throws TopologyException {
        return HwlocXmlReader.read(file);
    }

    /** Where this topology came from, for messages. */
    public String source() {
        return source;
    }

    public List<Socket> sockets() {
        return sockets;
    }

    /** All OS CPU numbers of the node. */
    public BitSet cpus() {
        return (BitSet) cpus.clone();
    }

    public int cpuCount() {
        return cpus.cardinality();
    }

    public int coreCount() {
        int n = 0;
        for (Socket s : sockets) {
            n += s.cores().size();
        }
        return n;
    }

    /** Cores with at least one hardware thread in {@code allowed}: what the reduced policy can hand out there. */
    public int coreCount(BitSet allowed) {
        int n = 0;
        for (Socket s : sockets) {
            for (Core c : s.cores()) {
                if (c.pus().stream().anyMatch(allowed::get)) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * The NUMA domains in order, each as its cores in socket/core order. Cores without a NUMA node form one
     * domain per socket.
     */
    public List<List<Core>> numaDomains() {
        Map<Long, List<Core>> domains = new TreeMap<>();
        for (int s = 0; s < sockets.size(); s++) {
            for (Core c : sockets.get(s).cores()) {
                long key = c.numaNode() == NO_NUMA ? ((long) s << 32) - Integer.MIN_VALUE : c.numaNode();
                domains.computeIfAbsent(key, k -> new ArrayList<>()).add(c);
            }
        }
        return List.copyOf(domains.values());
    }

    /** "2 sockets x 8 cores x 2 threads (32 CPUs)", or the per-socket counts when sockets differ. */
    public String shape() {
        StringBuilder out = new StringBuilder();
        boolean uniform = true;
        int cores = sockets.isEmpty() ? 0 : sockets.get(0).cores().size();
        int threads = -1;
        for (Socket s : sockets) {
            uniform &= s.cores().size() == cores;
            for (Core c : s.cores()) {
                if (threads == -1) {
                    threads = c.pus().size();
                }
                uniform &= c.pus().size() == threads;
            }
        }
        if (uniform) {
            out.append(sockets.size()).append(sockets.size() == 1 ? " socket x " : " sockets x ")
                    .append(cores).append(" cores x ").append(threads).append(threads == 1 ? " thread" : " threads");
        } else {
            out.append(sockets.size()).append(" sockets of ");
            for (int i = 0; i < sockets.size(); i++) {
                out.append(i == 0 ? "" : "/").append(sockets.get(i).cores().size());
            }
            out.append(" cores");
        }
        return out.append(" (").append(cpuCount()).append(" CPUs)").toString();
    }

    /** One line per core: {@code socket <package> core <id> numa <n> cpus <list>}. */
    public String describe() {
        StringBuilder out = new StringBuilder();
        out.append("# ").append(source).append(": ").append(shape()).append('\n');
        for (Socket s : sockets) {
            for (Core c : s.cores()) {
                out.append("socket ").append(s.packageId()).append(" core ").append(c.coreId());
                if (c.numaNode() != NO_NUMA) {
                    out.append(" numa ").append(c.numaNode());
                }
                out.append(" cpus");
                for (int pu : c.pus()) {
                    out.append(' ').append(pu);
                }
                out.append('\n');
            }
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return source + ": " + shape();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Topology t && t.sockets.equals(sockets);
    }

    @Override
    public int hashCode() {
        return sockets.hashCode();
    }

    /**
     * Collects PUs in any order and builds the ordered, validated topology. No lambdas or streams here: the
     * per-task wrapper builds a topology on its start-up path.
     */
    public static final class Builder {
        private final String source;
        private final Map<Integer, Map<Integer, int[]>> coresByPackage = new TreeMap<>();
        private final Map<Integer, List<Integer>> pusByCore = new java.util.HashMap<>();
        private final BitSet seen = new BitSet();

        public Builder(String source) {
            this.source = source;
        }

        /**
         * Adds hardware thread {@code cpu} of core {@code coreId} in package {@code packageId}.
         *
         * @param numaNode the PU's NUMA node, or {@link #NO_NUMA}
         * @throws TopologyException when the CPU number repeats or the core's NUMA node disagrees
         */
        public Builder pu(int packageId, int coreId, int numaNode, int cpu) throws TopologyException {
            if (cpu < 0) {
                throw new TopologyException(source + ": negative CPU number " + cpu);
            }
            if (seen.get(cpu)) {
                throw new TopologyException(source + ": CPU " + cpu + " appears twice");
            }
            seen.set(cpu);
            Map<Integer, int[]> cores = coresByPackage.get(packageId);
            if (cores == null) {
                cores = new TreeMap<>();
                coresByPackage.put(packageId, cores);
            }
            int[] core = cores.get(coreId);
            if (core == null) {
                core = new int[] {numaNode, pusByCore.size()};
                cores.put(coreId, core);
                pusByCore.put(core[1], new ArrayList<>());
            } else if (core[0] != numaNode) {
                throw new TopologyException(source + ": core " + coreId + " of package " + packageId
                        + " spans NUMA nodes " + core[0] + " and " + numaNode + " (CPU " + cpu + ")");
            }
            pusByCore.get(core[1]).add(cpu);
            return this;
        }

        public Topology build() throws TopologyException {
            if (seen.isEmpty()) {
                throw new TopologyException(source + ": no CPUs");
            }
            List<Socket> sockets = new ArrayList<>();
            for (Map.Entry<Integer, Map<Integer, int[]>> p : coresByPackage.entrySet()) {
                List<Core> cores = new ArrayList<>();
                for (Map.Entry<Integer, int[]> c : p.getValue().entrySet()) {
                    List<Integer> pus = pusByCore.get(c.getValue()[1]);
                    Collections.sort(pus);
                    cores.add(new Core(c.getKey(), c.getValue()[0], pus));
                }
                sockets.add(new Socket(p.getKey(), cores));
            }
            return new Topology(source, sockets);
        }
    }
}
