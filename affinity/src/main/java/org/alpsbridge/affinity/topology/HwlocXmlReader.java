package org.alpsbridge.affinity.topology;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.List;
import javax.xml.stream.Location;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.alpsbridge.affinity.format.CpuLists;

/**
 * Reads an hwloc XML export (hwloc 1.x and 2.x, {@code lstopo --of xml}). Every {@code PU} object becomes a CPU
 * numbered by its {@code os_index}; its socket is the nearest {@code Package} (1.x: {@code Socket}) ancestor,
 * its core the nearest {@code Core} ancestor (a PU without one is a core of its own), its NUMA node the
 * {@code NUMANode} whose cpuset holds it (a parent in 1.x, a memory child in 2.x). Caches, dies and groups are
 * looked through. DTDs and external entities are refused.
 */
final class HwlocXmlReader {

    private HwlocXmlReader() {
    }

    private static final class Obj {
        final String type;
        final int osIndex;

        Obj(String type, int osIndex) {
            this.type = type;
            this.osIndex = osIndex;
        }
    }

    private record Pu(int pkg, int core, int cpu) {
    }

    static Topology read(Path file) throws TopologyException {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, "hwloc " + file);
        } catch (IOException e) {
            throw new TopologyException("the topology: " + org.alpsbridge.failure.Failures.describe(e), e);
        }
    }

    static Topology read(InputStream in, String source) throws TopologyException {
        XMLInputFactory f = XMLInputFactory.newFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        List<Pu> pus = new ArrayList<>();
        List<int[]> numaIds = new ArrayList<>();
        List<BitSet> numaSets = new ArrayList<>();
        Deque<Obj> stack = new ArrayDeque<>();
        int syntheticCore = 0;
        XMLStreamReader r = null;
        try {
            r = f.createXMLStreamReader(in);
            while (r.next() != XMLStreamConstants.START_ELEMENT) {
                // prolog: declaration, comments, the DOCTYPE hwloc writes (not processed)
            }
            if (!"topology".equals(r.getLocalName())) {
                throw new TopologyException(source + ": root element is <" + r.getLocalName()
                        + ">, not an hwloc <topology>");
            }
            while (r.hasNext()) {
                int event = r.next();
                if (event == XMLStreamConstants.START_ELEMENT && "object".equals(r.getLocalName())) {
                    String type = r.getAttributeValue(null, "type");
                    if (type == null) {
                        throw new TopologyException(source + ": <object> without type at " + where(r.getLocation()));
                    }
                    int os = osIndex(r, source);
                    if ("NUMANode".equals(type)) {
                        String cpuset = r.getAttributeValue(null, "cpuset");
                        if (cpuset != null) {
                            numaIds.add(new int[] {os});
                            numaSets.add(hwlocBitmap(cpuset, source, r.getLocation()));
                        }
                    } else if ("PU".equals(type)) {
                        if (os < 0) {
                            throw new TopologyException(source + ": PU without os_index at " + where(r.getLocation()));
                        }
                        int pkg = 0;
                        int core = Integer.MIN_VALUE;
                        for (Obj o : stack) { // innermost first
                            if (core == Integer.MIN_VALUE && "Core".equals(o.type)) {
                                core = o.osIndex >= 0 ? o.osIndex : syntheticCore;
                            }
                            if ("Package".equals(o.type) || "Socket".equals(o.type)) {
                                pkg = Math.max(0, o.osIndex);
                                break;
                            }
                        }
                        pus.add(new Pu(pkg, core == Integer.MIN_VALUE ? -1 - os : core, os));
                    }
                    stack.push(new Obj(type, os));
                } else if (event == XMLStreamConstants.END_ELEMENT && "object".equals(r.getLocalName())) {
                    Obj done = stack.pop();
                    if ("Core".equals(done.type)) {
                        syntheticCore++;
                    }
                }
            }
        } catch (XMLStreamException e) {
            throw new TopologyException(source + ": not well-formed XML: " + e.getMessage(), e);
        } finally {
            if (r != null) {
                try {
                    r.close();
                } catch (XMLStreamException ignored) {
                    // closing a reader over a stream we close ourselves
                }
            }
        }
        if (pus.isEmpty()) {
            throw new TopologyException(source + ": no PU objects");
        }
        Topology.Builder b = new Topology.Builder(source);
        for (Pu p : pus) {
            int numa = Topology.NO_NUMA;
            for (int i = 0; i < numaSets.size(); i++) {
                if (numaSets.get(i).get(p.cpu())) {
                    numa = numaIds.get(i)[0];
                    break;
                }
            }
            // A PU outside every Core keeps a core of its own, numbered past the real core ids.
            int core = p.core() >= 0 ? p.core() : Integer.MAX_VALUE / 2 - p.core();
            b.pu(p.pkg(), core, numa, p.cpu());
        }
        return b.build();
    }

    private static int osIndex(XMLStreamReader r, String source) throws TopologyException {
        String v = r.getAttributeValue(null, "os_index");
        if (v == null) {
            return -1;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new TopologyException(source + ": os_index '" + v + "' is not a number at " + where(r.getLocation()), e);
        }
    }

    /**
     * hwloc's bitmap text: 32-bit hex words, most significant first, separated by commas; hwloc writes an all-zero
     * word as nothing ({@code 0x0000ffff,,,,0x0000ffff}).
     */
    static BitSet hwlocBitmap(String text, String source, Location at) throws TopologyException {
        String[] words = text.trim().split(",", -1);
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < words.length; i++) {
            String w = words[i].trim();
            if (w.startsWith("0x") || w.startsWith("0X")) {
                w = w.substring(2);
            }
            if (w.length() > 8 || (w.isEmpty() && words.length == 1)) {
                throw new TopologyException(source + ": cpuset '" + text + "' is not an hwloc bitmap at " + where(at));
            }
            if (i > 0) {
                hex.append("00000000", 0, 8 - w.length());
            }
            hex.append(w);
        }
        try {
            return CpuLists.parseHex(hex.length() == 0 ? "0" : hex.toString());
        } catch (IllegalArgumentException e) {
            throw new TopologyException(source + ": cpuset '" + text + "': " + e.getMessage() + " at " + where(at), e);
        }
    }

    private static String where(Location at) {
        return at == null ? "?" : "line " + at.getLineNumber() + ":" + at.getColumnNumber();
    }
}
