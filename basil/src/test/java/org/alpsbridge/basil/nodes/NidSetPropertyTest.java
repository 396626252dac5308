package org.alpsbridge.basil.nodes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.alpsbridge.basil.nodes.NidSet.Order;
import org.junit.jupiter.api.Test;

/** NidSet against a plain TreeSet model, on random range lists of up to 100,000 NIDs. */
class NidSetPropertyTest {

    /** A random set: dense runs with gaps, as a real machine's free or down nodes look. */
    static TreeSet<Long> randomNids(SplittableRandom r, int maxNodes, long base) {
        TreeSet<Long> nids = new TreeSet<>();
        int target = r.nextInt(maxNodes + 1);
        long nid = base + r.nextInt(50);
        while (nids.size() < target) {
            int run = 1 + r.nextInt(r.nextBoolean() ? 3 : 400);
            for (int i = 0; i < run && nids.size() < target; i++) {
                nids.add(nid++);
            }
            nid += 1 + r.nextInt(r.nextInt(4) == 0 ? 1000 : 5);
        }
        return nids;
    }

    /** Writes the NIDs as a messy but valid list: shuffled items, split runs, repeats, spaces, leading zeros. */
    static String messyText(SplittableRandom r, TreeSet<Long> nids) {
        List<String> items = new ArrayList<>();
        for (String canonical : canonical(nids).split(",")) {
            if (canonical.isEmpty()) {
                continue;
            }
            String[] lohi = canonical.split("-");
            long lo = Long.parseLong(lohi[0]);
            long hi = Long.parseLong(lohi[lohi.length - 1]);
            while (lo <= hi) {
                long end = r.nextInt(3) == 0 ? lo + r.nextLong(hi - lo + 1) : hi;
                items.add(padded(r, lo) + (end > lo || r.nextInt(8) == 0 ? "-" + padded(r, end) : ""));
                if (r.nextInt(10) == 0) {
                    items.add(" " + padded(r, lo) + " ");
                }
                lo = end + 1;
            }
        }
        Collections.shuffle(items, new java.util.Random(r.nextLong()));
        return String.join(",", items);
    }

    private static String padded(SplittableRandom r, long v) {
        return r.nextInt(6) == 0 ? String.format("%05d", v) : Long.toString(v);
    }

    /** The canonical text written by hand from the model, independently of NidSet. */
    static String canonical(TreeSet<Long> nids) {
        StringBuilder sb = new StringBuilder();
        Long start = null;
        Long prev = null;
        for (long n : nids) {
            if (prev != null && n == prev + 1) {
                prev = n;
                continue;
            }
            appendRun(sb, start, prev);
            start = n;
            prev = n;
        }
        appendRun(sb, start, prev);
        return sb.toString();
    }

    private static void appendRun(StringBuilder sb, Long start, Long end) {
        if (start == null) {
            return;
        }
        if (sb.length() > 0) {
            sb.append(',');
        }
        sb.append(start);
        if (!end.equals(start)) {
            sb.append('-').append(end);
        }
    }

    @Test
    void formatOfParseRoundTripsTheCanonicalText() {
        Seeds.check(200, r -> {
            TreeSet<Long> model = randomNids(r, 2_000, r.nextBoolean() ? 0 : 4_294_967_000L);
            String text = canonical(model);
            NidSet s = NidSet.parse(text, Order.CANONICAL);
            assertEquals(text, s.toString());
            assertEquals(model.size(), s.size());
            assertArrayEquals(model.stream().mapToLong(Long::longValue).toArray(), s.toArray());
        });
    }

    @Test
    void anyWayOfWritingASetNormalisesToTheSameCanonicalText() {
        Seeds.check(200, r -> {
            TreeSet<Long> model = randomNids(r, 2_000, 0);
            NidSet s = NidSet.parse(messyText(r, model));
            assertEquals(canonical(model), s.toString());
            assertEquals(s, NidSet.parse(s.toString(), Order.CANONICAL));
        });
    }

    @Test
    void hundredThousandNodeListsRoundTrip() {
        Seeds.check(5, r -> {
            TreeSet<Long> model = randomNids(r, 100_000, 0);
            while (model.size() < 100_000) {
                model.add(model.last() + 1 + r.nextInt(3));
            }
            String text = canonical(model);
            NidSet s = NidSet.parse(text, Order.CANONICAL);
            assertEquals(100_000, s.size());
            assertEquals(text, s.toString());
            assertEquals(s, NidSet.parse(messyText(r, model)));
            assertEquals(s, NidSet.copyOf(model.stream().mapToLong(Long::longValue)));
        });
    }

    @Test
    void setAlgebraAgreesWithTheModel() {
        Seeds.check(300, r -> {
            TreeSet<Long> a = randomNids(r, 500, 0);
            TreeSet<Long> b = randomNids(r, 500, r.nextInt(300));
            NidSet sa = NidSet.copyOf(a.stream().mapToLong(Long::longValue));
            NidSet sb = NidSet.copyOf(b.stream().mapToLong(Long::longValue));
            TreeSet<Long> union = new TreeSet<>(a);
            union.addAll(b);
            TreeSet<Long> inter = new TreeSet<>(a);
            inter.retainAll(b);
            TreeSet<Long> minus = new TreeSet<>(a);
            minus.removeAll(b);
            assertEquals(canonical(union), sa.union(sb).toString());
            assertEquals(canonical(inter), sa.intersection(sb).toString());
            assertEquals(canonical(minus), sa.minus(sb).toString());
            assertEquals(!inter.isEmpty(), sa.overlaps(sb));
            assertEquals(b.isEmpty() || a.containsAll(b), sa.containsAll(sb));
            long probe = r.nextInt(1200);
            assertEquals(a.contains(probe), sa.contains(probe));
        });
    }

    @Test
    void strictOrdersRejectWhatTheyMustAndAcceptWhatTheyMay() {
        Seeds.check(200, r -> {
            TreeSet<Long> model = randomNids(r, 300, 0);
            if (model.size() < 2) {
                return;
            }
            List<Long> list = new ArrayList<>(model);
            // Ascending single NIDs are fine for ASCENDING, never canonical once two are consecutive.
            String singles = String.join(",", list.stream().map(String::valueOf).toList());
            assertEquals(canonical(model), NidSet.parse(singles, Order.ASCENDING).toString());
            // Swapping two items breaks ASCENDING, and the error points at the item that came too early.
            int i = r.nextInt(list.size() - 1);
            Collections.swap(list, i, i + 1);
            String swapped = String.join(",", list.stream().map(String::valueOf).toList());
            NodeSyntaxException e = assertThrows(NodeSyntaxException.class, () -> NidSet.parse(swapped, Order.ASCENDING));
            assertEquals(String.valueOf(list.get(i + 1)), e.item());
            int offset = String.join(",", list.subList(0, i + 1).stream().map(String::valueOf).toList()).length() + 1;
            assertEquals(offset, e.offset());
            assertEquals(canonical(model), NidSet.parse(swapped).toString());
        });
    }
}
