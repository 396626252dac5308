package org.alpsbridge.basil.nodes;

/**
 * A Cray node cname, {@code c<column>-<row>c<chassis>s<slot>n<node>} (e.g. {@code c0-0c0s5n0}): cabinet column
 * and row, chassis in the cabinet, slot (blade) in the chassis, node on the blade. This is the {@code name}
 * attribute of an inventory Node.
 *
 * <p>The NID of a cname is not part of the name: the SMW assigns NIDs, and the inventory's {@code node_id} is
 * the authority. {@link #toNid(Layout)} and {@link #ofNid(long, Layout)} derive it under a stated {@link Layout}:
 * nodes numbered blade by blade, chassis by chassis, cabinet by cabinet along a row, row after row. That is how
 * XC (Aries) systems number their compute nodes; Gemini (XE/XK) systems interleave differently, so for them the
 * derivation is only this project's convention (the emulator's).
 */
public record Cname(int column, int row, int chassis, int slot, int node) {

    public Cname {
        if (column < 0 || row < 0 || chassis < 0 || slot < 0 || node < 0) {
            throw new IllegalArgumentException("cname parts must not be negative: c" + column + "-" + row + "c" + chassis + "s" + slot + "n" + node);
        }
    }

    /**
     * The geometry of a machine's cabinets, which fixes the NID ↔ cname mapping.
     *
     * @param cabinetsPerRow cabinets in one row (columns {@code 0..cabinetsPerRow-1})
     * @param chassisPerCabinet 3 on XC and XE/XK
     * @param slotsPerChassis 16 blades on XC (Aries), 8 on XE/XK (Gemini)
     * @param nodesPerSlot 4 compute nodes per blade
     */
    public record Layout(int cabinetsPerRow, int chassisPerCabinet, int slotsPerChassis, int nodesPerSlot) {

        /** An XC (Aries) row: 3 chassis of 16 blades of 4 nodes, 192 nodes per cabinet. */
        public static Layout aries(int cabinetsPerRow) {
            return new Layout(cabinetsPerRow, 3, 16, 4);
        }

        /** An XE/XK (Gemini) row: 3 chassis of 8 blades of 4 nodes, 96 nodes per cabinet. */
        public static Layout gemini(int cabinetsPerRow) {
            return new Layout(cabinetsPerRow, 3, 8, 4);
        }

        public Layout {
            if (cabinetsPerRow < 1 || chassisPerCabinet < 1 || slotsPerChassis < 1 || nodesPerSlot < 1) {
                throw new IllegalArgumentException("every cabinet layout dimension must be at least 1");
            }
        }
    }

    private static final String WHAT = "cname";

    /**
     * Parses a node cname. Parts are decimal without signs; each must fit an {@code int}.
     *
     * @throws NodeSyntaxException naming the offset where the text stops matching {@code c#-#c#s#n#}
     */
    public static Cname parse(String text) {
        int[] parts = new int[5];
        String seps = "c-csn";
        int i = 0;
        for (int p = 0; p < 5; p++) {
            if (i >= text.length() || text.charAt(i) != seps.charAt(p)) {
                throw new NodeSyntaxException(WHAT, text, i, text, "does not match c#-#c#s#n#: expected '" + seps.charAt(p) + "' at offset " + i);
            }
            i++;
            int start = i;
            long v = 0;
            while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
                v = v * 10 + text.charAt(i) - '0';
                if (v > Integer.MAX_VALUE) {
                    throw new NodeSyntaxException(WHAT, text, start, text, "has a number too large at offset " + start);
                }
                i++;
            }
            if (i == start) {
                throw new NodeSyntaxException(WHAT, text, i, text, "does not match c#-#c#s#n#: expected a number at offset " + i);
            }
            parts[p] = (int) v;
        }
        if (i != text.length()) {
            throw new NodeSyntaxException(WHAT, text, i, text, "has extra text after the node number at offset " + i);
        }
        return new Cname(parts[0], parts[1], parts[2], parts[3], parts[4]);
    }

    /** The cname of a NID under a layout. */
    public static Cname ofNid(long nid, Layout layout) {
        NidSet.checkNid(nid);
        long blade = nid / layout.nodesPerSlot();
        long chassis = blade / layout.slotsPerChassis();
        long cabinet = chassis / layout.chassisPerCabinet();
        long row = cabinet / layout.cabinetsPerRow();
        if (row > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("NID " + nid + " lies beyond the last cabinet row a cname can name");
        }
        return new Cname((int) (cabinet % layout.cabinetsPerRow()), (int) row, (int) (chassis % layout.chassisPerCabinet()),
                (int) (blade % layout.slotsPerChassis()), (int) (nid % layout.nodesPerSlot()));
    }

    /**
     * The NID of this cname under a layout.
     *
     * @throws IllegalArgumentException naming the part that does not exist in the layout, and its limit
     */
    public long toNid(Layout layout) {
        outside("column", column, layout.cabinetsPerRow());
        outside("chassis", chassis, layout.chassisPerCabinet());
        outside("slot", slot, layout.slotsPerChassis());
        outside("node", node, layout.nodesPerSlot());
        long cabinet = (long) row * layout.cabinetsPerRow() + column;
        return ((cabinet * layout.chassisPerCabinet() + chassis) * layout.slotsPerChassis() + slot) * layout.nodesPerSlot() + node;
    }

    private void outside(String part, int value, int count) {
        if (value >= count) {
            throw new IllegalArgumentException("cname " + this + ": " + part + " " + value + " does not exist in a layout of "
                    + count + " (0.." + (count - 1) + ")");
        }
    }

    @Override
    public String toString() {
        return "c" + column + "-" + row + "c" + chassis + "s" + slot + "n" + node;
    }
}
