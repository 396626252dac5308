package org.alpsbridge.basil.nodes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class NidOrderTest {

    @Test
    void slurmsRankOrderIsKeptAndOnlyRisingRunsAreMerged() {
        assertEquals("5-8,1-3,20", NidOrder.format(5, 6, 7, 8, 1, 2, 3, 20));
        assertEquals("3,2,1", NidOrder.format(3, 2, 1));
        assertEquals("", NidOrder.format());
        assertArrayEquals(new long[] {5, 6, 7, 8, 1, 2, 3, 20}, NidOrder.parse("5-8,1-3,20"));
    }

    @Test
    void aRepeatedNidHasNoPlaceInAnOrderedList() {
        IllegalArgumentException f = assertThrows(IllegalArgumentException.class, () -> NidOrder.format(4, 9, 4));
        assertTrue(f.getMessage().contains("NID 4 appears twice"), f.getMessage());
        NodeSyntaxException p = assertThrows(NodeSyntaxException.class, () -> NidOrder.parse("10-20,1-3,15"));
        assertEquals("15", p.item());
        assertEquals(10, p.offset());
        assertTrue(p.getMessage().contains("repeats NID 15"), p.getMessage());
        NodeSyntaxException q = assertThrows(NodeSyntaxException.class, () -> NidOrder.parse("12,10-20"));
        assertEquals("10-20", q.item());
    }

    @Test
    void expansionIsBounded() {
        NodeSyntaxException e = assertThrows(NodeSyntaxException.class, () -> NidOrder.parse("0-99999999999"));
        assertTrue(e.getMessage().contains("past the limit of " + NidOrder.DEFAULT_MAX_NIDS), e.getMessage());
        assertEquals(10, NidOrder.parse("1-10", 10).length);
        assertThrows(NodeSyntaxException.class, () -> NidOrder.parse("1-10,20", 10));
    }

    @Test
    void syntaxErrorsAreTheRangeListOnes() {
        assertEquals("x", assertThrows(NodeSyntaxException.class, () -> NidOrder.parse("1,x")).item());
        assertEquals(0, NidOrder.parse(" ").length);
    }

    @Test
    void parseOfFormatRoundTripsAnyOrder() {
        Seeds.check(200, r -> {
            TreeSet<Long> model = NidSetPropertyTest.randomNids(r, 3_000, 0);
            List<Long> order = new ArrayList<>(model);
            // Rank orders are blocks of consecutive NIDs in shuffled block order, as cabinets or groups would be.
            List<List<Long>> blocks = new ArrayList<>();
            for (int i = 0; i < order.size(); ) {
                int len = 1 + r.nextInt(40);
                blocks.add(order.subList(i, Math.min(order.size(), i + len)));
                i += len;
            }
            Collections.shuffle(blocks, new java.util.Random(r.nextLong()));
            long[] nids = blocks.stream().flatMap(List::stream).mapToLong(Long::longValue).toArray();
            String text = NidOrder.format(nids);
            assertArrayEquals(nids, NidOrder.parse(text));
            assertEquals(NidSet.copyOf(model.stream().mapToLong(Long::longValue)), NidSet.parse(text));
        });
    }
}
