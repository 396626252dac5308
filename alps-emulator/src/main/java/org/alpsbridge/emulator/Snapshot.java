package org.alpsbridge.emulator;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.nodes.NidSet;

/**
 * The text form of an emulator's state, as the drop-in keeps it between invocations: the machine spec,
 * the counters, the nodes that differ from how the machine starts, every reservation with what it holds,
 * and the faults. Line-oriented, one record per line, strings percent-encoded; the last line counts the
 * records before it, so a file cut short is recognised instead of half-loaded. A run of nodes in NID order
 * holding the same (a whole-node job) takes one {@code shares FIRST-LAST} line, so a state holding 50,000
 * nodes loads in one pass over a few hundred lines.
 */
final class Snapshot {

    static final String MAGIC = "alpsbridge-emulator-state 1";

    private Snapshot() {
    }

    static void write(Emulator e, Writer out) throws IOException {
        Apsched a = e.apsched();
        Machine m = a.machine();
        List<String> lines = new ArrayList<>();
        lines.add(MAGIC);
        lines.add("machine " + enc(m.spec()));
        long[] c = a.counters();
        lines.add("counters " + c[0] + " " + c[1] + " " + c[2] + " " + c[3]);
        for (int node = 0; node < m.size(); node++) {
            if (a.changedSinceStart(node)) {
                lines.add("node " + m.nid(node) + " " + a.state(node) + " " + a.role(node) + " " + a.changedAt(node) + " "
                        + enc(String.join(",", a.labels(node))));
            }
        }
        for (Reservation r : a.reservations()) {
            lines.add("reservation " + r.id + " " + enc(r.user) + " " + enc(r.account) + " " + enc(r.batchId) + " " + bit(r.shared)
                    + " " + enc(r.gpcMode) + " " + r.timeStamp + " " + r.pagg + " " + bit(r.suspended) + " " + bit(r.releasing)
                    + " " + r.basilApid);
            for (Reservation.Command cmd : r.commands) {
                lines.add("command " + cmd.width() + " " + cmd.depth() + " " + cmd.nppn() + " " + cmd.memoryMb() + " " + enc(cmd.architecture()));
            }
            List<Reservation.Share> shares = r.shares;
            for (int i = 0, end; i < shares.size(); i = end) {
                Reservation.Share s = shares.get(i);
                end = i + 1;
                while (end < shares.size() && sameRun(m, shares.get(end - 1), shares.get(end))) {
                    end++;
                }
                String pages = Arrays.stream(s.pages()).mapToObj(Long::toString).collect(Collectors.joining(","));
                String nids = end - i == 1 ? "share " + m.nid(s.node()) : "shares " + m.nid(s.node()) + "-" + m.nid(shares.get(end - 1).node());
                lines.add(nids + " " + NidSet.copyOf(s.processors().stream().asLongStream()) + " " + pages
                        + " " + bit(s.accelerator()) + " " + enc(s.memoryType()));
            }
            for (Reservation.Application app : r.applications) {
                lines.add("application " + app.apid() + " " + app.userId() + " " + app.groupId() + " " + app.timeStamp() + " "
                        + enc(app.cmd()) + " " + app.width() + " " + app.depth() + " " + app.nppn());
            }
        }
        for (Map.Entry<Method, Faults.Fault> f : e.faults().all().entrySet()) {
            Faults.Fault v = f.getValue();
            lines.add("fault " + f.getKey() + " " + v.kind() + " " + enc(v.errorClass() == null ? null : v.errorClass().name()) + " "
                    + enc(v.message()) + " " + v.millis() + " " + v.jitterMillis() + " " + enc(v.source()));
        }
        lines.add("lose-next-release " + bit(e.faults().loseNextRelease()));
        for (String line : lines) {
            out.write(line);
            out.write('\n');
        }
        out.write("end " + lines.size() + "\n");
    }

    /**
     * Reads a snapshot back.
     *
     * @param spec the machine the caller expects, or {@code null} to take the snapshot's
     * @throws IllegalArgumentException naming the line when the text is not a whole, consistent snapshot
     */
    static Emulator read(BufferedReader in, String spec, LongSupplier clock) throws IOException {
        List<String> lines = in.lines().toList();
        if (lines.isEmpty() || !lines.get(0).equals(MAGIC)) {
            throw new IllegalArgumentException("not an emulator state file (first line is not '" + MAGIC + "')");
        }
        String last = lines.get(lines.size() - 1);
        if (!last.equals("end " + (lines.size() - 1))) {
            throw new IllegalArgumentException("emulator state file is incomplete (no matching 'end' line)");
        }
        Emulator e = null;
        Reservation current = null;
        List<Reservation.Command> commands = new ArrayList<>();
        List<Reservation.Share> shares = new ArrayList<>();
        String[] head = null;
        for (int i = 1; i < lines.size() - 1; i++) {
            String[] f = lines.get(i).split(" ", -1);
            try {
                switch (f[0]) {
                    case "machine" -> {
                        String saved = dec(f[1]);
                        if (spec != null && !spec.equals(saved)) {
                            throw new IllegalArgumentException("the state directory holds machine '" + saved + "', not '" + spec + "'");
                        }
                        e = new Emulator(new Apsched(Machine.parse(saved), clock, false), new Faults());
                    }
                    case "counters" -> e.apsched().restoreCounters(new long[] {
                        Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])});
                    case "node" -> {
                        String labels = dec(f[5]);
                        e.apsched().restoreNode(index(e, f[1]), NodeState.parse(f[2]), Role.parse(f[3]),
                                labels.isEmpty() ? new String[0] : labels.split(","), Long.parseLong(f[4]));
                    }
                    case "reservation" -> {
                        finish(e, head, commands, shares, current);
                        head = f;
                        current = null;
                        commands = new ArrayList<>();
                        shares = new ArrayList<>();
                    }
                    case "command" -> commands.add(new Reservation.Command(Long.parseLong(f[1]), Long.parseLong(f[2]),
                            Long.parseLong(f[3]), Long.parseLong(f[4]), dec(f[5])));
                    case "share", "shares" -> {
                        String[] range = f[0].equals("share") ? new String[] {f[1], f[1]} : f[1].split("-", 2);
                        int firstNid = Integer.parseInt(range[0]);
                        int lastNid = Integer.parseInt(range[1]);
                        if (lastNid < firstNid) {
                            throw new IllegalArgumentException("NID range " + f[1] + " runs backwards");
                        }
                        BitSet processors = new BitSet();
                        NidSet.parse(f[2]).stream().forEach(p -> processors.set((int) p));
                        String[] p = f[3].split(",");
                        long[] pages = new long[p.length];
                        for (int k = 0; k < p.length; k++) {
                            pages[k] = Long.parseLong(p[k]);
                        }
                        String memoryType = dec(f[5]);
                        for (int nid = firstNid; nid <= lastNid; nid++) {
                            int node = index(e, Integer.toString(nid));
                            if (pages.length != e.apsched().machine().hardware(node).segments()) {
                                throw new IllegalArgumentException("share on NID " + nid + " lists " + pages.length + " segments");
                            }
                            // the shares of one run may hold the same sets: nothing changes a share once made
                            shares.add(new Reservation.Share(node, processors, pages, f[4].equals("1"), memoryType));
                        }
                    }
                    case "application" -> {
                        current = current == null ? finish(e, head, commands, shares, null) : current;
                        head = null;
                        current.applications.add(new Reservation.Application(Long.parseLong(f[1]), Long.parseLong(f[2]),
                                Long.parseLong(f[3]), Long.parseLong(f[4]), dec(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]),
                                Long.parseLong(f[8])));
                    }
                    case "fault" -> {
                        String cls = dec(f[3]);
                        e.faults().set(Method.valueOf(f[1]), new Faults.Fault(Faults.Kind.valueOf(f[2]),
                                cls == null ? null : ErrorClass.valueOf(cls), dec(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]),
                                f.length > 7 ? dec(f[7]) : "BACKEND")); // states written before the source was kept
                    }
                    case "lose-next-release" -> e.faults().loseNextRelease(f[1].equals("1"));
                    default -> throw new IllegalArgumentException("unknown record '" + f[0] + "'");
                }
            } catch (RuntimeException ex) {
                throw new IllegalArgumentException("emulator state file, line " + (i + 1) + ": " + ex.getMessage(), ex);
            }
        }
        finish(e, head, commands, shares, current);
        if (e == null) {
            throw new IllegalArgumentException("emulator state file names no machine");
        }
        return e;
    }

    /** Completes the reservation whose head line was read (if not already), returning it. */
    private static Reservation finish(Emulator e, String[] head, List<Reservation.Command> commands,
                                      List<Reservation.Share> shares, Reservation done) {
        if (head == null) {
            return done;
        }
        Reservation r = new Reservation(Long.parseLong(head[1]), dec(head[2]), dec(head[3]), dec(head[4]), head[5].equals("1"),
                dec(head[6]), Long.parseLong(head[7]), commands, shares);
        r.pagg = Long.parseLong(head[8]);
        r.suspended = head[9].equals("1");
        r.releasing = head[10].equals("1");
        r.basilApid = Long.parseLong(head[11]);
        e.apsched().restoreReservation(r);
        return r;
    }

    /** True if {@code b} continues a run of shares begun before {@code a}: the next NID, holding exactly the same. */
    private static boolean sameRun(Machine m, Reservation.Share a, Reservation.Share b) {
        return m.nid(b.node()) == m.nid(a.node()) + 1 && a.accelerator() == b.accelerator() && a.processors().equals(b.processors())
                && Arrays.equals(a.pages(), b.pages()) && Objects.equals(a.memoryType(), b.memoryType());
    }

    private static int index(Emulator e, String nid) {
        int node = e.apsched().machine().indexOf(Integer.parseInt(nid));
        if (node < 0) {
            throw new IllegalArgumentException("NID " + nid + " is not a compute node of the machine");
        }
        return node;
    }

    private static String bit(boolean b) {
        return b ? "1" : "0";
    }

    /** Percent-encoding keeps every field free of spaces and newlines; {@code -} stands for null. */
    private static String enc(String s) {
        return s == null ? "-" : s.isEmpty() ? "%" : URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return s.equals("-") ? null : s.equals("%") ? "" : URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
