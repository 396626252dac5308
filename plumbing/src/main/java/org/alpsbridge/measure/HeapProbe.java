package org.alpsbridge.measure;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.ref.Reference;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The peak live heap of one call, above what the JVM held before it: the most heap in use right after any
 * collection during the call, or after a full collection at its end while its result is still held. Garbage
 * does not count (how much of it piles up depends on the collector and {@code -Xmx}, not on the call); this is
 * what the call really needs (a streaming pass: one node; the full model: the whole document tree).
 * Not thread-safe; one probe at a time.
 */
public final class HeapProbe implements NotificationListener {

    private final List<MemoryPoolMXBean> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP).toList();
    private final Set<String> heapPoolNames = heapPools.stream().map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
    private final AtomicLong maxAfterGc = new AtomicLong();
    private final AtomicLong collections = new AtomicLong();

    /** Runs {@code call} once and returns its peak live heap in bytes; its result is held until the final collection. */
    public long peakLive(Callable<?> call) throws Exception {
        long baseline = collectAndMeasure();
        maxAfterGc.set(0);
        List<NotificationEmitter> emitters = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .filter(NotificationEmitter.class::isInstance).map(NotificationEmitter.class::cast).toList();
        emitters.forEach(e -> e.addNotificationListener(this, null, null));
        try {
            Object result = call.call();
            long seen = collections.get();
            long atEnd = collectAndMeasure();
            awaitNotification(seen);
            Reference.reachabilityFence(result);
            return Math.max(0, Math.max(atEnd, maxAfterGc.get()) - baseline);
        } finally {
            for (NotificationEmitter e : emitters) {
                e.removeNotificationListener(this);
            }
        }
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        long used = 0;
        for (var pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPoolNames.contains(pool.getKey())) {
                used += pool.getValue().getUsed();
            }
        }
        maxAfterGc.accumulateAndGet(used, Math::max);
        collections.incrementAndGet();
    }

    /** Heap in use after a full collection (System.gc() is synchronous unless disabled with -XX:+DisableExplicitGC). */
    private long collectAndMeasure() {
        System.gc();
        return heapPools.stream().map(MemoryPoolMXBean::getUsage).mapToLong(MemoryUsage::getUsed).sum();
    }

    /** Notifications arrive on a JMX thread; wait briefly so the collections of the call are all counted. */
    private void awaitNotification(long seen) throws InterruptedException {
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (collections.get() <= seen && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }
}
