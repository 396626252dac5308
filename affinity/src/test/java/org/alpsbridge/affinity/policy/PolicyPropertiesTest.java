package org.alpsbridge.affinity.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * Properties over random nodes and requests. Every failure message carries the seed; rerun with
 * {@code -Daffinity.seed=N} to replay it.
 */
class PolicyPropertiesTest {

    private static final int ROUNDS = 3000;

    private static long seed() {
        String fixed = System.getProperty("affinity.seed");
        return fixed != null ? Long.parseLong(fixed) : System.nanoTime();
    }

    private static BitSet usable(Topology node, BitSet allowed) {
        BitSet u = node.cpus();
        if (allowed != null) {
            u.and(allowed);
        }
        return u;
    }

    /**
     * The most tasks of {@code cpt} adjacent usable cores one socket can hold, by dynamic programming over core
     * positions: an oracle written independently of the policy's greedy run packing.
     */
    private static int mostTasks(Topology.Socket socket, BitSet usable, int cpt) {
        List<Topology.Core> cores = socket.cores();
        int[] best = new int[cores.size() + 1];
        for (int i = 1; i <= cores.size(); i++) {
            best[i] = best[i - 1];
            if (i >= cpt) {
                boolean window = true;
                for (int k = i - cpt; k < i; k++) {
                    BitSet pus = new BitSet();
                    cores.get(k).pus().forEach(pus::set);
                    window &= pus.intersects(usable);
                }
                if (window) {
                    best[i] = Math.max(best[i], best[i - cpt] + 1);
                }
            }
        }
        return best[cores.size()];
    }

    @Test
    void reducedPlacesExactlyWhenAPlacementExistsAndKeepsEveryRule() {
        long seed = seed();
        Random r = new Random(seed);
        int placed = 0;
        int rejected = 0;
        for (int round = 0; round < ROUNDS; round++) {
            if (reducedRound(r, "seed " + seed + " round " + round)) {
                placed++;
            } else {
                rejected++;
            }
        }
        assertTrue(placed > ROUNDS / 10 && rejected > ROUNDS / 10, "seed " + seed + ": too one-sided a sample: "
                + placed + " placed, " + rejected + " rejected");
    }

    /**
     * One round of the reduced policy's rules on a node and request drawn from {@code r}: placed exactly when a
     * placement exists, and then disjoint, socket-confined, adjacent, exactly cpus-per-task CPUs, in order.
     * Shared with the fuzz target, which draws from the fuzzer's bytes instead of a seed.
     *
     * @return whether the request was placed (false: rejected, as it had to be)
     */
    static boolean reducedRound(Random r, String label) {
        Topology node = RandomNodes.node(r);
        BitSet allowed = RandomNodes.allowed(r, node);
        int ntasks = 1 + r.nextInt(10);
        int cpt = 1 + r.nextInt(8);
        Request request = Request.of(ntasks, cpt).withAllowed(allowed);
        String why = label + ": " + request + " on\n" + node.describe();
        BitSet usable = usable(node, allowed);
        int capacity = 0;
        for (Topology.Socket s : node.sockets()) {
            capacity += mostTasks(s, usable, cpt);
        }
        Placement p;
        try {
            p = Policy.REDUCED.place(node, request);
        } catch (Rejection e) {
            assertTrue(capacity < ntasks || usable.isEmpty(), why + "rejected though " + capacity + " fit: "
                    + e.getMessage());
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
            return false;
        }
        assertTrue(capacity >= ntasks, why + "placed though only " + capacity + " fit");
        assertEquals(ntasks, p.tasks(), why);
        BitSet usedCores = new BitSet();
        int previousOrder = -1;
        for (int t = 0; t < ntasks; t++) {
            BitSet mask = p.mask(t);
            assertEquals(cpt, mask.cardinality(), why + "task " + t + " " + CpuLists.linux(mask));
            BitSet outside = (BitSet) mask.clone();
            outside.andNot(usable);
            assertTrue(outside.isEmpty(), why + "task " + t + " uses CPUs outside the allowed set: " + outside);
            // Locate each CPU: one socket per task, one CPU per core, the core's lowest usable thread,
            // cores adjacent, no core shared with another task, tasks in socket/core order.
            int socketOf = -1;
            int firstIndex = -1;
            int lastIndex = -1;
            int globalCore = 0;
            for (int s = 0; s < node.sockets().size(); s++) {
                List<Topology.Core> cores = node.sockets().get(s).cores();
                for (int c = 0; c < cores.size(); c++, globalCore++) {
                    int inCore = 0;
                    int lowestUsable = -1;
                    for (int pu : cores.get(c).pus()) {
                        if (mask.get(pu)) {
                            inCore++;
                        }
                        if (lowestUsable < 0 && usable.get(pu)) {
                            lowestUsable = pu;
                        }
                    }
                    if (inCore == 0) {
                        continue;
                    }
                    assertEquals(1, inCore, why + "task " + t + " has two threads of one core");
                    assertTrue(mask.get(lowestUsable), why + "task " + t + " skipped the core's lowest thread");
                    assertFalse(usedCores.get(globalCore), why + "core shared by two tasks");
                    usedCores.set(globalCore);
                    assertTrue(socketOf == -1 || socketOf == s, why + "task " + t + " straddles sockets");
                    socketOf = s;
                    if (firstIndex < 0) {
                        firstIndex = c;
                    }
                    lastIndex = c;
                }
            }
            assertEquals(cpt - 1, lastIndex - firstIndex, why + "task " + t + " cores not adjacent");
            int order = socketOf * 100_000 + firstIndex;
            assertTrue(order > previousOrder, why + "task " + t + " placed before its predecessor");
            previousOrder = order;
        }
        return true;
    }

    @Test
    void llnlNeverRejectsAndStaysInsideTheAllowedCpus() throws Rejection {
        long seed = seed();
        Random r = new Random(seed);
        for (int round = 0; round < ROUNDS; round++) {
            Topology node = RandomNodes.node(r);
            BitSet allowed = RandomNodes.allowed(r, node);
            BitSet usable = usable(node, allowed);
            if (usable.isEmpty()) {
                continue;
            }
            int ntasks = 1 + r.nextInt(10);
            int cpt = 1 + r.nextInt(8);
            Request request = Request.of(ntasks, cpt).withAllowed(allowed).withStart(r.nextInt(3))
                    .withReverse(r.nextBoolean());
            String why = "seed " + seed + " round " + round + ": " + request + " on\n" + node.describe();
            Placement p = Policy.LLNL.place(node, request);
            assertEquals(ntasks, p.tasks(), why);
            BitSet union = new BitSet();
            for (BitSet m : p.masks()) {
                assertFalse(m.isEmpty(), why);
                BitSet outside = (BitSet) m.clone();
                outside.andNot(usable);
                assertTrue(outside.isEmpty(), why + " outside: " + outside);
                // At most cpus-per-task CPUs, or unbound (the whole allowed set) where LLNL binds nothing.
                assertTrue(m.cardinality() <= cpt || m.equals(usable), why + " " + CpuLists.linux(m));
                union.or(m);
            }
            // On a whole node numbered 0..N-1 (no offline gaps) masks are disjoint while they fit.
            if (node.cpus().equals(usable) && usable.length() == usable.cardinality() && (long) ntasks * cpt <= usable.cardinality() && !request.reverse()
                    && request.start() == 0) {
                int sum = 0;
                for (BitSet m : p.masks()) {
                    sum += m.cardinality();
                }
                assertEquals(sum, union.cardinality(), why + " masks overlap though they fit");
            }
        }
    }

    @Test
    void alpsDepthGivesDisjointBlocksAndRejectsOnlyWhenTheNodeIsTooSmall() {
        long seed = seed();
        Random r = new Random(seed);
        for (int round = 0; round < ROUNDS; round++) {
            Topology node = RandomNodes.node(r);
            BitSet allowed = RandomNodes.allowed(r, node);
            BitSet usable = usable(node, allowed);
            if (usable.isEmpty()) {
                continue;
            }
            int ntasks = 1 + r.nextInt(10);
            int depth = 1 + r.nextInt(6);
            Request request = Request.of(ntasks, depth).withAllowed(allowed);
            String why = "seed " + seed + " round " + round + ": " + request + " on\n" + node.describe();
            try {
                Placement p = Policy.ALPS_DEPTH.place(node, request);
                BitSet union = new BitSet();
                for (BitSet m : p.masks()) {
                    assertEquals(depth, m.cardinality(), why);
                    assertFalse(m.intersects(union), why + " overlap");
                    union.or(m);
                }
                BitSet outside = (BitSet) union.clone();
                outside.andNot(usable);
                assertTrue(outside.isEmpty(), why);
            } catch (Rejection e) {
                assertTrue((long) ntasks * depth > usable.cardinality(), why + e.getMessage());
            }
        }
    }

    @Test
    void everyPolicyIsDeterministic() throws Rejection {
        long seed = seed();
        Random r = new Random(seed);
        for (int round = 0; round < 300; round++) {
            Topology node = RandomNodes.node(r);
            Request request = Request.of(1 + r.nextInt(4), 1 + r.nextInt(3));
            for (Policy policy : Policy.values()) {
                try {
                    List<BitSet> first = policy.place(node, request).masks();
                    assertEquals(first, policy.place(node, request).masks(), "seed " + seed);
                } catch (Rejection e) {
                    try {
                        policy.place(node, request);
                        fail("seed " + seed + ": rejected once, placed the second time");
                    } catch (Rejection again) {
                        assertEquals(e.getMessage(), again.getMessage());
                    }
                }
            }
        }
    }
}
