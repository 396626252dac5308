package org.alpsbridge.affinity.policy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/** The CPU set of every local task, in local-task order, as one policy placed them. Immutable. */
public final class Placement {

    private final Policy policy;
    private final List<BitSet> masks;

    Placement(Policy policy, List<BitSet> masks) {
        this.policy = policy;
        List<BitSet> copy = new ArrayList<>(masks.size());
        for (BitSet m : masks) {
            copy.add((BitSet) m.clone());
        }
        this.masks = copy;
    }

    public Policy policy() {
        return policy;
    }

    public int tasks() {
        return masks.size();
    }

    /** The OS CPU numbers of local task {@code localId}. */
    public BitSet mask(int localId) {
        return (BitSet) masks.get(localId).clone();
    }

    /** Every task's mask, copies. */
    public List<BitSet> masks() {
        List<BitSet> copy = new ArrayList<>(masks.size());
        for (BitSet m : masks) {
            copy.add((BitSet) m.clone());
        }
        return copy;
    }
}
