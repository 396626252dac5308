package org.alpsbridge.proxy.policy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receivers of every full inventory the policy fetches, and of ALPS's reservations with the cached nodes after
 * each idle-timer check (the orphan watch, the ledger sweep), told in order on one executor, never on the thread
 * that holds the policy's lock.
 */
final class FullInventoryListeners implements AutoCloseable {

    /** The policy's log lines keep the front door's name, whichever part writes them. */
    private static final Logger log = LoggerFactory.getLogger(InventoryPolicy.class);

    private final List<FullInventoryListener> listeners = new CopyOnWriteArrayList<>();
    private final Executor notifier;
    private final ExecutorService ownNotifier;

    /** @param notifier runs the listeners, in order; null for a background thread of its own */
    FullInventoryListeners(Executor notifier) {
        if (notifier == null) {
            this.ownNotifier = Executors.newSingleThreadExecutor(r -> IdleTimer.daemon(r, "policy-listeners"));
            this.notifier = ownNotifier;
        } else {
            this.ownNotifier = null;
            this.notifier = notifier;
        }
    }

    void add(FullInventoryListener listener) {
        listeners.add(listener);
    }

    void tell(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations, long startedNanos) {
        for (FullInventoryListener l : listeners) {
            notifier.execute(() -> {
                try {
                    l.fullInventory(header, nodes, reservations, startedNanos);
                } catch (RuntimeException ex) {
                    log.warn("policy: a full-inventory listener failed: {}", ex.toString());
                }
            });
        }
    }

    /** Waits, at most {@code millis}, until the listeners have been told everything told them before. */
    void awaitTold(long millis) {
        try {
            CompletableFuture.runAsync(() -> { }, notifier).get(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException ex) {
            log.warn("policy: the full-inventory listeners did not finish: {}", ex.toString());
        }
    }

    @Override
    public void close() {
        if (ownNotifier != null) {
            ownNotifier.shutdownNow();
        }
    }
}
