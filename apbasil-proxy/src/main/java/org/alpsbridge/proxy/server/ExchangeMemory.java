package org.alpsbridge.proxy.server;

import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.ha.Availability;
import org.alpsbridge.proxy.ha.NotActiveException;

/**
 * The answers to reservation-changing exchanges, by (uid, exchange id), so that a retried or duplicated
 * RESERVE/CONFIRM/RELEASE/SWITCH returns the first answer instead of running again. A duplicate that
 * arrives while the first is still running waits for it. Entries are dropped after
 * {@code exchange_memory}.
 *
 * <p>Where it survives: nowhere (memory only), in {@code exchange_journal} (this host's restarts), or in the
 * pair's database ({@code ha_db}: the other proxy's takeover), where a copy not known here is looked up.
 */
final class ExchangeMemory {

    /** Runs the backend call for an exchange seen for the first time. */
    interface Work {
        byte[] run() throws BackendException;
    }

    private record Key(int uid, String exchangeId) {
    }

    private record Entry(byte[] digest, CompletableFuture<byte[]> answer, long bornNanos) {
    }

    private static final BasilCodec CODEC = BasilCodec.standard();
    private static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final Map<Key, Entry> entries = new ConcurrentHashMap<>();
    private final long keepNanos;
    private final Duration keep;
    private final ExchangeJournal journal;
    private final Availability pair;

    /**
     * @param journal where the memory survives restarts, or null
     * @param pair the pair's shared memory, or null; at most one of the two
     */
    ExchangeMemory(Duration keep, ExchangeJournal journal, Availability pair) {
        this.keep = keep;
        this.keepNanos = keep.toNanos();
        this.journal = journal;
        this.pair = pair;
        if (journal != null) {
            long nowNanos = System.nanoTime();
            long nowMillis = System.currentTimeMillis();
            for (ExchangeJournal.Entry e : journal.entries()) {
                CompletableFuture<byte[]> answer = new CompletableFuture<>();
                if (e.answer() != null) {
                    answer.complete(e.answer());
                } else {
                    answer.completeExceptionally(new BackendException(e.failure(), e.failureTransient()));
                }
                long born = nowNanos - TimeUnit.MILLISECONDS.toNanos(Math.max(0, nowMillis - e.startedMillis()));
                entries.put(new Key(e.uid(), e.exchangeId()), new Entry(e.digest(), answer, born));
            }
        }
    }

    /** Exchanges the journal found running when the previous daemon stopped, one line each. */
    List<String> interrupted() {
        if (pair != null) {
            try {
                return pair.interrupted().stream().map(Availability.Interrupted::describe).toList();
            } catch (SQLException e) {
                return List.of("(the pair's database cannot be read: " + e.getMessage() + ")");
            }
        }
        return journal == null ? List.of() : journal.interrupted().stream().map(ExchangeJournal::describe).toList();
    }

    /**
     * Runs {@code work} once per (uid, exchange id) and returns its answer to every copy of the exchange.
     *
     * @param digest identifies the request; the same id with a different request is refused
     * @param wait how long a duplicate waits for the first copy still running
     */
    byte[] once(Call call, byte[] digest, Duration wait, Work work) throws BackendException {
        if (call.exchangeId() == null || call.exchangeId().isEmpty() || !call.changesReservations()) {
            return work.run();
        }
        if (!VALID_ID.matcher(call.exchangeId()).matches()) {
            throw new BackendException("exchange id '" + call.exchangeId() + "' is not 1-128 characters of "
                    + "letters, digits and . _ : -", false);
        }
        Key key = new Key(call.caller().uid(), call.exchangeId());
        Entry mine = new Entry(digest, new CompletableFuture<>(), System.nanoTime());
        Entry first = entries.putIfAbsent(key, mine);
        if (first == null) {
            if (pair != null) {
                Availability.Recorded known = beginShared(key, mine, call, digest);
                if (known != null) {
                    return answerKnown(key, mine, known, call, digest);
                }
            } else if (journal != null) {
                try {
                    journal.begin(key.uid, key.exchangeId, call.methodKey(), digest);
                } catch (IOException e) {
                    entries.remove(key, mine);
                    BackendException refused = new BackendException("cannot record " + call.methodKey()
                            + " in the exchange_journal, so it is not run: " + e.getMessage(), true, e);
                    mine.answer.completeExceptionally(refused);
                    throw refused;
                }
            }
            byte[] answer;
            try {
                answer = work.run();
            } catch (BackendException e) {
                mine.answer.completeExceptionally(e);
                if (pair != null) {
                    pair.fail(key.uid, key.exchangeId, e.getMessage(), e.isTransient());
                } else if (journal != null) {
                    journal.fail(key.uid, key.exchangeId, e.getMessage(), e.isTransient());
                }
                throw e;
            } catch (RuntimeException e) {
                mine.answer.completeExceptionally(e);
                if (pair != null) {
                    pair.fail(key.uid, key.exchangeId, String.valueOf(e), true);
                } else if (journal != null) {
                    journal.fail(key.uid, key.exchangeId, String.valueOf(e), true);
                }
                throw e;
            }
            if (pair != null && !pair.finish(key.uid, key.exchangeId, answer) && "RESERVE".equals(call.method())) {
                // The pair's memory keeps "outcome unknown" and the active proxy releases what this RESERVE made
                // as an interrupted one's: a scheduler told of the reservation would hold one about to vanish.
                BackendException unknown = new BackendException("RESERVE exchange " + key.exchangeId + " ran on this"
                        + " apbasil proxy after its lease ended; its outcome is recorded as unknown and the reservation"
                        + " it made, if any, is released by the active proxy: try again", true);
                mine.answer.completeExceptionally(unknown);
                throw unknown;
            }
            if (pair == null && journal != null) {
                journal.finish(key.uid, key.exchangeId, answer);
            }
            mine.answer.complete(answer);
            return answer;
        }
        if (!Arrays.equals(first.digest, digest)) {
            throw new BackendException("exchange id " + call.exchangeId()
                    + " was already used for a different request", false);
        }
        try {
            return first.answer.get(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof BackendException be) {
                throw be;
            }
            throw new BackendException("the first copy of exchange " + call.exchangeId() + " failed: "
                    + e.getCause(), true, e.getCause());
        } catch (TimeoutException e) {
            throw new BackendException("the first copy of exchange " + call.exchangeId()
                    + " is still running", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while waiting for exchange " + call.exchangeId(), true);
        }
    }

    /**
     * Records the exchange in the pair's database under this proxy's lease.
     *
     * @return null when it is new there too (run it), else what the pair knows of it
     * @throws BackendException caused by a {@link NotActiveException} when the lease has ended (nothing ran)
     */
    private Availability.Recorded beginShared(Key key, Entry mine, Call call, byte[] digest) throws BackendException {
        try {
            return pair.begin(key.uid, key.exchangeId, call.methodKey(), digest, reserveOf(call));
        } catch (NotActiveException e) {
            entries.remove(key, mine);
            BackendException refused = new BackendException(e.getMessage(), true, e);
            mine.answer.completeExceptionally(refused);
            throw refused;
        } catch (SQLException e) {
            entries.remove(key, mine);
            BackendException refused = new BackendException("cannot record " + call.methodKey() + " in the pair's"
                    + " database (ha_db), so it is not run: " + e.getMessage(), true, e);
            mine.answer.completeExceptionally(refused);
            throw refused;
        }
    }

    /** A RESERVE's batch id and user, kept by the pair so a survivor can find what an interrupted one made. */
    private static Availability.ReserveOf reserveOf(Call call) {
        if (!"RESERVE".equals(call.method())) {
            return null;
        }
        try {
            BasilRequest r = CODEC.readRequest(call.request());
            return r.batchId() == null ? null : new Availability.ReserveOf(r.batchId(), r.user());
        } catch (BasilException e) {
            return null; // ALPS refuses it too
        }
    }

    /** A copy of an exchange the pair's memory already holds (run by the other proxy, or here before). */
    private byte[] answerKnown(Key key, Entry mine, Availability.Recorded known, Call call, byte[] digest)
            throws BackendException {
        boolean finished = known.answer() != null || known.failure() != null;
        BackendException failure = known.answer() != null ? null : known.failure() != null
                ? new BackendException(known.failure(), known.failureTransient())
                : new BackendException("the first copy of exchange " + call.exchangeId() + " is still running", true);
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        if (failure == null) {
            answer.complete(known.answer());
        } else {
            answer.completeExceptionally(failure);
        }
        if (finished) {
            entries.replace(key, mine, new Entry(known.digest(), answer, mine.bornNanos));
        } else {
            entries.remove(key, mine);
        }
        if (!Arrays.equals(known.digest(), digest)) {
            failure = new BackendException("exchange id " + call.exchangeId()
                    + " was already used for a different request", false);
        }
        if (failure != null) {
            mine.answer.completeExceptionally(failure);
            throw failure;
        }
        mine.answer.complete(known.answer());
        return known.answer();
    }

    /** Drops answers older than the retention; called periodically. */
    void expire() {
        long now = System.nanoTime();
        entries.values().removeIf(e -> e.answer.isDone() && now - e.bornNanos > keepNanos);
        if (journal != null) {
            journal.expire();
        }
        if (pair != null) {
            pair.expire(keep);
        }
    }

    int size() {
        return entries.size();
    }
}
