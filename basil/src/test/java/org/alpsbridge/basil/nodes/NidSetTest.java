package org.alpsbridge.basil.nodes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.alpsbridge.basil.nodes.NidSet.Order;
import org.junit.jupiter.api.Test;

class NidSetTest {

    @Test
    void theProtocolExampleParsesToItsNids() {
        NidSet s = NidSet.parse("1-5,8,10-11,5001-5003");
        assertEquals(11, s.size());
        assertArrayEquals(new long[] {1, 2, 3, 4, 5, 8, 10, 11, 5001, 5002, 5003}, s.toArray());
        assertEquals("1-5,8,10-11,5001-5003", s.toString());
        assertEquals(4, s.rangeCount());
    }

    @Test
    void blankTextIsTheEmptySet() {
        assertTrue(NidSet.parse("").isEmpty());
        assertTrue(NidSet.parse("  \n ").isEmpty());
        assertEquals("", NidSet.empty().toString());
    }

    @Test
    void anyOrderSortsMergesOverlapsAndDropsDuplicates() {
        assertEquals("1-11", NidSet.parse("8-11,1-5,6,7,3,5-6").toString());
        assertEquals("1-3,7", NidSet.parse("7,3,2,1,7,7").toString());
        assertEquals("1-3", NidSet.parse(" 1 ,\n2-3 ").toString());
    }

    @Test
    void ascendingOrderRejectsOverlapsAndDisorderButAllowsAdjacentItems() {
        assertEquals("1-4", NidSet.parse("1-3,4", Order.ASCENDING).toString());
        NodeSyntaxException overlap = assertThrows(NodeSyntaxException.class, () -> NidSet.parse("1-3,3", Order.ASCENDING));
        assertEquals(4, overlap.offset());
        assertEquals("3", overlap.item());
        assertTrue(overlap.getMessage().contains("overlaps the item before it, which ends at 3"), overlap.getMessage());
        NodeSyntaxException disorder = assertThrows(NodeSyntaxException.class, () -> NidSet.parse("5,2", Order.ASCENDING));
        assertTrue(disorder.getMessage().contains("out of order"), disorder.getMessage());
    }

    @Test
    void canonicalOrderAcceptsOnlyTheTextToStringWrites() {
        assertEquals("1-5,8", NidSet.parse("1-5,8", Order.CANONICAL).toString());
        assertThrows(NodeSyntaxException.class, () -> NidSet.parse("1-5,6", Order.CANONICAL));
        assertThrows(NodeSyntaxException.class, () -> NidSet.parse("4-4", Order.CANONICAL));
        assertThrows(NodeSyntaxException.class, () -> NidSet.parse("007", Order.CANONICAL));
        assertThrows(NodeSyntaxException.class, () -> NidSet.parse("1, 3", Order.CANONICAL));
        assertEquals("0", NidSet.parse("0", Order.CANONICAL).toString());
    }

    @Test
    void leadingZerosFromNidHostNamesAreAcceptedLeniently() {
        assertEquals("42,100", NidSet.parse("00042,00100").toString());
    }

    @Test
    void errorsNameTheBadItemAndItsOffset() {
        NodeSyntaxException e = assertThrows(NodeSyntaxException.class, () -> NidSet.parse("1-5,8,1x0,12"));
        assertEquals(6, e.offset());
        assertEquals("1x0", e.item());
        assertTrue(e.getMessage().startsWith("NID range list: '1x0' at offset 6 is not a NID or a range N-M (unexpected 'x' at offset 7)"),
                e.getMessage());
        assertEquals(4, assertThrows(NodeSyntaxException.class, () -> NidSet.parse("1-5,,8")).offset());
        assertEquals(4, assertThrows(NodeSyntaxException.class, () -> NidSet.parse("1-5,")).offset());
        assertTrue(assertThrows(NodeSyntaxException.class, () -> NidSet.parse("9-3")).getMessage().contains("reversed range: 9 is above 3"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> NidSet.parse("-3")).getMessage().contains("missing a number"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> NidSet.parse("3-")).getMessage().contains("missing a number"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> NidSet.parse("1-2-3")).getMessage().contains("unexpected '-'"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> NidSet.parse("99999999999999999999")).getMessage()
                .contains("above the largest accepted"));
    }

    @Test
    void nidsBeyondSixteenAndThirtyTwoBitsSurvive() {
        NidSet s = NidSet.parse("2047-2049,65535-65537,4294967295-4294967296");
        assertEquals(8, s.size());
        assertTrue(s.contains(4_294_967_296L));
        assertTrue(s.contains(65_536));
        assertEquals("2047-2049,65535-65537,4294967295-4294967296", s.toString());
        NidSet huge = NidSet.range(0, 4_294_967_295L);
        assertEquals(4_294_967_296L, huge.size());
        assertEquals(1, huge.rangeCount());
    }

    @Test
    void setAlgebraWorksOnRuns() {
        NidSet a = NidSet.parse("1-10,20-30");
        NidSet b = NidSet.parse("5-25,40");
        assertEquals("1-30,40", a.union(b).toString());
        assertEquals("5-10,20-25", a.intersection(b).toString());
        assertEquals("1-4,26-30", a.minus(b).toString());
        assertEquals("11-19,40", b.minus(a).toString());
        assertTrue(a.overlaps(b));
        assertFalse(a.overlaps(NidSet.parse("11-19,31")));
        assertTrue(a.containsAll(NidSet.parse("2-3,25")));
        assertFalse(a.containsAll(NidSet.parse("2-3,15")));
        assertEquals("1-10,20-22", a.firstN(13).toString());
        assertEquals(1, a.first());
        assertEquals(30, a.last());
    }

    @Test
    void containsUsesTheRunsNotAScan() {
        NidSet s = NidSet.parse("1-5,8,10-11");
        assertTrue(s.contains(1));
        assertTrue(s.contains(5));
        assertFalse(s.contains(6));
        assertTrue(s.contains(8));
        assertFalse(s.contains(0));
        assertFalse(s.contains(12));
    }

    @Test
    void negativeOrReversedBuildersAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> NidSet.of(-1));
        assertThrows(IllegalArgumentException.class, () -> NidSet.range(5, 4));
        assertEquals("1-3", NidSet.of(3, 1, 2, 2).toString());
    }
}
