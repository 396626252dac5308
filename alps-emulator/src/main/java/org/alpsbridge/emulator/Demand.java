package org.alpsbridge.emulator;

import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.nodes.NidOrder;
import org.alpsbridge.basil.nodes.NidSet;

/**
 * One ReserveParam in the emulator's own terms: a homogeneous group of PEs to place. Zero means "not
 * given" for depth, nppn, npps, nspn, nppcu and memoryMb, as in BASIL.
 *
 * @param segments allowed segment ordinals, or {@code null} for all
 * @param shared reservation_mode SHARED (nodes may be shared with other SHARED reservations)
 * @param memoryMb memory per PE in MB (MemoryParam size_mb), 0 for the ALPS default
 * @param nodeLists the NodeParam lists, each already expanded to NIDs in the order given
 */
record Demand(String architecture, long width, long depth, long nppn, long npps, long nspn, long nppcu,
              int[] segments, boolean shared, String gpcMode, String memoryType, long memoryMb,
              List<LabelWish> labels, List<int[]> nodeLists, List<AccelWish> accels) {

    /** A LabelParam: HARD labels filter nodes, SOFT ones only order them. */
    record LabelWish(String name, boolean hard, boolean attract) {
    }

    /** An AccelParam: a GPU, optionally of one family and with at least this much memory. */
    record AccelWish(String type, String family, long memoryMb) {
    }

    Demand {
        labels = List.copyOf(labels);
        nodeLists = List.copyOf(nodeLists);
        accels = List.copyOf(accels);
    }

    /**
     * The demand of one ReserveParam. Only the first MemoryParam counts (ALPS takes one memory size per
     * command); NodeParam texts are parsed as NID range lists.
     *
     * @throws Rejection (SYNTAX) for a missing width, a bad number or a bad NID list
     */
    static Demand of(ReserveParam p) throws Rejection {
        if (p.width() == null) {
            throw Rejection.syntax("ALPS error: ReserveParam needs a width");
        }
        Builder b = width(p.width())
                .architecture(p.architecture() == null ? "XT" : p.architecture())
                .depth(orZero(p.depth()))
                .nppn(orZero(p.nppn()))
                .npps(orZero(p.npps()))
                .nspn(orZero(p.nspn()))
                .nppcu(orZero(p.nppcu()))
                .shared("SHARED".equals(p.reservationMode()))
                .gpcMode(p.gpcMode());
        if (p.segments() != null && !p.segments().isBlank()) {
            b.segments(ints("segments", p.segments()));
        }
        if (!p.memoryParams().isEmpty()) {
            ReserveParam.MemoryParam m = p.memoryParams().get(0);
            b.memory(m.type() == null ? "OS" : m.type(), orZero(m.sizeMb()));
        }
        for (ReserveParam.LabelParam l : p.labelParams()) {
            b.label(l.name(), !"SOFT".equals(l.type()), !"REPEL".equals(l.disposition()));
        }
        for (String text : p.nodeParams()) {
            b.nodes(orderedNids(text));
        }
        for (ReserveParam.AccelParam a : p.accelParams()) {
            b.accel(a.type() == null ? "GPU" : a.type(), a.family(), orZero(a.memoryMb()));
        }
        return b.build();
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    private static int[] ints(String what, String rangeList) throws Rejection {
        try {
            NidSet set = NidSet.parse(rangeList);
            if (!set.isEmpty() && set.last() > Integer.MAX_VALUE) {
                throw Rejection.transientFailure("ALPS error: apsched: node " + set.last() + " is not a compute node known to ALPS");
            }
            return set.stream().mapToInt(v -> (int) v).toArray();
        } catch (IllegalArgumentException e) {
            throw Rejection.syntax("ALPS error: bad " + what + " '" + rangeList + "': " + e.getMessage());
        }
    }

    /**
     * A NodeParam's NIDs in the order written: Slurm lists them in its node-rank order and ALPS places PEs in
     * list order, so {@code 5-8,1-3} is not {@code 1-3,5-8}.
     */
    private static int[] orderedNids(String rangeList) throws Rejection {
        long[] nids;
        try {
            nids = NidOrder.parse(rangeList, Machine.MAX_NID);
        } catch (IllegalArgumentException e) {
            throw Rejection.syntax("ALPS error: bad NodeParam '" + rangeList + "': " + e.getMessage());
        }
        int[] out = new int[nids.length];
        for (int i = 0; i < nids.length; i++) {
            if (nids[i] > Integer.MAX_VALUE) {
                throw Rejection.transientFailure("ALPS error: apsched: node " + nids[i] + " is not a compute node known to ALPS");
            }
            out[i] = (int) nids[i];
        }
        return out;
    }

    static Builder width(long width) {
        return new Builder(width);
    }

    long effectiveDepth() {
        return Math.max(1, depth);
    }

    /** Builds a demand; what is not set keeps the BASIL default. */
    static final class Builder {
        private final long width;
        private String architecture = "XT";
        private long depth;
        private long nppn;
        private long npps;
        private long nspn;
        private long nppcu;
        private int[] segments;
        private boolean shared;
        private String gpcMode;
        private String memoryType = "OS";
        private long memoryMb;
        private final List<LabelWish> labels = new ArrayList<>();
        private final List<int[]> nodeLists = new ArrayList<>();
        private final List<AccelWish> accels = new ArrayList<>();

        private Builder(long width) {
            this.width = width;
        }

        Builder architecture(String a) {
            architecture = a;
            return this;
        }

        Builder depth(long d) {
            depth = d;
            return this;
        }

        Builder nppn(long n) {
            nppn = n;
            return this;
        }

        Builder npps(long n) {
            npps = n;
            return this;
        }

        Builder nspn(long n) {
            nspn = n;
            return this;
        }

        Builder nppcu(long n) {
            nppcu = n;
            return this;
        }

        Builder segments(int... ordinals) {
            segments = ordinals;
            return this;
        }

        Builder shared(boolean s) {
            shared = s;
            return this;
        }

        Builder gpcMode(String g) {
            gpcMode = g;
            return this;
        }

        Builder memory(String type, long mbPerPe) {
            memoryType = type;
            memoryMb = mbPerPe;
            return this;
        }

        Builder label(String name, boolean hard, boolean attract) {
            labels.add(new LabelWish(name, hard, attract));
            return this;
        }

        Builder nodes(int... nids) {
            nodeLists.add(nids);
            return this;
        }

        Builder accel(String type, String family, long memoryMb) {
            accels.add(new AccelWish(type, family, memoryMb));
            return this;
        }

        Demand build() {
            return new Demand(architecture, width, depth, nppn, npps, nspn, nppcu, segments, shared, gpcMode, memoryType, memoryMb,
                    labels, nodeLists, accels);
        }
    }
}
