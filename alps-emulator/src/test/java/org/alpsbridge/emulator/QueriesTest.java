package org.alpsbridge.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.NodeGroup;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.basil.model.Summary;
import org.alpsbridge.basil.model.SystemInventory;
import org.alpsbridge.basil.model.Topology;
import org.junit.jupiter.api.Test;

class QueriesTest {

    private static final BasilCodec CODEC = BasilCodec.standard();

    /** A whole inventory read back through the streaming reader. */
    record Read(InventoryReader reader, List<NodeView> nodes, List<ReservationView> reservations) {
    }

    static Read inventory(Emulator e, BasilRequest request) throws BasilException {
        InventoryReader r = InventoryReader.open(new ByteArrayInputStream(e.handle(CODEC.write(request))));
        List<NodeView> nodes = new ArrayList<>();
        for (NodeView n; (n = r.nextNode()) != null; ) {
            nodes.add(n);
        }
        List<ReservationView> reservations = new ArrayList<>();
        for (ReservationView v; (v = r.nextReservation()) != null; ) {
            reservations.add(v);
        }
        r.finish();
        return new Read(r, nodes, reservations);
    }

    static long reserve(Emulator e, String protocol, ReserveParam p) throws BasilException {
        ResponseData d = CODEC.readResponse(e.handle(CODEC.write(BasilRequest.reserve(protocol, "alice", "77", null, List.of(p)))))
                .responseData();
        assertTrue(d.isSuccess(), d.messageText());
        return d.content(Reserved.class).orElseThrow().reservationId();
    }

    private static int allocated(NodeView n, long reservation) {
        int count = 0;
        for (NodeView.Segment s : n.segments()) {
            for (NodeView.Core c : s.cores()) {
                for (NodeView.Thread t : c.threads()) {
                    count += t.reservations().contains(reservation) ? 1 : 0;
                }
            }
        }
        return count;
    }

    @Test
    void usersIdsComeFromTheNameUnlessTheHostsPasswordDatabaseIsAskedAsAlpsAsksIt() throws Exception {
        Emulator e = Emulator.create("xc30:4");
        long rootReservation = e.control().plantReservation("root", "1", 1);
        long apid = e.control().launch(rootReservation, "a.out");
        long strangers = e.control().plantReservation("no-such-user-alpsbridge", "2", 2);
        long[] derived = e.userIds("root");
        assertEquals(derived[0], derived[1], "by default the gid is the uid");
        assertTrue(derived[0] >= 10_000, "by default root's ids are derived from the name, not 0: " + derived[0]);

        e.control().userIds(Control.hostUserIds());
        Read read = inventory(e, BasilRequest.query("1.3", "INVENTORY"));
        ReservationView root = read.reservations().stream().filter(r -> r.reservationId() == rootReservation).findFirst()
                .orElseThrow();
        // the pseudo-application is written as ALPS writes it now; an aprun launched before keeps the ids it had
        assertEquals(List.of(0L, 0L), List.of(root.applications().get(0).userId(), root.applications().get(0).groupId()),
                "root's reservation in the host's ids (uid 0, gid 0)");
        assertEquals(derived[0], root.applications().stream().filter(a -> a.applicationId() == apid).findFirst().orElseThrow()
                .userId());
        ReservationView stranger = read.reservations().stream().filter(r -> r.reservationId() == strangers).findFirst()
                .orElseThrow();
        long[] fallback = Views.idsOfName("no-such-user-alpsbridge");
        assertEquals(fallback[0], stranger.applications().get(0).userId(), "a name the host does not know keeps its derived ids");
        assertEquals(List.of(0L, 0L), List.of(e.userIds("root")[0], e.userIds("root")[1]));
    }

    @Test
    void anEngineOfCle52BeforeUp03PutsMemoryOnTheNodeFromOnePointThreeAndLaterEnginesOnTheSegments() throws Exception {
        for (String engine : List.of("5.2.0", "5.2.2", "5.2.44", "5.1.0")) {
            Emulator e = Emulator.create("xc30:2,engine=" + engine);
            long id = reserve(e, "1.3", ReserveParam.builder().width(16).nppn(16).memoryPerPeMb(1000).build());
            boolean early = !engine.equals("5.2.44") && !engine.equals("5.1.0");
            byte[] answer = e.handle(CODEC.write(BasilRequest.query("1.3", "INVENTORY")));
            String text = new String(answer, java.nio.charset.StandardCharsets.US_ASCII);
            assertEquals(early, text.contains("</SocketArray>\n     <MemoryArray>"), engine + ":\n" + text);
            assertEquals(!early, text.contains("</ComputeUnitArray>\n         <MemoryArray>"), engine);
            org.alpsbridge.basil.cli.CheckAccess.describe(answer);
            NodeView n = inventory(e, BasilRequest.query("1.3", "INVENTORY")).nodes().get(0);
            List<NodeView.Memory> memory = early ? n.memory() : n.segments().stream().flatMap(g -> g.memory().stream()).toList();
            assertEquals(64L * 1024 * 256, memory.stream().mapToLong(NodeView.Memory::pageCount).sum(), engine);
            assertEquals(16L * 1000 * 256, memory.stream().flatMap(m -> m.allocations().stream())
                    .filter(a -> a.reservationId() == id).mapToLong(NodeView.MemoryAllocation::pageCount).sum(), engine);
            // before 1.3 every engine writes memory under the segments of that version
            String old = new String(e.handle(CODEC.write(BasilRequest.query("1.2", "INVENTORY"))), java.nio.charset.StandardCharsets.US_ASCII);
            assertFalse(old.contains("</SegmentArray>\n     <MemoryArray>"), engine);
        }
    }

    @Test
    void aOnePointThreeInventoryShowsTheXc30TopologyAllocationsAndThePseudoApplication() throws BasilException {
        Emulator e = Emulator.create("xc30:4,service=2", () -> 1_700_000_000L);
        long id = reserve(e, "1.3", ReserveParam.builder().width(16).nppn(16).nppcu(1).memoryPerPeMb(2000).build());
        Read inv = inventory(e, BasilRequest.query("1.3", "INVENTORY"));
        assertEquals("sdb", inv.reader().header().mppHost());
        assertEquals(1_700_000_000L, inv.reader().header().timestamp());
        assertEquals(4, inv.nodes().size());
        NodeView first = inv.nodes().get(0);
        assertEquals(2, first.nodeId());
        assertEquals("c0-0c0s0n2", first.name());
        assertEquals(32, first.processorCount());
        assertEquals(16, first.coreCount());
        assertEquals(2, first.sockets().size());
        assertEquals(65536, first.memoryMb());
        assertEquals(16, allocated(first, id));
        long pages = first.allMemory().stream().flatMap(m -> m.allocations().stream()).mapToLong(NodeView.MemoryAllocation::pageCount).sum();
        assertEquals(16L * 2000 * 256, pages);
        assertEquals(0, allocated(inv.nodes().get(1), id));
        ReservationView r = inv.reservations().get(0);
        assertEquals(id, r.reservationId());
        assertEquals("77", r.batchId());
        assertEquals("EXCLUSIVE", r.reservationMode());
        ReservationView.Application basil = r.applications().get(0);
        assertTrue(basil.isReservationPseudoApplication());
        assertEquals("BASIL", basil.commands().get(0).cmd());
        assertEquals(16, basil.commands().get(0).width());
        assertEquals(2000, basil.commands().get(0).memory());
        assertTrue(r.launchedApplicationIds().isEmpty());
    }

    @Test
    void everyProtocolVersionGetsItsOwnInventoryShape() throws BasilException {
        for (String p : List.of("1.0", "1.1", "1.2", "1.3", "1.4", "1.7")) {
            Emulator e = Emulator.create("mixed:xe6:2+xk7:1");
            long id = reserve(e, p, ReserveParam.builder().width(1).build());
            Read inv = inventory(e, BasilRequest.query(p, "INVENTORY"));
            assertEquals(3, inv.nodes().size(), p);
            assertEquals(32, inv.nodes().get(0).processorCount(), p);
            assertEquals(1, allocated(inv.nodes().get(0), id), p);
            assertEquals(1, inv.reservations().size(), p);
            boolean gpusListed = !inv.nodes().get(2).accelerators().isEmpty();
            assertEquals(!p.equals("1.0") && !p.equals("1.1"), gpusListed, "AcceleratorArray came with 1.2, asked " + p);
            assertEquals(p.equals("1.0") || p.equals("1.1") ? null : 1L, inv.reader().header().changecount(), p);
        }
    }

    @Test
    void aChangecountQueryReturnsOnlyNodesChangedSinceAndABodyWithoutReservationArrayNoReservations() throws BasilException {
        Emulator e = Emulator.create("xc30:8");
        reserve(e, "1.3", ReserveParam.builder().width(1).build());
        long before = e.control().changeCount();
        e.control().setState(new int[] {5}, "DOWN");
        Read changed = inventory(e, BasilRequest.inventorySince("1.3", before, false));
        assertEquals(1, changed.nodes().size());
        assertEquals("DOWN", changed.nodes().get(0).state());
        assertTrue(changed.reservations().isEmpty());
        Read reservationsOnly = inventory(e, BasilRequest.inventorySince("1.3", null, true));
        assertTrue(reservationsOnly.nodes().isEmpty());
        assertEquals(1, reservationsOnly.reservations().size());
    }

    @Test
    void summaryListsUpAndDownNodesAndItsCounterIgnoresReservations() throws BasilException {
        Emulator e = Emulator.create("mixed:xc30:4+xc50-gpu:2");
        e.control().setState(new int[] {1, 2}, "DOWN");
        ResponseData d = CODEC.readResponse(e.handle(CODEC.write(BasilRequest.query("1.7", "SUMMARY")))).responseData();
        assertEquals("SUMMARY", d.type());
        Summary s = d.content(Summary.class).orElseThrow();
        assertEquals("0,3-5", s.nodes().orElseThrow().up().toString());
        assertEquals("1-2", s.nodes().orElseThrow().down().toString());
        assertEquals("4-5", s.accelerators().orElseThrow().up().toString());
        long count = s.schedchangecount().orElseThrow();
        assertEquals(e.control().schedChangeCount(), count);
        reserve(e, "1.3", ReserveParam.builder().width(1).build());
        Summary after = CODEC.readResponse(e.handle(CODEC.write(BasilRequest.query("1.3", "SUMMARY")))).responseData()
                .content(Summary.class).orElseThrow();
        assertEquals(count, after.schedchangecount().orElseThrow());
        assertTrue(after.accelerators().isPresent());
        assertFalse(CODEC.readResponse(e.handle(CODEC.write(BasilRequest.query("1.3", "SUMMARY")))).responseData()
                .content(Summary.class).orElseThrow().otherAttributes().containsKey(new javax.xml.namespace.QName("reservations")));
    }

    @Test
    void summaryAndInventoryAgreeOnSchedchangecount() throws BasilException {
        Emulator e = Emulator.create("xc30:4");
        e.control().setRole(new int[] {3}, "INTERACTIVE");
        Read inv = inventory(e, BasilRequest.query("1.3", "INVENTORY"));
        Summary s = CODEC.readResponse(e.handle(CODEC.write(BasilRequest.query("1.3", "SUMMARY")))).responseData()
                .content(Summary.class).orElseThrow();
        assertEquals(inv.reader().header().schedchangecount(), s.schedchangecount().orElseThrow());
        assertTrue(inv.reader().header().schedchangecount() <= inv.reader().header().changecount());
    }

    @Test
    void systemGroupsNodesByKindRoleAndStateWithTheKnlAttributes() throws BasilException {
        Emulator e = Emulator.create("mixed:knl:4+xc30:2,interactive=1");
        e.control().setState(new int[] {3}, "DOWN");
        SystemInventory s = CODEC.readResponse(e.handle(CODEC.write(BasilRequest.query("1.7", "SYSTEM")))).responseData()
                .content(SystemInventory.class).orElseThrow();
        assertEquals(4, s.groups().size());
        NodeGroup interactive = s.groups().get(0);
        assertEquals("interactive", interactive.role());
        assertEquals("0", interactive.nidText());
        NodeGroup knl = s.groups().get(1);
        assertEquals("batch", knl.role());
        assertEquals("up", knl.state());
        assertEquals("1-2", knl.nidText());
        assertEquals(68L, knl.computeUnits().orElseThrow());
        assertEquals(4L, knl.cpusPerCu().orElseThrow());
        assertEquals("quad", knl.numaCfg().orElseThrow());
        assertEquals(16384L, knl.hbmSizeMb().orElseThrow());
        assertEquals(96L * 1024 * 1024, knl.memoryKb());
        assertFalse(CODEC.readResponse(e.handle(CODEC.write(BasilRequest.query("1.3", "SYSTEM")))).responseData().isSuccess());
    }

    @Test
    void topologyNamesTheNetwork() throws BasilException {
        Topology t = CODEC.readResponse(Emulator.create("xe6:2").handle(CODEC.write(BasilRequest.query("1.7", "TOPOLOGY"))))
                .responseData().content(Topology.class).orElseThrow();
        assertEquals("gemini", t.name());
        assertNull(CODEC.readResponse(Emulator.create("xe6:2").handle(CODEC.write(BasilRequest.query("1.3", "NETWORK"))))
                .responseData().content(Topology.class).orElse(null));
    }

    @Test
    void aLargeInventoryIsWrittenTwiceIntoAnExactArrayAndEqualsTheStreamedOne() throws Exception {
        Emulator e = Emulator.create("xc30:50", () -> 5);
        reserve(e, "1.3", ReserveParam.builder().width(100).build());
        byte[] request = CODEC.write(BasilRequest.query("1.3", "INVENTORY"));
        java.io.ByteArrayOutputStream streamed = new java.io.ByteArrayOutputStream();
        e.handle(request, streamed);
        e.spillLimit = 10_000;
        byte[] twoPass = e.handle(request);
        assertTrue(streamed.size() > 10_000);
        org.junit.jupiter.api.Assertions.assertArrayEquals(streamed.toByteArray(), twoPass);
        e.spillLimit = Emulator.SPILL_LIMIT;
        org.junit.jupiter.api.Assertions.assertArrayEquals(streamed.toByteArray(), e.handle(request));
    }
}
