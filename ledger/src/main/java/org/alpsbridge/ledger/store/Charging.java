package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Outcome.Decision;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.cost.Cost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reservation lifecycle: RESERVE holds the worst case or denies, CONFIRM marks it running, RELEASE
 * settles the actual cost and returns the rest, the sweep resolves what was abandoned. Each event is one
 * transaction, idempotent by the reservation's key (SPEC §7).
 */
final class Charging {

    private static final Logger log = LoggerFactory.getLogger(JdbcLedger.class); // one logger name for the whole store

    /** The start of a RESERVE's reservation INSERT (held or denied): its columns, in the order of its values. */
    static final String INSERT_RESERVATION = "INSERT INTO reservation (rkey, cluster, batch_id, res_id, project,"
            + " owner, allocation_id, params, rate, limit_s, limit_source, state, hold, reason, message, available,"
            + " t_reserve)";

    private final Executor executor;
    private final Lookups lookups;
    private final Journal journal;
    private final Settlements settlements;
    private final EventGroups groups = new EventGroups();

    Charging(Executor executor, Dialect dialect, Lookups lookups, Journal journal) {
        this.executor = executor;
        this.lookups = lookups;
        this.journal = journal;
        this.settlements = new Settlements(dialect, journal);
    }

    Outcome reserve(ReserveRequest q) {
        return reserve(q, "request");
    }

    /**
     * @param limitSource where the request's time limit came from, kept with the reservation and logged
     */
    Outcome reserve(ReserveRequest q, String limitSource) {
        return reserve(q, limitSource, false);
    }

    /**
     * RESERVE and CONFIRM at the request's time in one transaction (one commit, which is what a job waiting in its
     * prolog waits for): the RESERVE's outcome; a hold of the key already made (a retry) is confirmed if it is not
     * yet, and answered as a replay.
     */
    Outcome start(ReserveRequest q) {
        return reserve(q, "request", true);
    }

    /**
     * Whether the RESERVE {@code q} would be held now, read only: the same worst case (the same weights and
     * formula) compared with the same allocation's available balance, refused with the same reasons and
     * sentences as {@link #reserve}, and nothing written (no reservation, no journal entry, no hold). A quote
     * is advice: the balance may move before the job's RESERVE. {@code key} and {@code state} are null, {@code
     * hold} the worst case, {@code available} the allocation's available balance now.
     */
    Outcome quote(ReserveRequest q) {
        long t = q.at().getEpochSecond();
        return executor.read(c -> {
            long rate = Cost.rate(q.resource(), q.nodes(), q.node(), Lookups.weights(c, q.partition()));
            long hold = Cost.worst(rate, q.limitSeconds());
            Project p = lookups.findProject(c, q.project());
            Alloc a = p != null && p.active() ? lookups.activeAllocation(c, p.id(), q.resource(), t, false) : null;
            String what = "this job on " + q.nodes() + " nodes x " + q.node().cores() + " cores for up to "
                    + q.limitSeconds() / 60 + " min";
            String[] refused = refusal(q, p, a, hold, what);
            return new Outcome(refused == null ? Decision.OK : Decision.DENIED, null, p == null ? q.project() : p.name(),
                    null, hold, 0, a == null ? 0 : a.available(), refused == null ? null : refused[0],
                    refused == null ? null : refused[1], false, false);
        });
    }

    /**
     * Why a RESERVE of worst case {@code hold} on project {@code p} (null: unknown) and its allocation active then
     * {@code a} (null: none) is refused, as {@code {reason, message}}; null when it is held. {@code what} names the
     * job in the sentence its owner reads. The one rule of {@link #reserve} and {@link #quote}.
     */
    private static String[] refusal(ReserveRequest q, Project p, Alloc a, long hold, String what) {
        // what the job's owner reads in squeue -o %k: the figures, times to the second, and whom to ask
        if (p == null) {
            return new String[] {"UNKNOWN_PROJECT", "no project or account '" + q.project() + "' in the ledger; " + what
                    + " refused; submit it with an account the ledger knows, or ask the allocation office to add it"};
        }
        if (!p.active()) {
            return new String[] {"PROJECT_INACTIVE", "project " + p.name() + " is inactive; " + what + " refused; ask"
                    + " the project's PI or the allocation office to reactivate it"};
        }
        if (a == null) {
            return new String[] {"NO_ACTIVE_ALLOCATION", "project " + p.name() + " has no "
                    + q.resource().name().toLowerCase(java.util.Locale.ROOT) + " allocation active at "
                    + q.at().truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + "; " + what + " (" + q.resource().unit()
                    + " asked: up to " + hold + ") refused; ask the project's PI or the allocation office for an"
                    + " allocation covering that time"};
        }
        if (hold > a.available()) {
            return new String[] {"INSUFFICIENT_BALANCE", "project " + p.name() + ": insufficient balance: " + what
                    + " costs up to " + hold + " " + q.resource().unit() + ", available " + a.available() + " ("
                    + a.figures() + "), short by " + (hold - a.available()) + "; ask the project's PI or the allocation"
                    + " office for more, or shorten the job's time limit"};
        }
        return null;
    }

    private Outcome reserve(ReserveRequest q, String limitSource, boolean confirm) {
        String key = q.key();
        String params = q.paramsText();
        long t = q.at().getEpochSecond();
        groups.remember(key, q.cluster(), q.resId(), q.project());
        // on PostgreSQL the allocation is read unlocked, with the other RESERVEs' of the transaction, before any event
        // of it locks one; the usual RESERVE is then held with the project's other RESERVEs of the transaction in one
        // statement that checks the balance under the lock it takes, and the rest are decided here one by one
        return executor.writeEvent(q.project(), lookups.unlockedTargets, q, Holds.ALL,
                read -> read == null || read.keyTaken() ? null : Holds.Hold.of(q, read, limitSource),
                (c, read, held) -> {
            if (held != null) { // held together with the project's other RESERVEs of the transaction
                Holds.Hold h = held.hold();
                log.debug("held {} {} for {} (limit {} s from {})", h.hold(), q.resource().unit(), key,
                        q.limitSeconds(), limitSource);
                if (confirm) {
                    confirmHeld(c, key, t);
                }
                return new Outcome(Decision.OK, key, h.project(), State.HELD, h.hold(), 0, held.available(), null,
                        null, false, false);
            }
            // one round trip in the usual case: the key's existence is read with the allocation; the reservation
            // row is locked (after the allocation) only when it exists or there is nothing to charge
            Lookups.Target target = lookups.chargeTarget(c, key, q.project(), q.resource(), t, q.partition());
            Res existing = target == null || target.keyTaken() ? lookups.reservationByKey(c, key) : null;
            if (existing != null) {
                if (existing.params().equals(params)) {
                    if (confirm && existing.state() == State.HELD) {
                        confirmHeld(c, key, t);
                    }
                    return existing.outcome(existing.state() == State.DENIED ? Decision.DENIED : Decision.OK, true);
                }
                journal.alert(c, t, "CONFLICT", key, existing.project(), "RESERVE " + key + " repeated with different "
                        + "parameters (" + params + " vs " + existing.params() + "); refused, nothing changed");
                return existing.outcome(Decision.CONFLICT, false);
            }
            long rate = Cost.rate(q.resource(), q.nodes(), q.node(),
                    target != null ? target.weights() : Lookups.weights(c, q.partition()));
            long hold = Cost.worst(rate, q.limitSeconds());
            Alloc a = target != null ? target.allocation() : null;
            // the usual case is one round trip; only a refusal looks up which part is missing
            Project p = a != null ? new Project(a.projectId(), a.project(), 0, null, true)
                    : lookups.findProject(c, q.project());
            String projectName = p == null ? q.project() : p.name();
            // What the job's owner reads (squeue's comment, qstat): the job and its size, not the ledger's key
            String what = "job " + q.batchId() + (q.resId() > 0 ? " (ALPS reservation " + q.resId() + ")" : "") + " on "
                    + q.nodes() + " nodes x " + q.node().cores() + " cores for up to " + q.limitSeconds() / 60
                    + " min (time limit from " + limitSource + ")";
            if (a == null && p != null && p.active()) {
                a = lookups.activeAllocation(c, p.id(), q.resource(), t);
            }
            String[] refused = refusal(q, p, a, hold, what);
            String reason = refused == null ? null : refused[0];
            String message = refused == null ? null : refused[1];
            State state = reason == null ? State.HELD : State.DENIED;
            // (the figures stored are the ones the decision saw, in this transaction)
            long availableAfter = a == null ? 0 : state == State.HELD ? a.available() - hold : a.available();
            Object[] insert = {INSERT_RESERVATION + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    key, q.cluster(), q.batchId(), q.resId(), projectName, q.owner(), a == null ? null : a.id(), params,
                    rate, q.limitSeconds(), limitSource, state.name(), state == State.HELD ? hold : 0, reason, message,
                    availableAfter, t};
            if (state == State.HELD) {
                journal.append(c, a.id(), key, "reserve", t, insert, List.of(new Journal.Move(Kind.HOLD, -hold, null)));
                log.debug("held {} {} for {} (limit {} s from {})", hold, q.resource().unit(), key, q.limitSeconds(),
                        limitSource);
                if (confirm) {
                    confirmHeld(c, key, t);
                }
            } else {
                Sql.update(c, insert);
                log.info("denied {}: {}", key, message);
            }
            return new Outcome(state == State.HELD ? Decision.OK : Decision.DENIED, key, projectName, state,
                    state == State.HELD ? hold : 0, 0, availableAfter, reason, message, false, false);
        });
    }

    /** CONFIRM of a hold this transaction made or found HELD: the same row change as {@link #confirm}'s. */
    private static void confirmHeld(Connection c, String key, long t) throws SQLException {
        Sql.update(c, "UPDATE reservation SET state = ?, t_confirm = ? WHERE rkey = ? AND state = ?",
                State.CONFIRMED.name(), t, key, State.HELD.name());
    }

    Outcome bind(String key, long resId) {
        if (resId <= 0) {
            throw new LedgerException("reservation id must be positive, got " + resId);
        }
        String group = groups.of(key);
        return executor.writeEvent(group, c -> {
            Res r = lookups.reservationByKey(c, key);
            if (r == null) {
                throw new LedgerException("no hold " + key + " to bind reservation " + resId + " to");
            }
            groups.remember(key, r.cluster(), resId, group);
            if (r.resId() == resId) {
                return r.outcome(Decision.OK, true);
            }
            if (r.resId() != 0) {
                journal.alert(c, Journal.now(), "CONFLICT", key, r.project(), "hold " + key + " is bound to reservation " + r.resId()
                        + ", not " + resId);
                return r.outcome(Decision.CONFLICT, false);
            }
            Sql.update(c, "UPDATE reservation SET res_id = ? WHERE id = ?", resId, r.id());
            return lookups.reservationByKey(c, key).outcome(Decision.OK, false);
        });
    }

    Outcome voidHold(String key, String reason) {
        return executor.writeEvent(groups.of(key), c -> {
            Res r = lookups.reservationByKey(c, key);
            if (r == null) {
                throw new LedgerException("no hold " + key + " to void");
            }
            return switch (r.state()) {
                case HELD, CONFIRMED -> {
                    voidIt(c, r, reason, Journal.now());
                    yield lookups.reservationByKey(c, key).outcome(Decision.OK, false);
                }
                case VOIDED, DENIED -> r.outcome(r.state() == State.DENIED ? Decision.DENIED : Decision.OK, true);
                default -> {
                    journal.alert(c, Journal.now(), "CONFLICT", key, r.project(), "void of " + key + " which is already " + r.state());
                    yield r.outcome(Decision.CONFLICT, false);
                }
            };
        });
    }

    private void voidIt(Connection c, Res r, String reason, long t) throws SQLException {
        if (r.hold() > 0) {
            journal.append(c, r.allocationId(), Kind.VOID, r.hold(), r.key(), "void", reason, t);
        }
        Sql.update(c, "UPDATE reservation SET state = ?, reason = ?, t_release = ? WHERE id = ?",
                State.VOIDED.name(), reason, t, r.id());
    }

    Outcome confirm(Lookup lookup, Instant at, ReserveRequest ifUnknown) {
        long t = at.getEpochSecond();
        return executor.writeEvent(groups.of(lookup), c -> {
            Res r = lookups.findReservation(c, lookup);
            if (r == null) {
                return forcedForUnknown(c, lookup, ifUnknown, t, 0, true);
            }
            switch (r.state()) {
                case HELD -> {
                    Sql.update(c, "UPDATE reservation SET state = ?, t_confirm = ? WHERE id = ?",
                            State.CONFIRMED.name(), t, r.id());
                    return lookups.reservationByKey(c, r.key()).outcome(Decision.OK, false);
                }
                case DENIED -> {
                    if (r.allocationId() == null) {
                        journal.alert(c, t, "CONFIRM_DENIED", r.key(), r.project(), "CONFIRM of denied " + r.key()
                                + " with no allocation to charge: the job runs unbilled");
                        return r.outcome(Decision.DENIED, true);
                    }
                    long hold = Cost.worst(r.rate(), r.limit());
                    lookups.lockAllocation(c, r.allocationId());
                    journal.append(c, r.allocationId(), Kind.FORCED_HOLD, -hold, r.key(), "confirm", "CONFIRM after denial", t);
                    Sql.update(c, "UPDATE reservation SET state = ?, hold = ?, forced = 1, t_confirm = ? WHERE id = ?",
                            State.CONFIRMED.name(), hold, t, r.id());
                    journal.alert(c, t, "FORCED_HOLD", r.key(), r.project(), "CONFIRM of denied " + r.key()
                            + ": the job runs, forced hold of " + hold);
                    return lookups.reservationByKey(c, r.key()).outcome(Decision.OK, false);
                }
                case CONFIRMED -> {
                    return r.outcome(Decision.OK, true);
                }
                default -> {
                    log.warn("CONFIRM of {} which is already {}: no-op", r.key(), r.state());
                    return r.outcome(Decision.OK, true);
                }
            }
        });
    }

    /**
     * CONFIRM or RELEASE of a reservation the ledger never saw: usage cannot be refused, so with the
     * reservation's parameters it is charged as a forced hold (CONFIRM) or forced debit (RELEASE) on the
     * allocation active when it started; without them only an alert is raised.
     */
    private Outcome forcedForUnknown(Connection c, Lookup lookup, ReserveRequest q, long t, long elapsed,
                                     boolean confirm) throws SQLException {
        String event = confirm ? "CONFIRM" : "RELEASE";
        if (q == null) {
            journal.alert(c, t, "UNKNOWN_" + event, lookup.toString(), null, event + " of unknown reservation " + lookup
                    + " with no parameters to charge it by; an operator must charge it by hand");
            return new Outcome(Decision.OK, lookup.toString(), null, null, 0, 0, 0, "UNKNOWN_RESERVATION",
                    event + " of unknown reservation " + lookup, true, false);
        }
        long rate = Cost.rate(q.resource(), q.nodes(), q.node(), Lookups.weights(c, q.partition()));
        long worst = Cost.worst(rate, q.limitSeconds());
        long started = t - elapsed;
        Project p = lookups.requireProject(c, q.project());
        Alloc a = lookups.activeAllocation(c, p.id(), q.resource(), started);
        if (a == null) {
            journal.alert(c, t, "UNKNOWN_" + event, q.key(), p.name(), event + " of unknown reservation " + q.key()
                    + " and project " + p.name() + " has no allocation active at " + Instant.ofEpochSecond(started)
                    + "; an operator must charge it by hand");
            return new Outcome(Decision.OK, q.key(), p.name(), null, 0, 0, 0, "UNKNOWN_RESERVATION",
                    "no allocation to charge", true, false);
        }
        long charge = confirm ? 0 : Cost.actual(rate, elapsed, q.limitSeconds());
        State state = confirm ? State.CONFIRMED : State.SETTLED;
        Sql.update(c, "INSERT INTO reservation (rkey, cluster, batch_id, res_id, project, owner, allocation_id, params,"
                + " rate, limit_s, limit_source, state, hold, charge, reason, message, available, forced, t_reserve,"
                + " t_confirm, t_release) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
                q.key(), q.cluster(), q.batchId(), q.resId(), p.name(), q.owner(), a.id(), q.paramsText(), rate,
                q.limitSeconds(), "request", state.name(), confirm ? worst : 0, charge, event + "_WITHOUT_RESERVE",
                event + " without RESERVE: forced", a.available(), started, confirm ? t : null, confirm ? null : t);
        if (confirm) {
            journal.append(c, a.id(), Kind.FORCED_HOLD, -worst, q.key(), "confirm", "CONFIRM without RESERVE", t);
        } else if (charge > 0) {
            journal.append(c, a.id(), Kind.FORCED_DEBIT, -charge, q.key(), "release", "RELEASE without RESERVE", t);
        }
        journal.alert(c, t, confirm ? "FORCED_HOLD" : "FORCED_DEBIT", q.key(), p.name(), event + " without RESERVE for "
                + q.key() + ": forced " + (confirm ? "hold of " + worst : "debit of " + charge) + " on project " + p.name());
        return lookups.reservationByKey(c, q.key()).outcome(Decision.OK, false);
    }

    Outcome release(ReleaseRequest q) {
        long t = q.at().getEpochSecond();
        String payload = q.payloadText();
        // The reservation is read unlocked, with the other RELEASEs' of the transaction: on PostgreSQL before any
        // event of the transaction locks an allocation. The usual RELEASE settles a hold in progress: its settled
        // row, journal entries and balance are written with the project's other settlements of the transaction in
        // one statement (one round trip for all of them) if the reservation is still as read. Every other case (a
        // repeat, a void, a late RELEASE, a reservation changed meanwhile) reads it again, locked, and decides here.
        return executor.writeEvent(groups.of(q.lookup()), lookups.latestReservations, q.lookup(), settlements,
                read -> read != null && Settlements.settles(read, q) ? Settlements.Settlement.of(read, q, t, payload)
                        : null, (c, read, settled) -> {
            if (settled != null) {
                return settled.outcome();
            }
            Res r = lookups.findReservation(c, q.lookup());
            if (r == null) {
                return forcedForUnknown(c, q.lookup(), q.ifUnknown(), t, Math.max(0, q.elapsedSeconds()), false);
            }
            boolean unsettled = r.state() == State.DENIED || r.state() == State.VOIDED;
            if (r.releaseText() != null) {
                if (r.releaseText().equals(payload)) {
                    return q.neverRan() && unsettled ? nothingToSettle(r, true) : r.outcome(Decision.OK, true);
                }
                journal.alert(c, t, "CONFLICT", r.key(), r.project(), "RELEASE of " + r.key() + " repeated with a different"
                        + " report (" + payload + " vs " + r.releaseText() + "); refused, nothing changed");
                return r.outcome(Decision.CONFLICT, false);
            }
            if (q.neverRan() && unsettled) {
                // a denied reservation held nothing and a voided one has given its hold back: nothing ran, so
                // nothing to settle; it stays DENIED (remembered) or VOIDED, and a repeat is answered the same
                Sql.update(c, "UPDATE reservation SET release_text = ? WHERE id = ?", payload, r.id());
                return nothingToSettle(r, false);
            }
            if (Settlements.settles(r, q)) {
                // (found only now: the shared read found none or an older one, or it changed meanwhile)
                Settlements.Settlement s = Settlements.Settlement.of(r, q, t, payload);
                journal.append(c, r.allocationId(), r.key(), "release", t, s.update(), s.moves());
                return s.outcome();
            }
            boolean byClock = q.elapsedSeconds() == ReleaseRequest.BY_CLOCK;
            long elapsed = !byClock ? q.elapsedSeconds() : r.tConfirm() == null ? 0 : Math.max(0, t - r.tConfirm());
            boolean neverRan = q.neverRan() || byClock && r.tConfirm() == null;
            if ((r.state() == State.HELD || r.state() == State.CONFIRMED) && neverRan) {
                voidIt(c, r, "NEVER_RAN", t);
            } else {
                long actual = q.nodeFailure() || neverRan ? 0 : Cost.actual(r.rate(), elapsed, r.limit());
                String reason = q.nodeFailure() ? "NODE_FAILURE" : neverRan ? "NEVER_RAN" : null;
                lateRelease(c, r, actual, Math.max(0, elapsed - r.limit()), reason, t);
            }
            Sql.update(c, "UPDATE reservation SET release_text = ? WHERE id = ?", payload, r.id());
            return lookups.reservationByKey(c, r.key()).outcome(Decision.OK, false);
        });
    }

    private static Outcome nothingToSettle(Res r, boolean replayed) {
        return new Outcome(Decision.OK, r.key(), r.project(), r.state(), r.hold(), 0, r.available(), r.reason(),
                "RELEASE of " + r.key() + " which never ran: it is " + r.state() + " (" + r.reason()
                        + "), nothing to settle", r.forced(), replayed);
    }

    /**
     * RELEASE of a reservation already resolved without one (voided or orphan-settled by the sweeper, or
     * denied but run anyway): usage cannot be refused, so the difference to what was charged is debited
     * (forced, flagged) or, when the sweeper charged more than the job used, refunded.
     */
    private void lateRelease(Connection c, Res r, long actual, long overrun, String reason, long t) throws SQLException {
        long diff = actual - r.charge();
        if (r.allocationId() == null) {
            if (actual > 0) {
                journal.alert(c, t, "UNBILLED", r.key(), r.project(), "RELEASE of " + r.state() + " " + r.key() + " reports usage "
                        + actual + " but it has no allocation to charge");
            }
            return;
        }
        lookups.lockAllocation(c, r.allocationId());
        if (diff > 0) {
            journal.append(c, r.allocationId(), Kind.FORCED_DEBIT, -diff, r.key(), "release", "RELEASE after " + r.state(), t);
            journal.alert(c, t, "FORCED_DEBIT", r.key(), r.project(), "RELEASE of " + r.state() + " " + r.key()
                    + ": forced debit of " + diff);
        } else if (diff < 0) {
            journal.append(c, r.allocationId(), Kind.REFUND, -diff, r.key(), "release", "RELEASE after " + r.state(), t);
        }
        Sql.update(c, "UPDATE reservation SET state = ?, charge = ?, overrun_s = ?, forced = ?, reason = ?, t_release = ?"
                + " WHERE id = ?", State.SETTLED.name(), actual, overrun, diff > 0 || r.forced() ? 1 : 0,
                reason == null ? "LATE_RELEASE_AFTER_" + r.state() : reason, t, r.id());
    }

    List<Outcome> sweep(Instant now, Duration unconfirmedGrace, Duration confirmedGrace,
                               Predicate<Reservation> stillPresent) {
        long t = now.getEpochSecond();
        List<Res> candidates = executor.read(c -> Sql.list(c, "SELECT " + Res.COLUMNS + " FROM reservation"
                + " WHERE (state = 'HELD' AND t_reserve + ? < ?) OR (state = 'CONFIRMED' AND t_confirm + limit_s + ? < ?)"
                + " ORDER BY id", Res::of, unconfirmedGrace.toSeconds(), t, confirmedGrace.toSeconds(), t));
        List<Outcome> out = new ArrayList<>();
        for (Res candidate : candidates) {
            if (stillPresent.test(candidate.view())) {
                continue;
            }
            // each orphan in its own transaction: a crash mid-sweep leaves the processed ones processed
            Outcome o = executor.writeEvent(groups.of(candidate.key()), c -> {
                Res r = lookups.reservationByKey(c, candidate.key());
                if (r.state() != candidate.state()) {
                    return null; // resolved meanwhile (a RELEASE won the race)
                }
                if (r.state() == State.HELD) {
                    voidIt(c, r, "ORPHAN_UNCONFIRMED", t);
                } else {
                    lookups.lockAllocation(c, r.allocationId());
                    if (r.hold() > 0) {
                        journal.append(c, r.allocationId(), Kind.SETTLE, -r.hold(), r.key(), "sweeper", "ORPHAN_CHARGE_FULL", t);
                        journal.append(c, r.allocationId(), Kind.RETURN, r.hold(), r.key(), "sweeper", null, t);
                    }
                    Sql.update(c, "UPDATE reservation SET state = ?, charge = hold, reason = ?, t_release = ? WHERE id = ?",
                            State.ORPHAN_SETTLED.name(), "ORPHAN_CHARGE_FULL", t, r.id());
                    journal.alert(c, t, "ORPHAN", r.key(), r.project(), "reservation " + r.key() + " confirmed at "
                            + Instant.ofEpochSecond(r.tConfirm()) + " was never released and is gone from ALPS:"
                            + " charged its full hold of " + r.hold() + " for review");
                }
                return lookups.reservationByKey(c, r.key()).outcome(Decision.OK, false);
            });
            if (o != null) {
                out.add(o);
            }
        }
        return out;
    }
}
