package org.alpsbridge.basil.nodes;

import java.util.ArrayList;
import java.util.List;

/** Expands Slurm hostlist text into host names; see {@link Hostlist} for the grammar. */
final class HostlistParser {

    private static final String WHAT = "hostlist";

    private final String text;
    private final int maxHosts;
    private final List<String> out = new ArrayList<>();
    private boolean sawItem;

    private HostlistParser(String text, int maxHosts) {
        this.text = text;
        this.maxHosts = maxHosts;
    }

    static List<String> parse(String text, int maxHosts) {
        if (text == null) {
            throw new IllegalArgumentException(WHAT + ": null text");
        }
        HostlistParser p = new HostlistParser(text, maxHosts);
        p.run();
        return p.out;
    }

    private void run() {
        int i = 0;
        int n = text.length();
        boolean afterComma = false;
        int commaAt = -1;
        while (i < n) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == ',') {
                if (afterComma || !sawItem) {
                    throw error(i, i, "is an empty item (a comma at the start, or two commas in a row)");
                }
                afterComma = true;
                commaAt = i;
                i++;
            } else {
                i = item(i);
                sawItem = true;
                afterComma = false;
            }
        }
        if (afterComma) {
            throw error(commaAt + 1, commaAt + 1, "is an empty item (a comma at the end)");
        }
    }

    /** Parses one item starting at {@code start}; returns the offset just after it. */
    private int item(int start) {
        int end = start;
        int depth = 0;
        while (end < text.length()) {
            char c = text.charAt(end);
            if (c == '[') {
                if (depth > 0) {
                    throw error(start, itemEnd(start), "has a '[' inside brackets at offset " + end);
                }
                depth++;
            } else if (c == ']') {
                if (depth == 0) {
                    throw error(start, itemEnd(start), "has a ']' without its '[' at offset " + end);
                }
                depth--;
            } else if (depth == 0 && (c == ',' || Character.isWhitespace(c))) {
                break;
            }
            end++;
        }
        if (depth > 0) {
            throw error(start, end, "has a '[' that is never closed");
        }
        List<String> names = new ArrayList<>();
        names.add("");
        int i = start;
        while (i < end) {
            int open = text.indexOf('[', i);
            if (open < 0 || open >= end) {
                append(names, text.substring(i, end));
                break;
            }
            append(names, text.substring(i, open));
            int close = text.indexOf(']', open);
            names = product(names, group(open + 1, close, start, end), start, end);
            i = close + 1;
        }
        if (out.size() + (long) names.size() > maxHosts) {
            throw error(start, end, "expands past the limit of " + maxHosts + " hosts");
        }
        out.addAll(names);
        return end;
    }

    private static void append(List<String> names, String literal) {
        if (!literal.isEmpty()) {
            names.replaceAll(s -> s + literal);
        }
    }

    private List<String> product(List<String> prefixes, List<String> numbers, int itemStart, int itemEnd) {
        long total = (long) prefixes.size() * numbers.size();
        if (out.size() + total > maxHosts) {
            throw error(itemStart, itemEnd, "expands past the limit of " + maxHosts + " hosts");
        }
        List<String> names = new ArrayList<>((int) total);
        for (String p : prefixes) {
            for (String num : numbers) {
                names.add(p + num);
            }
        }
        return names;
    }

    /** The numbers of one bracket group {@code text[from, to)}, as zero-padded strings, in the order written. */
    private List<String> group(int from, int to, int itemStart, int itemEnd) {
        List<String> numbers = new ArrayList<>();
        int s = from;
        while (true) {
            int comma = text.indexOf(',', s);
            int e = comma < 0 || comma > to ? to : comma;
            int[] span = trimmed(s, e);
            if (span[0] == span[1]) {
                throw error(itemStart, itemEnd, "has an empty range at offset " + span[0] + " inside its brackets");
            }
            int dash = text.indexOf('-', span[0]);
            if (dash >= span[1]) {
                dash = -1;
            }
            int loEnd = dash < 0 ? span[1] : dash;
            long lo = number(span[0], loEnd, itemStart, itemEnd);
            long hi = dash < 0 ? lo : number(dash + 1, span[1], itemStart, itemEnd);
            if (lo > hi) {
                throw error(itemStart, itemEnd, "has a reversed range " + text.substring(span[0], span[1]) + " at offset " + span[0]);
            }
            if (out.size() + numbers.size() + (hi - lo + 1) > maxHosts) {
                throw error(itemStart, itemEnd, "expands past the limit of " + maxHosts + " hosts");
            }
            int width = loEnd - span[0];
            for (long v = lo; v <= hi; v++) {
                numbers.add(HostlistFormatter.padded(v, width));
            }
            if (e == to) {
                return numbers;
            }
            s = e + 1;
        }
    }

    private int[] trimmed(int s, int e) {
        while (s < e && Character.isWhitespace(text.charAt(s))) {
            s++;
        }
        while (e > s && Character.isWhitespace(text.charAt(e - 1))) {
            e--;
        }
        return new int[] {s, e};
    }

    private long number(int s, int e, int itemStart, int itemEnd) {
        if (s == e) {
            throw error(itemStart, itemEnd, "has a range with a missing number at offset " + s);
        }
        if (e - s > Hostlist.MAX_NUMBER_DIGITS) {
            throw error(itemStart, itemEnd, "has a number longer than " + Hostlist.MAX_NUMBER_DIGITS + " digits at offset " + s);
        }
        for (int i = s; i < e; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw error(itemStart, itemEnd, "has '" + c + "' at offset " + i + " where a number or N-M range belongs inside brackets");
            }
        }
        return Long.parseLong(text, s, e, 10);
    }

    private int itemEnd(int start) {
        int e = start;
        while (e < text.length() && text.charAt(e) != ',' && !Character.isWhitespace(text.charAt(e))) {
            e++;
        }
        return e;
    }

    private NodeSyntaxException error(int s, int e, String problem) {
        return new NodeSyntaxException(WHAT, text, s, text.substring(s, e), problem);
    }
}
