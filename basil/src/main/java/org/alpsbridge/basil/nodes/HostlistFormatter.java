package org.alpsbridge.basil.nodes;

import java.util.List;

/**
 * Writes host names as compressed hostlist text, in the order given: consecutive names that share the text
 * before their trailing number go into one bracket group, and consecutive numbers of one width into one range.
 */
final class HostlistFormatter {

    private HostlistFormatter() {
    }

    static String format(List<String> hosts) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < hosts.size()) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            String first = hosts.get(i);
            int split = Hostlist.numberStart(first);
            if (split == first.length()) {
                sb.append(first);
                i++;
                continue;
            }
            String prefix = first.substring(0, split);
            int groupEnd = i;
            while (groupEnd < hosts.size() && sharesPrefix(hosts.get(groupEnd), prefix)) {
                groupEnd++;
            }
            if (groupEnd - i == 1) {
                sb.append(first);
                i++;
                continue;
            }
            sb.append(prefix).append('[');
            appendRanges(sb, hosts, i, groupEnd, split);
            sb.append(']');
            i = groupEnd;
        }
        return sb.toString();
    }

    /**
     * Whether {@code name} is the prefix followed by a number. A name that is the prefix alone ("a" after
     * "a1") has no number to put in the brackets: it stands on its own (found by NodeListFuzzTest, where
     * "a1,a" failed to print).
     */
    private static boolean sharesPrefix(String name, String prefix) {
        int split = Hostlist.numberStart(name);
        return split == prefix.length() && split < name.length() && name.startsWith(prefix);
    }

    private static void appendRanges(StringBuilder sb, List<String> hosts, int from, int to, int split) {
        int i = from;
        while (i < to) {
            String lo = hosts.get(i).substring(split);
            long value = Long.parseLong(lo);
            int j = i + 1;
            while (j < to) {
                String next = hosts.get(j).substring(split);
                if (Long.parseLong(next) != value + (j - i) || !padded(value + (j - i), lo.length()).equals(next)) {
                    break;
                }
                j++;
            }
            if (i > from) {
                sb.append(',');
            }
            sb.append(lo);
            if (j - i > 1) {
                sb.append('-').append(hosts.get(j - 1).substring(split));
            }
            i = j;
        }
    }

    /** {@code value} zero-padded to at least {@code width} digits. */
    static String padded(long value, int width) {
        String digits = Long.toString(value);
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }
}
