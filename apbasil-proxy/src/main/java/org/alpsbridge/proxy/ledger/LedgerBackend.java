package org.alpsbridge.proxy.ledger;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Failures;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.LedgerUnavailableException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.cost.NodeShape;
import org.alpsbridge.ledger.timelimit.TimeLimit;
import org.alpsbridge.ledger.timelimit.TimeLimits;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Charges ALPS reservations to the allocation ledger as they pass through the proxy.
 *
 * <ul>
 *   <li>RESERVE: the ledger holds the worst case <em>before</em> the request is forwarded (ledger first,
 *       ALPS second). A denial never reaches ALPS: the caller gets a BASIL FAILURE, PERMANENT, whose
 *       message names the project, the cost and the balance. If ALPS then refuses, the hold is voided;
 *       if it accepts, the hold is bound to the reservation id ALPS returned.</li>
 *   <li>CONFIRM: forwarded; once ALPS confirmed, the reservation is marked running.</li>
 *   <li>RELEASE: forwarded; once ALPS released, the ledger settles the time since CONFIRM and returns
 *       the rest of the hold.</li>
 *   <li>QUERY and SWITCH pass through untouched.</li>
 * </ul>
 *
 * <p>The project is the RESERVE's {@code account_name} (a project name or Slurm account in the
 * ledger); the time limit comes from {@link TimeLimits} (BASIL carries none); nodes are
 * {@code ceil(width / nppn)} per ReserveParam, whole nodes of {@link Settings#coresPerNode} cores.
 */
public final class LedgerBackend implements Backend {

    private static final Logger log = LoggerFactory.getLogger(LedgerBackend.class);

    /** What a RESERVE does when the ledger cannot be reached. */
    public enum WhenUnavailable {
        /** Refuse with a TRANSIENT BASIL failure, so the scheduler retries later (default: fail closed). */
        REFUSE,
        /** Forward unledgered and log it; the CONFIRM/RELEASE of that reservation raise alerts to reconcile. */
        ALLOW
    }

    /**
     * @param cluster the cluster name in reservation keys (default {@code default})
     * @param coresPerNode cores of one compute node: ALPS allocates whole nodes (default 32)
     * @param partition the billing partition whose weights apply (default {@code default})
     * @param limits where time limits come from
     * @param whenUnavailable fail closed or open when the ledger is down (default REFUSE)
     */
    public record Settings(String cluster, int coresPerNode, String partition, TimeLimits limits,
                           WhenUnavailable whenUnavailable) {

        public Settings {
            cluster = cluster == null ? Ledger.DEFAULT_CLUSTER : cluster;
            partition = partition == null ? Ledger.DEFAULT_PARTITION : partition;
            if (coresPerNode < 1) {
                throw new IllegalArgumentException("cores per node must be at least 1, got " + coresPerNode);
            }
            limits = limits == null ? new TimeLimits(TimeLimits.squeue(), Map.of(), 3_600) : limits;
            whenUnavailable = whenUnavailable == null ? WhenUnavailable.REFUSE : whenUnavailable;
        }

        public static Settings defaults() {
            return new Settings(null, 32, null, null, null);
        }
    }

    private final Backend next;
    private final Ledger ledger;
    private final Settings settings;
    private final Clock clock;
    private final boolean ownsLedger;
    private final BasilCodec codec = BasilCodec.standard();

    /**
     * @param ownsLedger close the ledger when this backend is closed (the daemon's shutdown)
     */
    public LedgerBackend(Backend next, Ledger ledger, Settings settings, Clock clock, boolean ownsLedger) {
        this.next = next;
        this.ledger = ledger;
        this.settings = settings;
        this.clock = clock;
        this.ownsLedger = ownsLedger;
    }

    /** For {@code ProxyDaemon.builder().decorate(...)}; the caller keeps and closes the ledger. */
    public static UnaryOperator<Backend> decorator(Ledger ledger, Settings settings) {
        return next -> new LedgerBackend(next, ledger, settings, Clock.systemUTC(), false);
    }

    @Override
    public byte[] call(Call call) throws BackendException {
        return switch (call.method()) {
            case "RESERVE" -> reserve(call);
            case "CONFIRM" -> afterSuccess(call, true);
            case "RELEASE" -> afterSuccess(call, false);
            default -> next.call(call);
        };
    }

    private byte[] reserve(Call call) throws BackendException {
        BasilRequest request;
        ReserveRequest hold;
        try {
            request = codec.readRequest(call.request());
            hold = holdFor(request, call);
        } catch (BasilException | LedgerException e) {
            return refuse(call, ErrorClass.PERMANENT, "ledger cannot price this RESERVE: " + e.getMessage());
        }
        Outcome outcome;
        try {
            outcome = ledger.reserve(hold);
        } catch (LedgerException e) {
            if (settings.whenUnavailable() == WhenUnavailable.ALLOW) {
                log.warn("ledger unavailable ({}); RESERVE of job {} forwarded unledgered: reconcile later",
                        e.getMessage(), hold.batchId());
                return next.call(call);
            }
            return refuse(call, ErrorClass.TRANSIENT, "allocation ledger unavailable, try again: " + e.getMessage());
        }
        if (!outcome.ok()) {
            return refuse(call, ErrorClass.PERMANENT, outcome.decision() == Outcome.Decision.CONFLICT
                    ? "ledger: reservation attempt " + outcome.key() + " was already made with other parameters"
                    : "ledger: " + outcome.message());
        }
        byte[] response;
        try {
            response = next.call(call);
        } catch (BackendException | RuntimeException e) {
            voidQuietly(outcome.key(), "ALPS_UNREACHABLE");
            throw e;
        }
        try {
            ResponseData data = codec.readResponse(response).responseData();
            Optional<Long> resId = data.isSuccess()
                    ? data.content(Reserved.class).map(Reserved::reservationId) : Optional.empty();
            if (resId.isPresent() && resId.get() > 0) {
                recorded(() -> ledger.bind(outcome.key(), resId.get())); // ALPS has it: so must the ledger
            } else if (!data.isSuccess()) {
                voidQuietly(outcome.key(), "ALPS_REFUSED");
            } else {
                log.warn("ALPS accepted RESERVE {} without a reservation id; the hold stays until the sweeper", outcome.key());
            }
        } catch (BasilException | LedgerException e) {
            log.warn("hold {}: cannot bind to the ALPS answer ({}); the hold stays until the sweeper", outcome.key(),
                    e.getMessage());
        }
        return response;
    }

    private ReserveRequest holdFor(BasilRequest request, Call call) {
        String batchId = request.batchId();
        String account = request.account();
        if (account == null || account.isBlank()) {
            throw new LedgerException("RESERVE of job " + batchId + " names no account_name to charge");
        }
        long nodes = 0;
        for (ReserveParam p : request.reserveParams()) {
            nodes = Math.addExact(nodes, nodesOf(p));
        }
        if (nodes < 1 || nodes > Integer.MAX_VALUE) {
            throw new LedgerException("RESERVE of job " + batchId + " asks for " + nodes + " nodes");
        }
        TimeLimit limit = settings.limits().resolve(batchId, settings.partition());
        String token = call.exchangeId() != null ? call.exchangeId() : UUID.randomUUID().toString();
        return new ReserveRequest(settings.cluster(), batchId, 0, token, account,
                request.user() == null ? Integer.toString(call.caller().uid()) : request.user(), settings.partition(),
                Resource.CPU, (int) nodes, NodeShape.cores(settings.coresPerNode()), limit.seconds(), Instant.now(clock));
    }

    /** Whole nodes a ReserveParam takes: {@code ceil(width / nppn)}, nppn defaulting to what fits. */
    private long nodesOf(ReserveParam p) {
        long width = p.width() == null ? 0 : p.width();
        if (width <= 0) {
            throw new LedgerException("ReserveParam without a positive width");
        }
        long depth = p.depth() == null || p.depth() <= 0 ? 1 : p.depth();
        long nppn = p.nppn() != null && p.nppn() > 0 ? p.nppn() : Math.max(1, settings.coresPerNode() / depth);
        return (width + nppn - 1) / nppn;
    }

    private byte[] afterSuccess(Call call, boolean confirm) throws BackendException {
        byte[] response = next.call(call);
        try {
            if (!codec.readResponse(response).responseData().isSuccess()) {
                return response; // ALPS did not do it: nothing to record; the sweeper handles what is left
            }
            Long resId = codec.readRequest(call.request()).reservationId();
            if (resId == null || resId <= 0) {
                return response;
            }
            Lookup lookup = new Lookup(settings.cluster(), resId, null);
            Instant now = Instant.now(clock);
            ReleaseRequest release = ReleaseRequest.byClock(lookup, now);
            Outcome o = recorded(() -> confirm ? ledger.confirm(lookup, now, null) : ledger.release(release));
            if (!o.ok()) {
                log.warn("ledger {} of reservation {}: {} {}", call.method(), resId, o.decision(), o.message());
            }
        } catch (BasilException | LedgerException e) {
            // ALPS has already acted; failing the call now would only make the scheduler retry it
            log.warn("ledger could not record {} ({}); the sweeper and the alerts will show it", call.method(),
                    e.getMessage());
        }
        return response;
    }

    /** How long a CONFIRM or RELEASE ALPS already did is retried while the ledger answers unavailable. */
    static final long RECORD_SECONDS = 60;

    /**
     * ALPS has already acted, so a CONFIRM or RELEASE (or the bind of a hold to ALPS's reservation id, or the
     * void of a hold ALPS refused) must reach the ledger: while the ledger is unavailable
     * (its store's failover outlasting the store's own reconnect wait, or a ledger service answering 503) the
     * same event is sent again every second, for up to {@link #RECORD_SECONDS}; the event's key makes a
     * repeat apply once. The caller waits meanwhile: a slow answer beats a charge lost.
     */
    private static Outcome recorded(java.util.function.Supplier<Outcome> event) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(RECORD_SECONDS);
        for (int attempt = 1; ; attempt++) {
            try {
                return event.get();
            } catch (LedgerUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                log.warn("ledger unavailable (attempt {}), trying again in 1 s: {}", attempt, e.getMessage());
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private void voidQuietly(String key, String reason) {
        try {
            recorded(() -> ledger.voidHold(key, reason));
        } catch (LedgerException e) {
            log.warn("could not void hold {} ({}): the sweeper will", key, e.getMessage());
        }
    }

    private byte[] refuse(Call call, ErrorClass errorClass, String message) {
        log.info("RESERVE refused by the ledger: {}", message);
        return Failures.failure(call.protocol(), Method.RESERVE, errorClass, "BACKEND", message);
    }

    @Override
    public String describe() {
        return "ledger(" + ledger + ") over " + next.describe();
    }

    @Override
    public void close() {
        try {
            next.close();
        } finally {
            if (ownsLedger) {
                ledger.close();
            }
        }
    }
}
