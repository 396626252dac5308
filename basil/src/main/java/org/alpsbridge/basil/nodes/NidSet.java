package org.alpsbridge.basil.nodes;

import java.util.Arrays;
import java.util.PrimitiveIterator;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.LongStream;
import java.util.stream.StreamSupport;

/**
 * An immutable, sorted set of ALPS node ids (NIDs), held as disjoint, non-adjacent closed ranges so that a
 * 100,000-node machine costs a few longs, not 100,000 objects. NIDs are unsigned and may be as large as
 * {@link #MAX_NID} (wider than 32 bits unsigned, so no NID ALPS can send is ever truncated).
 *
 * <p>The text form is the ALPS NodeParam / SUMMARY range list: comma-separated NIDs and {@code a-b} ranges,
 * e.g. {@code 1-5,8,10-11,5001-5003}. {@link #toString()} always writes the canonical form: ascending,
 * merged, a single NID never written as {@code a-a}, no leading zeros. {@link #parse(String, Order)} reads
 * it under one of three {@link Order} rules; {@link #parse(String)} is the lenient one.
 */
public final class NidSet implements Iterable<Long> {

    /** Largest NID accepted: far above any real ALPS NID, and above the 32-bit unsigned range. */
    public static final long MAX_NID = (1L << 53) - 1;

    private static final NidSet EMPTY = new NidSet(new long[0]);

    /**
     * How strictly a range list's order is checked on parsing. Every rule rejects a reversed range
     * ({@code 9-3}) and anything that is not a NID or a range.
     */
    public enum Order {
        /** Any order; duplicates and overlaps are merged. What ALPS itself accepts in a NodeParam. */
        ANY,
        /** Items strictly ascending and disjoint ({@code 1-3,4} is fine, {@code 1-3,3} and {@code 5,2} are not). */
        ASCENDING,
        /** Exactly the canonical text {@link #toString()} writes, so that equal sets have equal text. */
        CANONICAL
    }

    /** [lo0, hi0, lo1, hi1, ...], ascending, with lo(k+1) > hi(k) + 1. */
    private final long[] bounds;
    private final long size;

    private NidSet(long[] bounds) {
        this.bounds = bounds;
        long n = 0;
        for (int i = 0; i < bounds.length; i += 2) {
            n += bounds[i + 1] - bounds[i] + 1;
        }
        this.size = n;
    }

    public static NidSet empty() {
        return EMPTY;
    }

    /** The NIDs {@code first..last}, both included. */
    public static NidSet range(long first, long last) {
        checkNid(first);
        checkNid(last);
        if (first > last) {
            throw new IllegalArgumentException("NID range " + first + "-" + last + " is reversed: its start is above its end");
        }
        return new NidSet(new long[] {first, last});
    }

    /** The given NIDs in any order, duplicates allowed. */
    public static NidSet of(long... nids) {
        return copyOf(LongStream.of(nids));
    }

    /** The NIDs of a stream in any order, duplicates allowed. */
    public static NidSet copyOf(LongStream nids) {
        long[] sorted = nids.sorted().toArray();
        Builder b = new Builder();
        for (long nid : sorted) {
            checkNid(nid);
            b.add(nid, nid);
        }
        return b.build();
    }

    /** Parses a range list leniently ({@link Order#ANY}). */
    public static NidSet parse(String text) {
        return parse(text, Order.ANY);
    }

    /**
     * Parses a range list. Blank text is the empty set; white space around items is ignored.
     *
     * @throws NodeSyntaxException naming the bad item and its character offset in {@code text}
     */
    public static NidSet parse(String text, Order order) {
        return RangeListParser.parse(text, order);
    }

    public long size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Number of maximal runs of consecutive NIDs (the items of the canonical text). */
    public int rangeCount() {
        return bounds.length / 2;
    }

    /** First NID of the {@code k}-th run. */
    public long rangeFirst(int k) {
        return bounds[2 * k];
    }

    /** Last NID of the {@code k}-th run. */
    public long rangeLast(int k) {
        return bounds[2 * k + 1];
    }

    /** The smallest NID; the set must not be empty. */
    public long first() {
        requireNonEmpty();
        return bounds[0];
    }

    /** The largest NID; the set must not be empty. */
    public long last() {
        requireNonEmpty();
        return bounds[bounds.length - 1];
    }

    public boolean contains(long nid) {
        int k = runAtOrBefore(nid);
        return k >= 0 && nid <= bounds[2 * k + 1];
    }

    public boolean containsAll(NidSet other) {
        return other.minus(this).isEmpty();
    }

    /** True when the two sets share at least one NID. */
    public boolean overlaps(NidSet other) {
        int i = 0;
        int j = 0;
        while (i < bounds.length && j < other.bounds.length) {
            if (bounds[i + 1] < other.bounds[j]) {
                i += 2;
            } else if (other.bounds[j + 1] < bounds[i]) {
                j += 2;
            } else {
                return true;
            }
        }
        return false;
    }

    public NidSet union(NidSet other) {
        Builder b = new Builder();
        int i = 0;
        int j = 0;
        while (i < bounds.length || j < other.bounds.length) {
            if (j >= other.bounds.length || (i < bounds.length && bounds[i] <= other.bounds[j])) {
                b.add(bounds[i], bounds[i + 1]);
                i += 2;
            } else {
                b.add(other.bounds[j], other.bounds[j + 1]);
                j += 2;
            }
        }
        return b.build();
    }

    public NidSet intersection(NidSet other) {
        Builder b = new Builder();
        int i = 0;
        int j = 0;
        while (i < bounds.length && j < other.bounds.length) {
            long lo = Math.max(bounds[i], other.bounds[j]);
            long hi = Math.min(bounds[i + 1], other.bounds[j + 1]);
            if (lo <= hi) {
                b.add(lo, hi);
            }
            if (bounds[i + 1] < other.bounds[j + 1]) {
                i += 2;
            } else {
                j += 2;
            }
        }
        return b.build();
    }

    /** The NIDs of this set that are not in {@code other}. */
    public NidSet minus(NidSet other) {
        Builder b = new Builder();
        int j = 0;
        for (int i = 0; i < bounds.length; i += 2) {
            long lo = bounds[i];
            long hi = bounds[i + 1];
            while (j < other.bounds.length && other.bounds[j + 1] < lo) {
                j += 2;
            }
            int k = j;
            while (lo <= hi && k < other.bounds.length && other.bounds[k] <= hi) {
                if (other.bounds[k] > lo) {
                    b.add(lo, other.bounds[k] - 1);
                }
                if (other.bounds[k + 1] >= hi) {
                    lo = hi + 1;
                } else {
                    lo = other.bounds[k + 1] + 1;
                }
                k += 2;
            }
            if (lo <= hi) {
                b.add(lo, hi);
            }
        }
        return b.build();
    }

    /** The first {@code n} NIDs in ascending order (all of them if the set is smaller). */
    public NidSet firstN(long n) {
        Builder b = new Builder();
        long left = n;
        for (int i = 0; i < bounds.length && left > 0; i += 2) {
            long take = Math.min(left, bounds[i + 1] - bounds[i] + 1);
            b.add(bounds[i], bounds[i] + take - 1);
            left -= take;
        }
        return b.build();
    }

    /** The NIDs in ascending order. */
    public LongStream stream() {
        return StreamSupport.longStream(Spliterators.spliterator(longIterator(), size,
                Spliterator.ORDERED | Spliterator.SORTED | Spliterator.DISTINCT | Spliterator.NONNULL), false);
    }

    /** The NIDs in ascending order; the set must hold fewer than 2^31 NIDs. */
    public long[] toArray() {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(size + " NIDs do not fit in an array");
        }
        return stream().toArray();
    }

    public PrimitiveIterator.OfLong longIterator() {
        return new PrimitiveIterator.OfLong() {
            private int run;
            private long next = bounds.length == 0 ? 0 : bounds[0];

            @Override
            public boolean hasNext() {
                return run < bounds.length;
            }

            @Override
            public long nextLong() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                long nid = next;
                if (nid == bounds[run + 1]) {
                    run += 2;
                    if (run < bounds.length) {
                        next = bounds[run];
                    }
                } else {
                    next = nid + 1;
                }
                return nid;
            }
        };
    }

    @Override
    public PrimitiveIterator.OfLong iterator() {
        return longIterator();
    }

    /** The canonical range list, e.g. {@code 1-5,8,10-11}; empty text for the empty set. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(bounds.length * 6);
        for (int i = 0; i < bounds.length; i += 2) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(bounds[i]);
            if (bounds[i + 1] != bounds[i]) {
                sb.append('-').append(bounds[i + 1]);
            }
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NidSet other && Arrays.equals(bounds, other.bounds);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bounds);
    }

    /** Index of the run whose first NID is the largest one ≤ nid, or -1. */
    private int runAtOrBefore(long nid) {
        int lo = 0;
        int hi = bounds.length / 2 - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (bounds[2 * mid] <= nid) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    private void requireNonEmpty() {
        if (bounds.length == 0) {
            throw new java.util.NoSuchElementException("the NID set is empty");
        }
    }

    static void checkNid(long nid) {
        if (nid < 0 || nid > MAX_NID) {
            throw new IllegalArgumentException("NID " + nid + " is outside 0.." + MAX_NID);
        }
    }

    /** Collects runs given in ascending order of their first NID, merging overlapping and adjacent ones. */
    static final class Builder {
        private long[] b = new long[16];
        private int n;

        void add(long lo, long hi) {
            if (n > 0 && lo <= b[n - 1] + 1) {
                b[n - 1] = Math.max(b[n - 1], hi);
                return;
            }
            if (n == b.length) {
                b = Arrays.copyOf(b, n * 2);
            }
            b[n++] = lo;
            b[n++] = hi;
        }

        NidSet build() {
            return n == 0 ? EMPTY : new NidSet(Arrays.copyOf(b, n));
        }
    }
}
