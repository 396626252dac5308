package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Outcome.Decision;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Usage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several clusters, one ledger: three cluster identities charge the same two projects from 64 threads,
 * with the same batch job ids and ALPS reservation ids on every cluster. No event of one cluster touches
 * another's reservation; each project's balance is one number across clusters, never overdrawn, equal
 * to its journal; and the per-cluster usage adds up to it, each cluster's part being exactly what was
 * acknowledged to that cluster.
 */
class MultiClusterTest {

    static final String[] CLUSTERS = {"alps", "lisa", "daint"};
    static final String[] PROJECTS = {"chem", "phys"};
    static final long CREDIT = 400_000;

    @TempDir
    Path dir;

    @Test
    void threeClustersChargeTheSameProjectsOnPostgresql() throws Exception {
        storm(PostgresServer.get().newDatabase(), 64, 12, System.nanoTime());
    }

    @Test
    void threeClustersChargeTheSameProjectsOnSqlite() throws Exception {
        storm("sqlite:" + dir.resolve("clusters.db"), 64, 12, System.nanoTime());
    }

    @Test
    void clusterNamesCannotForgeAnotherClustersKey() {
        assertThrows(LedgerException.class, () -> new Lookup("alps/j1", 5, null));
        assertThrows(LedgerException.class, () -> new ReserveRequest("alps/j1", "5", 5, null, "chem", "u", null,
                Resource.CPU, 1, NodeShape.cores(32), 600, ConcurrencyTest.T));
    }

    @Test
    void aClusterNameIsOneTo64LettersDigitsAndUnderscoreDotAtHyphen() {
        for (String good : List.of("a", "Piz_Daint-2.cscs@ch", "x".repeat(64), "0")) {
            assertEquals(good + "/j1/5", new ReserveRequest(good, "j1", 5, null, "chem", "u", null, Resource.CPU, 1,
                    NodeShape.cores(32), 600, ConcurrencyTest.T).key());
        }
        assertEquals(new Lookup(null, 5, null).cluster(), new Lookup(" ", 5, null).cluster(), "blank: the default");
        for (String bad : List.of("x".repeat(65), "a b", "a/b", "a#b", "é", "alps\n", "a:b", "٣")) {
            LedgerException e = assertThrows(LedgerException.class, () -> new Lookup(bad, 5, null));
            assertEquals("cluster name '" + bad + "' must be 1-64 of letters, digits and _.@-", e.getMessage());
        }
    }

    static void storm(String url, int threads, int perThread, long seed) throws Exception {
        String where = "seed " + seed + " " + url.replaceAll("\\?.*", "");
        System.out.println("MultiClusterTest " + where);
        try (Ledger ledger = Ledger.open(url)) {
            int gid = 100;
            for (String p : PROJECTS) {
                ledger.addProject(p, gid++, null);
                ledger.grant(p, Resource.CPU, CREDIT, ConcurrencyTest.T.minusSeconds(86_400),
                        ConcurrencyTest.T.plusSeconds(86_400 * 30), "r", null);
            }
            Map<String, AtomicLong> acknowledged = new ConcurrentHashMap<>(); // project/cluster -> charged
            AtomicLong accepted = new AtomicLong();
            AtomicLong denied = new AtomicLong();
            List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int th = 0; th < threads; th++) {
                int id = th;
                futures.add(pool.submit(() -> {
                    Random rnd = new Random(seed + id);
                    String cluster = CLUSTERS[id % CLUSTERS.length];
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        // the same batch id and reservation id on every cluster
                        long resId = (long) (id / CLUSTERS.length) * 1_000 + i + 1;
                        String project = PROJECTS[rnd.nextInt(PROJECTS.length)];
                        int nodes = 1 + rnd.nextInt(8);
                        long limitMin = 10 + rnd.nextInt(60);
                        Outcome o = ledger.reserve(new ReserveRequest(cluster, "j" + resId, resId, null, project, "u"
                                + id, null, Resource.CPU, nodes, NodeShape.cores(32), limitMin * 60,
                                ConcurrencyTest.T));
                        if (!o.key().startsWith(cluster + "/") || o.replayed()) {
                            violations.add(cluster + " reserve " + resId + " answered " + o);
                        }
                        if (o.decision() == Decision.DENIED) {
                            denied.incrementAndGet();
                            if (o.available() >= nodes * 32L * limitMin) {
                                violations.add("denied " + o.key() + " with " + o.available() + " available");
                            }
                            continue;
                        }
                        accepted.incrementAndGet();
                        if (o.available() < 0) {
                            violations.add("overdrawn after " + o.key() + ": " + o.available());
                        }
                        Lookup lookup = new Lookup(cluster, resId, null);
                        ledger.confirm(lookup, ConcurrencyTest.T, null);
                        Outcome r = ledger.release(ReleaseRequest.of(resId, rnd.nextInt((int) limitMin * 60 + 1),
                                ConcurrencyTest.T.plusSeconds(60)).withCluster(cluster));
                        if (!r.key().equals(o.key()) || r.replayed()) {
                            violations.add(cluster + " release " + resId + " answered " + r + " for " + o.key());
                        }
                        acknowledged.computeIfAbsent(project + "/" + cluster, k -> new AtomicLong())
                                .addAndGet(r.charge());
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(5, TimeUnit.MINUTES);
            }
            pool.shutdown();
            assertEquals(List.of(), violations, where);
            assertTrue(accepted.get() > 0 && denied.get() > 0, where + ": the storm must contend (accepted "
                    + accepted + ", denied " + denied + ")");
            List<Usage> usage = ledger.usage(null);
            for (String p : PROJECTS) {
                Balance b = ledger.balances(p).get(0);
                assertEquals(0, b.held(), where);
                assertEquals(CREDIT - b.used(), b.available(), where + ": conservation of " + p);
                long journal = ledger.journal(null).stream().filter(e -> e.allocationId() == b.allocationId())
                        .mapToLong(JournalEntry::amount).sum();
                assertEquals(b.available(), journal, where + ": " + p + "'s balance is its journal");
                long perClusterTotal = 0;
                for (String cluster : CLUSTERS) {
                    long charged = usage.stream().filter(u -> u.project().equals(p) && u.cluster().equals(cluster))
                            .mapToLong(Usage::charged).sum();
                    AtomicLong ack = acknowledged.get(p + "/" + cluster);
                    assertEquals(ack == null ? 0 : ack.get(), charged, where + ": " + p + " charged by " + cluster);
                    perClusterTotal += charged;
                }
                assertEquals(b.used(), perClusterTotal, where + ": per-cluster usage of " + p + " adds up");
            }
            assertEquals(List.of(), ledger.check(), where);
        }
    }
}
