package org.alpsbridge.affinity.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.alpsbridge.affinity.format.CpuLists;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TopologySourcesTest {

    /**
     * Socket by socket, core by core: "package:core position=pus" words. Core ids are left out: hwloc's synthetic
     * exports number cores across the machine where Linux numbers them per package, and only their order counts.
     */
    static List<String> view(Topology t) {
        List<String> out = new ArrayList<>();
        for (Topology.Socket s : t.sockets()) {
            int position = 0;
            for (Topology.Core c : s.cores()) {
                StringBuilder pus = new StringBuilder();
                for (int pu : c.pus()) {
                    pus.append(pus.length() == 0 ? "" : ",").append(pu);
                }
                out.add(s.packageId() + ":" + position++ + "=" + pus);
            }
        }
        return out;
    }

    static Path resource(String name) throws URISyntaxException {
        return Paths.get(TopologySourcesTest.class.getResource("/hwloc/" + name).toURI());
    }

    @ParameterizedTest(name = "{0} {1}: socket 0 core 1 = {2}, last socket first core = {3}")
    @CsvSource(delimiter = ';', value = {
        "2x8x2; intel; 1,17; 8,24",
        "2x8x2; interleaved; 2,3; 16,17",
        "2x8x2; round-robin; 2,18; 1,17",
        "1x68x4; intel; 1,69,137,205; 0,68,136,204",
        "2x64x2; intel; 1,129; 64,192",
        "2x12x2; intel; 1,25; 12,36",
    })
    void syntheticNumberings(String layout, String numbering, String core1, String lastSocketCore0) {
        Topology t = Topology.synthetic(layout, Numbering.of(numbering));
        assertEquals(CpuLists.parse(core1).stream().boxed().toList(), t.sockets().get(0).cores().get(1).pus());
        assertEquals(CpuLists.parse(lastSocketCore0).stream().boxed().toList(),
                t.sockets().get(t.sockets().size() - 1).cores().get(0).pus());
    }

    @Test
    void syntheticNumaLevelSplitsSocketsIntoDomains() {
        Topology rome = Topology.synthetic("2x4x16x2", Numbering.INTEL);
        assertEquals("2 sockets x 64 cores x 2 threads (256 CPUs)", rome.shape());
        assertEquals(8, rome.numaDomains().size());
        assertEquals(16, rome.numaDomains().get(3).size());
        assertEquals(List.of(48, 176), rome.numaDomains().get(3).get(0).pus());
        assertEquals(2, Topology.synthetic("2x8x2", Numbering.INTEL).numaDomains().size());
    }

    @Test
    void coresWithinAnAllowedSetCountACoreOnceWhicheverOfItsThreadsIsAllowed() {
        Topology xc30 = Topology.synthetic("2x8x2", Numbering.INTEL); // CPU 16 is CPU 0's sibling, 20 is 4's
        assertEquals(16, xc30.coreCount(xc30.cpus()));
        assertEquals(5, xc30.coreCount(CpuLists.parse("0-3,16,20")));
        assertEquals(0, xc30.coreCount(CpuLists.parse("40-47")));
    }

    @Test
    void badLayoutsNameTheProblem() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Topology.synthetic("2x8", Numbering.INTEL))
                .getMessage().contains("is not SOCKETSxCORESxTHREADS"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Topology.synthetic("2xax2", Numbering.INTEL))
                .getMessage().contains("'a' is not a number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Topology.synthetic("2x0x2", Numbering.INTEL))
                .getMessage().contains("at least 1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Topology.synthetic("64x64x4", Numbering.INTEL))
                .getMessage().contains("more than 8192 CPUs"));
    }

    @Test
    void sysfsRoundTripsEveryMachineAndNumbering(@TempDir Path dir) throws Exception {
        String[] layouts = {"2x8x2", "1x12x2", "2x2x4x2", "1x68x4"};
        int i = 0;
        for (String layout : layouts) {
            for (Numbering n : layout.length() > 5 ? new Numbering[] {Numbering.INTEL} : Numbering.values()) {
                Topology synthetic = Topology.synthetic(layout, n);
                Topology read = Topology.sysfs(SysfsTree.write(dir.resolve("t" + i++), synthetic, new BitSet()));
                assertEquals(synthetic, read, layout + " " + n);
            }
        }
    }

    @Test
    void sysfsLeavesOfflineCpusOut(@TempDir Path dir) throws Exception {
        Topology full = Topology.synthetic("2x8x2", Numbering.INTEL);
        Topology.Builder b = new Topology.Builder("xc30 with CPU 16 and 9 offline");
        for (Topology.Socket s : full.sockets()) {
            for (Topology.Core c : s.cores()) {
                for (int pu : c.pus()) {
                    if (pu != 16 && pu != 9) {
                        b.pu(s.packageId(), c.coreId(), c.numaNode(), pu);
                    }
                }
            }
        }
        BitSet offline = CpuLists.parse("9,16");
        Topology read = Topology.sysfs(SysfsTree.write(dir, b.build(), offline));
        assertEquals(30, read.cpuCount());
        assertEquals(List.of(0), read.sockets().get(0).cores().get(0).pus());
        assertEquals(List.of(25), read.sockets().get(1).cores().get(1).pus());
        assertEquals(16, read.coreCount());
    }

    @Test
    void sysfsKeepsNonContiguousCoreIdsInOrder(@TempDir Path dir) throws Exception {
        Topology broadwell = Topology.hwlocXml(resource("broadwell-2x14x1-noncontiguous.xml"));
        Topology read = Topology.sysfs(SysfsTree.write(dir, broadwell, new BitSet()));
        assertEquals(broadwell, read);
        List<Integer> ids = new ArrayList<>();
        for (Topology.Core c : read.sockets().get(1).cores()) {
            ids.add(c.coreId());
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14), ids);
        // Round-robin firmware: socket 1 holds the odd CPUs.
        assertEquals(List.of(15), read.sockets().get(1).cores().get(7).pus());
    }

    @Test
    void sysfsReadsNumaNodesAndIgnoresMemoryOnlyNodes(@TempDir Path dir) throws Exception {
        Topology interlagos = Topology.synthetic("2x2x8x1", Numbering.INTEL);
        Topology read = Topology.sysfs(SysfsTree.write(dir, interlagos, new BitSet()));
        assertEquals(4, read.numaDomains().size());
        assertEquals(3, read.sockets().get(1).cores().get(8).numaNode());
    }

    @Test
    void sysfsNamesAMissingFile(@TempDir Path dir) throws Exception {
        Topology node = Topology.synthetic("1x2x1", Numbering.INTEL);
        SysfsTree.write(dir, node, new BitSet());
        Files.delete(dir.resolve("cpu/cpu1/topology/core_id"));
        TopologyException e = assertThrows(TopologyException.class, () -> Topology.sysfs(dir));
        assertTrue(e.getMessage().contains("cpu1/topology/core_id is missing"), e.getMessage());
        Files.writeString(dir.resolve("cpu/cpu1/topology/core_id"), "one\n");
        e = assertThrows(TopologyException.class, () -> Topology.sysfs(dir));
        assertTrue(e.getMessage().contains("'one' is not a number"), e.getMessage());
    }

    @Test
    void sysfsWithoutOnlineFileCountsCpuDirectories(@TempDir Path dir) throws Exception {
        SysfsTree.write(dir, Topology.synthetic("1x4x1", Numbering.INTEL), new BitSet());
        Files.delete(dir.resolve("cpu/online"));
        Files.createDirectories(dir.resolve("cpu/cpufreq"));
        assertEquals(4, Topology.sysfs(dir).cpuCount());
    }

    @Test
    void thisMachinesSysfsHasEveryOnlineCpu() throws Exception {
        Topology here = Topology.sysfs();
        BitSet online = CpuLists.parse(Files.readString(Paths.get("/sys/devices/system/cpu/online")));
        assertEquals(online, here.cpus());
    }

    @Test
    void hwloc2ExportMatchesTheSyntheticNode() throws Exception {
        Topology xml = Topology.hwlocXml(resource("xc30-2x8x2-intel.xml"));
        assertEquals(view(Topology.synthetic("2x8x2", Numbering.INTEL)), view(xml));
        // The export names one NUMA node for the whole machine.
        assertEquals(1, xml.numaDomains().size());
    }

    @Test
    void hwloc1ExportWithNumaParentsMatchesTheSyntheticNode() throws Exception {
        Topology xml = Topology.hwlocXml(resource("interlagos-2x2x8x1-hwloc1.xml"));
        assertEquals(view(Topology.synthetic("2x2x8x1", Numbering.INTEL)), view(xml));
        assertEquals(4, xml.numaDomains().size());
        assertEquals(2, xml.sockets().get(1).cores().get(0).numaNode());
    }

    @Test
    void hwlocExportOfARealMachineReads() throws Exception {
        Topology xml = Topology.hwlocXml(resource("kvm-epyc-1x2x1.xml"));
        assertEquals("1 socket x 2 cores x 1 thread (2 CPUs)", xml.shape());
    }

    @Test
    void hwlocReaderRefusesWhatIsNotAnHwlocExport(@TempDir Path dir) throws IOException {
        Path basil = Files.writeString(dir.resolve("basil.xml"), "<BasilResponse protocol=\"1.3\"/>");
        assertTrue(assertThrows(TopologyException.class, () -> Topology.hwlocXml(basil)).getMessage()
                .contains("root element is <BasilResponse>, not an hwloc <topology>"));
        Path broken = Files.writeString(dir.resolve("broken.xml"), "<topology><object type=\"PU\" os_index=\"0\">");
        assertTrue(assertThrows(TopologyException.class, () -> Topology.hwlocXml(broken)).getMessage()
                .contains("not well-formed"));
        Path entity = Files.writeString(dir.resolve("entity.xml"), "<?xml version=\"1.0\"?><!DOCTYPE t ["
                + "<!ENTITY x SYSTEM \"file:///etc/passwd\">]><topology><object type=\"PU\" os_index=\"&x;\"/></topology>");
        assertThrows(TopologyException.class, () -> Topology.hwlocXml(entity));
        Path empty = Files.writeString(dir.resolve("empty.xml"), "<topology><object type=\"Machine\"/></topology>");
        assertTrue(assertThrows(TopologyException.class, () -> Topology.hwlocXml(empty)).getMessage()
                .contains("no PU objects"));
        Path twice = Files.writeString(dir.resolve("twice.xml"), "<topology><object type=\"PU\" os_index=\"0\"/>"
                + "<object type=\"PU\" os_index=\"0\"/></topology>");
        assertTrue(assertThrows(TopologyException.class, () -> Topology.hwlocXml(twice)).getMessage()
                .contains("CPU 0 appears twice"));
        assertThrows(TopologyException.class, () -> Topology.hwlocXml(dir.resolve("missing.xml")));
    }

    @Test
    void hwlocBitmapsReadMultiWordSets() throws Exception {
        assertEquals(CpuLists.parse("0-3,32"), HwlocXmlReader.hwlocBitmap("0x00000001,0x0000000f", "t", null));
        assertEquals(CpuLists.parse("4-7"), HwlocXmlReader.hwlocBitmap("0xf0", "t", null));
        assertEquals(CpuLists.parse("0-15,128-143"), HwlocXmlReader.hwlocBitmap("0x0000ffff,,,,0x0000ffff", "t", null));
        assertThrows(TopologyException.class, () -> HwlocXmlReader.hwlocBitmap("0x123456789", "t", null));
    }
}
