package org.alpsbridge.emulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.alpsbridge.basil.nodes.Cname;

/**
 * The fixed part of an emulated system: its compute nodes (NID, cname, hardware, initial role and state,
 * labels), in ALPS NID order, and the ALPS engine version it reports. Immutable.
 *
 * <p>Spec grammar: {@code [mixed:]KIND:N(+KIND:N)*[,service=S][,interactive=I][,engine=VERSION]}, or
 * {@code inventory:FILE} (a captured QUERY INVENTORY response). NIDs are handed out in order: first the
 * {@code S} service nodes (they own NIDs and cnames but, as on a real system, never appear in an
 * inventory), then the compute nodes kind by kind. The first {@code I} compute nodes have role
 * INTERACTIVE, the rest BATCH. All start UP.
 */
final class Machine {

    /** ALPS engine the emulator claims when the spec names none: CLE 6 era, so every BASIL level through 1.7. */
    static final String DEFAULT_ENGINE = "6.0.0";
    /** Cabinets per row when naming nodes; a real row holds about this many. */
    static final int CABINETS_PER_ROW = 16;
    private static final Cname.Layout ARIES = Cname.Layout.aries(CABINETS_PER_ROW);
    private static final Cname.Layout GEMINI = Cname.Layout.gemini(CABINETS_PER_ROW);

    /** NIDs are looked up in a dense table; real systems stay far below this. */
    static final int MAX_NID = 4_000_000;

    /** Shared by every unlabelled node; label arrays are replaced, never changed in place. */
    private static final String[] NO_LABELS = new String[0];

    static final byte ROLE_BATCH = 0;
    static final byte ROLE_INTERACTIVE = 1;

    private final String spec;
    private final int[] nids;
    /** Node names as captured, or {@code null} when they follow from the NIDs (see {@link #name(int)}). */
    private final String[] names;
    private final Hardware[] hardware;
    private final byte[] roles;
    private final String[][] labels;
    private final NodeState[] states;
    private final List<Reservation> startReservations;
    private final String engineVersion;
    private final int[] indexByNid;
    private final List<Hardware> kinds;

    /**
     * @param names node names, or {@code null} to derive each from its NID as {@link #cname(int, boolean)} does
     * @param states initial node states, or {@code null} for all UP
     * @param startReservations reservations the machine holds at start (from a captured inventory); copied per use
     */
    Machine(String spec, int[] nids, String[] names, Hardware[] hardware, byte[] roles, String[][] labels, NodeState[] states,
            List<Reservation> startReservations, String engineVersion) {
        this.spec = spec;
        this.nids = nids;
        this.names = names;
        this.hardware = hardware;
        this.roles = roles;
        this.labels = labels;
        this.states = states;
        this.startReservations = List.copyOf(startReservations);
        this.engineVersion = engineVersion;
        int maxNid = Arrays.stream(nids).max().orElse(-1);
        if (maxNid >= MAX_NID || Arrays.stream(nids).anyMatch(n -> n < 0)) {
            throw new IllegalArgumentException("machine '" + spec + "': NIDs must lie in 0.." + (MAX_NID - 1));
        }
        this.indexByNid = new int[maxNid + 1];
        Arrays.fill(indexByNid, -1);
        for (int i = 0; i < nids.length; i++) {
            if (indexByNid[nids[i]] >= 0) {
                throw new IllegalArgumentException("machine '" + spec + "': NID " + nids[i] + " appears twice");
            }
            indexByNid[nids[i]] = i;
        }
        List<Hardware> distinct = new ArrayList<>();
        Hardware previous = null;
        for (Hardware h : hardware) {
            // nodes of one kind come in runs sharing one instance: compare by identity first, equality rarely
            if (h != previous && !distinct.contains(h)) {
                distinct.add(h);
            }
            previous = h;
        }
        this.kinds = List.copyOf(distinct);
    }

    static Machine parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("empty machine spec; expected e.g. xc30:2256 or xc30:100+knl:20,service=4,interactive=2");
        }
        if (spec.startsWith(Capture.PREFIX)) {
            return Capture.machine(spec);
        }
        String[] parts = spec.trim().split(",");
        String body = parts[0];
        if (body.startsWith("mixed:")) {
            body = body.substring("mixed:".length());
        }
        int service = 0;
        int interactive = 0;
        String engine = DEFAULT_ENGINE;
        for (int i = 1; i < parts.length; i++) {
            String[] kv = parts[i].split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("machine '" + spec + "': option '" + parts[i] + "' is not NAME=VALUE");
            }
            switch (kv[0].trim()) {
                case "service" -> service = count(spec, kv[0], kv[1], 0);
                case "interactive" -> interactive = count(spec, kv[0], kv[1], 0);
                case "engine" -> engine = engineVersion(spec, kv[1].trim());
                default -> throw new IllegalArgumentException("machine '" + spec + "': unknown option '" + kv[0]
                        + "'; known: service=S, interactive=I, engine=VERSION");
            }
        }
        List<Hardware> kinds = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        for (String group : body.split("\\+")) {
            int colon = group.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("machine '" + spec + "': '" + group + "' is not KIND:N (kinds: " + Hardware.KINDS + ")");
            }
            kinds.add(Hardware.named(group.substring(0, colon).trim()));
            counts.add(count(spec, group.substring(0, colon), group.substring(colon + 1), 1));
        }
        long total = counts.stream().mapToLong(Integer::longValue).sum();
        if (total + service > 1_000_000) {
            throw new IllegalArgumentException("machine '" + spec + "': " + (total + service) + " nodes is more than the 1,000,000 the emulator supports");
        }
        if (interactive > total) {
            throw new IllegalArgumentException("machine '" + spec + "': interactive=" + interactive + " but only " + total + " compute nodes");
        }
        int n = (int) total;
        int[] nids = new int[n];
        Hardware[] hardware = new Hardware[n];
        byte[] roles = new byte[n];
        int node = 0;
        int nid = service;
        for (int g = 0; g < kinds.size(); g++) {
            for (int k = 0; k < counts.get(g); k++, node++, nid++) {
                nids[node] = nid;
                hardware[node] = kinds.get(g);
                roles[node] = node < interactive ? ROLE_INTERACTIVE : ROLE_BATCH;
            }
        }
        // Names are derived when asked for: a drop-in answering SUMMARY for 100,000 nodes never needs them.
        return new Machine(spec, nids, null, hardware, roles, new String[n][], null, List.of(), engine);
    }

    private static int count(String spec, String name, String value, int min) {
        try {
            int v = Integer.parseInt(value.trim());
            if (v >= min) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("machine '" + spec + "': " + name.trim() + " needs a whole number of at least " + min
                + ", not '" + value.trim() + "'");
    }

    private static String engineVersion(String spec, String version) {
        if (!version.matches("[0-9]+(\\.[0-9A-Za-z]+)*")) {
            throw new IllegalArgumentException("machine '" + spec + "': engine version '" + version + "' is not like 5.2.44 or 6.0.0");
        }
        return version;
    }

    /** The cname of a NID, in the XC numbering of {@link Cname} (this project's convention on Gemini). */
    static String cname(int nid, boolean aries) {
        return Cname.ofNid(nid, aries ? ARIES : GEMINI).toString();
    }

    String spec() {
        return spec;
    }

    int size() {
        return nids.length;
    }

    int nid(int node) {
        return nids[node];
    }

    String name(int node) {
        return names != null ? names[node] : cname(nids[node], hardware[0].aries());
    }

    Hardware hardware(int node) {
        return hardware[node];
    }

    byte initialRole(int node) {
        return roles[node];
    }

    /** Labels of a node as set at start (inventory replay); never {@code null}. */
    String[] initialLabels(int node) {
        String[] l = labels[node];
        return l == null ? NO_LABELS : l;
    }

    NodeState initialState(int node) {
        return states == null ? NodeState.UP : states[node];
    }

    /** Fresh copies of the reservations the machine holds at start. */
    List<Reservation> startReservations() {
        return startReservations.stream().map(Reservation::copy).toList();
    }

    String engineVersion() {
        return engineVersion;
    }

    /**
     * True for an engine of CLE 5.2 before UP03 ("5.2.0" to "5.2.2"), whose 1.3 inventory puts MemoryArray on
     * the Node (PROTOCOL.md §4.5). Slurm tells the two apart by the number after "5.2." (UP03 is 5.2.44).
     */
    boolean memoryOnNode() {
        if (!engineVersion.startsWith("5.2.")) {
            return false;
        }
        String rest = engineVersion.substring(4);
        int digits = 0;
        while (digits < rest.length() && digits < 9 && Character.isDigit(rest.charAt(digits))) {
            digits++;
        }
        return digits > 0 && Integer.parseInt(rest.substring(0, digits)) < 3;
    }

    /** The node index of a NID, or -1 if the machine has no compute node with that NID. */
    int indexOf(int nid) {
        return nid >= 0 && nid < indexByNid.length ? indexByNid[nid] : -1;
    }

    /** Distinct hardware kinds, in order of first appearance. */
    List<Hardware> kinds() {
        return kinds;
    }
}
