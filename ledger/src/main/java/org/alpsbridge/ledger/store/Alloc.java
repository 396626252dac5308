package org.alpsbridge.ledger.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Resource;

/** An allocation row with its balance cache, read under the transaction's lock. */
record Alloc(long id, String project, long projectId, Resource resource, String category,
             long starts, long ends, long credited, long held, long settled) {

    /** The columns {@link #of} reads, in its order; the query aliases allocation {@code a} and project {@code p}. */
    static final String COLUMNS =
            "a.id, p.name, a.project_id, a.resource, a.category, a.starts_at, a.ends_at, a.credited, a.held, a.settled";

    static Alloc of(ResultSet rs) throws SQLException {
        return new Alloc(rs.getLong(1), rs.getString(2), rs.getLong(3), Resource.valueOf(rs.getString(4)),
                rs.getString(5), rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9), rs.getLong(10));
    }

    long available() {
        return credited - held - settled;
    }

    Balance balance() {
        return new Balance(project, id, resource, category, Instant.ofEpochSecond(starts),
                Instant.ofEpochSecond(ends), credited, held, settled, available());
    }

    String figures() {
        return "granted " + credited + ", held " + held + ", used " + settled;
    }
}
