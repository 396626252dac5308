package org.alpsbridge.basil.nodes;

import java.util.Arrays;

/** Reads the ALPS range-list text ({@code 1-5,8,10-11}) into a {@link NidSet} under an {@link NidSet.Order} rule. */
final class RangeListParser {

    private static final String WHAT = "NID range list";

    private final String text;
    private final NidSet.Order order;
    private long[] runs = new long[16];
    /** Start and end offset of each item, in the same layout as {@link #runs}. */
    private int[] spans = new int[16];
    private int n;
    private boolean ascending = true;

    private RangeListParser(String text, NidSet.Order order) {
        this.text = text;
        this.order = order;
    }

    static NidSet parse(String text, NidSet.Order order) {
        if (text == null) {
            throw new IllegalArgumentException(WHAT + ": null text");
        }
        if (text.isBlank()) {
            return NidSet.empty();
        }
        return new RangeListParser(text, order).run();
    }

    /**
     * The items of a range list as written (lenient rules, like {@link NidSet.Order#ANY}), for readers that need
     * their order.
     */
    static Items items(String text) {
        if (text == null) {
            throw new IllegalArgumentException(WHAT + ": null text");
        }
        RangeListParser p = new RangeListParser(text, NidSet.Order.ANY);
        if (!text.isBlank()) {
            p.scan();
        }
        return p.new Items();
    }

    /** Items in written order: item k covers NIDs {@code first(k)..last(k)}. */
    final class Items {
        int count() {
            return n / 2;
        }

        long first(int k) {
            return runs[2 * k];
        }

        long last(int k) {
            return runs[2 * k + 1];
        }

        NodeSyntaxException error(int k, String problem) {
            return RangeListParser.this.error(spans[2 * k], spans[2 * k + 1], problem);
        }
    }

    private NidSet run() {
        scan();
        if (!ascending) {
            sortRuns();
        }
        NidSet.Builder b = new NidSet.Builder();
        for (int i = 0; i < n; i += 2) {
            b.add(runs[i], runs[i + 1]);
        }
        return b.build();
    }

    private void scan() {
        int start = 0;
        while (true) {
            int comma = text.indexOf(',', start);
            int end = comma < 0 ? text.length() : comma;
            item(start, end);
            if (comma < 0) {
                break;
            }
            start = comma + 1;
        }
    }

    private void item(int from, int to) {
        int s = from;
        int e = to;
        while (s < e && Character.isWhitespace(text.charAt(s))) {
            s++;
        }
        while (e > s && Character.isWhitespace(text.charAt(e - 1))) {
            e--;
        }
        if (order == NidSet.Order.CANONICAL && (s != from || e != to)) {
            throw error(from, to, "has white space, which the canonical form does not");
        }
        if (s == e) {
            throw error(s, e, "is empty (a comma at the start or end, or two commas in a row)");
        }
        int dash = text.indexOf('-', s);
        if (dash >= e) {
            dash = -1;
        }
        long lo = number(s, dash < 0 ? e : dash, s, e);
        long hi = dash < 0 ? lo : number(dash + 1, e, s, e);
        if (lo > hi) {
            throw error(s, e, "is a reversed range: " + lo + " is above " + hi);
        }
        if (order == NidSet.Order.CANONICAL && dash >= 0 && lo == hi) {
            throw error(s, e, "is a one-NID range; the canonical form writes " + lo);
        }
        if (n > 0) {
            long prevHi = runs[n - 1];
            if (lo <= prevHi) {
                if (order != NidSet.Order.ANY) {
                    throw error(s, e, lo >= runs[n - 2]
                            ? "overlaps the item before it, which ends at " + prevHi
                            : "is out of order: it starts below the item before it (" + runs[n - 2] + ")");
                }
                ascending = false;
            } else if (lo == prevHi + 1 && order == NidSet.Order.CANONICAL) {
                throw error(s, e, "continues the item before it, which ends at " + prevHi + "; the canonical form merges them");
            }
        }
        if (n == runs.length) {
            runs = Arrays.copyOf(runs, n * 2);
            spans = Arrays.copyOf(spans, n * 2);
        }
        spans[n] = s;
        spans[n + 1] = e;
        runs[n++] = lo;
        runs[n++] = hi;
    }

    private long number(int s, int e, int itemStart, int itemEnd) {
        if (s == e) {
            throw error(itemStart, itemEnd, "is missing a number; expected N or N-M");
        }
        if (order == NidSet.Order.CANONICAL && e - s > 1 && text.charAt(s) == '0') {
            throw error(itemStart, itemEnd, "has a leading zero, which the canonical form does not");
        }
        long v = 0;
        for (int i = s; i < e; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw error(itemStart, itemEnd, "is not a NID or a range N-M (unexpected '" + c + "' at offset " + i + ")");
            }
            v = v * 10 + (c - '0');
            if (v > NidSet.MAX_NID) {
                throw error(itemStart, itemEnd, "holds a NID above the largest accepted, " + NidSet.MAX_NID);
            }
        }
        return v;
    }

    /** Sorts the (lo, hi) pairs by lo; only needed for lists written out of order. */
    private void sortRuns() {
        int pairs = n / 2;
        Integer[] idx = new Integer[pairs];
        for (int i = 0; i < pairs; i++) {
            idx[i] = i;
        }
        long[] src = runs;
        Arrays.sort(idx, (a, b) -> Long.compare(src[2 * a], src[2 * b]));
        long[] sorted = new long[n];
        for (int i = 0; i < pairs; i++) {
            sorted[2 * i] = src[2 * idx[i]];
            sorted[2 * i + 1] = src[2 * idx[i] + 1];
        }
        runs = sorted;
    }

    private NodeSyntaxException error(int s, int e, String problem) {
        return new NodeSyntaxException(WHAT, text, s, text.substring(s, e), problem);
    }
}
