package org.alpsbridge.proxy.server;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;

/**
 * The answers to reservation-changing exchanges, by (uid, exchange id), so that a retried or duplicated
 * RESERVE/CONFIRM/RELEASE/SWITCH returns the first answer instead of running again. A duplicate that
 * arrives while the first is still running waits for it. Entries are dropped after
 * {@code exchange_memory}.
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

    private final Map<Key, Entry> entries = new ConcurrentHashMap<>();
    private final long keepNanos;

    ExchangeMemory(Duration keep) {
        this.keepNanos = keep.toNanos();
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
        Key key = new Key(call.caller().uid(), call.exchangeId());
        Entry mine = new Entry(digest, new CompletableFuture<>(), System.nanoTime());
        Entry first = entries.putIfAbsent(key, mine);
        if (first == null) {
            try {
                byte[] answer = work.run();
                mine.answer.complete(answer);
                return answer;
            } catch (BackendException | RuntimeException e) {
                mine.answer.completeExceptionally(e);
                throw e;
            }
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

    /** Drops answers older than the retention; called periodically. */
    void expire() {
        long now = System.nanoTime();
        entries.values().removeIf(e -> e.answer.isDone() && now - e.bornNanos > keepNanos);
    }

    int size() {
        return entries.size();
    }
}
