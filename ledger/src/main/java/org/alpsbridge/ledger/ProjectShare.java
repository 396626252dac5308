package org.alpsbridge.ledger;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What a project may use of the cluster and who its members are beyond its Unix group: the settings
 * {@code alpsbridge ledger slurm-sync} makes Slurm's accounting database agree with.
 *
 * @param project the project's name
 * @param description the Slurm account's description (free text, no quotes)
 * @param organization the Slurm account's organisation (free text, no quotes)
 * @param partitions the partitions its members may use; empty: every partition (one association without one)
 * @param caps the project's aggregate cap per trackable resource, as Slurm's {@code GrpTRES} names them
 *     ({@code node}, {@code cpu}, {@code mem} in MiB, {@code gres/gpu}, {@code gres/gpu:a100}, {@code billing}):
 *     at most this much of it in use by the project's running jobs together; a resource not named is not capped
 * @param members users who are members besides those of the project's Unix group
 * @param nodes the nodes the project bought, as Slurm names nodes ({@code r00n[00-17],r01g[00-03]}: names, hostlist
 *     ranges or a slurm.conf NodeSet), for its workgroup partition ({@code ledger slurm-partitions}); empty: none
 */
public record ProjectShare(String project, String description, String organization, List<String> partitions,
                           Map<String, Long> caps, List<String> members, String nodes) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final Pattern USER = Pattern.compile("[a-z_][a-z0-9_.-]{0,31}\\$?");
    private static final String HOST = "[A-Za-z0-9_.-]+(?:\\[\\d+(?:-\\d+)?(?:,\\d+(?:-\\d+)?)*][A-Za-z0-9_.-]*)*";
    private static final Pattern NODES = Pattern.compile(HOST + "(?:," + HOST + ")*");
    /** The longest node list kept. */
    public static final int MAX_NODES = 4000;
    private static final Pattern TRES = Pattern.compile("node|cpu|mem|energy|billing|fs/disk|vmem|pages"
            + "|gres/[a-z0-9_]{1,32}(:[A-Za-z0-9_.-]{1,32})?|license/[A-Za-z0-9_.-]{1,64}");
    /** The longest description or organisation kept. */
    public static final int MAX_TEXT = 200;

    /**
     * Checks every field and puts lists and caps in one order (sorted, no repeats), so that two shares saying the
     * same thing are equal.
     *
     * @throws LedgerException naming the field that is wrong
     */
    public ProjectShare {
        description = text(description, "description");
        organization = text(organization, "organization");
        partitions = List.copyOf(sorted(partitions, NAME, "partition", "letters, digits and _.-"));
        members = List.copyOf(sorted(members, USER, "member", "a user name: lower-case letters, digits and _.-"));
        TreeMap<String, Long> c = new TreeMap<>();
        if (caps != null) {
            caps.forEach((tres, count) -> {
                String t = tres == null ? "" : tres.strip();
                if (!TRES.matcher(t).matches()) {
                    throw new LedgerException("'" + tres + "' is not a resource Slurm caps (node, cpu, mem, billing,"
                            + " gres/NAME or gres/NAME:TYPE, license/NAME)");
                }
                if (count == null || count < 0) {
                    throw new LedgerException("the cap of " + t + " must be 0 or more, got " + count);
                }
                c.put(t, count);
            });
        }
        caps = java.util.Collections.unmodifiableMap(c);
        nodes = nodes == null ? "" : nodes.strip();
        if (!nodes.isEmpty() && (nodes.length() > MAX_NODES || !NODES.matcher(nodes).matches())) {
            throw new LedgerException("'" + nodes + "' is not a Slurm node list (names, ranges such as r00n[00-17] or"
                    + " a NodeSet name, comma-separated, at most " + MAX_NODES + " characters)");
        }
    }

    /**
     * A project's share before anything is set: no description, every partition, nothing capped, no extra member, no
     * nodes bought.
     */
    public static ProjectShare none(String project) {
        return new ProjectShare(project, "", "", List.of(), Map.of(), List.of(), "");
    }

    /** The caps as Slurm writes {@code GrpTRES}: {@code cpu=64,node=4}, sorted; empty when nothing is capped. */
    public String grpTres() {
        StringBuilder s = new StringBuilder();
        caps.forEach((k, v) -> s.append(s.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return s.toString();
    }

    /** {@code cpu=64,node=4} (also with spaces or an empty string) as caps; refused naming the bad item. */
    public static Map<String, Long> parseCaps(String text) {
        Map<String, Long> caps = new TreeMap<>();
        if (text == null || text.isBlank()) {
            return caps;
        }
        for (String item : text.split(",")) {
            String[] kv = item.strip().split("=", 2);
            if (kv.length != 2) {
                throw new LedgerException("'" + item.strip() + "' is not RESOURCE=COUNT (e.g. node=4 or gres/gpu=8)");
            }
            try {
                caps.put(kv[0].strip(), Long.parseLong(kv[1].strip()));
            } catch (NumberFormatException e) {
                throw new LedgerException("the cap '" + item.strip() + "' is not a whole number");
            }
        }
        return caps;
    }

    private static String text(String value, String field) {
        String v = value == null ? "" : value.strip();
        if (v.length() > MAX_TEXT || v.chars().anyMatch(ch -> ch < 32 || ch == '"' || ch == '\'' || ch == '\\'
                || ch == '[' || ch == ']' || ch == '|')) {
            throw new LedgerException("the " + field + " must be at most " + MAX_TEXT + " printable characters without"
                    + " quotes, backslashes, brackets or |");
        }
        return v;
    }

    private static TreeSet<String> sorted(List<String> values, Pattern form, String what, String rule) {
        TreeSet<String> out = new TreeSet<>();
        for (String v : values == null ? List.<String>of() : values) {
            String s = v == null ? "" : v.strip();
            if (!form.matcher(s).matches()) {
                throw new LedgerException("'" + v + "' is not a " + what + " name (" + rule + ")");
            }
            out.add(s);
        }
        return out;
    }
}
