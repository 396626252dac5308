package org.alpsbridge.basil.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostlistTest {

    @Test
    void aNameThatIsAnotherNamesPrefixAloneStandsOnItsOwnWhenPrinted() {
        Hostlist list = Hostlist.parse("a1,a,a2");
        assertEquals("a1,a,a2", list.toString());
        assertEquals(list.hosts(), Hostlist.parse(list.toString()).hosts());
    }

    @Test
    void bracketRangesKeepTheZeroPaddingTheyAreWrittenWith() {
        Hostlist h = Hostlist.parse("nid[00001-00003,00200]");
        assertEquals(List.of("nid00001", "nid00002", "nid00003", "nid00200"), h.hosts());
        assertEquals(List.of("n8", "n9", "n10"), Hostlist.parse("n[8-10]").hosts());
        assertEquals(List.of("nid99999", "nid100000"), Hostlist.parse("nid[99999-100000]").hosts());
    }

    @Test
    void itemsAreSeparatedByCommasOrWhiteSpaceOutsideBrackets() {
        assertEquals(List.of("login1", "nid00042", "nid00043", "sdb"), Hostlist.parse("login1, nid[00042-00043]\n sdb").hosts());
    }

    @Test
    void severalBracketGroupsExpandAsACartesianProduct() {
        assertEquals(List.of("c0-0c0s0n0", "c0-0c0s0n1", "c0-0c0s1n0", "c0-0c0s1n1"), Hostlist.parse("c0-0c0s[0-1]n[0-1]").hosts());
        assertEquals(List.of("a1x", "a2x"), Hostlist.parse("a[1-2]x").hosts());
    }

    @Test
    void formattingCompressesConsecutiveNamesAndKeepsTheirOrder() {
        assertEquals("nid[00001-00128,00200]", Hostlist.parse("nid[00001-00128],nid00200").toString());
        assertEquals("nid[00005-00006,00001-00002]", Hostlist.parse("nid00005,nid00006,nid00001,nid00002").toString());
        assertEquals("c0-0c0s5n[0-3],login1,nid00042", Hostlist.parse("c0-0c0s5n0,c0-0c0s5n1,c0-0c0s5n2,c0-0c0s5n3,login1,nid00042").toString());
        assertEquals("n[1,01,001]", Hostlist.parse("n1,n01,n001").toString());
        assertEquals("nid[99999-100000]", Hostlist.parse("nid99999,nid100000").toString());
        assertEquals("[1-3]", Hostlist.of(List.of("1", "2", "3")).toString());
        assertEquals("", Hostlist.parse("").toString());
    }

    @Test
    void repeatsAreKeptAndSortedDistinctRemovesThem() {
        Hostlist h = Hostlist.parse("nid00010,nid00002,nid00010,login2,nid00001");
        assertEquals(5, h.size());
        assertEquals("login2,nid[00001-00002,00010]", h.sortedDistinct().toString());
        assertEquals(List.of("n2", "n10", "n10a"), Hostlist.parse("n10a,n10,n2").sortedDistinct().hosts());
    }

    @Test
    void nidNamesFollowSlurmsFiveDigitForm() {
        assertEquals("nid00042", Hostlist.nidName(42));
        assertEquals("nid123456", Hostlist.nidName(123_456));
        assertEquals("nid4294967296", Hostlist.nidName(4_294_967_296L));
        assertEquals(42, Hostlist.nidOf("nid00042"));
        assertEquals(4_294_967_296L, Hostlist.nidOf("nid4294967296"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> Hostlist.nidOf("nid42")).getMessage().contains("expected nid00042"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> Hostlist.nidOf("login1")).getMessage().contains("like nid00042"));
        assertThrows(NodeSyntaxException.class, () -> Hostlist.nidOf("nid"));
        assertThrows(NodeSyntaxException.class, () -> Hostlist.nidOf("nid0004x"));
    }

    @Test
    void nidHostlistsConvertToAndFromRangeLists() {
        NidSet nids = NidSet.parse("1-128,200");
        assertEquals("nid[00001-00128,00200]", Hostlist.ofNids(nids).toString());
        assertEquals(nids, Hostlist.parse("nid[00200,00001-00128]").toNids());
        NodeSyntaxException e = assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("nid00001,login1").toNids());
        assertEquals("login1", e.item());
    }

    @Test
    void errorsNameTheItemAndTheOffsetOfTheProblem() {
        NodeSyntaxException reversed = assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("login1,nid[00009-00003]"));
        assertEquals(7, reversed.offset());
        assertEquals("nid[00009-00003]", reversed.item());
        assertTrue(reversed.getMessage().contains("reversed range 00009-00003 at offset 11"), reversed.getMessage());
        assertTrue(assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("nid[1-3")).getMessage().contains("never closed"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("nid1-3]")).getMessage().contains("without its '['"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("nid[1-[3]]")).getMessage().contains("inside brackets"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("nid[1,,3]")).getMessage().contains("empty range"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("nid[a-3]")).getMessage().contains("'a' at offset 4"));
        assertTrue(assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("nid[1-]")).getMessage().contains("missing number"));
        assertEquals(7, assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("nid001,,nid002")).offset());
        assertEquals(0, assertThrows(NodeSyntaxException.class, () -> Hostlist.parse(",nid002")).offset());
        assertEquals(7, assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("nid002,")).offset());
    }

    @Test
    void expansionIsBoundedSoAHostileListCannotExhaustMemory() {
        NodeSyntaxException e = assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("n[0-999999999999]"));
        assertTrue(e.getMessage().contains("past the limit of " + Hostlist.DEFAULT_MAX_HOSTS), e.getMessage());
        assertThrows(NodeSyntaxException.class, () -> Hostlist.parse("a[0-999]b[0-999]c[0-999]", 1_000_000));
        assertEquals(1_000_000, Hostlist.parse("a[0-999]b[0-999]", 1_000_000).size());
    }

    @Test
    void namesGivenDirectlyMayNotHoldHostlistSyntax() {
        assertThrows(NodeSyntaxException.class, () -> Hostlist.of(List.of("a,b")));
        assertThrows(NodeSyntaxException.class, () -> Hostlist.of(List.of("a[1]")));
        assertThrows(IllegalArgumentException.class, () -> Hostlist.of(List.of("")));
    }
}
