package org.alpsbridge.basil.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzzing of the node-list syntaxes an admin or a scheduler hands us (ALPS range lists,
 * Slurm hostlists): parse, print and parse again is the identity; the set algebra keeps its laws; the caps
 * refuse instead of allocating; bad text is a {@link NodeSyntaxException}, never anything else.
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
