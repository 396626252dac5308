package org.alpsbridge.proxy.ledger;

import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.retry.Attempts;
import org.alpsbridge.retry.Backoff;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.UUID;
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
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
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
 * ledger); when the RESERVE names none (Slurm 18.08 and OpenPBS never do), the account the scheduler knows for
 * the job, else the project of the job owner's primary Unix group ({@link JobAccounts}). The time limit comes
 * from {@link TimeLimits} (BASIL carries none); nodes are {@code ceil(width / nppn)} per ReserveParam, whole
 * nodes of {@link Settings#coresPerNode} cores.
 *
 * <p>A refusal must end the scheduler's attempts, which each scheduler reads differently. It is a FAILURE
 * PERMANENT with {@code error_source="SYSTEM"}: OpenPBS's pbs_mom takes any RESERVE error whose source is
 * BACKEND as TRANSIENT (alps.c, "a node being changed from batch to interactive") and requeues the job for
 * ever, while a PERMANENT error from another source fails the job. Slurm 18.08 fails a job on no BASIL answer
 * (node_scheduler.c leaves it queued and tries again on the next pass), so the refusal of a batch id is
 * remembered for {@link Settings#denialMemory} and answered again without asking the ledger, and the
 * {@link Settings#onDeny} command (e.g. {@code scontrol update JobId={job} Priority=0 Comment={reason}}) is
 * run once, after the answer has gone back, so the job is held with its reason visible in {@code squeue}.
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
     * @param limits where time limits come from (default: 1 h for every job, no scheduler source)
     * @param whenUnavailable fail closed or open when the ledger is down (default REFUSE)
     */
    public record Settings(String cluster, int coresPerNode, String partition, TimeLimits limits,
                           WhenUnavailable whenUnavailable, JobAccounts accounts, Duration denialMemory,
                           List<String> onDeny) {

        /**
         * @param accounts whom to charge a RESERVE without account_name (default {@code JobAccounts.named("none")}:
         *        the owner's primary group)
         * @param denialMemory how long a refused batch id is refused again without asking the ledger (default 300 s)
         * @param onDeny command run once per refusal of a batch id, {@code {job}} and {@code {reason}} replaced
         *        within each argument (default none)
         */
        public Settings(String cluster, int coresPerNode, String partition, TimeLimits limits,
                        WhenUnavailable whenUnavailable) {
            this(cluster, coresPerNode, partition, limits, whenUnavailable, null, null, null);
        }

        public Settings {
            cluster = cluster == null ? Ledger.DEFAULT_CLUSTER : cluster;
            partition = partition == null ? Ledger.DEFAULT_PARTITION : partition;
            if (coresPerNode < 1) {
                throw new IllegalArgumentException("cores per node must be at least 1, got " + coresPerNode);
            }
            // no scheduler source unless one is given: never a squeue inside a RESERVE (see TimeLimits)
            limits = limits == null ? new TimeLimits(null, Map.of(), 3_600) : limits;
            whenUnavailable = whenUnavailable == null ? WhenUnavailable.REFUSE : whenUnavailable;
            accounts = accounts == null ? JobAccounts.named("none") : accounts;
            denialMemory = denialMemory == null ? Duration.ofSeconds(300) : denialMemory;
            if (denialMemory.isNegative()) {
                throw new IllegalArgumentException("denial memory must not be negative, got " + denialMemory);
            }
            onDeny = onDeny == null ? List.of() : List.copyOf(onDeny);
        }

        /** These settings with whom to charge, how long a denial is remembered and what runs on one. */
        public Settings withDenials(JobAccounts accounts, Duration denialMemory, List<String> onDeny) {
            return new Settings(cluster, coresPerNode, partition, limits, whenUnavailable, accounts, denialMemory, onDeny);
        }
    }

    private final Backend next;
    private final Ledger ledger;
    private final Settings settings;
    private final Clock clock;
    private final boolean ownsLedger;
    private final BasilCodec codec = BasilCodec.standard();
    /** Refused batch ids: the refusal's message and until when it is answered without asking the ledger. */
    private final Map<String, Denial> denials = new ConcurrentHashMap<>();
    private final ExecutorService denyRunner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "ledger-on-deny");
        t.setDaemon(true);
        return t;
    });

    /** Reservations of interrupted RESERVEs being released, with the key of the hold to void once they are. */
    private final Map<Long, String> interrupted = new ConcurrentHashMap<>();

    private record Denial(String message, Instant until) {
    }

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
        try {
            request = codec.readRequest(call.request());
        } catch (BasilException e) {
            return refuse(call, ErrorClass.PERMANENT, "ledger cannot price this RESERVE: " + e.getMessage());
        }
        String batchId = request.batchId();
        Denial earlier = batchId == null ? null : denials.get(batchId);
        if (earlier != null && earlier.until().isAfter(Instant.now(clock))) {
            return Failures.failure(call.protocol(), Method.RESERVE, ErrorClass.PERMANENT, "SYSTEM", earlier.message());
        }
        ReserveRequest hold;
        try {
            hold = holdFor(request, call);
        } catch (LedgerException e) {
            return deny(call, batchId, "ledger cannot price this RESERVE: " + e.getMessage());
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
            if (outcome.decision() == Outcome.Decision.CONFLICT) {
                return refuse(call, ErrorClass.PERMANENT, "ledger: reservation attempt " + outcome.key()
                        + " was already made with other parameters");
            }
            return deny(call, batchId, "ledger: " + outcome.message());
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
        String user = request.user() == null ? Integer.toString(call.caller().uid()) : request.user();
        String account = request.account();
        if (account == null || account.isBlank()) {
            account = accountOf(batchId, user);
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
                user, settings.partition(),
                Resource.CPU, (int) nodes, NodeShape.cores(settings.coresPerNode()), limit.seconds(), Instant.now(clock));
    }

    /** The scheduler's account for the job, else the project of the owner's primary group. */
    private String accountOf(String batchId, String user) {
        Optional<String> known = settings.accounts().schedulerAccount(batchId);
        if (known.isPresent()) {
            log.info("job {} names no account_name: charged to {}, its account in {}", batchId, known.get(),
                    settings.accounts());
            return known.get();
        }
        OptionalInt gid = settings.accounts().primaryGid(user);
        if (gid.isEmpty()) {
            throw new LedgerException("RESERVE of job " + batchId + " names no account_name, the scheduler knows"
                    + " none, and user " + user + " has no primary group here");
        }
        for (Project p : ledger.projects()) {
            if (p.gid() == gid.getAsInt() && p.active()) {
                log.info("job {} names no account_name: charged to project {} of user {}'s group {}", batchId,
                        p.name(), user, gid.getAsInt());
                return p.name();
            }
        }
        throw new LedgerException("RESERVE of job " + batchId + " names no account_name, the scheduler knows none,"
                + " and no active project has user " + user + "'s group " + gid.getAsInt());
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
            ResponseData data = codec.readResponse(response).responseData();
            Long resId = codec.readRequest(call.request()).reservationId();
            String left = confirm || resId == null ? null : interrupted.get(resId);
            if (left != null && (data.isSuccess() || data.messageText().contains("No entry for resId"))) {
                interrupted.remove(resId);
                Outcome o = recorded(() -> ledger.voidHold(left, INTERRUPTED));
                log.info("hold {} of reservation {} (an interrupted RESERVE's) voided: {} {}", left, resId,
                        o.decision(), o.state());
                return response;
            }
            if (!data.isSuccess()) {
                if (!confirm && resId != null && resId > 0 && data.messageText().contains("No entry for resId")) {
                    settleGone(resId);
                }
                return response; // ALPS did not do it: nothing to record; the sweeper handles what is left
            }
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

    /**
     * A RELEASE answered "No entry for resId N": ALPS no longer has the reservation, so an earlier RELEASE ended it
     * whose answer never reached the ledger (a proxy that died between forwarding it and answering; the scheduler
     * asks again, OpenPBS until it gets this answer). A hold still HELD or CONFIRMED is settled by the clock now, the
     * charge running to this answer, the first moment the ledger knows the reservation ended; without this it waited
     * for the sweeper, which charges the whole hold once the time limit has passed. A hold already settled or voided
     * is left as it is (Slurm's stepd repeats a RELEASE it took for failed).
     */
    private void settleGone(long resId) {
        Lookup lookup = new Lookup(settings.cluster(), resId, null);
        Optional<Reservation> held = ledger.reservation(lookup)
                .filter(r -> r.state() == State.HELD || r.state() == State.CONFIRMED);
        if (held.isPresent()) {
            Outcome o = recorded(() -> ledger.release(ReleaseRequest.byClock(lookup, Instant.now(clock))));
            log.warn("RELEASE of reservation {} answered \"No entry for resId\": an earlier RELEASE ended it and its"
                    + " answer was lost; hold {} settled by the clock: {} {}", resId, held.get().key(), o.decision(),
                    o.state());
        }
    }

    /** How long a CONFIRM or RELEASE ALPS already did is retried while the ledger answers unavailable. */
    static final long RECORD_SECONDS = 60;
    private static final Backoff RECORD = Backoff.constant(1_000).within(RECORD_SECONDS * 1_000);

    /**
     * ALPS has already acted, so a CONFIRM or RELEASE (or the bind of a hold to ALPS's reservation id, or the
     * void of a hold ALPS refused) must reach the ledger: while the ledger is unavailable
     * (its store's failover outlasting the store's own reconnect wait, or a ledger service answering 503) the
     * same event is sent again every second, for up to {@link #RECORD_SECONDS}; the event's key makes a
     * repeat apply once. The caller waits meanwhile: a slow answer beats a charge lost.
     */
    private static Outcome recorded(java.util.function.Supplier<Outcome> event) {
        Attempts attempts = RECORD.start();
        while (true) {
            try {
                return event.get();
            } catch (LedgerUnavailableException e) {
                log.warn("ledger unavailable (attempt {}), trying again in 1 s: {}", attempts.attempt(), e.getMessage());
                if (!attempts.pauseForNext()) {
                    throw e;
                }
            }
        }
    }

    /**
     * A RESERVE interrupted on another proxy of a pair (forwarded or not, never answered): its caller asks again
     * under a new exchange, so the hold it took, keyed by its exchange id, is never used. With {@code resId} (the
     * reservation it made, about to be released by the orphan watch) the hold is bound to it, so the ledger shows
     * what it was for, and voided whole once ALPS has taken the RELEASE or no longer has it (a RELEASE settled by the
     * clock would leave it SETTLED at no charge); without (none found in ALPS) it is voided now. Nothing to do when
     * the RESERVE never got a hold (the ledger off when it ran, or it stopped before the ledger).
     */
    public void adoptInterrupted(String batchId, String exchangeId, Long resId) {
        String key = Ledger.key(settings.cluster(), batchId, "~" + exchangeId);
        try {
            Outcome o = recorded(() -> resId == null ? ledger.voidHold(key, INTERRUPTED) : ledger.bind(key, resId));
            if (!o.ok()) {
                log.warn("hold {} of an interrupted RESERVE: {} {}", key, o.decision(), o.message());
            } else if (resId != null) {
                interrupted.put(resId, key);
            } else {
                log.info("hold {} of an interrupted RESERVE that left no reservation voided: {}", key, o.state());
            }
        } catch (LedgerException e) {
            log.info("no hold {} of an interrupted RESERVE ({}): nothing to void", key, e.getMessage());
        }
    }

    private static final String INTERRUPTED = "INTERRUPTED_RESERVE";

    private void voidQuietly(String key, String reason) {
        try {
            recorded(() -> ledger.voidHold(key, reason));
        } catch (LedgerException e) {
            log.warn("could not void hold {} ({}): the sweeper will", key, e.getMessage());
        }
    }

    /**
     * A PERMANENT refusal remembered for the batch id, and the site's {@code onDeny} command run once for it
     * once this answer has gone back (slurmctld holds its job lock while it waits for RESERVE, so an
     * {@code scontrol} run now would wait for that very answer).
     */
    private byte[] deny(Call call, String batchId, String message) {
        if (batchId != null && !batchId.isBlank() && !settings.denialMemory().isZero()) {
            Instant now = Instant.now(clock);
            Denial before = denials.put(batchId, new Denial(message, now.plus(settings.denialMemory())));
            if ((before == null || !before.until().isAfter(now)) && !settings.onDeny().isEmpty()) {
                denyRunner.execute(() -> runOnDeny(batchId, message));
            }
            denials.values().removeIf(d -> d.until().isBefore(now));
        }
        return refuse(call, ErrorClass.PERMANENT, message);
    }

    private void runOnDeny(String batchId, String message) {
        if (!batchId.matches("[0-9A-Za-z_.\\-\\[\\]@]+")) {
            log.warn("job id '{}' not handed to the on-deny command", batchId);
            return;
        }
        List<String> command = settings.onDeny().stream()
                .map(a -> a.replace("{job}", batchId).replace("{reason}", message)).toList();
        try {
            String failure = OnDenyCommand.run(command, batchId, Duration.ofSeconds(60));
            if (failure == null) {
                log.info("on-deny command ran for job {}", batchId);
            } else {
                log.warn(failure);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A RESERVE refused before ALPS. Source SYSTEM, never BACKEND: pbs_mom turns a BACKEND error on RESERVE into
     * TRANSIENT and would requeue the job for ever (OpenPBS alps.c, the error_source handler).
     */
    private byte[] refuse(Call call, ErrorClass errorClass, String message) {
        log.info("RESERVE refused by the ledger: {}", message);
        return Failures.failure(call.protocol(), Method.RESERVE, errorClass, "SYSTEM", message);
    }

    @Override
    public String describe() {
        return "ledger(" + ledger + ") over " + next.describe();
    }

    @Override
    public void close() {
        denyRunner.shutdown();
        try {
            next.close();
        } finally {
            if (ownsLedger) {
                ledger.close();
            }
        }
    }
}
