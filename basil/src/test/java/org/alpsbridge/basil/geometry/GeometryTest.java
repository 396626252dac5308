package org.alpsbridge.basil.geometry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.alpsbridge.basil.geometry.Geometry.Site;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.nodes.NidSet;
import org.junit.jupiter.api.Test;

/** Slurm's select/alps geometry rules (PROTOCOL.md §10–11) on an XC30 node: 2 sockets x 8 cores x 2 threads, 64 GiB. */
class GeometryTest {

    static final NodeType XC30 = NodeType.parse("2x8x2:64g");
    static final NodeType KNL = NodeType.parse("1x68x4:96g");
    static final Site ONE_TASK_PER_CORE = new Site(true, false);
    static final Site SUB_ALLOCATE = new Site(false, true);

    private static JobRequest.Builder job() {
        return JobRequest.builder();
    }

    private static Reservation pending(JobRequest.Builder job, NodeType node, Site site) throws GeometryException {
        return Geometry.pending(job.build(), node, site, 0);
    }

    @Test
    void wholeNodeReservationsGiveEveryProcessorAPe() throws GeometryException {
        Reservation r = pending(job().ntasks(64), XC30, Site.DEFAULT);
        assertEquals(2, r.nodes());
        assertEquals(64, r.width());
        assertEquals(32, r.nppn());
        assertEquals(1, r.depth());
        assertEquals(0, r.nppcu());
        assertEquals(0, r.memoryPerPeMb());
        assertEquals("BASIL -n 64 -N 32 -d 1 -m 0", r.basilLine());
    }

    @Test
    void wholeNodeReservationsIgnoreCpusPerTaskForDepthButNotForTheNodeCount() throws GeometryException {
        Reservation r = pending(job().ntasks(8).cpusPerTask(8), XC30, Site.DEFAULT);
        assertEquals(2, r.nodes());
        assertEquals(1, r.depth());
        assertEquals(64, r.width());
    }

    @Test
    void oneTaskPerCoreSetsNppcuToOneAndHalvesTheUsableProcessors() throws GeometryException {
        Reservation r = pending(job().ntasks(64), XC30, ONE_TASK_PER_CORE);
        assertEquals(1, r.nppcu());
        assertEquals(16, r.usableCpusPerNode());
        assertEquals(4, r.nodes());
        assertEquals(64, r.width());
        assertEquals(16, r.nppn());
    }

    @Test
    void anExplicitNtasksPerCoreWinsOverOneTaskPerCore() throws GeometryException {
        Reservation r = pending(job().ntasks(64).ntasksPerCore(2), XC30, ONE_TASK_PER_CORE);
        assertEquals(2, r.nppcu());
        assertEquals(32, r.usableCpusPerNode());
        assertEquals(2, r.nodes());
    }

    @Test
    void aPerNodeDemandBetweenTheNppcuVisibleAndThePhysicalCountIsRejectedBeforeReserve() {
        GeometryException e = assertThrows(GeometryException.class, () -> pending(job().ntasks(48).ntasksPerNode(24), XC30, ONE_TASK_PER_CORE));
        assertEquals("processors per node", e.limit());
        assertEquals(24, e.requested());
        assertEquals(16, e.available());
        assertEquals(8, e.excess());
        assertTrue(e.getMessage().contains("nppcu=1 leaves 16 of the node's 32 processors usable"), e.getMessage());
        assertTrue(e.getMessage().contains("(8 too many)"), e.getMessage());
    }

    @Test
    void aPerNodeDemandAboveThePhysicalCountIsRejected() {
        GeometryException e = assertThrows(GeometryException.class, () -> pending(job().ntasksPerNode(10).cpusPerTask(4), XC30, Site.DEFAULT));
        assertEquals(40, e.requested());
        assertEquals(8, e.excess());
        assertTrue(e.getMessage().startsWith("--ntasks-per-node=10 x --cpus-per-task=4 needs 40 processors per node"), e.getMessage());
        assertThrows(GeometryException.class, () -> pending(job().cpusPerTask(17), XC30, ONE_TASK_PER_CORE));
    }

    @Test
    void moreTasksPerCoreThanTheCoreHasThreadsIsRejected() {
        GeometryException e = assertThrows(GeometryException.class, () -> pending(job().ntasksPerCore(4), XC30, Site.DEFAULT));
        assertEquals("hardware threads per core", e.limit());
        assertEquals(2, e.excess());
    }

    @Test
    void memPerNodeIsSplitOverTheUsableProcessors() throws GeometryException {
        assertEquals(61440 / 32, pending(job().ntasks(64).memPerNodeMb(61440), XC30, Site.DEFAULT).memoryPerPeMb());
        assertEquals(61440 / 16, pending(job().ntasks(64).memPerNodeMb(61440), XC30, ONE_TASK_PER_CORE).memoryPerPeMb());
        assertEquals(1, pending(job().memPerNodeMb(20), XC30, Site.DEFAULT).memoryPerPeMb());
    }

    @Test
    void memAboveTheNodesMemoryIsRejectedByHowMuch() {
        GeometryException e = assertThrows(GeometryException.class, () -> pending(job().memPerNodeMb(70000), XC30, Site.DEFAULT));
        assertEquals("memory per node", e.limit());
        assertEquals(70000 - 65536, e.excess());
    }

    @Test
    void memPerCpuCountsOnlyWithNtasks() throws GeometryException {
        assertEquals(1800, pending(job().ntasks(32).memPerCpuMb(1800), XC30, Site.DEFAULT).memoryPerPeMb());
        Reservation ignored = pending(job().nodes(2).memPerCpuMb(1800), XC30, Site.DEFAULT);
        assertEquals(0, ignored.memoryPerPeMb());
        assertEquals(List.of("--mem-per-cpu is ignored without --ntasks (as Slurm does)"), ignored.notes());
    }

    @Test
    void memPerCpuTimesEveryPeOfAWholeNodeMustFitTheNode() throws GeometryException {
        GeometryException e = assertThrows(GeometryException.class, () -> pending(job().ntasks(4).memPerCpuMb(3000), XC30, Site.DEFAULT));
        assertEquals(96000, e.requested());
        assertEquals(96000 - 65536, e.excess());
        assertTrue(e.getMessage().contains("3000 MB per PE x 32 PEs per node"), e.getMessage());
        assertEquals(3000, pending(job().ntasks(4).memPerCpuMb(3000), XC30, ONE_TASK_PER_CORE).memoryPerPeMb());
    }

    @Test
    void subAllocateSizesTheReservationToTheRequest() throws GeometryException {
        Reservation r = pending(job().ntasks(10).cpusPerTask(4), XC30, SUB_ALLOCATE);
        assertEquals(2, r.nodes());
        assertEquals(4, r.depth());
        assertEquals(5, r.nppn());
        assertEquals(10, r.width());
    }

    @Test
    void subAllocateScalesTasksPerNodeByNppcuAndKeepsSlurmsRoundUp() throws GeometryException {
        Reservation r = pending(job().ntasks(10).cpusPerTask(4), XC30, new Site(true, true));
        assertEquals(3, r.nodes());
        assertEquals(4, r.nppn());
        // Slurm sums min(nppn, node tasks) over the nodes, so 10 tasks on 3 nodes reserve 12 PEs.
        assertEquals(12, r.width());
    }

    @Test
    void subAllocateWithoutTaskCountsLetsAlpsChooseNppn() throws GeometryException {
        Reservation r = pending(job().nodes(3).cpusPerTask(2), XC30, SUB_ALLOCATE);
        assertEquals(0, r.nppn());
        assertEquals(3 * 16, r.width());
        assertEquals(2, r.depth());
    }

    @Test
    void subAllocateSplitsMemPerNodeOverNppn() throws GeometryException {
        assertEquals(8192, pending(job().ntasks(8).ntasksPerNode(4).memPerNodeMb(32768), XC30, SUB_ALLOCATE).memoryPerPeMb());
        assertEquals(65536 / 32, pending(job().nodes(1).memPerNodeMb(70000 - 4464), XC30, SUB_ALLOCATE).memoryPerPeMb());
    }

    @Test
    void moreNodesThanTasksIsLoweredToTheTaskCountAsSbatchDoes() throws GeometryException {
        Reservation r = pending(job().ntasks(2).nodes(4), XC30, Site.DEFAULT);
        assertEquals(2, r.nodes());
        assertTrue(r.notes().get(0).startsWith("--nodes=4 lowered to 2"), r.notes().toString());
        assertEquals(5, pending(job().ntasks(64).nodes(5), XC30, Site.DEFAULT).nodes());
    }

    @Test
    void aPendingJobLargerThanTheMachineIsRejectedByHowManyNodes() {
        GeometryException e = assertThrows(GeometryException.class,
                () -> Geometry.pending(job().ntasks(3_300_000).build(), XC30, Site.DEFAULT, 100_000));
        assertEquals(103_125, e.requested());
        assertEquals(3_125, e.excess());
    }

    @Test
    void aHundredThousandNodeKnlJobKeepsWidthsBeyondSixteenBits() throws GeometryException {
        Reservation r = Geometry.pending(job().ntasks(6_800_000).build(), KNL, ONE_TASK_PER_CORE, 100_000);
        assertEquals(100_000, r.nodes());
        assertEquals(6_800_000, r.width());
        assertEquals(27_200_000, Geometry.pending(job().nodes(100_000).build(), KNL, Site.DEFAULT, 0).width());
    }

    @Test
    void anAllocatedJobUsesItsNodeCount() throws GeometryException {
        Reservation r = Geometry.allocated(job().ntasks(64).build(), XC30, Site.DEFAULT, 3);
        assertEquals(96, r.width());
        GeometryException e = assertThrows(GeometryException.class, () -> Geometry.allocated(job().ntasks(64).build(), XC30, Site.DEFAULT, 1));
        assertEquals(1, e.excess());
    }

    @Test
    void theReserveParamCarriesNppcuFromProtocol13OnEvenWhenZero() throws GeometryException {
        Reservation r = pending(job().ntasks(64).memPerNodeMb(61440), XC30, Site.DEFAULT);
        ReserveParam p13 = r.toReserveParam("1.3", NidSet.parse("20-21"));
        assertEquals("XT", p13.architecture());
        assertEquals(64L, p13.width());
        assertEquals(32L, p13.nppn());
        assertEquals(1L, p13.depth());
        assertEquals(0L, p13.nppcu());
        assertEquals(1920L, p13.memoryParams().get(0).sizeMb());
        assertEquals(List.of("20-21"), p13.nodeParams());
        assertNull(r.toReserveParam("1.2", null).nppcu());
        assertThrows(IllegalArgumentException.class, () -> r.toReserveParam("1.3", NidSet.parse("1-3")));
    }

    @Test
    void requestsAreValidatedLikeSlurmOptions() {
        assertThrows(IllegalArgumentException.class, () -> job().memPerNodeMb(10).memPerCpuMb(10).build());
        assertThrows(IllegalArgumentException.class, () -> job().ntasks(0).build());
        assertThrows(IllegalArgumentException.class, () -> NodeType.parse("2x8:64g"));
        assertEquals(new NodeType(1, 68, 4, 98304), KNL);
    }
}
