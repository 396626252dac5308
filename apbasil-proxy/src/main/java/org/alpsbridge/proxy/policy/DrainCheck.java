package org.alpsbridge.proxy.policy;

import java.util.Optional;
import java.util.function.Supplier;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.ReservationStates;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.stats.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reservations released while claimed, where no reservations check runs before an answer.
 *
 * <p>A RELEASE answered {@code claims} &gt; 0 leaves the reservation in ALPS, and in the cache, until its last claim
 * (an aprun application, the job's container) ends; ALPS then removes it unannounced. While such reservations drain,
 * the reservations check before each answer drops them once ALPS no longer lists them ({@link ReservationCheck});
 * where no check runs, within a summary interval or after a failed one, this asks one QUERY(STATUS) of them: a
 * reservation ALPS no longer has is {@code INVALID}. A RESERVE that ALPS placed on their nodes, or a RELEASE answered
 * "No entry for resId", proves them gone as well ({@link ReservationPatches}); the cache drops what is proven gone
 * ({@code policy_patches{release-drained}}) and answers. Until then it shows the reservation holding its nodes, as
 * ALPS does, so a scheduler never places a job there. Runs under the policy's lock.
 */
final class DrainCheck {

    /** The policy's log lines keep the front door's name, whichever part writes them. */
    private static final Logger log = LoggerFactory.getLogger(InventoryPolicy.class);

    private final BasilCodec codec;
    private final Supplier<Backend> alps;
    private final Caches caches;
    /** QUERY(STATUS) checks of draining reservations, by what they found. */
    private final Counter drainChecks;

    DrainCheck(BasilCodec codec, Supplier<Backend> alps, Caches caches, Counter drainChecks) {
        this.codec = codec;
        this.alps = alps;
        this.caches = caches;
        this.drainChecks = drainChecks;
    }

    /** While reservations released with claims outstanding drain and no reservations check ran: {@link #drain}. */
    RefreshReason verdict(String protocol) {
        return caches.anyDraining() ? drain(protocol) : null;
    }

    /**
     * Asks ALPS, with one QUERY(STATUS), which reservations released with claims outstanding it still has, and
     * drops the others from every cache. A STATUS that fails leaves them shown (the safe side: their nodes stay
     * held until the next check or refresh); a backend that refuses STATUS for good costs a full inventory.
     *
     * @return a refresh reason, or null when the cache may answer
     */
    private RefreshReason drain(String protocol) {
        ResponseData answer;
        try {
            byte[] request = codec.write(BasilRequest.status(protocol, caches.drainingIds()));
            answer = codec.readResponse(alps.get().call(new Call(request, protocol, "QUERY", "STATUS",
                    Caller.UNAUTHENTICATED, null))).responseData();
        } catch (BasilException | BackendException ex) {
            drainChecks.increment("failed");
            log.info("policy: STATUS of draining reservations failed, still shown: {}", ex.getMessage());
            return null;
        }
        Optional<ReservationStates> states = answer.isSuccess() ? answer.content(ReservationStates.class) : Optional.empty();
        if (states.isEmpty()) {
            drainChecks.increment("failed");
            return answer.errorClass() == ErrorClass.PERMANENT ? RefreshReason.DRAIN_UNKNOWN : null;
        }
        for (ReservationStates.State st : states.get().reservations()) {
            if (st.reservationId() != null && "INVALID".equals(st.status()) && caches.draining(st.reservationId())) {
                drainChecks.increment("gone");
                caches.drained(st.reservationId());
            } else {
                drainChecks.increment("held");
            }
        }
        return null;
    }
}
