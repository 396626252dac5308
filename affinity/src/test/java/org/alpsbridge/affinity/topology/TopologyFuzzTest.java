package org.alpsbridge.affinity.topology;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of the hwloc XML reader (an admin hands us the file, {@code --topology hwloc:FILE}):
 * a topology or one {@link TopologyException} naming the problem; hwloc's own DOCTYPE line is accepted but
 * never processed, so a declared entity is never expanded (a document that uses one is refused) nor fetched. Seeds: the hwloc exports in src/test/resources/hwloc (copied by the pom).
 */
class TopologyFuzzTest {

    @FuzzTest
    void hwlocXmlIsReadOrRefusedWithAReason(byte[] xml) {
        Topology t;
        try {
            t = HwlocXmlReader.read(new ByteArrayInputStream(xml), "fuzz input");
        } catch (TopologyException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank(), "a refusal names the problem");
            return;
        }
        String text = new String(xml, StandardCharsets.ISO_8859_1);
        java.util.regex.Matcher declared = java.util.regex.Pattern.compile("<!ENTITY\\s+(?:%\\s+)?([A-Za-z_][\\w.-]*)")
                .matcher(text);
        while (declared.find()) {
            assertFalse(text.contains("&" + declared.group(1) + ";"), "entity " + declared.group(1) + " was expanded");
        }
        // What was read is a usable node: every CPU belongs to exactly one core of one socket.
        int cpus = 0;
        java.util.BitSet seen = new java.util.BitSet();
        for (Topology.Socket s : t.sockets()) {
            for (Topology.Core c : s.cores()) {
                for (int pu : c.pus()) {
                    assertFalse(seen.get(pu), "CPU " + pu + " in two cores");
                    seen.set(pu);
                    cpus++;
                }
            }
        }
        assertTrue(cpus == t.cpus().cardinality(), "the CPU set is the union of the cores'");
    }
}
