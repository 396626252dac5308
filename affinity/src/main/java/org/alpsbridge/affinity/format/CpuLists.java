package org.alpsbridge.affinity.format;

import java.util.BitSet;

/**
 * CPU sets as text: the Linux list format ({@code 0-3,8}), the util-linux/taskset "cstr" format used by
 * the auto-affinity verbose line ({@code 0-3}, but a run of two is {@code 8,9}), and hex masks.
 *
 * <p>Plain JDK only (no streams, no lambdas): the per-task wrapper loads this class and starts in tens of
 * milliseconds.
 */
public final class CpuLists {

    /** The largest CPU number accepted when parsing: Linux's CONFIG_NR_CPUS maximum. */
    public static final int MAX_CPU = 8191;

    private CpuLists() {
    }

    /**
     * Parses a Linux CPU list such as {@code 0-3,8,10-11} (also {@code 0-15:2} strides as the kernel accepts).
     * An empty or blank string is the empty set.
     *
     * @throws IllegalArgumentException naming the offending element
     */
    public static BitSet parse(String list) {
        BitSet set = new BitSet();
        String text = list.trim();
        if (text.isEmpty()) {
            return set;
        }
        for (String element : text.split(",", -1)) {
            String e = element.trim();
            if (e.isEmpty()) {
                throw new IllegalArgumentException("empty element in CPU list '" + list + "'");
            }
            int stride = 1;
            int colon = e.indexOf(':');
            if (colon >= 0) {
                stride = number(e.substring(colon + 1), list);
                if (stride < 1) {
                    throw new IllegalArgumentException("stride 0 in CPU list '" + list + "'");
                }
                e = e.substring(0, colon);
            }
            int dash = e.indexOf('-');
            int from = number(dash < 0 ? e : e.substring(0, dash), list);
            int to = dash < 0 ? from : number(e.substring(dash + 1), list);
            if (to < from) {
                throw new IllegalArgumentException("descending range '" + e + "' in CPU list '" + list + "'");
            }
            for (int cpu = from; cpu <= to; cpu += stride) {
                set.set(cpu);
            }
        }
        return set;
    }

    private static int number(String digits, String list) {
        String d = digits.trim();
        if (d.isEmpty() || d.length() > 5) {
            throw new IllegalArgumentException("'" + digits + "' is not a CPU number in CPU list '" + list + "'");
        }
        int value = 0;
        for (int i = 0; i < d.length(); i++) {
            char c = d.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("'" + digits + "' is not a CPU number in CPU list '" + list + "'");
            }
            value = value * 10 + (c - '0');
        }
        if (value > MAX_CPU) {
            throw new IllegalArgumentException("CPU " + value + " exceeds " + MAX_CPU + " in CPU list '" + list + "'");
        }
        return value;
    }

    /** Linux list format: ascending, every run of two or more consecutive CPUs as {@code a-b}. */
    public static String linux(BitSet cpus) {
        return runs(cpus, 2);
    }

    /**
     * The "cstr" format of taskset and of the auto-affinity verbose line: runs of three or more as {@code a-b},
     * a run of exactly two as {@code a,b}.
     */
    public static String cstr(BitSet cpus) {
        return runs(cpus, 3);
    }

    private static String runs(BitSet cpus, int minRange) {
        StringBuilder out = new StringBuilder();
        int start = cpus.nextSetBit(0);
        while (start >= 0) {
            int end = cpus.nextClearBit(start) - 1;
            if (out.length() > 0) {
                out.append(',');
            }
            if (end - start + 1 >= minRange) {
                out.append(start).append('-').append(end);
            } else {
                out.append(start);
                for (int cpu = start + 1; cpu <= end; cpu++) {
                    out.append(',').append(cpu);
                }
            }
            start = cpus.nextSetBit(end + 1);
        }
        return out.toString();
    }

    /** Every CPU listed, comma separated, no ranges (the form {@code aprun -cc} is documented with). */
    public static String expanded(BitSet cpus) {
        StringBuilder out = new StringBuilder();
        for (int cpu = cpus.nextSetBit(0); cpu >= 0; cpu = cpus.nextSetBit(cpu + 1)) {
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(cpu);
        }
        return out.toString();
    }

    /** A hex mask as Slurm prints and accepts it: {@code 0x} then lower-case digits, no leading zeros. */
    public static String hex(BitSet cpus) {
        if (cpus.isEmpty()) {
            return "0x0";
        }
        StringBuilder out = new StringBuilder("0x");
        int top = cpus.length() - 1;
        for (int nibble = top / 4; nibble >= 0; nibble--) {
            int v = 0;
            for (int bit = 3; bit >= 0; bit--) {
                v = (v << 1) | (cpus.get(nibble * 4 + bit) ? 1 : 0);
            }
            out.append(Character.forDigit(v, 16));
        }
        return out.toString();
    }

    /** Parses a hex mask with or without {@code 0x}; commas between 32-bit groups (kernel style) are ignored. */
    public static BitSet parseHex(String mask) {
        String m = mask.trim().replace(",", "");
        if (m.startsWith("0x") || m.startsWith("0X")) {
            m = m.substring(2);
        }
        if (m.isEmpty()) {
            throw new IllegalArgumentException("empty hex mask '" + mask + "'");
        }
        BitSet set = new BitSet();
        int length = m.length();
        for (int i = 0; i < length; i++) {
            int v = Character.digit(m.charAt(length - 1 - i), 16);
            if (v < 0) {
                throw new IllegalArgumentException("'" + mask + "' is not a hex mask");
            }
            for (int bit = 0; bit < 4; bit++) {
                if ((v & (1 << bit)) != 0) {
                    int cpu = i * 4 + bit;
                    if (cpu > MAX_CPU) {
                        throw new IllegalArgumentException("hex mask '" + mask + "' sets CPU " + cpu + " beyond " + MAX_CPU);
                    }
                    set.set(cpu);
                }
            }
        }
        return set;
    }
}
