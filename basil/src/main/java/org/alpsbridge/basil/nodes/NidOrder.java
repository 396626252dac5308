package org.alpsbridge.basil.nodes;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * NID range lists whose order matters: Slurm writes a RESERVE's NodeParam in its node-rank order and merges only
 * NIDs that follow each other upwards in that order ({@code ns_to_string}), so {@code 5-8,1-3} is not
 * {@code 1-3,5-8} to a reader that places PEs in list order. {@link NidSet} is the sorted, set view.
 */
public final class NidOrder {

    /** Default ceiling on the NIDs an ordered list may expand to. */
    public static final int DEFAULT_MAX_NIDS = 4_000_000;

    private NidOrder() {
    }

    /**
     * Writes NIDs in the given order, merging each run that rises by one into {@code a-b}.
     *
     * @throws IllegalArgumentException naming a NID that appears twice (with both positions) or is out of range
     */
    public static String format(long... nids) {
        Set<Long> seen = new HashSet<>(nids.length * 2);
        StringBuilder sb = new StringBuilder(nids.length * 4);
        int i = 0;
        while (i < nids.length) {
            int j = i;
            while (true) {
                NidSet.checkNid(nids[j]);
                if (!seen.add(nids[j])) {
                    throw new IllegalArgumentException("NID " + nids[j] + " appears twice in the ordered list (position " + j
                            + " and " + indexOf(nids, nids[j]) + ")");
                }
                if (j + 1 < nids.length && nids[j + 1] == nids[j] + 1) {
                    j++;
                } else {
                    break;
                }
            }
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(nids[i]);
            if (j > i) {
                sb.append('-').append(nids[j]);
            }
            i = j + 1;
        }
        return sb.toString();
    }

    /** Reads a range list keeping the written order, with the {@link #DEFAULT_MAX_NIDS} ceiling. */
    public static long[] parse(String text) {
        return parse(text, DEFAULT_MAX_NIDS);
    }

    /**
     * Reads a range list keeping the written order. Items may come in any order but may not share a NID: in an
     * ordered list a repeat has no single place.
     *
     * @throws NodeSyntaxException naming the bad or repeated item and its offset, or a list longer than {@code maxNids}
     */
    public static long[] parse(String text, int maxNids) {
        RangeListParser.Items items = RangeListParser.items(text);
        int count = items.count();
        long total = 0;
        for (int k = 0; k < count; k++) {
            total += items.last(k) - items.first(k) + 1;
            if (total > maxNids) {
                throw items.error(k, "takes the list past the limit of " + maxNids + " NIDs");
            }
        }
        // Overlaps show between neighbours once the items are sorted by their first NID.
        Integer[] byFirst = new Integer[count];
        for (int k = 0; k < count; k++) {
            byFirst[k] = k;
        }
        Arrays.sort(byFirst, (a, b) -> Long.compare(items.first(a), items.first(b)));
        int reach = -1;
        for (int k : byFirst) {
            if (reach >= 0 && items.first(k) <= items.last(reach)) {
                int later = Math.max(k, reach);
                throw items.error(later, "repeats NID " + items.first(k) + ", which the list already holds");
            }
            if (reach < 0 || items.last(k) > items.last(reach)) {
                reach = k;
            }
        }
        long[] out = new long[(int) total];
        int n = 0;
        for (int k = 0; k < count; k++) {
            for (long v = items.first(k); v <= items.last(k); v++) {
                out[n++] = v;
            }
        }
        return out;
    }

    private static int indexOf(long[] nids, long nid) {
        return Arrays.stream(nids).boxed().toList().indexOf(nid);
    }
}
