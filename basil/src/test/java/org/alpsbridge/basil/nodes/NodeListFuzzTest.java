package org.alpsbridge.basil.nodes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzzing of the node-list syntaxes an admin or a scheduler hands us (ALPS range lists, the
 * ordered lists of a RESERVE's NodeParam, Slurm hostlists, cnames): parse, print and parse again is the
 * identity; the set algebra keeps its laws; an ordered list keeps its order; a cname maps to its NID and back;
 * the caps refuse instead of allocating; bad text is a {@link NodeSyntaxException}, never anything else.
 */
class NodeListFuzzTest {

    private static final int CAP = 100_000;

    @FuzzTest
    void rangeListsRoundTripAndKeepTheSetLaws(FuzzedDataProvider data) {
        NidSet a = parseOrNull(data.consumeString(200));
        NidSet b = parseOrNull(data.consumeRemainingAsString());
        for (NidSet s : new NidSet[] {a, b}) {
            if (s != null) {
                assertEquals(s, NidSet.parse(s.toString()), "parse(print(x)) == x for " + s);
            }
        }
        if (a == null || b == null) {
            return;
        }
        NidSet union = a.union(b);
        NidSet both = a.intersection(b);
        assertEquals(union, b.union(a), "union commutes");
        assertEquals(both, b.intersection(a), "intersection commutes");
        assertEquals(a.size() + b.size() - both.size(), union.size(), "inclusion-exclusion");
        assertEquals(a, a.minus(b).union(both), "(a - b) + (a & b) == a");
        assertTrue(!a.minus(b).overlaps(b), "a - b shares nothing with b");
        assertTrue(union.containsAll(a) && union.containsAll(b) && a.containsAll(both), "subset laws");
        assertEquals(both.isEmpty(), !a.overlaps(b), "overlaps == non-empty intersection");
    }

    @FuzzTest
    void hostlistsRoundTripWithinTheirCap(String text) {
        if (text == null) {
            return; // text from outside is never null; null is the caller's bug, refused by a precondition
        }
        Hostlist list;
        try {
            list = Hostlist.parse(text, CAP);
        } catch (NodeSyntaxException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank());
            return;
        }
        assertTrue(list.size() <= CAP, "the cap holds");
        Hostlist again = Hostlist.parse(list.toString(), CAP);
        assertEquals(list.hosts(), again.hosts(), "parse(print(x)) == x for " + list);
    }

    @FuzzTest
    void orderedListsKeepTheirOrderAndRoundTripWithinTheirCap(String text) {
        if (text == null) {
            return;
        }
        long[] nids;
        try {
            nids = NidOrder.parse(text, CAP);
        } catch (NodeSyntaxException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank());
            return;
        }
        assertTrue(nids.length <= CAP, "the cap holds");
        assertArrayEquals(nids, NidOrder.parse(NidOrder.format(nids), CAP), "parse(format(x)) == x, order kept");
        // As a set, an ordered list holds what the set syntax reads from the same text.
        assertEquals(NidSet.parse(text), NidSet.of(nids), "the ordered list and the set agree on " + text);
    }

    @FuzzTest
    void cnamesRoundTripAndMapToNidsAndBack(FuzzedDataProvider data) {
        Cname.Layout layout = new Cname.Layout(data.consumeInt(1, 64), data.consumeInt(1, 4), data.consumeInt(1, 32),
                data.consumeInt(1, 8));
        String text = data.consumeRemainingAsString();
        Cname name;
        try {
            name = Cname.parse(text);
        } catch (NodeSyntaxException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank());
            return;
        }
        assertEquals(name, Cname.parse(name.toString()), "parse(print(x)) == x for " + text);
        long nid;
        try {
            nid = name.toNid(layout);
        } catch (IllegalArgumentException outsideTheLayout) {
            assertTrue(outsideTheLayout.getMessage().contains(name.toString()), outsideTheLayout.getMessage());
            return;
        }
        assertEquals(name, Cname.ofNid(nid, layout), "ofNid(toNid(x)) == x under " + layout);
    }

    private static NidSet parseOrNull(String text) {
        try {
            NidSet s = NidSet.parse(text);
            assertTrue(s.size() >= 0);
            return s.size() > 10_000_000 ? null : s; // the laws hold at any size; keep each run quick
        } catch (NodeSyntaxException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank());
            return null;
        }
    }
}
