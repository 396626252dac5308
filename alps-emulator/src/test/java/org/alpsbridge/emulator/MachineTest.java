package org.alpsbridge.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MachineTest {

    @Test
    void aXc30NodeIsNamedByCabinetChassisSlotAndNodeFromItsNid() {
        assertEquals("c0-0c0s0n0", Machine.cname(0, true));
        assertEquals("c0-0c2s5n3", Machine.cname(2 * 64 + 5 * 4 + 3, true));
        assertEquals("c1-0c0s0n0", Machine.cname(192, true));
        assertEquals("c0-1c0s0n0", Machine.cname(192 * Machine.CABINETS_PER_ROW, true));
    }

    @Test
    void geminiCabinetsHoldHalfAsManyNodes() {
        assertEquals("c0-0c2s7n3", Machine.cname(95, false));
        assertEquals("c1-0c0s0n0", Machine.cname(96, false));
    }

    @Test
    void serviceNodesTakeTheFirstNidsAndNeverBecomeComputeNodes() {
        Machine m = Machine.parse("xc30:10,service=4,interactive=2");
        assertEquals(10, m.size());
        assertEquals(4, m.nid(0));
        assertEquals("c0-0c0s1n0", m.name(0));
        assertEquals(-1, m.indexOf(3));
        assertEquals(0, m.indexOf(4));
        assertEquals(Machine.ROLE_INTERACTIVE, m.initialRole(1));
        assertEquals(Machine.ROLE_BATCH, m.initialRole(2));
    }

    @Test
    void mixedMachinesNumberKindsInTheOrderGiven() {
        Machine m = Machine.parse("mixed:xc30:3+knl:2+xc50-gpu:1");
        assertEquals(6, m.size());
        assertEquals("xc30", m.hardware(2).kind());
        assertEquals("knl", m.hardware(3).kind());
        assertEquals(272, m.hardware(3).processors());
        assertEquals("Tesla_P100", m.hardware(5).accelerator().family());
        assertEquals(3, m.kinds().size());
    }

    @Test
    void theNodeKindsHaveTheHardwareOfTheirNamesakes() {
        Hardware xc30 = Hardware.named("xc30");
        assertEquals(32, xc30.processors());
        assertEquals(16, xc30.computeUnits());
        assertEquals(64 * 1024, xc30.memoryMb());
        assertEquals(32 * 1024, Hardware.named("xc30-32g").memoryMb());
        Hardware xe6 = Hardware.named("xe6");
        assertEquals(32, xe6.processors());
        assertEquals(16, xe6.computeUnits());
        assertEquals(4, xe6.segments());
        assertNull(xe6.accelerator());
        assertEquals("Tesla_K20X", Hardware.named("xk7").accelerator().family());
        assertEquals(16 * 1024, Hardware.named("knl").hbmMb());
    }

    @Test
    void segmentMemoryAddsUpToTheNode() {
        Hardware xe6 = Hardware.named("xe6-33g");
        long sum = 0;
        for (int s = 0; s < xe6.segments(); s++) {
            sum += xe6.segmentPages(s);
        }
        assertEquals(xe6.pages(), sum);
    }

    @Test
    void badSpecsAreRejectedWithTheReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Machine.parse("cray:10")).getMessage().contains("unknown node kind 'cray'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Machine.parse("xc30:0")).getMessage().contains("at least 1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Machine.parse("xc30:4,interactive=5")).getMessage().contains("interactive=5"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Machine.parse("xc30:4,colour=red")).getMessage().contains("unknown option 'colour'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Machine.parse("xc30")).getMessage().contains("KIND:N"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Machine.parse("")).getMessage().contains("empty machine spec"));
    }

    @Test
    void aHundredThousandNodeMachineIsCheapToBuild() {
        Machine m = Machine.parse("xc30:100000");
        assertEquals(100_000, m.size());
        assertEquals(99_999, m.indexOf(99_999));
    }
}
