package org.alpsbridge.emulator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApschedTest {

    private static Apsched machine(String spec) {
        return new Apsched(Machine.parse(spec), () -> 1_700_000_000L);
    }

    private static Reservation reserve(Apsched a, Demand... d) throws Rejection {
        return a.reserve("alice", null, "42", List.of(d));
    }

    private static Rejection rejected(Apsched a, Demand... d) {
        return assertThrows(Rejection.class, () -> reserve(a, d));
    }

    @Test
    void anXc30JobWithOneTaskPerCoreGetsOneHyperThreadOfEachCore() throws Rejection {
        Apsched a = machine("xc30:4");
        Reservation r = reserve(a, Demand.width(32).nppn(16).nppcu(1).build());
        assertEquals(2, r.shares.size());
        for (Reservation.Share s : r.shares) {
            assertEquals(16, s.processors().cardinality());
            assertEquals(0, s.processors().nextSetBit(0));
            assertEquals(-1, s.processors().nextSetBit(31), "thread 1 of the last core stays free");
            for (int p = s.processors().nextSetBit(0); p >= 0; p = s.processors().nextSetBit(p + 1)) {
                assertEquals(0, p % 2, "only thread 0 of each compute unit");
            }
        }
        assertEquals(16, r.commands.get(0).nppn());
    }

    @Test
    void moreProcessorsPerNodeThanNppcuAllowsIsPermanent() {
        Rejection e = rejected(machine("xc30:4"), Demand.width(64).nppn(32).nppcu(1).build());
        assertTrue(e.permanent());
        assertEquals("ALPS error: apsched: nppn 32 exceeds the 16 PEs a xc30 node holds at depth 1 with nppcu 1", e.getMessage());
    }

    @Test
    void nppcuAboveTheThreadsOfAComputeUnitIsPermanent() {
        Rejection e = rejected(machine("xe6:2"), Demand.width(4).nppcu(4).build());
        assertTrue(e.permanent());
        assertTrue(e.getMessage().contains("nppcu 4 exceeds the 2 processors per compute unit of xe6 nodes"), e.getMessage());
    }

    @Test
    void anXe6JobPlacedPerComputeUnitUsesOneIntegerCoreOfEachOfTheSixteenUnits() throws Rejection {
        Apsched a = machine("xe6:2");
        Reservation r = reserve(a, Demand.width(16).nppcu(1).build());
        assertEquals(1, r.shares.size());
        BitSet p = r.shares.get(0).processors();
        assertEquals(16, p.cardinality());
        for (int cu = 0; cu < 16; cu++) {
            assertTrue(p.get(cu * 2));
            assertFalse(p.get(cu * 2 + 1));
        }
    }

    @Test
    void depthTakesThatManyProcessorsPerPe() throws Rejection {
        Apsched a = machine("xc30:4");
        Reservation r = reserve(a, Demand.width(6).depth(8).build());
        assertEquals(2, r.shares.size(), "4 PEs of depth 8 fill a 32-processor node");
        assertEquals(32, r.shares.get(0).processors().cardinality());
        assertEquals(16, r.shares.get(1).processors().cardinality());
    }

    @Test
    void memoryPerPeLimitsPesPerNodeAndIsAllocatedInPages() throws Rejection {
        Apsched a = machine("xc30:4");
        Reservation r = reserve(a, Demand.width(16).memory("OS", 8192).build());
        assertEquals(2, r.shares.size());
        assertEquals(8L * 8192 * 256, r.shares.get(0).totalPages());
        assertEquals(8192, r.commands.get(0).memoryMb());
    }

    @Test
    void withoutMemoryParamAnExclusiveReservationHoldsAllTheNodeMemory() throws Rejection {
        Apsched a = machine("xc30:1");
        Reservation r = reserve(a, Demand.width(2).build());
        assertEquals(Hardware.named("xc30").pages(), r.shares.get(0).totalPages());
        assertEquals(64 * 1024 / 2, r.commands.get(0).memoryMb(), "the BASIL command shows node memory per PE placed");
    }

    @Test
    void memoryAboveANodeIsPermanent() {
        Rejection e = rejected(machine("xc30:4"), Demand.width(1).memory("OS", 70_000).build());
        assertTrue(e.permanent());
        assertTrue(e.getMessage().contains("memory 70000 MB per PE exceeds the 65536 MB of a xc30 node"), e.getMessage());
    }

    @Test
    void aNodeListIsUsedInTheOrderGiven() throws Rejection {
        Apsched a = machine("xc30:8");
        Reservation r = reserve(a, Demand.width(64).nodes(5, 2).build());
        assertArrayEquals(new int[] {5, 2}, r.nodes());
    }

    @Test
    void nodeListProblemsAreTransientExceptAShortListWhichIsPermanent() throws Rejection {
        Apsched a = machine("xc30:8,interactive=1");
        assertFalse(rejected(a, Demand.width(32).nodes(99).build()).permanent());
        assertFalse(rejected(a, Demand.width(32).nodes(0).build()).permanent(), "node 0 is interactive");
        a.setState(new int[] {3}, NodeState.DOWN);
        Rejection down = rejected(a, Demand.width(32).nodes(3).build());
        assertFalse(down.permanent());
        assertEquals("ALPS error: apsched: node 3 is DOWN", down.getMessage());
        Rejection shortList = rejected(a, Demand.width(33).nodes(4).build());
        assertTrue(shortList.permanent());
        assertEquals("ALPS error: at least one command's user NID list is short", shortList.getMessage());
        reserve(a, Demand.width(1).nodes(5).build());
        Rejection busy = rejected(a, Demand.width(1).nodes(5).build());
        assertFalse(busy.permanent());
        assertTrue(busy.getMessage().contains("node 5 is already reserved (resId 1)"), busy.getMessage());
    }

    @Test
    void aNodeListSplitOverSeveralNodeParamsIsShortButARepeatedOneIsNot() throws Rejection {
        Apsched a = machine("xc30:8");
        assertTrue(rejected(a, Demand.width(64).nodes(1).nodes(2).build()).permanent());
        assertEquals(2, reserve(a, Demand.width(64).nodes(1, 2).nodes(1, 2).build()).shares.size());
    }

    @Test
    void interactiveAndDownNodesAreSkipped() throws Rejection {
        Apsched a = machine("xc30:4,interactive=1");
        a.setState(new int[] {1}, NodeState.DOWN);
        assertArrayEquals(new int[] {2, 3}, reserve(a, Demand.width(64).build()).nodes());
    }

    @Test
    void exclusiveReservationsDoNotShareNodesAndAFullMachineIsTransient() throws Rejection {
        Apsched a = machine("xc30:2");
        Reservation first = reserve(a, Demand.width(1).build());
        reserve(a, Demand.width(1).build());
        Rejection full = rejected(a, Demand.width(1).build());
        assertFalse(full.permanent());
        assertEquals(0, a.release(first.id));
        assertArrayEquals(new int[] {0}, reserve(a, Demand.width(1).build()).nodes());
    }

    @Test
    void sharedReservationsShareANodeButNotItsProcessors() throws Rejection {
        Apsched a = machine("xc30:1");
        Reservation one = reserve(a, Demand.width(16).shared(true).build());
        Reservation two = reserve(a, Demand.width(16).shared(true).build());
        BitSet overlap = (BitSet) one.shares.get(0).processors().clone();
        overlap.and(two.shares.get(0).processors());
        assertTrue(overlap.isEmpty());
        assertFalse(rejected(a, Demand.width(1).shared(true).build()).permanent());
        assertEquals(2, a.holders(0).size());
    }

    @Test
    void aRequestLargerThanTheMachineIsPermanent() {
        Rejection e = rejected(machine("xc30:2"), Demand.width(65).build());
        assertTrue(e.permanent());
        assertTrue(e.getMessage().startsWith("ALPS error: apsched: request exceeds max nodes, alloc"), e.getMessage());
    }

    @Test
    void hardLabelsFilterAndSoftLabelsOrder() throws Rejection {
        Apsched a = machine("xc30:4");
        a.setLabels(new int[] {2}, "bigmem");
        assertArrayEquals(new int[] {2}, reserve(a, Demand.width(1).label("bigmem", true, true).build()).nodes());
        assertArrayEquals(new int[] {0}, reserve(a, Demand.width(1).label("bigmem", true, false).build()).nodes());
        a.setLabels(new int[] {3}, "fast");
        assertArrayEquals(new int[] {3, 1}, reserve(a, Demand.width(64).label("fast", false, true).build()).nodes());
    }

    @Test
    void gpusAreFoundOnlyWhereTheyExist() throws Rejection {
        Apsched a = machine("mixed:xc30:2+xk7:2");
        Reservation r = reserve(a, Demand.width(1).accel("GPU", null, 0).build());
        assertArrayEquals(new int[] {2}, r.nodes());
        assertTrue(r.shares.get(0).accelerator());
        Rejection wrongFamily = rejected(a, Demand.width(1).accel("GPU", "Tesla_P100", 0).build());
        assertTrue(wrongFamily.permanent(), wrongFamily.getMessage());
        assertTrue(rejected(machine("xc30:2"), Demand.width(1).accel("GPU", null, 0).build()).permanent());
    }

    @Test
    void aRejectedMultiParamReservationLeavesNothingBehind() {
        Apsched a = machine("xc30:2");
        assertThrows(Rejection.class, () -> reserve(a, Demand.width(32).build(), Demand.width(64).build()));
        assertEquals(0, a.reservations().size());
        assertFalse(a.allocated(0));
    }

    @Test
    void eachReserveParamGetsNodesOfItsOwn() throws Rejection {
        Apsched a = machine("xc30:3");
        Reservation r = reserve(a, Demand.width(1).build(), Demand.width(1).build());
        assertArrayEquals(new int[] {0, 1}, r.nodes());
        assertEquals(2, r.commands.size());
    }

    @Test
    void confirmIsIdempotentForTheSamePaggOnly() throws Rejection {
        Apsched a = machine("xc30:2");
        Reservation r = reserve(a, Demand.width(1).build());
        a.confirm(r.id, 777);
        a.confirm(r.id, 777);
        assertEquals(777, r.pagg);
        assertTrue(assertThrows(Rejection.class, () -> a.confirm(r.id, 778)).permanent());
        Rejection gone = assertThrows(Rejection.class, () -> a.confirm(99, 1));
        assertTrue(gone.getMessage().contains(" cannot find resId "));
    }

    @Test
    void releasingAnUnknownReservationIsPermanentNoEntry() {
        Rejection e = assertThrows(Rejection.class, () -> machine("xc30:2").release(9));
        assertTrue(e.permanent());
        assertEquals("ALPS error: apsched: No entry for resId 9", e.getMessage());
    }

    @Test
    void aReservationWithARunningApplicationStaysUntilItEnds() throws Rejection {
        Apsched a = machine("xc30:2");
        Reservation r = reserve(a, Demand.width(1).build());
        long apid = a.launch(r.id, "a.out");
        assertEquals(1, a.release(r.id));
        assertNotNull(a.reservation(r.id));
        assertThrows(Rejection.class, () -> a.confirm(r.id, 5));
        assertTrue(a.kill(apid));
        assertNull(a.reservation(r.id));
        assertFalse(a.allocated(0));
    }

    @Test
    void schedulingRelevantChangesMoveBothCountersOtherNodeDataOnlyChangecount() throws Rejection {
        Apsched a = machine("xc30:4");
        a.setState(new int[] {1}, NodeState.UP);
        assertEquals(1, a.schedChangeCount(), "no change, no count");
        a.setState(new int[] {1}, NodeState.DOWN);
        a.setRole(new int[] {2}, Role.INTERACTIVE);
        assertEquals(3, a.schedChangeCount());
        assertEquals(3, a.changeCount());
        a.setLabels(new int[] {3}, "x");
        assertEquals(3, a.schedChangeCount());
        assertEquals(4, a.changeCount());
        long id = reserve(a, Demand.width(1).build()).id;
        a.release(id);
        assertEquals(3, a.schedChangeCount(), "reservations are not node data");
    }

    @Test
    void plantedOrphansIgnoreRoleAndCarryARunningApplication() {
        Apsched a = machine("xc30:4,interactive=1");
        Reservation r = a.plant("bob", "UNKNOWN", new int[] {0});
        assertEquals("UNKNOWN", r.batchId);
        assertEquals(1, r.applications.size());
        assertTrue(a.allocated(0));
        assertThrows(IllegalArgumentException.class, () -> a.plant("bob", "7", new int[] {0}));
    }

    @Test
    void aHundredThousandNodeMachinePlacesAHalfMachineJob() throws Rejection {
        Apsched a = machine("xc30:100000");
        Reservation r = reserve(a, Demand.width(50_000L * 32).build());
        assertEquals(50_000, r.shares.size());
        assertEquals(0, a.release(r.id));
        assertFalse(a.allocated(49_999));
    }
}
