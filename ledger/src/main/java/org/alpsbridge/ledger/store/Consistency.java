package org.alpsbridge.ledger.store;

import java.util.ArrayList;
import java.util.List;

/**
 * The ledger's self-check: every balance cache recomputed from the journal, the journal checked for
 * gaps, and holds and charges checked against the reservations that make them up.
 */
final class Consistency {

    private final Executor executor;

    Consistency(Executor executor) {
        this.executor = executor;
    }

    List<String> check() {
        return executor.read(c -> {
            List<String> problems = new ArrayList<>();
            Sql.list(c, "SELECT a.id, a.credited, a.held, a.settled, a.last_seq,"
                    + " COALESCE(SUM(CASE WHEN e.kind IN ('CREDIT', 'WITHDRAW', 'ADJUST') THEN e.amount ELSE 0 END), 0),"
                    + " COALESCE(SUM(CASE WHEN e.kind IN ('HOLD', 'FORCED_HOLD', 'RETURN', 'VOID') THEN -e.amount ELSE 0 END), 0),"
                    + " COALESCE(SUM(CASE WHEN e.kind IN ('SETTLE', 'FORCED_DEBIT', 'REFUND') THEN -e.amount ELSE 0 END), 0),"
                    + " COUNT(e.seq), COALESCE(MAX(e.allocation_seq), 0),"
                    + " (SELECT COALESCE(SUM(r.hold), 0) FROM reservation r WHERE r.allocation_id = a.id"
                    + "   AND r.state IN ('HELD', 'CONFIRMED')),"
                    + " (SELECT COALESCE(SUM(r.charge), 0) FROM reservation r WHERE r.allocation_id = a.id)"
                    + " FROM allocation a LEFT JOIN entry e ON e.allocation_id = a.id"
                    + " GROUP BY a.id, a.credited, a.held, a.settled, a.last_seq ORDER BY a.id", rs -> {
                        long id = rs.getLong(1);
                        String[] names = {"granted", "held", "used"};
                        for (int i = 0; i < 3; i++) {
                            if (rs.getLong(2 + i) != rs.getLong(6 + i)) {
                                problems.add("allocation #" + id + ": " + names[i] + " is " + rs.getLong(2 + i)
                                        + " but the journal sums to " + rs.getLong(6 + i));
                            }
                        }
                        if (rs.getLong(9) != rs.getLong(5) || rs.getLong(10) != rs.getLong(5)) {
                            problems.add("allocation #" + id + ": journal has " + rs.getLong(9) + " entries up to #"
                                    + rs.getLong(10) + " but " + rs.getLong(5) + " were written (gap or loss)");
                        }
                        if (rs.getLong(3) != rs.getLong(11)) {
                            problems.add("allocation #" + id + ": held is " + rs.getLong(3)
                                    + " but reservations in flight hold " + rs.getLong(11));
                        }
                        if (rs.getLong(4) != rs.getLong(12)) {
                            problems.add("allocation #" + id + ": used is " + rs.getLong(4)
                                    + " but reservations are charged " + rs.getLong(12));
                        }
                        return null;
                    });
            Sql.list(c, "SELECT rkey, hold, charge FROM reservation WHERE forced = 0 AND charge > hold", rs -> {
                problems.add("reservation " + rs.getString(1) + " charged " + rs.getLong(3) + " above its hold "
                        + rs.getLong(2));
                return null;
            });
            return problems;
        });
    }
}
