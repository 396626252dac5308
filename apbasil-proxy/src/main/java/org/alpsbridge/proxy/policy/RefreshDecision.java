package org.alpsbridge.proxy.policy;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.basil.model.Summary;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a cache may answer the scheduler's INVENTORY now, or why a full one is fetched instead. In order: something
 * cached, not distrusted ({@link #distrust}), not marked stale by a change, fetched or renewed within the refresh
 * interval and fetched within the full refresh interval; then, for BASIL 1.3+, SUMMARY's {@code schedchangecount} (or
 * its up/down lists) equal to the cache's (no node changed state or role) and the reservations check
 * ({@link ReservationCheck}), at most once a summary interval; below 1.3, or where the backend refuses SUMMARY for
 * good, the fallback interval. Where no reservations check runs, reservations released while claimed are asked after
 * by QUERY(STATUS) ({@link DrainCheck}). Asked under the policy's lock.
 */
final class RefreshDecision {

    /** The policy's log lines keep the front door's name, whichever part writes them. */
    private static final Logger log = LoggerFactory.getLogger(InventoryPolicy.class);

    private final PolicySettings settings;
    private final Clock clock;
    private final BasilCodec codec;
    private final Supplier<Backend> alps;
    private final ReservationCheck reservations;
    private final DrainCheck drain;
    /** Caches fetched before this (the policy's clock) are not answered from: see {@link #distrust}. */
    private volatile long distrustedBeforeMillis = Long.MIN_VALUE;
    private volatile RefreshReason distrustReason = RefreshReason.OPERATOR;

    RefreshDecision(PolicySettings settings, Clock clock, BasilCodec codec, Supplier<Backend> alps,
                    ReservationCheck reservations, DrainCheck drain) {
        this.settings = settings;
        this.clock = clock;
        this.codec = codec;
        this.alps = alps;
        this.reservations = reservations;
        this.drain = drain;
    }

    /** Answers nothing from a cache fetched before {@code beforeMillis} (the policy's clock): each is fetched for {@code reason}. */
    void distrust(long beforeMillis, RefreshReason reason) {
        distrustReason = reason;
        distrustedBeforeMillis = beforeMillis;
    }

    /** Why the cache cannot answer now, or null when it can. */
    RefreshReason staleness(Caches.Entry e, String protocol) {
        if (e.cache == null) {
            return e.staleBecause == null ? RefreshReason.START : e.staleBecause;
        }
        if (e.cache.fetchedAtMillis < distrustedBeforeMillis) {
            return distrustReason;
        }
        if (e.staleBecause != null) {
            return e.staleBecause;
        }
        long now = clock.millis();
        long age = now - e.cache.fetchedAtMillis;
        if (now - e.freshSinceMillis() >= settings.refreshInterval().toMillis()
                || age >= Math.max(settings.refreshInterval().toMillis(), settings.fullRefreshInterval().toMillis())) {
            return RefreshReason.INTERVAL;
        }
        if (e.noSummary || !Protocols.atLeast(protocol, "1.3")) {
            return age >= settings.fallbackInterval().toMillis() ? RefreshReason.FALLBACK_INTERVAL : drain.verdict(protocol);
        }
        if (e.summaryCheckedMillis != Long.MIN_VALUE && now - e.summaryCheckedMillis < settings.summaryInterval().toMillis()) {
            return drain.verdict(protocol);
        }
        RefreshReason nodes = summaryVerdict(e, protocol, now);
        return nodes != null ? nodes : reservations.verdict(e, protocol);
    }

    private RefreshReason summaryVerdict(Caches.Entry e, String protocol, long now) {
        ResponseData answer;
        try {
            byte[] request = codec.write(BasilRequest.query(protocol, "SUMMARY"));
            answer = codec.readResponse(alps.get().call(new Call(request, protocol, "QUERY", "SUMMARY",
                    Caller.UNAUTHENTICATED, null))).responseData();
        } catch (BasilException | BackendException ex) {
            log.info("policy: SUMMARY failed, fetching INVENTORY: {}", ex.getMessage());
            return RefreshReason.SUMMARY_FAILED;
        }
        if (!answer.isSuccess()) {
            if (answer.errorClass() == ErrorClass.PERMANENT) {
                log.warn("policy: the backend refuses SUMMARY ({}); INVENTORY is fetched at most every {} s instead",
                        answer.messageText(), settings.fallbackInterval().toSeconds());
                e.noSummary = true;
                return now - e.cache.fetchedAtMillis >= settings.fallbackInterval().toMillis() ? RefreshReason.FALLBACK_INTERVAL : null;
            }
            return RefreshReason.SUMMARY_FAILED;
        }
        Optional<Summary> summary = answer.content(Summary.class);
        if (summary.isEmpty()) {
            return RefreshReason.SUMMARY_FAILED;
        }
        e.summaryCheckedMillis = now;
        return changed(summary.get(), e.cache) ? RefreshReason.SUMMARY_CHANGED : null;
    }

    /** schedchangecount when both sides carry it, else the up/down node lists against the cached states. */
    private static boolean changed(Summary s, CachedInventory cache) {
        Long cached = cache.schedchangecount();
        if (s.schedchangecount().isPresent() && cached != null) {
            return !s.schedchangecount().get().equals(cached);
        }
        if (s.nodes().isEmpty()) {
            return true;
        }
        List<Long> up = new ArrayList<>();
        List<Long> down = new ArrayList<>();
        for (NodeView n : cache.nodes()) {
            ("UP".equals(n.state()) ? up : down).add(n.nodeId());
        }
        try {
            return !s.nodes().get().up().equals(NidSet.copyOf(up.stream().mapToLong(Long::longValue)))
                    || !s.nodes().get().down().equals(NidSet.copyOf(down.stream().mapToLong(Long::longValue)));
        } catch (IllegalArgumentException ex) {
            return true;
        }
    }
}
