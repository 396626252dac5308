package org.alpsbridge.ledger.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Outcome.Decision;
import org.alpsbridge.ledger.State;

/**
 * The ledger's rules as plain in-memory code, written separately from the store, for side-by-side runs
 * over random event sequences (the oracle of {@link ReferenceModelTest}). One project, CPU allocations
 * given as half-open periods, unit weights, one cluster.
 */
final class ReferenceModel {

    static final class Alloc {
        final long start;
        final long end;
        long credited;
        long held;
        long settled;

        Alloc(long start, long end) {
            this.start = start;
            this.end = end;
        }

        long available() {
            return credited - held - settled;
        }
    }

    static final class Res {
        String key;
        String batch;
        long resId;
        String params;
        State state;
        long hold;
        long charge;
        long rate;
        long limit;
        Alloc alloc;
        String releaseText;
        Long tConfirm;
    }

    /** What the model says an event did. */
    record Result(Decision decision, State state, long hold, long charge) {
    }

    final List<Alloc> allocs = new ArrayList<>();
    final Map<String, Res> byKey = new HashMap<>();
    final List<Res> inOrder = new ArrayList<>();

    Alloc active(long t) {
        for (Alloc a : allocs) {
            if (a.start <= t && t < a.end) {
                return a;
            }
        }
        return null;
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    Result reserve(long resId, String batch, String owner, int nodes, int cores, long limitS, long t) {
        String key = "default/" + batch + "/" + resId;
        String params = owner + "|" + nodes + "x" + cores + "x" + limitS; // the owner is part of the request too
        Res existing = byKey.get(key);
        if (existing != null) {
            if (!existing.params.equals(params)) {
                return new Result(Decision.CONFLICT, existing.state, existing.hold, existing.charge);
            }
            return result(existing, existing.state == State.DENIED ? Decision.DENIED : Decision.OK);
        }
        Res r = new Res();
        r.key = key;
        r.batch = batch;
        r.resId = resId;
        r.params = params;
        r.rate = (long) nodes * cores * 1_000_000L;
        r.limit = limitS;
        long worst = ceilDiv(r.rate * limitS, 60_000_000L);
        Alloc a = active(t);
        r.alloc = a;
        if (a == null || worst > a.available()) {
            r.state = State.DENIED;
        } else {
            r.state = State.HELD;
            r.hold = worst;
            a.held += worst;
        }
        byKey.put(key, r);
        inOrder.add(r);
        return result(r, r.state == State.DENIED ? Decision.DENIED : Decision.OK);
    }

    Res latest(long resId) {
        for (int i = inOrder.size() - 1; i >= 0; i--) {
            if (inOrder.get(i).resId == resId) {
                return inOrder.get(i);
            }
        }
        return null;
    }

    Result confirm(long resId, long t) {
        Res r = latest(resId);
        if (r == null) {
            return new Result(Decision.OK, null, 0, 0);
        }
        switch (r.state) {
            case HELD -> {
                r.state = State.CONFIRMED;
                r.tConfirm = t;
            }
            case DENIED -> {
                if (r.alloc == null) {
                    return result(r, Decision.DENIED);
                }
                r.hold = ceilDiv(r.rate * r.limit, 60_000_000L);
                r.alloc.held += r.hold;
                r.state = State.CONFIRMED;
                r.tConfirm = t;
            }
            default -> {
            }
        }
        return result(r, Decision.OK);
    }

    Result release(long resId, long elapsed, boolean nodeFailure, long t) {
        Res r = latest(resId);
        if (r == null) {
            return new Result(Decision.OK, null, 0, 0);
        }
        String text = elapsed + "|" + nodeFailure + "|false";
        if (r.releaseText != null) {
            return result(r, r.releaseText.equals(text) ? Decision.OK : Decision.CONFLICT);
        }
        long actual = nodeFailure ? 0 : ceilDiv(r.rate * Math.min(elapsed, r.limit), 60_000_000L);
        if (r.state == State.HELD || r.state == State.CONFIRMED) {
            long charge = Math.min(actual, r.hold);
            r.alloc.held -= r.hold;
            r.alloc.settled += charge;
            r.charge = charge;
            r.state = State.SETTLED;
        } else if (r.alloc != null) { // voided or denied: late usage is a forced debit
            r.alloc.settled += actual - r.charge;
            r.charge = actual;
            r.state = State.SETTLED;
        }
        r.releaseText = text;
        return result(r, Decision.OK);
    }

    Result voidHold(String key) {
        Res r = byKey.get(key);
        switch (r.state) {
            case HELD, CONFIRMED -> {
                r.alloc.held -= r.hold;
                r.state = State.VOIDED;
                return result(r, Decision.OK);
            }
            case VOIDED -> {
                return result(r, Decision.OK);
            }
            case DENIED -> {
                return result(r, Decision.DENIED);
            }
            default -> {
                return result(r, Decision.CONFLICT);
            }
        }
    }

    /** Null when the store must refuse it. */
    Long refund(long resId, long amount) {
        Res r = latest(resId);
        if (r == null || r.state != State.SETTLED || amount > r.charge) {
            return null;
        }
        r.charge -= amount;
        r.alloc.settled -= amount;
        return r.charge;
    }

    boolean withdraw(long t, long minutes) {
        Alloc a = active(t);
        if (a == null || minutes > a.available()) {
            return false;
        }
        a.credited -= minutes;
        return true;
    }

    private static Result result(Res r, Decision d) {
        return new Result(d, r.state, r.hold, r.charge);
    }
}
