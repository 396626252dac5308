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
import org.alpsbridge.ledger.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit across allocations, as a property over seeded random storms on both stores: 48 threads
 * send a mix of job events to 12 projects whose credit cannot cover them all — RESERVEs (some repeated,
 * some naming an unknown partition so that they fail inside a shared transaction), CONFIRMs, RELEASEs with
 * usage, by node failure or never run, and voids. Afterwards: no allocation was ever overdrawn, a denial
 * always saw too little, every acknowledged charge and hold is in its project's balance once, each
 * balance equals the sum of its allocation's journal, and {@code check} is clean. The seed is printed;
 * {@code -Dseed=N} runs one again.
 */
class SpreadStormTest {

    static final int PROJECTS = 12;
    static final long CREDIT = 60_000;

    @TempDir
    Path dir;

    @Test
    void mixedEventsOnManyAllocationsKeepEveryInvariantOnPostgresql() throws Exception {
        JdbcLedger ledger = (JdbcLedger) Ledger.open(PostgresServer.get().newDatabase());
        storm(ledger, seed());
        assertTrue(ledger.eventsPerCommit() > 1.0, "events of several projects shared commits: "
                + ledger.eventsPerCommit());
        ledger.close();
    }

    @Test
    void mixedEventsOnManyAllocationsKeepEveryInvariantOnSqlite() throws Exception {
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("spread.db"))) {
            storm(ledger, seed());
        }
    }

    private static long seed() {
        long seed = Long.getLong("seed", System.nanoTime());
        System.out.println("SpreadStormTest seed " + seed + " (-Dseed=" + seed + " runs it again)");
        return seed;
    }

    private static void storm(Ledger ledger, long seed) throws Exception {
        String where = "seed " + seed;
        for (int p = 0; p < PROJECTS; p++) {
            ledger.addProject("p" + p, 7000 + p, null);
            ledger.grant("p" + p, Resource.CPU, CREDIT, ConcurrencyTest.T.minusSeconds(86_400),
                    ConcurrencyTest.T.plusSeconds(86_400 * 30), "r", null);
        }
        int threads = 48;
        int perThread = 30;
        Map<String, AtomicLong> charged = new ConcurrentHashMap<>();
        Map<String, AtomicLong> held = new ConcurrentHashMap<>();
        AtomicLong denied = new AtomicLong();
        AtomicLong accepted = new AtomicLong();
        List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
        ConcurrencyTest.inThreads(threads, id -> {
            Random rnd = new Random(seed + id);
            for (int i = 0; i < perThread; i++) {
                long resId = (long) id * 100_000 + i + 1;
                String project = "p" + rnd.nextInt(PROJECTS);
                int nodes = 1 + rnd.nextInt(4);
                long limitMin = 10 + rnd.nextInt(50);
                long cost = nodes * 32L * limitMin;
                if (rnd.nextInt(10) == 0) { // fails inside whatever transaction it shares
                    ReserveRequest bad = new ReserveRequest(null, "j" + resId, resId, null, project, "u", "nosuch",
                            Resource.CPU, nodes, NodeShape.cores(32), limitMin * 60, ConcurrencyTest.T);
                    assertThrows(LedgerException.class, () -> ledger.reserve(bad), where);
                    continue;
                }
                ReserveRequest q = ReserveRequest.of(resId, "j" + resId, project, "u" + id, nodes, 32, limitMin,
                        ConcurrencyTest.T);
                Outcome o = ledger.reserve(q);
                if (rnd.nextInt(4) == 0) {
                    Outcome again = ledger.reserve(q);
                    if (!again.replayed() || again.decision() != o.decision() || again.hold() != o.hold()) {
                        violations.add(where + ": repeated " + o.key() + " gave " + again + " after " + o);
                    }
                }
                if (o.decision() == Decision.DENIED) {
                    denied.incrementAndGet();
                    if (o.available() >= cost) {
                        violations.add(where + ": denied " + o.key() + " costing " + cost + " with "
                                + o.available() + " available");
                    }
                    if (rnd.nextBoolean()) { // the scheduler reports the refused job as never run
                        Outcome r = ledger.release(new ReleaseRequest(Lookup.of(resId), 0, false, true,
                                ConcurrencyTest.T.plusSeconds(60), null));
                        if (r.state() != State.DENIED || r.charge() != 0) {
                            violations.add(where + ": never-ran RELEASE of denied " + o.key() + " gave " + r);
                        }
                    }
                    continue;
                }
                accepted.incrementAndGet();
                if (o.available() < 0) {
                    violations.add(where + ": overdrawn after " + o.key() + ": " + o.available());
                }
                Outcome end;
                switch (rnd.nextInt(6)) {
                    case 0 -> { // left held
                        held.computeIfAbsent(project, k -> new AtomicLong()).addAndGet(o.hold());
                        continue;
                    }
                    case 1 -> end = ledger.voidHold(o.key(), "ALPS_REFUSED");
                    case 2 -> end = ledger.release(new ReleaseRequest(Lookup.of(resId), 0, false, true,
                            ConcurrencyTest.T.plusSeconds(60), null));
                    case 3 -> {
                        ledger.confirm(Lookup.of(resId), ConcurrencyTest.T, null);
                        end = ledger.release(new ReleaseRequest(Lookup.of(resId), 600, true, false,
                                ConcurrencyTest.T.plusSeconds(600), null));
                    }
                    default -> {
                        ledger.confirm(Lookup.of(resId), ConcurrencyTest.T, null);
                        end = ledger.release(ReleaseRequest.of(resId, rnd.nextInt((int) limitMin * 60 * 2 + 1),
                                ConcurrencyTest.T.plusSeconds(60)));
                    }
                }
                if (!end.ok() || end.charge() > o.hold()) {
                    violations.add(where + ": ending " + o.key() + " gave " + end);
                }
                charged.computeIfAbsent(project, k -> new AtomicLong()).addAndGet(end.charge());
            }
        });
        assertEquals(List.of(), violations, where);
        assertTrue(accepted.get() > 0 && denied.get() > 0, where + ": the storm must contend (accepted " + accepted
                + ", denied " + denied + ")");
        for (int p = 0; p < PROJECTS; p++) {
            String project = "p" + p;
            Balance b = ledger.balances(project).get(0);
            assertEquals(charged.getOrDefault(project, new AtomicLong()).get(), b.used(), where + ": " + project
                    + ": every acknowledged charge, once");
            assertEquals(held.getOrDefault(project, new AtomicLong()).get(), b.held(), where + ": " + project
                    + ": every hold left in place, once");
            assertTrue(b.available() >= 0, where + ": " + project + " overdrawn: " + b);
            long journal = ledger.allocationJournal(b.allocationId()).stream().mapToLong(JournalEntry::amount).sum();
            assertEquals(b.available(), journal, where + ": " + project + ": the balance is its journal's sum");
            assertEquals(CREDIT - b.used() - b.held(), b.available(), where + ": " + project);
        }
        assertEquals(List.of(), ledger.check(), where);
    }
}
