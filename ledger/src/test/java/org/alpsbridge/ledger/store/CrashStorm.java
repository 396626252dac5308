package org.alpsbridge.ledger.store;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;

/**
 * The process {@link CrashTest} kills: replays a deterministic charge storm (seed, jobs, threads) from
 * the start, printing one {@code ACK} line per event only after the ledger acknowledged it. Because
 * every event is idempotent, a rerun after a kill redelivers what was lost and must report exactly
 * what earlier runs acknowledged.
 *
 * <p>Usage: {@code CrashStorm URL SEED JOBS THREADS}
 */
public final class CrashStorm {

    static final Instant T = Instant.parse("2026-03-01T00:00:00Z");

    private CrashStorm() {
    }

    /** Nodes, limit (minutes) and elapsed (seconds) of job {@code i}: the same in every run. */
    static long[] job(long seed, int i) {
        Random r = new Random(seed * 1_000_003L + i);
        int nodes = 1 + r.nextInt(4);
        long limit = 5 + r.nextInt(60);
        long elapsed = r.nextInt((int) limit * 60 + 1);
        return new long[] {nodes, limit, elapsed};
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        long seed = Long.parseLong(args[1]);
        int jobs = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        try (Ledger ledger = Ledger.open(url)) {
            synchronized (out) {
                out.println("READY");
                out.flush();
            }
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                Thread w = new Thread(() -> {
                    for (int i = first; i < jobs; i += threads) {
                        long[] j = job(seed, i);
                        long resId = i + 1;
                        Outcome r = ledger.reserve(ReserveRequest.of(resId, "job" + i, "crash", "u", (int) j[0], 32,
                                j[1], T));
                        ack(out, "R " + r.key() + " " + r.decision() + " " + r.hold());
                        if (!r.ok()) {
                            continue;
                        }
                        Outcome c = ledger.confirm(Lookup.of(resId), T, null);
                        ack(out, "C " + r.key() + " " + c.decision());
                        Outcome l = ledger.release(ReleaseRequest.of(resId, j[2], T.plusSeconds(j[2])));
                        ack(out, "L " + r.key() + " " + l.decision() + " " + l.charge());
                    }
                });
                w.start();
                workers.add(w);
            }
            for (Thread w : workers) {
                w.join();
            }
        }
        synchronized (out) {
            out.println("DONE");
            out.flush();
        }
    }

    private static void ack(PrintStream out, String line) {
        synchronized (out) {
            out.println("ACK " + line);
            out.flush();
        }
    }
}
