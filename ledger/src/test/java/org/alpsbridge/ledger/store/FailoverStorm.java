package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerUnavailableException;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;

/**
 * A charge storm through a long-lived {@link Ledger} (the store itself, or a ledger service's client)
 * while the test breaks the server: every thread RESERVEs and RELEASEs on one project; an answer
 * refused as {@link LedgerUnavailableException} (TRANSIENT) is retried, the same request, until it is
 * answered. Afterwards {@link Result#verify} checks on the server that is primary now that every
 * acknowledged event is there exactly once, and that the ledger checks and replays clean.
 */
public final class FailoverStorm {

    static final Instant T = Instant.parse("2026-03-01T00:00:00Z");

    /** What the storm saw. */
    public static final class Result {
        final Map<String, Long> heldAcknowledged = new ConcurrentHashMap<>();
        final Map<String, Long> chargedAcknowledged = new ConcurrentHashMap<>();
        /** Events acknowledged before the break. */
        public final AtomicLong beforeBreak = new AtomicLong();
        /** Events sent before the break and acknowledged after it, without a refusal. */
        public final AtomicLong inFlightCompleted = new AtomicLong();
        /** Refusals marked transient (each retried). */
        public final AtomicLong refusedTransient = new AtomicLong();
        /** Events that were refused at least once and then succeeded on a retry. */
        public final AtomicLong retriedOk = new AtomicLong();
        /** All events acknowledged. */
        public final AtomicLong acknowledged = new AtomicLong();

        @Override
        public String toString() {
            return "acknowledged " + acknowledged + " (before the break " + beforeBreak + "), in flight at the break"
                    + " and completed " + inFlightCompleted + ", refused TRANSIENT " + refusedTransient
                    + ", succeeded on retry " + retriedOk;
        }

        /**
         * On {@code url} (the primary now): each acknowledged RESERVE held once, each acknowledged RELEASE
         * settled once with the acknowledged charge, nothing held, balances equal to the journal
         * ({@code ledger check}), and a replay into an empty SQLite file giving the same balances.
         */
        public void verify(String url, String project, Path scratch) {
            try (Ledger ledger = Ledger.open(url)) {
                Map<String, List<JournalEntry>> byKey = new java.util.HashMap<>();
                for (JournalEntry e : ledger.journal(null)) {
                    if (e.reservationKey() != null) {
                        byKey.computeIfAbsent(e.reservationKey(), k -> new ArrayList<>()).add(e);
                    }
                }
                heldAcknowledged.forEach((key, hold) -> {
                    List<JournalEntry> entries = byKey.getOrDefault(key, List.of());
                    assertEquals(1, entries.stream().filter(e -> e.kind() == Kind.HOLD).count(), key + ": " + entries);
                    assertEquals(-hold, entries.stream().filter(e -> e.kind() == Kind.HOLD).findFirst().get().amount());
                });
                chargedAcknowledged.forEach((key, charge) -> {
                    List<JournalEntry> entries = byKey.getOrDefault(key, List.of());
                    assertEquals(1, entries.stream().filter(e -> e.kind() == Kind.RETURN).count(), key + ": " + entries);
                    assertEquals(-charge, entries.stream().filter(e -> e.kind() == Kind.SETTLE).mapToLong(
                            JournalEntry::amount).sum(), key);
                });
                assertEquals(heldAcknowledged.size(), byKey.size(), "no event the callers were not told about");
                assertTrue(ledger.holds(project).isEmpty(), "nothing held after the storm");
                assertEquals(chargedAcknowledged.values().stream().mapToLong(Long::longValue).sum(),
                        ledger.balances(project).get(0).used(), "every acknowledged charge, once");
                assertEquals(List.of(), ledger.check(), "ledger check");
                try (Ledger copy = Ledger.open("sqlite:" + scratch.resolve("replay-" + System.nanoTime() + ".db"))) {
                    assertEquals(List.of(), ledger.replayInto(copy).problems(), "ledger replay");
                }
            }
        }
    }

    private FailoverStorm() {
    }

    /** A project {@code project} with plenty of credit, on a fresh ledger at {@code url}. */
    public static void prepare(String url, String project) {
        try (Ledger ledger = Ledger.open(url)) {
            ledger.addProject(project, 4242, null);
            ledger.grant(project, Resource.CPU, 1_000_000_000L, T.minusSeconds(86_400), T.plusSeconds(86_400 * 30),
                    "r", null);
        }
    }

    /**
     * Runs {@code threads} clients on {@code ledger} for {@code before} ms, then {@code breakIt} (kill,
     * promote, restart...) on this thread while they go on, then {@code after} ms more.
     */
    public static Result run(Ledger ledger, String cluster, String project, int threads, long before,
                             Runnable breakIt, long after) throws Exception {
        Result result = new Result();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong brokenAt = new AtomicLong(Long.MAX_VALUE);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        for (int th = 0; th < threads; th++) {
            int id = th;
            futures.add(pool.submit(() -> {
                for (long i = 1; !stop.get(); i++) {
                    long resId = id * 1_000_000L + i;
                    ReserveRequest q = new ReserveRequest(cluster, "j" + resId, resId, null, project, "u" + id, null,
                            Resource.CPU, 1, NodeShape.cores(32), 600, T);
                    Outcome held = send(result, brokenAt, () -> ledger.reserve(q));
                    assertTrue(held.ok(), held.toString());
                    result.heldAcknowledged.put(held.key(), held.hold());
                    Outcome settled = send(result, brokenAt, () -> ledger.release(
                            ReleaseRequest.of(resId, 300, T.plusSeconds(300)).withCluster(cluster)));
                    assertEquals(State.SETTLED, settled.state(), settled.toString());
                    result.chargedAcknowledged.put(settled.key(), settled.charge());
                }
                return null;
            }));
        }
        Thread.sleep(before);
        brokenAt.set(System.nanoTime());
        breakIt.run();
        Thread.sleep(after);
        stop.set(true);
        for (Future<?> f : futures) {
            f.get(3, TimeUnit.MINUTES);
        }
        pool.shutdown();
        return result;
    }

    private static Outcome send(Result result, AtomicLong brokenAt, java.util.function.Supplier<Outcome> event)
            throws InterruptedException {
        long sent = System.nanoTime();
        boolean refused = false;
        while (true) {
            try {
                Outcome o = event.get();
                long now = System.nanoTime();
                result.acknowledged.incrementAndGet();
                if (refused) {
                    result.retriedOk.incrementAndGet();
                } else if (sent < brokenAt.get() && now >= brokenAt.get()) {
                    result.inFlightCompleted.incrementAndGet();
                } else if (now < brokenAt.get()) {
                    result.beforeBreak.incrementAndGet();
                }
                return o;
            } catch (LedgerUnavailableException e) {
                result.refusedTransient.incrementAndGet();
                refused = true;
                Thread.sleep(100); // what a scheduler does with a TRANSIENT answer: try again later
            }
        }
    }
}
