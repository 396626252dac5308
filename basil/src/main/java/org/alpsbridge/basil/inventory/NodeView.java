package org.alpsbridge.basil.inventory;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One inventory node, the same whatever protocol version described it: node → sockets → NUMA segments →
 * cores (compute units) → hardware threads, with memory, labels and accelerators, and the reservations holding
 * each of them. Callers never branch on the version:
 * <ul>
 *   <li>1.0 (processors, memory and labels directly on the node) becomes one socket holding one segment; each
 *       Processor becomes a core with one thread; the node's memory and labels stay {@link #memory() node-level}
 *       because 1.0 does not say which NUMA node holds them;</li>
 *   <li>1.1/1.2 segments go into one socket; each Processor is a core with one thread (those versions do not
 *       say which processors are hyperthreads of one core);</li>
 *   <li>1.3+ maps one to one; a {@code MemoryArray} on the node (CLE 5.2 before UP03) stays node-level.</li>
 * </ul>
 * Socket architecture and clock come from the Socket (1.3+) or from the first Processor that names them.
 * {@link InventoryWriter} writes the view back in the shape of any version.
 *
 * @param nodeId       NID, unsigned 32-bit
 * @param name         cname such as {@code c0-0c1s0n1}
 * @param architecture {@code XT} or {@code X2}
 * @param role         {@code BATCH} or {@code INTERACTIVE} (other values kept as sent)
 * @param state        {@code UP}, {@code DOWN}, … as sent
 * @param routerId     Gemini {@code router_id}, or {@code null}
 * @param sockets      sockets in document order
 * @param memory       memory the document put on the node itself rather than on a segment
 * @param labels       labels the document put on the node itself
 * @param accelerators accelerators (GPUs)
 */
public record NodeView(long nodeId, String name, String architecture, String role, String state, Long routerId,
                       List<Socket> sockets, List<Memory> memory, List<Label> labels,
                       List<Accelerator> accelerators) {

    public NodeView {
        sockets = List.copyOf(sockets);
        memory = List.copyOf(memory);
        labels = List.copyOf(labels);
        accelerators = List.copyOf(accelerators);
    }

    /** A processor socket with its architecture ({@code x86_64}, …) and clock in MHz. */
    public record Socket(long ordinal, String architecture, long clockMhz, List<Segment> segments) {
        public Socket {
            segments = List.copyOf(segments);
        }
    }

    /** A NUMA node: its cores, the memory attached to it and its labels. */
    public record Segment(long ordinal, List<Core> cores, List<Memory> memory, List<Label> labels) {
        public Segment {
            cores = List.copyOf(cores);
            memory = List.copyOf(memory);
            labels = List.copyOf(labels);
        }
    }

    /** A core (a 1.3 ComputeUnit) and its hardware threads. */
    public record Core(long ordinal, List<Thread> threads) {
        public Core {
            threads = List.copyOf(threads);
        }
    }

    /**
     * A hardware thread (a 1.3 Processor; before 1.3 each Processor is a one-thread core).
     *
     * @param reservations ids of the reservations with a ProcessorAllocation on it
     */
    public record Thread(long ordinal, List<Long> reservations) {
        public Thread {
            reservations = List.copyOf(reservations);
        }
    }

    /** A memory bank: type ({@code OS}, {@code HUGEPAGE}, {@code VIRTUAL}), page size in KiB, pages, allocations. */
    public record Memory(String type, long pageSizeKb, long pageCount, List<MemoryAllocation> allocations) {
        public Memory {
            allocations = List.copyOf(allocations);
        }

        /** Size in KiB. */
        public long sizeKb() {
            return pageSizeKb * pageCount;
        }
    }

    /** Pages of a memory bank held by one reservation. */
    public record MemoryAllocation(long reservationId, long pageCount) {
    }

    /** A node label: name, type ({@code HARD}, {@code SOFT}), disposition ({@code ATTRACT}, {@code REPEL}). */
    public record Label(String name, String type, String disposition) {
    }

    /** An accelerator (GPU) and the reservations holding it. */
    public record Accelerator(long ordinal, String type, String state, String family, long memoryMb, long clockMhz,
                              List<Long> reservations) {
        public Accelerator {
            reservations = List.copyOf(reservations);
        }
    }

    /** All segments of all sockets, in order. */
    public List<Segment> segments() {
        List<Segment> all = new ArrayList<>();
        for (Socket s : sockets) {
            all.addAll(s.segments());
        }
        return all;
    }

    /** Number of cores (1.3 ComputeUnits; before 1.3, Processors). */
    public int coreCount() {
        int n = 0;
        for (Socket s : sockets) {
            for (Segment g : s.segments()) {
                n += g.cores().size();
            }
        }
        return n;
    }

    /** Number of hardware threads: the Processor elements Slurm counts as the node's CPUs. */
    public int processorCount() {
        int n = 0;
        for (Socket s : sockets) {
            for (Segment g : s.segments()) {
                for (Core c : g.cores()) {
                    n += c.threads().size();
                }
            }
        }
        return n;
    }

    /** Node-level and segment memory together. */
    public List<Memory> allMemory() {
        List<Memory> all = new ArrayList<>(memory);
        for (Segment g : segments()) {
            all.addAll(g.memory());
        }
        return all;
    }

    /** Memory in MB as Slurm counts it: Σ page_size_kb × page_count / 1024 over every bank. */
    public long memoryMb() {
        long kb = 0;
        for (Memory m : allMemory()) {
            kb += m.sizeKb();
        }
        return kb / 1024;
    }

    /** Node-level and segment labels, each distinct label once, in document order. */
    public List<Label> allLabels() {
        Set<Label> all = new LinkedHashSet<>(labels);
        for (Segment g : segments()) {
            all.addAll(g.labels());
        }
        return List.copyOf(all);
    }

    /** The reservations holding any processor, memory or accelerator of this node, in first-seen order. */
    public Set<Long> reservations() {
        Set<Long> ids = new LinkedHashSet<>();
        for (Segment g : segments()) {
            for (Core c : g.cores()) {
                for (Thread t : c.threads()) {
                    ids.addAll(t.reservations());
                }
            }
        }
        for (Memory m : allMemory()) {
            for (MemoryAllocation a : m.allocations()) {
                ids.add(a.reservationId());
            }
        }
        for (Accelerator a : accelerators) {
            ids.addAll(a.reservations());
        }
        return ids;
    }

    /** Whether ALPS shows any processor or memory allocation on the node (Slurm's "held node" test). */
    public boolean isAllocated() {
        return !reservations().isEmpty();
    }
}
