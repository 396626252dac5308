package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store and {@link ReferenceModel} run side by side over seeded random event sequences (reserves,
 * duplicates, conflicting repeats, confirms, releases, voids, refunds, credits, withdrawals, unknown
 * ids, reused ids): every outcome and every balance must be identical. A failure prints its seed.
 */
class ReferenceModelTest {

    static final long P1 = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond();
    static final long P2 = Instant.parse("2026-04-01T00:00:00Z").getEpochSecond();
    static final long P3 = Instant.parse("2026-07-01T00:00:00Z").getEpochSecond();

    @TempDir
    Path dir;

    @Test
    void sqliteAgreesWithTheModelOnRandomSequences() {
        for (int i = 0; i < 3; i++) {
            long seed = System.nanoTime();
            compare("sqlite:" + dir.resolve("model-" + i + ".db"), replayUrl(), seed, 1_500);
        }
    }

    @Test
    void postgresqlAgreesWithTheModelOnARandomSequence() {
        compare(PostgresServer.get().newDatabase(), replayUrl(), System.nanoTime(), 800);
    }

    @Test
    @Tag("long")
    void longRandomSequencesOnBothStores() {
        for (int i = 0; i < 10; i++) {
            compare("sqlite:" + dir.resolve("long-" + i + ".db"), replayUrl(), System.nanoTime(), 20_000);
        }
        compare(PostgresServer.get().newDatabase(), replayUrl(), System.nanoTime(), 20_000);
    }

    /** Found by the long run: the model ignored the owner, so a same-shape repeat by another user agreed. */
    @Test
    @Tag("long")
    void aRepeatedReserveByAnotherOwnerIsAConflictInBoth() {
        compare("sqlite:" + dir.resolve("owner.db"), replayUrl(), 14029468288807L, 15_200);
    }

    private int replays;

    private String replayUrl() {
        return "sqlite:" + dir.resolve("replay-" + (++replays) + ".db");
    }

    /** Runs {@code steps} random events on the store at {@code url} and the model; then replays the journal. */
    static void compare(String url, String replayInto, long seed, int steps) {
        compare(url, replayInto, new Random(seed), "seed " + seed + " on " + url.replaceAll("\\?.*", ""), steps);
    }

    /** The same over events drawn from {@code rnd}: a seeded generator here, the fuzzer's bytes in LedgerFuzzTest. */
    static void compare(String url, String replayInto, Random rnd, String where, int steps) {
        ReferenceModel model = new ReferenceModel();
        List<String> keys = new ArrayList<>();
        try (Ledger ledger = Ledger.open(url)) {
            ledger.addProject("p", 1, null);
            long[][] periods = {{P1, P2}, {P2, P3}};
            for (long[] p : periods) {
                long grant = 60L * (500 + rnd.nextInt(5_000));
                ledger.grant("p", Resource.CPU, grant, Instant.ofEpochSecond(p[0]), Instant.ofEpochSecond(p[1]), "r", null);
                ReferenceModel.Alloc a = new ReferenceModel.Alloc(p[0], p[1]);
                a.credited = grant;
                model.allocs.add(a);
            }
            for (int step = 0; step < steps; step++) {
                String at = where + " step " + step;
                long t = P1 - 86_400 + (long) (rnd.nextDouble() * (P3 - P1 + 2 * 86_400));
                long resId = 1 + rnd.nextInt(40);
                int op = rnd.nextInt(100);
                if (op < 35) {
                    String batch = "b" + rnd.nextInt(60);
                    int nodes = 1 + rnd.nextInt(rnd.nextInt(10) == 0 ? 64 : 6);
                    int cores = new int[] {8, 16, 24, 32}[rnd.nextInt(4)];
                    long limit = 60L * (1 + rnd.nextInt(240));
                    String owner = "u" + rnd.nextInt(3);
                    ReferenceModel.Result want = model.reserve(resId, batch, owner, nodes, cores, limit, t);
                    Outcome got = ledger.reserve(new ReserveRequest(null, batch, resId, null, "p", owner, null,
                            Resource.CPU, nodes, org.alpsbridge.ledger.NodeShape.cores(cores), limit,
                            Instant.ofEpochSecond(t)));
                    same(want, got, at + " reserve");
                    keys.add(got.key());
                } else if (op < 55) {
                    same(model.confirm(resId, t), ledger.confirm(Lookup.of(resId), Instant.ofEpochSecond(t), null),
                            at + " confirm");
                } else if (op < 80) {
                    long elapsed = rnd.nextInt(4) == 0 ? rnd.nextInt(10) : rnd.nextInt(20_000);
                    boolean nodeFailure = rnd.nextInt(10) == 0;
                    same(model.release(resId, elapsed, nodeFailure, t), ledger.release(new ReleaseRequest(
                            Lookup.of(resId), elapsed, nodeFailure, false, Instant.ofEpochSecond(t), null)), at + " release");
                } else if (op < 85 && !keys.isEmpty()) {
                    String key = keys.get(rnd.nextInt(keys.size()));
                    same(model.voidHold(key), ledger.voidHold(key, "test"), at + " void");
                } else if (op < 90) {
                    long amount = 1 + rnd.nextInt(500);
                    Long want = model.refund(resId, amount);
                    if (want == null) {
                        assertThrows(LedgerException.class, () -> ledger.refund(Lookup.of(resId), amount, "t", null), at);
                    } else {
                        assertEquals(want.longValue(), ledger.refund(Lookup.of(resId), amount, "t", null).charge(), at);
                    }
                } else if (op < 95) {
                    ReferenceModel.Alloc a = model.active(t);
                    long amount = 1 + rnd.nextInt(20_000);
                    if (a == null) {
                        assertThrows(LedgerException.class, () -> ledger.credit("p", Resource.CPU,
                                Instant.ofEpochSecond(t), amount, null, null), at);
                    } else {
                        a.credited += amount;
                        ledger.credit("p", Resource.CPU, Instant.ofEpochSecond(t), amount, null, null);
                    }
                } else {
                    long amount = 1 + rnd.nextInt(20_000);
                    if (model.withdraw(t, amount)) {
                        ledger.withdraw("p", Resource.CPU, Instant.ofEpochSecond(t), amount, false, null, null);
                    } else {
                        assertThrows(LedgerException.class, () -> ledger.withdraw("p", Resource.CPU,
                                Instant.ofEpochSecond(t), amount, false, null, null), at);
                    }
                }
                if (step % 50 == 0 || step == steps - 1) {
                    List<Balance> balances = ledger.balances("p");
                    for (int i = 0; i < 2; i++) {
                        ReferenceModel.Alloc a = model.allocs.get(i);
                        Balance b = balances.get(i);
                        assertEquals(List.of(a.credited, a.held, a.settled),
                                List.of(b.granted(), b.held(), b.used()), at + " balances of period " + i);
                    }
                }
            }
            assertEquals(List.of(), ledger.check(), where);
            try (Ledger copy = Ledger.open(replayInto)) {
                assertEquals(List.of(), ledger.replayInto(copy).problems(), where + ": journal replayed into " + replayInto);
            }
        }
    }

    static void same(ReferenceModel.Result want, Outcome got, String at) {
        assertEquals(want, new ReferenceModel.Result(got.decision(), got.state(), got.hold(), got.charge()), at);
    }
}
