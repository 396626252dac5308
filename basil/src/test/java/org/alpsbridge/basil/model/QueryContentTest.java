package org.alpsbridge.basil.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.inventory.Inventories;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.SyntheticInventory;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.basil.nodes.NodeSyntaxException;
import org.junit.jupiter.api.Test;

/** SUMMARY, SYSTEM, TOPOLOGY and STATUS contents through the codec. */
class QueryContentTest {

    private final BasilCodec codec = BasilCodec.standard();

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private ResponseData read(String xml) throws Exception {
        return codec.readResponse(bytes(xml)).responseData();
    }

    @Test
    void summaryOfAnInventoryListsUpAndDownNodesAndWritesTheDocumentedShape() throws Exception {
        SyntheticInventory m = SyntheticInventory.xc30(10, 0);
        List<NodeView> nodes = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            NodeView n = m.node(i);
            if (i == 3 || i == 4) {
                n = new NodeView(n.nodeId(), n.name(), n.architecture(), n.role(), "DOWN", null, n.sockets(),
                        n.memory(), n.labels(), n.accelerators());
            }
            nodes.add(n);
        }
        Summary s = Inventories.summary(17, nodes);
        String xml = new String(codec.write(BasilResponse.success("1.3", Method.QUERY, s)), StandardCharsets.US_ASCII);
        assertTrue(xml.contains("<Summary schedchangecount=\"17\">"), xml);
        assertTrue(xml.contains("<Up>1-3,6-10</Up>"), xml);
        assertTrue(xml.contains("<Down>4-5</Down>"), xml);
        assertTrue(!xml.contains("AccelSummary"), "no accelerators, no AccelSummary: " + xml);
        Summary back = codec.readResponse(bytes(xml)).responseData().content(Summary.class).orElseThrow();
        assertEquals(NidSet.parse("1-3,6-10"), back.nodes().orElseThrow().up());
        assertEquals(17L, back.schedchangecount().orElseThrow());
    }

    @Test
    void summaryIsReadLenientlyAndKeepsWhatItDoesNotKnow() throws Exception {
        ResponseData d = read("""
                <BasilResponse protocol="1.7"><ResponseData status="SUCCESS" method="QUERY" type="SUMMARY">
                <Summary schedchangecount="3" flavour="new"><NodeSummary count="9"><Up state="x"> 1-5 </Up><Up>9</Up>
                <Down/><Extra a="b"/></NodeSummary><AccelSummary><Up>2</Up><Down>junk!</Down>
                <Accelerator ordinal="0"/></AccelSummary></Summary></ResponseData></BasilResponse>""");
        Summary s = d.content(Summary.class).orElseThrow();
        assertEquals(NidSet.parse("1-5,9"), s.nodes().orElseThrow().up());
        assertTrue(s.nodes().orElseThrow().down().isEmpty());
        assertEquals(1, s.nodes().orElseThrow().otherElements().size());
        assertEquals("new", s.otherAttributes().values().iterator().next());
        assertThrows(NodeSyntaxException.class, () -> s.accelerators().orElseThrow().down());
        String back = new String(codec.write(new BasilResponse("1.7", d)), StandardCharsets.US_ASCII);
        assertTrue(back.contains("<Extra a=\"b\"/>") && back.contains("flavour=\"new\""), back);
    }

    @Test
    void systemGroupsCarryTheKnlAttributesAndTheirNidText() throws Exception {
        ResponseData d = read("""
                <BasilResponse protocol='1.7'><ResponseData status='SUCCESS' method='QUERY' type='SYSTEM'>
                <System mpp_host='napali' timestamp='123' cpcu='1'><Nodes role='batch' state='up' speed='1200'
                 numa_nodes='1' dies='1' compute_units='60' cpus_per_cu='4' page_size_kb='4' page_count='25165824'
                 numa_cfg='a2a' hbm_size_mb='4000' hbm_cache_pct=''>
                  6142-6143
                </Nodes></System></ResponseData></BasilResponse>""");
        SystemInventory s = d.content(SystemInventory.class).orElseThrow();
        NodeGroup g = s.groups().get(0);
        assertEquals(NidSet.parse("6142-6143"), g.nids());
        assertEquals(60L, g.computeUnits().orElseThrow());
        assertEquals("", g.hbmCachePct().orElseThrow());
        assertEquals(4L * 25165824, g.memoryKb());
    }

    @Test
    void topologyAndApplicationStatesAreTyped() throws Exception {
        Topology t = read("""
                <BasilResponse protocol="1.7"><ResponseData status="SUCCESS" method="QUERY">
                <Topology name="aries"><FilterArray><Filter name="foo"/><Filter name="bar"/></FilterArray></Topology>
                </ResponseData></BasilResponse>""").content(Topology.class).orElseThrow();
        assertEquals(List.of("foo", "bar"), t.filterNames());
        ApplicationStates a = read("""
                <BasilResponse protocol="1.4"><ResponseData status="SUCCESS" method="QUERY">
                <ApplicationArray><Application application_id="4294967295" status="SUSPEND"/></ApplicationArray>
                </ResponseData></BasilResponse>""").content(ApplicationStates.class).orElseThrow();
        assertEquals(4294967295L, a.applications().get(0).applicationId());
        assertEquals("SUSPEND", a.applications().get(0).status());
    }
}
