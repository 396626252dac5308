package org.alpsbridge.affinity.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CpuListsTest {

    private static BitSet set(int... cpus) {
        BitSet s = new BitSet();
        for (int c : cpus) {
            s.set(c);
        }
        return s;
    }

    @Test
    void cstrWritesRunsOfThreeAsRangesAndRunsOfTwoAsPairs() {
        assertEquals("0-3", CpuLists.cstr(set(0, 1, 2, 3)));
        assertEquals("2,3", CpuLists.cstr(set(2, 3)));
        assertEquals("0,2,4-6,9,10", CpuLists.cstr(set(0, 2, 4, 5, 6, 9, 10)));
        assertEquals("", CpuLists.cstr(new BitSet()));
    }

    @Test
    void linuxListWritesEveryRunOfTwoOrMoreAsRange() {
        assertEquals("2-3", CpuLists.linux(set(2, 3)));
        assertEquals("0,2,4-6,9-10", CpuLists.linux(set(0, 2, 4, 5, 6, 9, 10)));
    }

    @Test
    void parseReadsRangesSinglesAndStrides() {
        assertEquals(set(0, 1, 2, 3, 8, 10, 11), CpuLists.parse("0-3,8,10-11"));
        assertEquals(set(0, 2, 4, 6), CpuLists.parse("0-7:2"));
        assertEquals(new BitSet(), CpuLists.parse(" "));
        assertEquals(set(5), CpuLists.parse("5\n"));
    }

    @Test
    void parseNamesTheBadElement() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuLists.parse("0-3,x"))
                .getMessage().contains("'x'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuLists.parse("7-3"))
                .getMessage().contains("descending"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuLists.parse("0,,1"))
                .getMessage().contains("empty element"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuLists.parse("123456"))
                .getMessage().contains("not a CPU number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuLists.parse("9000"))
                .getMessage().contains("exceeds"));
    }

    @Test
    void hexIsLowerCaseWithoutLeadingZeros() {
        assertEquals("0xf", CpuLists.hex(set(0, 1, 2, 3)));
        assertEquals("0xf0", CpuLists.hex(set(4, 5, 6, 7)));
        assertEquals("0x10001", CpuLists.hex(set(0, 16)));
        assertEquals("0x0", CpuLists.hex(new BitSet()));
        assertEquals(set(0, 1, 2, 3, 32), CpuLists.parseHex("0x1,0000000f"));
        assertEquals(set(4), CpuLists.parseHex("10"));
    }

    @Test
    void everyFormatRoundTripsRandomSets() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 2000; round++) {
            BitSet s = new BitSet();
            int n = random.nextInt(300);
            for (int i = 0; i < n; i++) {
                s.set(random.nextInt(1 + random.nextInt(600)));
            }
            String why = "seed " + seed + " set " + s;
            assertEquals(s, CpuLists.parse(CpuLists.linux(s)), why);
            assertEquals(s, CpuLists.parse(CpuLists.cstr(s)), why);
            assertEquals(s, CpuLists.parse(CpuLists.expanded(s)), why);
            assertEquals(s, CpuLists.parseHex(CpuLists.hex(s)), why);
        }
    }
}
