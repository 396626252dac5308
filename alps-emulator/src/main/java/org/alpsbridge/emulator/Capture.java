package org.alpsbridge.emulator;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;

/**
 * A machine replayed from a captured QUERY INVENTORY response ({@code inventory:FILE[,engine=VERSION]}), so
 * a site can develop against its own system: the nodes with their NIDs, names, roles, states, topology,
 * memory, labels and GPUs, and the reservations the capture shows, with what they hold.
 *
 * <p>Every node must be regular (the same number of cores in each segment, of threads in each core), as
 * ALPS hardware is; node memory is spread evenly over its segments. Reservations keep their ids, users,
 * batch ids and applications; they count as confirmed (with pagg_id -1, unknown).
 */
final class Capture {

    static final String PREFIX = "inventory:";

    private Capture() {
    }

    static Machine machine(String spec) {
        String rest = spec.substring(PREFIX.length());
        String engine = Machine.DEFAULT_ENGINE;
        int comma = rest.lastIndexOf(",engine=");
        if (comma >= 0) {
            engine = rest.substring(comma + ",engine=".length()).trim();
            rest = rest.substring(0, comma);
        }
        Path file = Path.of(rest);
        try (InputStream in = Files.newInputStream(file); InventoryReader r = InventoryReader.open(in)) {
            if (!r.header().isSuccess()) {
                throw new IllegalArgumentException("machine '" + spec + "': the captured response is a FAILURE, not an inventory");
            }
            return read(spec, r, engine);
        } catch (IOException e) {
            throw new IllegalArgumentException("machine '" + spec + "': " + org.alpsbridge.failure.Failures.describe(e), e);
        } catch (BasilException e) {
            throw new IllegalArgumentException("machine '" + spec + "': " + e.getMessage(), e);
        }
    }

    private static Machine read(String spec, InventoryReader r, String engine) throws BasilException {
        List<NodeView> nodes = new ArrayList<>();
        for (NodeView n; (n = r.nextNode()) != null; ) {
            nodes.add(n);
        }
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("machine '" + spec + "': the captured inventory lists no nodes");
        }
        int size = nodes.size();
        int[] nids = new int[size];
        String[] names = new String[size];
        Hardware[] hardware = new Hardware[size];
        byte[] roles = new byte[size];
        String[][] labels = new String[size][];
        NodeState[] states = new NodeState[size];
        Map<Hardware, Hardware> kinds = new HashMap<>();
        for (int i = 0; i < size; i++) {
            NodeView n = nodes.get(i);
            if (n.nodeId() < 0 || n.nodeId() >= Machine.MAX_NID) {
                throw new IllegalArgumentException("machine '" + spec + "': NID " + n.nodeId() + " is out of range");
            }
            nids[i] = (int) n.nodeId();
            names[i] = n.name();
            Hardware hw = hardware(n);
            hardware[i] = kinds.computeIfAbsent(hw, h -> h);
            roles[i] = "INTERACTIVE".equals(n.role()) ? Machine.ROLE_INTERACTIVE : Machine.ROLE_BATCH;
            states[i] = state(n.state());
            labels[i] = labels(n);
        }
        Machine bare = new Machine(spec, nids, names, hardware, roles, labels, states, List.of(), engine);
        List<Reservation> held = new ArrayList<>();
        for (ReservationView v; (v = r.nextReservation()) != null; ) {
            held.add(reservation(v, nodes, bare));
        }
        return new Machine(spec, nids, names, hardware, roles, labels, states, held, engine);
    }

    private static NodeState state(String s) {
        try {
            return NodeState.parse(s == null ? "UNKNOWN" : s);
        } catch (IllegalArgumentException e) {
            return NodeState.UNKNOWN;
        }
    }

    private static String[] labels(NodeView n) {
        List<String> names = new ArrayList<>();
        n.labels().forEach(l -> names.add(l.name()));
        n.segments().forEach(s -> s.labels().forEach(l -> names.add(l.name())));
        return names.stream().distinct().toArray(String[]::new);
    }

    /** The hardware of a captured node, named after its shape, e.g. {@code captured-2x1x8x2-65536m}. */
    private static Hardware hardware(NodeView n) {
        int sockets = n.sockets().size();
        int segments = -1;
        int cores = -1;
        int threads = -1;
        for (NodeView.Socket s : n.sockets()) {
            segments = same(n, "segments per socket", segments, s.segments().size());
            for (NodeView.Segment g : s.segments()) {
                cores = same(n, "cores per segment", cores, g.cores().size());
                for (NodeView.Core c : g.cores()) {
                    threads = same(n, "threads per core", threads, c.threads().size());
                }
            }
        }
        if (sockets == 0 || segments <= 0 || cores <= 0 || threads <= 0) {
            throw new IllegalArgumentException("node " + n.nodeId() + " of the capture has no processors");
        }
        long memoryMb = Math.max(n.memoryMb(), (long) sockets * segments);
        long clock = n.sockets().get(0).clockMhz();
        Hardware.Accelerator accel = n.accelerators().isEmpty() ? null : new Hardware.Accelerator(
                n.accelerators().get(0).family(), (int) n.accelerators().get(0).memoryMb(), (int) n.accelerators().get(0).clockMhz());
        String kind = String.format(Locale.ROOT, "captured-%dx%dx%dx%d-%dm%s", sockets, segments, cores, threads, memoryMb,
                accel == null ? "" : "-gpu");
        return new Hardware(kind, n.routerId() == null, sockets, segments, cores, threads, (int) clock, memoryMb, accel, 0);
    }

    private static int same(NodeView n, String what, int seen, int now) {
        if (seen >= 0 && seen != now) {
            throw new IllegalArgumentException("node " + n.nodeId() + " of the capture is irregular: " + what + " differ ("
                    + seen + " and " + now + ")");
        }
        return now;
    }

    /** A captured reservation with the processors, pages and GPUs the capture shows it holding. */
    private static Reservation reservation(ReservationView v, List<NodeView> nodes, Machine m) {
        Map<Integer, Reservation.Share> shares = new LinkedHashMap<>();
        for (int node = 0; node < nodes.size(); node++) {
            NodeView n = nodes.get(node);
            Hardware hw = m.hardware(node);
            BitSet processors = new BitSet();
            long[] pages = new long[hw.segments()];
            int p = 0;
            int segment = 0;
            boolean holds = false;
            for (NodeView.Segment g : n.segments()) {
                for (NodeView.Core c : g.cores()) {
                    for (NodeView.Thread t : c.threads()) {
                        if (t.reservations().contains(v.reservationId())) {
                            processors.set(p);
                            holds = true;
                        }
                        p++;
                    }
                }
                for (NodeView.Memory mem : g.memory()) {
                    pages[segment] += held(mem, v.reservationId(), hw);
                }
                segment++;
            }
            for (NodeView.Memory mem : n.memory()) {
                pages[0] += held(mem, v.reservationId(), hw);
            }
            boolean gpu = n.accelerators().stream().anyMatch(a -> a.reservations().contains(v.reservationId()));
            holds |= gpu || java.util.Arrays.stream(pages).anyMatch(x -> x > 0);
            if (holds) {
                shares.put(node, new Reservation.Share(node, processors, pages, gpu, "OS"));
            }
        }
        List<Reservation.Command> commands = new ArrayList<>();
        long basilApid = 0;
        List<Reservation.Application> apps = new ArrayList<>();
        for (ReservationView.Application a : v.applications()) {
            if (a.isReservationPseudoApplication()) {
                basilApid = a.applicationId();
                a.commands().forEach(c -> commands.add(new Reservation.Command(c.width(), c.depth(), c.nppn(), c.memory(),
                        c.architecture() == null ? "XT" : c.architecture())));
            } else {
                ReservationView.Command c = a.commands().isEmpty() ? null : a.commands().get(0);
                apps.add(new Reservation.Application(a.applicationId(), a.userId(), a.groupId(), a.timeStamp(),
                        c == null ? "a.out" : c.cmd(), c == null ? 0 : c.width(), c == null ? 0 : c.depth(), c == null ? 0 : c.nppn()));
            }
        }
        if (commands.isEmpty()) {
            long width = shares.values().stream().mapToLong(s -> s.processors().cardinality()).sum();
            commands.add(new Reservation.Command(width, 1, 0, 0, "XT"));
        }
        Reservation r = new Reservation(v.reservationId(), v.userName() == null ? "UNKNOWN" : v.userName(),
                v.accountName() == null ? "DEFAULT" : v.accountName(), v.batchId() == null ? "UNKNOWN" : v.batchId(),
                "SHARED".equals(v.reservationMode()), v.gpcMode(), v.timeStamp() == null ? 0 : v.timeStamp(), commands,
                new ArrayList<>(shares.values()));
        r.applications.addAll(apps);
        r.basilApid = basilApid;
        r.pagg = -1;
        return r;
    }

    /** Pages of a bank the reservation holds, in the emulator's page size. */
    private static long held(NodeView.Memory mem, long reservation, Hardware hw) {
        long kb = 0;
        for (NodeView.MemoryAllocation a : mem.allocations()) {
            if (a.reservationId() == reservation) {
                kb += a.pageCount() * mem.pageSizeKb();
            }
        }
        return Math.min(kb / Hardware.PAGE_SIZE_KB, hw.pages());
    }
}
