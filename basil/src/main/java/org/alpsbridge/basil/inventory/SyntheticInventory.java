package org.alpsbridge.basil.inventory;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.basil.codec.BasilException;

/**
 * Deterministic machine-sized inventories for benchmarks and tests (generated, never committed): the XC30
 * of the benchmark (2 sockets × 8 cores × 2 threads, 64 GiB, reservations on the first third of the nodes)
 * and a KNL system (1 socket × 68 cores × 4 threads, 96 GiB, idle). Nodes are made one at a time, so writing
 * 100,000 of them costs the memory of one.
 *
 * @param nodes        number of nodes, NIDs 1 … nodes
 * @param sockets      sockets per node, one NUMA segment each
 * @param cores        cores per socket
 * @param threads      hardware threads per core
 * @param clockMhz     socket clock
 * @param pagesPerSegment 4 KiB pages of memory per segment
 * @param reservations number of reservations; reservation {@code j} holds {@link #nodesPerReservation()} nodes
 */
public record SyntheticInventory(int nodes, int sockets, int cores, int threads, long clockMhz, long pagesPerSegment,
                                 int reservations) {

    /** First reservation id; ids are {@code FIRST_RESERVATION + j}. */
    public static final long FIRST_RESERVATION = 1000;

    /** The benchmark's XC30: {@code nodes} × 2 sockets × 8 cores × 2 threads, 64 GiB per node. */
    public static SyntheticInventory xc30(int nodes, int reservations) {
        return new SyntheticInventory(nodes, 2, 8, 2, 2600, 8L * 1024 * 1024, reservations);
    }

    /** A KNL system: {@code nodes} × 1 socket × 68 cores × 4 threads, 96 GiB per node, no reservations. */
    public static SyntheticInventory knl(int nodes) {
        return new SyntheticInventory(nodes, 1, 68, 4, 1400, 24L * 1024 * 1024, 0);
    }

    /** Nodes each reservation holds: together they cover about a third of the machine. */
    public int nodesPerReservation() {
        return reservations == 0 ? 0 : Math.max(1, nodes / (3 * reservations));
    }

    /** Node {@code i} (0-based): NID {@code i + 1}, its cname, its allocations if a reservation holds it. */
    public NodeView node(int i) {
        long nid = i + 1L;
        List<Long> holders = List.of();
        int per = nodesPerReservation();
        if (per > 0 && i / per < reservations) {
            holders = List.of(FIRST_RESERVATION + i / per);
        }
        List<NodeView.Socket> socketList = new ArrayList<>(sockets);
        for (int s = 0; s < sockets; s++) {
            List<NodeView.Core> coreList = new ArrayList<>(cores);
            for (int c = 0; c < cores; c++) {
                List<NodeView.Thread> threadList = new ArrayList<>(threads);
                for (int t = 0; t < threads; t++) {
                    threadList.add(new NodeView.Thread(t, holders));
                }
                coreList.add(new NodeView.Core(c, threadList));
            }
            List<NodeView.MemoryAllocation> held = holders.isEmpty() ? List.of()
                    : List.of(new NodeView.MemoryAllocation(holders.get(0), pagesPerSegment));
            NodeView.Segment segment = new NodeView.Segment(0, coreList,
                    List.of(new NodeView.Memory("OS", 4, pagesPerSegment, held)), List.of());
            socketList.add(new NodeView.Socket(s, "x86_64", clockMhz, List.of(segment)));
        }
        return new NodeView(nid, cname(nid), "XT", "BATCH", "UP", null, socketList, List.of(), List.of(), List.of());
    }

    /** Reservation {@code j}: batch job {@code 5000 + j}, its BASIL pseudo-application and one aprun launch. */
    public ReservationView reservation(int j) {
        int per = nodesPerReservation();
        long width = (long) per * sockets * cores * threads;
        long id = FIRST_RESERVATION + j;
        List<ReservationView.Application> apps = List.of(
                new ReservationView.Application(id * 10, 10000 + j % 50, 100, 0,
                        List.of(new ReservationView.Command(width, 1, 0, 1000, "XT", "BASIL"))),
                new ReservationView.Application(id * 10 + 1, 10000 + j % 50, 100, 1700000000L + j,
                        List.of(new ReservationView.Command(width, 1, (long) sockets * cores * threads, 1000, "XT",
                                "a.out"))));
        return new ReservationView(id, "user" + (j % 50), "DEFAULT", 1700000000L + j, Long.toString(5000 + j),
                "EXCLUSIVE", "NONE", apps);
    }

    /** The Cray cname of {@code nid}: 4 nodes a slot, 16 slots a chassis, 3 chassis a cabinet. */
    static String cname(long nid) {
        long node = nid % 4;
        long slot = nid / 4 % 16;
        long chassis = nid / 64 % 3;
        long cabinet = nid / 192;
        return "c" + cabinet + "-0c" + chassis + "s" + slot + "n" + node;
    }

    /** Writes the whole inventory response in {@code protocol}'s shape. */
    public void write(OutputStream out, String protocol) throws BasilException {
        try (InventoryWriter w = InventoryWriter.open(out,
                InventoryHeader.success(protocol, "synthetic", 1700000000L, 1L, 1L))) {
            for (int i = 0; i < nodes; i++) {
                w.node(node(i));
            }
            for (int j = 0; j < reservations; j++) {
                w.reservation(reservation(j));
            }
        }
    }

    public byte[] bytes(String protocol) throws BasilException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(nodes * 4096);
        write(out, protocol);
        return out.toByteArray();
    }
}
