package org.alpsbridge.affinity.topology;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;

/**
 * The topology of one node of a BASIL QUERY(INVENTORY) response, through {@code basil/}'s version-neutral
 * {@link NodeView}: a 1.3+ Socket is a socket, a Segment a NUMA domain, a ComputeUnit a core (an Interlagos
 * compute unit, an Intel core), a Processor a hardware thread. Before 1.3 every Processor is a core of one thread.
 *
 * <p>ALPS numbers Processors locally (from 0 inside each ComputeUnit), so the inventory does not carry the OS
 * CPU numbers: they come from the {@link Numbering} the node's firmware uses ({@link Numbering#INTEL} on XC30,
 * XC40 and KNL under CLE). Core ids are the core's position in its socket; package ids the Socket ordinals;
 * NUMA domains are numbered by segment across the node.
 *
 * <p>Kept apart from {@link Topology} so the per-task wrapper never loads the BASIL classes.
 */
public final class BasilNodes {

    private BasilNodes() {
    }

    /** The topology of {@code node} with its threads numbered by {@code numbering}. */
    public static Topology topology(NodeView node, Numbering numbering) throws TopologyException {
        List<NodeView.Socket> sockets = node.sockets();
        int[][] threads = new int[sockets.size()][];
        for (int s = 0; s < sockets.size(); s++) {
            List<Integer> counts = new ArrayList<>();
            for (NodeView.Segment g : sockets.get(s).segments()) {
                for (NodeView.Core c : g.cores()) {
                    counts.add(c.threads().size());
                }
            }
            threads[s] = counts.stream().mapToInt(Integer::intValue).toArray();
        }
        int[][][] cpus = numbering.assign(threads);
        Topology.Builder b = new Topology.Builder("BASIL node " + node.nodeId() + " " + node.name() + " ("
                + numbering.label() + " numbering)");
        int numa = 0;
        for (int s = 0; s < sockets.size(); s++) {
            int core = 0;
            for (NodeView.Segment g : sockets.get(s).segments()) {
                for (NodeView.Core c : g.cores()) {
                    for (int t = 0; t < c.threads().size(); t++) {
                        b.pu((int) sockets.get(s).ordinal(), core, numa, cpus[s][core][t]);
                    }
                    core++;
                }
                numa++;
            }
        }
        if (node.processorCount() == 0) {
            throw new TopologyException("BASIL node " + node.nodeId() + " lists no processors");
        }
        return b.build();
    }

    /**
     * The node with NID {@code nid} (or the first node when {@code nid} is negative) of the QUERY(INVENTORY)
     * response in {@code file}, any protocol version. The file is streamed: only one node is held at a time.
     */
    public static Topology read(Path file, long nid, Numbering numbering) throws TopologyException {
        try (InputStream in = Files.newInputStream(file); InventoryReader r = InventoryReader.open(in)) {
            if (!r.hasInventory()) {
                throw new TopologyException(file + " is not a successful QUERY(INVENTORY) response");
            }
            for (NodeView n; (n = r.nextNode()) != null; ) {
                if (nid < 0 || n.nodeId() == nid) {
                    return topology(n, numbering);
                }
            }
            throw new TopologyException(file + ": " + (nid < 0 ? "the inventory has no nodes" : "no node with NID " + nid));
        } catch (IOException e) {
            throw new TopologyException("the topology: " + org.alpsbridge.failure.Failures.describe(e), e);
        } catch (BasilException e) {
            throw new TopologyException(file + ": " + e.getMessage(), e);
        }
    }
}
