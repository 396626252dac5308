package org.alpsbridge.basil.nodes;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * An ordered list of host names in Slurm's compressed hostlist syntax: {@code nid[00001-00128,00200]},
 * {@code c0-0c0s[0-3]n[0-3]}, {@code login1,nid00042}. Order and repeats are kept as written, as Slurm's own
 * hostlists keep them; {@link #sortedDistinct()} gives the set view.
 *
 * <p>Parsing: items are separated by commas or white space outside brackets; each item is literal text with
 * any number of {@code [..]} groups (several groups expand as a cartesian product, left to right). A group holds
 * comma-separated numbers and {@code lo-hi} ranges; a number written with {@code d} digits is zero-padded to
 * {@code d} digits, so {@code [00001-00128]} gives {@code 00001 ... 00128} and {@code [8-10]} gives {@code 8 9 10}.
 *
 * <p>Formatting ({@link #toString()}) compresses runs of names that differ only in their trailing number and
 * follow each other in the list, keeping the list's order, so that {@code parse(h.toString())} equals
 * {@code h}. Cray compute nodes are named {@code nid%05u} by Slurm ({@link #nidName(long)}).
 */
public final class Hostlist {

    /** Default ceiling on the names one hostlist may expand to: well above any real machine. */
    public static final int DEFAULT_MAX_HOSTS = 4_000_000;

    private static final String NID_PREFIX = "nid";
    private static final int NID_DIGITS = 5;
    /** Longest trailing number treated as a number; longer digit runs stay literal text. */
    static final int MAX_NUMBER_DIGITS = 18;

    private final List<String> hosts;

    private Hostlist(List<String> hosts) {
        this.hosts = hosts;
    }

    /** Parses a hostlist with the {@link #DEFAULT_MAX_HOSTS} ceiling. Blank text is the empty list. */
    public static Hostlist parse(String text) {
        return parse(text, DEFAULT_MAX_HOSTS);
    }

    /**
     * Parses a hostlist.
     *
     * @param maxHosts refuse (rather than allocate) lists that would expand to more names than this
     * @throws NodeSyntaxException naming the bad item and its offset
     */
    public static Hostlist parse(String text, int maxHosts) {
        return new Hostlist(Collections.unmodifiableList(HostlistParser.parse(text, maxHosts)));
    }

    /** The names as given, in order. Each must be a non-empty name without separators or brackets. */
    public static Hostlist of(Collection<String> names) {
        List<String> copy = new ArrayList<>(names.size());
        for (String name : names) {
            copy.add(checkName(name));
        }
        return new Hostlist(Collections.unmodifiableList(copy));
    }

    /** The Slurm names ({@code nid00042}) of a set of NIDs, ascending. */
    public static Hostlist ofNids(NidSet nids) {
        if (nids.size() > DEFAULT_MAX_HOSTS) {
            throw new IllegalArgumentException(nids.size() + " NIDs are more than a hostlist holds (" + DEFAULT_MAX_HOSTS + ")");
        }
        List<String> names = new ArrayList<>((int) nids.size());
        nids.stream().forEach(nid -> names.add(nidName(nid)));
        return new Hostlist(Collections.unmodifiableList(names));
    }

    /** Slurm's name for a Cray compute node: {@code nid} and the NID zero-padded to five digits. */
    public static String nidName(long nid) {
        NidSet.checkNid(nid);
        return NID_PREFIX + HostlistFormatter.padded(nid, NID_DIGITS);
    }

    /**
     * The NID of a Slurm compute-node name. Only the exact form {@link #nidName(long)} writes is accepted:
     * Slurm looks nodes up by that string, so {@code nid42} would name no node.
     *
     * @throws NodeSyntaxException if the name is not {@code nid} and a five-or-more digit NID
     */
    public static long nidOf(String name) {
        if (name.length() > NID_PREFIX.length() && name.startsWith(NID_PREFIX)) {
            String digits = name.substring(NID_PREFIX.length());
            if (digits.length() <= MAX_NUMBER_DIGITS && digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                long nid = Long.parseLong(digits);
                if (nid <= NidSet.MAX_NID && nidName(nid).equals(name)) {
                    return nid;
                }
                throw new NodeSyntaxException("compute node name", name, 0, name, "is not in Slurm's nid%05u form; expected "
                        + (nid <= NidSet.MAX_NID ? nidName(nid) : "a NID up to " + NidSet.MAX_NID));
            }
        }
        throw new NodeSyntaxException("compute node name", name, 0, name, "is not a Cray compute node name like nid00042");
    }

    public List<String> hosts() {
        return hosts;
    }

    public int size() {
        return hosts.size();
    }

    public boolean isEmpty() {
        return hosts.isEmpty();
    }

    /** The NIDs of the names, which must all be {@code nid%05u} names. */
    public NidSet toNids() {
        long[] nids = new long[hosts.size()];
        for (int i = 0; i < nids.length; i++) {
            nids[i] = nidOf(hosts.get(i));
        }
        return NidSet.of(nids);
    }

    /**
     * The same names once each, sorted the way a person reads hostlists: by the text before the trailing
     * number, then by that number's value, then by the full text.
     */
    public Hostlist sortedDistinct() {
        List<String> distinct = new ArrayList<>(new LinkedHashSet<>(hosts));
        distinct.sort(NATURAL);
        return new Hostlist(Collections.unmodifiableList(distinct));
    }

    /** The compressed hostlist text; empty for the empty list. */
    @Override
    public String toString() {
        return HostlistFormatter.format(hosts);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Hostlist other && hosts.equals(other.hosts);
    }

    @Override
    public int hashCode() {
        return hosts.hashCode();
    }

    /** Start of a name's trailing number (its length if there is none, or if it is too long to be one). */
    static int numberStart(String name) {
        int i = name.length();
        while (i > 0 && Character.isDigit(name.charAt(i - 1)) && name.charAt(i - 1) < 128) {
            i--;
        }
        return name.length() - i > MAX_NUMBER_DIGITS ? name.length() : i;
    }

    private static final Comparator<String> NATURAL = (a, b) -> {
        int sa = numberStart(a);
        int sb = numberStart(b);
        int c = a.substring(0, sa).compareTo(b.substring(0, sb));
        if (c != 0) {
            return c;
        }
        boolean na = sa < a.length();
        boolean nb = sb < b.length();
        if (na && nb) {
            c = Long.compare(Long.parseLong(a.substring(sa)), Long.parseLong(b.substring(sb)));
        } else {
            c = Boolean.compare(na, nb);
        }
        return c != 0 ? c : a.compareTo(b);
    };

    private static String checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a host name may not be empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == ',' || c == '[' || c == ']' || Character.isWhitespace(c)) {
                throw new NodeSyntaxException("host name", name, i, name, "holds '" + c + "', which a hostlist uses as syntax");
            }
        }
        return name;
    }
}
