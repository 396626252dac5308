package org.alpsbridge.basil.geometry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.alpsbridge.basil.geometry.Geometry.Site;
import org.alpsbridge.basil.nodes.Seeds;
import org.junit.jupiter.api.Test;

/** Invariants every accepted geometry keeps, and what every rejection states, over random requests and node types. */
class GeometryPropertyTest {

    private static NodeType randomNode(SplittableRandom r) {
        return new NodeType(1 + r.nextInt(4), 1 + r.nextInt(72), 1 + r.nextInt(4), 1024L * (1 + r.nextInt(512)));
    }

    private static JobRequest randomJob(SplittableRandom r, NodeType node) {
        JobRequest.Builder b = JobRequest.builder();
        if (r.nextInt(4) > 0) {
            b.ntasks(1 + r.nextInt(20_000));
        }
        if (r.nextInt(3) == 0) {
            b.ntasksPerNode(1 + r.nextInt(node.cpus() + 8));
        }
        if (r.nextBoolean()) {
            b.cpusPerTask(1 + r.nextInt(Math.min(node.cpus(), 16)));
        }
        if (r.nextInt(3) == 0) {
            b.ntasksPerCore(1 + r.nextInt(node.threadsPerCore() + 1));
        }
        if (r.nextInt(3) == 0) {
            b.nodes(1 + r.nextInt(200));
        }
        switch (r.nextInt(3)) {
            case 0 -> b.memPerNodeMb(1 + r.nextLong(node.memoryMb() + 4096));
            case 1 -> b.memPerCpuMb(1 + r.nextInt(8192));
            default -> { }
        }
        return b.build();
    }

    @Test
    void acceptedGeometriesFitTheNodeAndRejectionsSayByHowMuch() {
        Seeds.check(3000, r -> {
            NodeType node = randomNode(r);
            JobRequest job = randomJob(r, node);
            Site site = new Site(r.nextBoolean(), r.nextBoolean());
            int nppcu = job.ntasksPerCore() != null ? job.ntasksPerCore() : site.oneTaskPerCore() ? 1 : 0;
            long usable = nppcu == 0 ? node.cpus() : (long) node.cpus() * nppcu / node.threadsPerCore();
            long cpt = job.cpusPerTask() == null ? 1 : job.cpusPerTask();
            Reservation g;
            try {
                g = Geometry.pending(job, node, site, 0);
            } catch (GeometryException e) {
                assertTrue(e.excess() > 0, e.getMessage());
                assertTrue(e.getMessage().contains(e.excess() + " too many") || e.getMessage().contains(e.excess() + " MB too much"),
                        e.getMessage());
                return;
            }
            String where = job + " on " + node + " " + site + " -> " + g;
            assertEquals(nppcu, g.nppcu(), where);
            assertEquals(usable, g.usableCpusPerNode(), where);
            assertTrue(nppcu <= node.threadsPerCore(), where);
            long pesPerNode = g.nppn() > 0 ? g.nppn() : usable / g.depth();
            assertTrue(pesPerNode * g.depth() <= usable, where);
            assertTrue(g.memoryPerPeMb() * pesPerNode <= node.memoryMb(), where);
            long tasksPerNode = job.ntasksPerNode() != null ? job.ntasksPerNode() : usable / cpt;
            assertTrue(tasksPerNode * cpt <= usable, where);
            if (job.ntasks() != null) {
                assertTrue(g.nodes() * tasksPerNode >= job.ntasks(), "too few nodes: " + where);
                boolean forced = job.minNodes() != null && g.nodes() == Math.min(job.minNodes(), job.ntasks());
                assertTrue(forced || (g.nodes() - 1) * tasksPerNode < job.ntasks(), "more nodes than needed: " + where);
            }
            if (!site.subAllocate()) {
                assertEquals(g.nodes() * usable, g.width(), where);
                assertEquals(usable, g.nppn(), where);
                assertEquals(1, g.depth(), where);
            } else {
                assertEquals(cpt, g.depth(), where);
                assertTrue(g.width() <= g.nodes() * usable / g.depth() + g.nodes(), where);
            }
        });
    }
}
