package org.alpsbridge.ledger.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.alpsbridge.ledger.Alert;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Ledger.Replay;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.ProjectChange;
import org.alpsbridge.ledger.ProjectShare;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Usage;
import org.alpsbridge.ledger.Weights;

/**
 * The ledger on a JDBC store (SQLite or PostgreSQL): every command is one transaction that does the
 * idempotency lookup, the decision, the journal entries, the balance-cache update and the stored
 * outcome together (SPEC §7).
 *
 * <p>This class is the store's front door and only delegates: {@link Accounts} (projects, allocations,
 * credit), {@link Charging} (the reservation lifecycle), {@link Reports}, {@link Consistency} (check),
 * {@link Shares} (projects' shares of the cluster) and {@link Replayer}; {@link Lookups} and {@link Journal} are what they share.
 */
public final class JdbcLedger implements Ledger {

    private final String url;
    private final Dialect dialect;
    private final Executor executor;
    private final Journal journal;
    private final Accounts accounts;
    private final Charging charging;
    private final Reports reports;
    private final Consistency consistency;
    private final Shares shares;

    private JdbcLedger(String url, Dialect dialect, Executor executor) {
        this.url = url;
        this.dialect = dialect;
        this.executor = executor;
        Lookups lookups = new Lookups(dialect);
        this.journal = new Journal(dialect);
        this.accounts = new Accounts(executor, lookups, journal);
        this.charging = new Charging(executor, dialect, lookups, journal);
        this.reports = new Reports(executor);
        this.consistency = new Consistency(executor);
        this.shares = new Shares(executor, lookups, dialect);
    }

    /** See {@link Ledger#open(String)}. */
    public static JdbcLedger open(String url) {
        return open(url, true);
    }

    /**
     * @param verify check the balances against the journal and refuse an inconsistent ledger; only
     *     {@code alpsbridge ledger check}, which reports the disagreements, opens without
     */
    public static JdbcLedger open(String url, boolean verify) {
        return open(url, verify, java.util.Map.of());
    }

    /**
     * @param settings values of {@link StoreSettings#ALL} by key, as a settings file gives them (a key not given
     *     takes its default); SQLite takes none of them
     */
    public static JdbcLedger open(String url, boolean verify, java.util.Map<String, String> settings) {
        String jdbc = Dialect.jdbcUrl(url);
        Dialect dialect = Dialect.of(jdbc);
        StoreSettings.Postgres postgres = StoreSettings.Postgres.of(settings); // a bad value is refused on SQLite too
        Executor executor = dialect == Dialect.SQLITE ? new SqliteExecutor(jdbc) : new PostgresExecutor(jdbc, postgres);
        JdbcLedger ledger = new JdbcLedger(jdbc, dialect, executor);
        try {
            executor.write(c -> {
                dialect.migrate(c);
                return null;
            });
            List<String> problems = verify ? ledger.check() : List.of();
            if (!problems.isEmpty()) {
                throw new LedgerException("ledger " + url + " is inconsistent; refusing to use it until an "
                        + "operator looks (alpsbridge ledger check): " + String.join("; ", problems));
            }
        } catch (RuntimeException e) {
            executor.close();
            throw e;
        }
        return ledger;
    }

    @Override
    public void close() {
        executor.close();
    }

    /**
     * Events written per commit so far: both stores share one commit (one flush) among the events
     * waiting when a writer starts its transaction.
     */
    public double eventsPerCommit() {
        return executor instanceof SqliteExecutor s ? s.eventsPerCommit()
                : executor instanceof PostgresExecutor p ? p.eventsPerCommit() : Double.NaN;
    }

    @Override
    public String toString() {
        return "ledger " + dialect.name().toLowerCase() + " " + url.replaceAll("password=[^&]*", "password=***");
    }


    // what Replayer needs of the ledgers it copies between
    String url() {
        return url;
    }

    Dialect dialect() {
        return dialect;
    }

    Executor executor() {
        return executor;
    }

    Journal journal() {
        return journal;
    }

    // ------------------------------------------------------------------ projects and credit

    @Override
    public Project addProject(String name, int gid, String account) {
        return accounts.addProject(name, gid, account);
    }

    @Override
    public List<Project> projects() {
        return accounts.projects();
    }

    @Override
    public List<ProjectShare> shares(String project) {
        return shares.shares(project);
    }

    @Override
    public ProjectShare setShare(ProjectShare share, String actor) {
        return shares.setShare(share, actor);
    }

    @Override
    public List<ProjectChange> projectChanges(String project, int limit) {
        return shares.changes(project, limit);
    }

    @Override
    public Balance grant(String project, Resource resource, long minutes, Instant from, Instant to, String category,
                         String requestId) {
        return accounts.grant(project, resource, minutes, from, to, category, requestId);
    }

    @Override
    public Balance credit(String project, Resource resource, Instant at, long minutes, String reason,
                          String requestId) {
        return accounts.credit(project, resource, at, minutes, reason, requestId);
    }

    @Override
    public Balance withdraw(String project, Resource resource, Instant at, long minutes, boolean force,
                            String reason, String requestId) {
        return accounts.withdraw(project, resource, at, minutes, force, reason, requestId);
    }

    @Override
    public List<Balance> transfer(String from, String to, Resource resource, Instant at, long minutes,
                                  String requestId) {
        return accounts.transfer(from, to, resource, at, minutes, requestId);
    }

    @Override
    public Balance adjustBase(String project, Resource resource, Instant at, long newBase, String requestId) {
        return accounts.adjustBase(project, resource, at, newBase, requestId);
    }

    @Override
    public Outcome refund(Lookup lookup, long amount, String reason, String requestId) {
        return accounts.refund(lookup, amount, reason, requestId);
    }

    @Override
    public void setWeights(String partition, Weights w) {
        accounts.setWeights(partition, w);
    }

    @Override
    public Weights weights(String partition) {
        return accounts.weights(partition);
    }

    // ------------------------------------------------------------------ the lifecycle

    @Override
    public Outcome reserve(ReserveRequest q) {
        return charging.reserve(q);
    }

    /**
     * @param limitSource where the request's time limit came from, kept with the reservation and logged
     */
    public Outcome reserve(ReserveRequest q, String limitSource) {
        return charging.reserve(q, limitSource);
    }

    @Override
    public Outcome start(ReserveRequest q) {
        return charging.start(q);
    }

    @Override
    public Outcome quote(ReserveRequest q) {
        return charging.quote(q);
    }

    @Override
    public Outcome bind(String key, long resId) {
        return charging.bind(key, resId);
    }

    @Override
    public Outcome voidHold(String key, String reason) {
        return charging.voidHold(key, reason);
    }

    @Override
    public Outcome confirm(Lookup lookup, Instant at, ReserveRequest ifUnknown) {
        return charging.confirm(lookup, at, ifUnknown);
    }

    @Override
    public Outcome release(ReleaseRequest q) {
        return charging.release(q);
    }

    @Override
    public List<Outcome> sweep(Instant now, Duration unconfirmedGrace, Duration confirmedGrace,
                               Predicate<Reservation> stillPresent) {
        return charging.sweep(now, unconfirmedGrace, confirmedGrace, stillPresent);
    }

    // ------------------------------------------------------------------ reports, check, replay

    @Override
    public List<Balance> balances(String project) {
        return reports.balances(project);
    }

    @Override
    public Optional<Reservation> reservation(Lookup lookup) {
        return reports.reservation(lookup);
    }

    @Override
    public List<Reservation> holds(String project) {
        return reports.holds(project);
    }

    @Override
    public List<Reservation> failures(String project, int limit) {
        return reports.failures(project, limit);
    }

    @Override
    public List<Reservation> reservations(String cluster, String batchId) {
        return reports.reservations(cluster, batchId);
    }

    @Override
    public List<JournalEntry> journal(String reservationKey) {
        return reports.journal(reservationKey);
    }

    @Override
    public List<JournalEntry> allocationJournal(long allocationId) {
        return reports.allocationJournal(allocationId);
    }

    @Override
    public List<Usage> usage(String project) {
        return reports.usage(project);
    }

    @Override
    public List<Alert> alerts(int limit) {
        return reports.alerts(limit);
    }

    @Override
    public List<String> check() {
        return consistency.check();
    }

    @Override
    public Replay replayInto(Ledger into) {
        if (!(into instanceof JdbcLedger target)) {
            throw new LedgerException("can only replay into a JDBC ledger, not " + into);
        }
        return new Replayer(this).into(target);
    }
}
