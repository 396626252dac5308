package org.alpsbridge.emulator;

import java.util.Locale;
import java.util.Optional;

/**
 * The hardware of one kind of compute node, in the terms the BASIL 1.3 inventory uses: sockets, NUMA
 * segments per socket, compute units (cores, or AMD Bulldozer compute units) per segment, processors
 * (hardware threads, or Bulldozer integer cores) per compute unit, memory and an optional accelerator.
 *
 * <p>Processors are numbered on the node in inventory order: {@code ((socket * segmentsPerSocket +
 * segment) * cusPerSegment + cu) * threadsPerCu + thread}. Memory is split evenly over the segments.
 *
 * @param kind the spec name, e.g. {@code xc30} or {@code xc30-32g}
 * @param aries true for Aries (XC) cabinets of 192 nodes, false for Gemini (XE/XK) cabinets of 96 nodes
 * @param accelerator the one GPU of the node, or {@code null}
 * @param hbmMb on-package high-bandwidth memory (KNL MCDRAM), reported by QUERY SYSTEM only; 0 if none
 */
record Hardware(String kind, boolean aries, int sockets, int segmentsPerSocket, int cusPerSegment, int threadsPerCu,
                int clockMhz, long memoryMb, Accelerator accelerator, int hbmMb) {

    /** A node's GPU: family as ALPS reports it, its memory and clock. */
    record Accelerator(String family, int memoryMb, int clockMhz) {
    }

    static final int PAGE_SIZE_KB = 4;

    Hardware {
        if (sockets < 1 || segmentsPerSocket < 1 || cusPerSegment < 1 || threadsPerCu < 1 || memoryMb < segments(sockets, segmentsPerSocket)) {
            throw new IllegalArgumentException("hardware " + kind + ": every level needs at least one member and every segment some memory");
        }
    }

    private static int segments(int sockets, int segmentsPerSocket) {
        return sockets * segmentsPerSocket;
    }

    /**
     * The node kinds a machine spec may name. A kind may carry a memory size suffix ({@code xc30-32g},
     * {@code knl-192g}) that replaces the kind's default memory.
     */
    static Hardware named(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        Optional<Hardware> base = base(lower);
        if (base.isPresent()) {
            return base.get();
        }
        int dash = lower.lastIndexOf('-');
        if (dash > 0 && lower.endsWith("g")) {
            Optional<Hardware> prefix = base(lower.substring(0, dash));
            String gib = lower.substring(dash + 1, lower.length() - 1);
            if (prefix.isPresent() && gib.matches("[1-9][0-9]{0,4}")) {
                return prefix.get().withMemory(lower, Long.parseLong(gib) * 1024);
            }
        }
        throw new IllegalArgumentException("unknown node kind '" + name + "'; known kinds: " + KINDS
                + " (append -NNg for another memory size, e.g. xc30-32g)");
    }

    static final String KINDS = "xc30, xe6, knl, xk7, xc50-gpu";

    private static Optional<Hardware> base(String kind) {
        return Optional.ofNullable(switch (kind) {
            // Intel Sandy Bridge E5-2670: 2 sockets x 8 cores x 2 hyper-threads, one NUMA segment per socket.
            case "xc30" -> new Hardware(kind, true, 2, 1, 8, 2, 2600, 64 * 1024, null, 0);
            // AMD Interlagos: each socket is two dies (segments) of 4 compute units x 2 integer cores.
            case "xe6" -> new Hardware(kind, false, 2, 2, 4, 2, 2300, 32 * 1024, null, 0);
            // Xeon Phi 7250 in quad/cache mode: one segment, 68 cores x 4 threads; MCDRAM is a cache.
            case "knl" -> new Hardware(kind, true, 1, 1, 68, 4, 1400, 96 * 1024, null, 16 * 1024);
            // Titan-like: one Interlagos socket and one Tesla K20X.
            case "xk7" -> new Hardware(kind, false, 1, 2, 4, 2, 2200, 32 * 1024, new Accelerator("Tesla_K20X", 6144, 732), 0);
            // Piz Daint-like: one Haswell E5-2690 v3 (12 cores x 2 threads) and one Tesla P100.
            case "xc50-gpu" -> new Hardware(kind, true, 1, 1, 12, 2, 2600, 64 * 1024, new Accelerator("Tesla_P100", 16384, 1189), 0);
            default -> null;
        });
    }

    private Hardware withMemory(String newKind, long mb) {
        return new Hardware(newKind, aries, sockets, segmentsPerSocket, cusPerSegment, threadsPerCu, clockMhz, mb, accelerator, hbmMb);
    }

    int segments() {
        return segments(sockets, segmentsPerSocket);
    }

    int computeUnits() {
        return segments() * cusPerSegment;
    }

    int processors() {
        return computeUnits() * threadsPerCu;
    }

    int processorsPerSegment() {
        return cusPerSegment * threadsPerCu;
    }

    /** Memory of one segment in pages of {@link #PAGE_SIZE_KB}; the last segment takes the remainder. */
    long segmentPages(int segment) {
        long pages = memoryMb * 1024 / PAGE_SIZE_KB;
        long each = pages / segments();
        return segment == segments() - 1 ? pages - each * (segments() - 1) : each;
    }

    long pages() {
        return memoryMb * 1024 / PAGE_SIZE_KB;
    }
}
