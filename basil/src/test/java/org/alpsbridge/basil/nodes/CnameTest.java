package org.alpsbridge.basil.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.alpsbridge.basil.nodes.Cname.Layout;
import org.junit.jupiter.api.Test;

class CnameTest {

    @Test
    void aCnameNamesCabinetChassisSlotAndNode() {
        Cname c = Cname.parse("c12-3c2s15n3");
        assertEquals(new Cname(12, 3, 2, 15, 3), c);
        assertEquals("c12-3c2s15n3", c.toString());
    }

    @Test
    void xcNidsRunBladeByBladeThroughA192NodeCabinet() {
        Layout xc = Layout.aries(16);
        assertEquals(0, Cname.parse("c0-0c0s0n0").toNid(xc));
        assertEquals(2 * 64 + 5 * 4 + 3, Cname.parse("c0-0c2s5n3").toNid(xc));
        assertEquals(192, Cname.parse("c1-0c0s0n0").toNid(xc));
        assertEquals(192 * 16, Cname.parse("c0-1c0s0n0").toNid(xc));
        assertEquals("c0-0c0s5n0", Cname.ofNid(20, xc).toString());
    }

    @Test
    void geminiCabinetsHoldHalfAsManyNodes() {
        assertEquals("c0-0c2s7n3", Cname.ofNid(95, Layout.gemini(16)).toString());
        assertEquals("c1-0c0s0n0", Cname.ofNid(96, Layout.gemini(16)).toString());
    }

    @Test
    void nidAndCnameRoundTripOverAHundredThousandNodes() {
        for (Layout layout : new Layout[] {Layout.aries(16), Layout.gemini(25), Layout.aries(1)}) {
            for (long nid = 0; nid < 100_000; nid++) {
                Cname c = Cname.ofNid(nid, layout);
                assertEquals(nid, c.toNid(layout));
                assertEquals(c, Cname.parse(c.toString()));
            }
        }
    }

    @Test
    void partsThatDoNotExistInTheLayoutAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Cname.parse("c0-0c0s9n0").toNid(Layout.gemini(4)));
        assertTrue(e.getMessage().contains("slot 9 does not exist in a layout of 8 (0..7)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Cname.parse("c4-0c0s0n0").toNid(Layout.gemini(4)));
    }

    @Test
    void malformedCnamesAreRejectedWithTheOffset() {
        assertEquals(4, assertThrows(NodeSyntaxException.class, () -> Cname.parse("c0-0x0s5n0")).offset());
        assertEquals(10, assertThrows(NodeSyntaxException.class, () -> Cname.parse("c0-0c0s5n0x")).offset());
        assertEquals(9, assertThrows(NodeSyntaxException.class, () -> Cname.parse("c0-0c0s5n")).offset());
        assertThrows(NodeSyntaxException.class, () -> Cname.parse("nid00001"));
        assertThrows(NodeSyntaxException.class, () -> Cname.parse("c99999999999-0c0s0n0"));
    }
}
