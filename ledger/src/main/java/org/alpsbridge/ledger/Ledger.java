package org.alpsbridge.ledger;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Predicate;

/**
 * The allocation ledger: projects, allocations and credits, and the RESERVE → CONFIRM → RELEASE
 * charging of ALPS reservations against them (SPEC.md of issue 7).
 *
 * <p>Every event is one transaction and is acknowledged only after it is durable. Every event is
 * idempotent by its key: a retry returns the first outcome (a denial stays a denial); the same key with
 * a different request is refused as {@link Outcome.Decision#CONFLICT} and raises an {@link Alert}.
 * Balances are derived from an append-only journal and checked against it when the ledger is opened.
 *
 * <p>Thread-safe. Bad input throws {@link LedgerException} and changes nothing.
 */
public interface Ledger extends AutoCloseable {

    /** The cluster name used when a request names none. */
    String DEFAULT_CLUSTER = "default";
    /** The partition used when a request names none; its weights are 1.000 unless set. */
    String DEFAULT_PARTITION = "default";
    /**
     * The largest amount one grant, credit, withdrawal, transfer or base budget may carry: 10^15 minutes
     * (about 1.9 billion core-years), far beyond any allocation, and far enough from 64-bit overflow that
     * no balance or journal sum can reach it.
     */
    long MAX_MINUTES = 1_000_000_000_000_000L;

    /**
     * Opens (creating and migrating if needed) a ledger.
     *
     * @param url {@code sqlite:PATH} or {@code jdbc:sqlite:PATH} for an embedded single-file ledger;
     *     {@code postgresql://HOST:PORT/DB?user=U&password=P} or {@code jdbc:postgresql://...} for a
     *     site-wide one
     * @throws LedgerException when the store cannot be opened or its journal and balances disagree
     */
    static Ledger open(String url) {
        return open(url, true);
    }

    /**
     * Opens a ledger with the first {@link LedgerOpener} on the class path that accepts {@code url}:
     * the stores above, or {@code http://HOST:PORT} for a ledger service ({@code alpsbridge ledger serve}).
     *
     * @param verify check the balances against the journal and refuse an inconsistent ledger; only
     *     {@code alpsbridge ledger check}, which reports the disagreements, opens without
     */
    static Ledger open(String url, boolean verify) {
        return open(url, verify, java.util.Map.of());
    }

    /**
     * As {@link #open(String, boolean)}, with the store's settings from a settings file: the values of
     * {@code org.alpsbridge.ledger.store.StoreSettings.ALL} by key (PostgreSQL's connections and failover
     * window); a key not given takes its default.
     *
     * @throws LedgerException also for a key not among them, or a value its setting refuses
     */
    static Ledger open(String url, boolean verify, java.util.Map<String, String> storeSettings) {
        return open(url, verify, storeSettings, System.getenv());
    }

    /**
     * As {@link #open(String, boolean, java.util.Map)}, with a ledger service's client settings (its MUNGE socket,
     * its CA) from {@code environment} in place of the process's environment.
     */
    static Ledger open(String url, boolean verify, java.util.Map<String, String> storeSettings,
                       java.util.Map<String, String> environment) {
        for (LedgerOpener opener : ServiceLoader.load(LedgerOpener.class, Ledger.class.getClassLoader())) {
            if (opener.accepts(url)) {
                return opener.open(url, verify, storeSettings, environment);
            }
        }
        throw new LedgerException("no ledger store on the class path opens '" + url + "' (a ledger service URL"
                + " needs the ledger-service module, which the alpsbridge launcher includes)");
    }

    /**
     * A cluster name as reservation keys hold it: the default when none is given, else letters, digits
     * and {@code _.@-}, so that keys of different clusters can never collide (no {@code /}).
     */
    static String cluster(String name) {
        if (name == null || name.isBlank()) {
            return DEFAULT_CLUSTER;
        }
        // checked by hand: every job event's request checks its name, and String.matches compiles a pattern per call
        if (name.length() > 64 || !name.chars().allMatch(ch -> ch < 128 && Character.isLetterOrDigit(ch)
                || "_.@-".indexOf(ch) >= 0)) {
            throw new LedgerException("cluster name '" + name + "' must be 1-64 of letters, digits and _.@-");
        }
        return name;
    }

    /** The idempotency key of a reservation as stored and shown. */
    static String key(String cluster, String batchId, String resId) {
        return cluster + "/" + batchId + "/" + resId;
    }

    // ---- projects, allocations, credit ----

    Project addProject(String name, int gid, String account);

    List<Project> projects();

    /**
     * The shares of a project, or of every project when {@code project} is null: its Slurm description and
     * organisation, partitions, aggregate caps and explicit members (a project with none set has
     * {@link ProjectShare#none}).
     */
    List<ProjectShare> shares(String project);

    /**
     * Replaces a project's share with {@code share}, in one transaction that also appends one
     * {@link ProjectChange} per field that differs (nothing when nothing differs).
     *
     * @param actor who asks, as the change journal records it
     * @return the share as stored
     */
    ProjectShare setShare(ProjectShare share, String actor);

    /** The changes of a project's share (every project's when {@code project} is null), newest first. */
    List<ProjectChange> projectChanges(String project, int limit);

    /**
     * Grants {@code minutes} to the project's allocation for exactly {@code [from, to)}, creating it if
     * it does not exist. Refused if the period overlaps another allocation of the same project and
     * resource (adjacent periods are fine).
     *
     * @param requestId idempotency key of this administrative request, or null for none
     */
    Balance grant(String project, Resource resource, long minutes, Instant from, Instant to, String category,
                  String requestId);

    /** Adds credit to the allocation active at {@code at}. */
    Balance credit(String project, Resource resource, Instant at, long minutes, String reason, String requestId);

    /**
     * Takes credit away. Refused if it would leave the available balance negative, unless
     * {@code force} (then flagged like any forced entry).
     */
    Balance withdraw(String project, Resource resource, Instant at, long minutes, boolean force, String reason,
                     String requestId);

    /** Moves credit between two projects' active allocations in one transaction. */
    List<Balance> transfer(String from, String to, Resource resource, Instant at, long minutes, String requestId);

    /**
     * The central accounting server changed the base budget: records {@code ADJUST(newBase − granted)}
     * so that granted becomes {@code newBase}; the balance cache is never overwritten.
     */
    Balance adjustBase(String project, Resource resource, Instant at, long newBase, String requestId);

    /** Gives back part of a settled job's charge; the sum of refunds never exceeds the charge. */
    Outcome refund(Lookup reservation, long amount, String reason, String requestId);

    /** Sets a partition's billing weights (used by reservations made from now on). */
    void setWeights(String partition, Weights weights);

    Weights weights(String partition);

    // ---- the reservation lifecycle ----

    /** Holds the worst case or denies; a denial is recorded with its reason and figures. */
    Outcome reserve(ReserveRequest request);

    /**
     * Holds the worst case and marks it running at the request's time, or denies: {@link #reserve} and
     * {@link #confirm} of a job that starts as soon as it is held (slurmctld's prolog). The answer is the
     * RESERVE's; a retry (the hold exists, running or not) confirms it if need be and answers as a replay.
     * By default the two events one after the other; a store does both in one transaction (one commit).
     */
    default Outcome start(ReserveRequest request) {
        Outcome held = reserve(request);
        if (held.decision() == Outcome.Decision.OK) {
            confirm(new Lookup(request.cluster(), request.resId(), request.batchId()), request.at(), null);
        }
        return held;
    }

    /**
     * Whether {@link #reserve} of this request would hold it now, read only: the same worst case compared with the
     * same allocation's available balance, refused with the same reason and sentence; nothing is held or written.
     * Advice (a submission check): the balance may move before the job's own RESERVE, which decides.
     *
     * @return {@code OK} or {@code DENIED} with {@code hold} = the worst case and {@code available} = the
     *     allocation's available balance now; {@code key} and {@code state} are null
     */
    Outcome quote(ReserveRequest request);

    /** Attaches the ALPS reservation id to a hold made with a token (the proxy's RESERVE). */
    Outcome bind(String key, long resId);

    /** Voids a hold whose ALPS RESERVE was refused: the whole hold comes back. */
    Outcome voidHold(String key, String reason);

    /**
     * Marks a reservation running. Unknown reservation: the job runs anyway, so with
     * {@code ifUnknown} parameters a forced hold is made, otherwise only an alert.
     */
    Outcome confirm(Lookup lookup, Instant at, ReserveRequest ifUnknown);

    /** Settles the actual cost, bounded by the hold, and returns the rest. */
    Outcome release(ReleaseRequest request);

    /**
     * Resolves abandoned reservations: unconfirmed holds older than {@code unconfirmedGrace} are voided;
     * confirmed ones past their time limit plus {@code confirmedGrace} are charged their full hold and
     * flagged. Either only when {@code stillPresent} says ALPS/the scheduler no longer has them.
     *
     * @return the outcomes, one per reservation resolved
     */
    List<Outcome> sweep(Instant now, Duration unconfirmedGrace, Duration confirmedGrace,
                        Predicate<Reservation> stillPresent);

    // ---- reports ----

    /** Balances of a project's allocations (all projects when {@code project} is null). */
    List<Balance> balances(String project);

    /** The reservation a CONFIRM or RELEASE would act on, if any. */
    Optional<Reservation> reservation(Lookup lookup);

    /** Holds in flight (HELD or CONFIRMED), oldest first. */
    List<Reservation> holds(String project);

    /** Denied RESERVEs with their reasons, newest first. */
    List<Reservation> failures(String project, int limit);

    /** Reservations of one batch job with their journal entries. */
    List<Reservation> reservations(String cluster, String batchId);

    List<JournalEntry> journal(String reservationKey);

    /**
     * Every journal entry of one allocation, in its gapless order: the allocation's history, from which
     * its available balance at any time is the running sum (the web console's burn-down chart).
     */
    List<JournalEntry> allocationJournal(long allocationId);

    List<Usage> usage(String project);

    List<Alert> alerts(int limit);

    /**
     * Recomputes every balance from the journal and checks the journal has no gaps.
     *
     * @return one line per disagreement; empty when the ledger is consistent
     */
    List<String> check();

    /**
     * Rebuilds this ledger in {@code into}, which must be empty: projects, allocations (with a zero
     * balance cache), partition weights, admin request ids, reservations and alerts are copied as rows;
     * then every journal entry is re-applied in order through the same append that moves the balance
     * cache in normal operation. The copy reads one snapshot of this ledger, so it may run while this
     * ledger is in use. It also moves a ledger between stores (SQLite to PostgreSQL and back).
     *
     * @return what was copied, and every balance of {@code into} that differs from this ledger's (empty
     *     when the journal alone reproduces every balance)
     */
    Replay replayInto(Ledger into);

    /** What {@link #replayInto} copied and the balances that came out different. */
    record Replay(int projects, int allocations, long reservations, long entries, List<String> problems) {
        public Replay {
            problems = List.copyOf(problems);
        }
    }

    @Override
    void close();
}
