package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Ledger.Replay;
import org.alpsbridge.ledger.LedgerException;

/**
 * {@link org.alpsbridge.ledger.Ledger#replayInto}: copies one JDBC ledger's rows into an empty one and
 * re-applies its journal through the same append that moves balances in normal operation, then compares.
 */
final class Replayer {

    private final JdbcLedger source;

    Replayer(JdbcLedger source) {
        this.source = source;
    }

    /** Rows copied per target transaction while replaying. */
    private static final int REPLAY_BATCH = 2_000;

    Replay into(JdbcLedger target) {
        if (target == source || target.url().equals(source.url())) {
            throw new LedgerException("cannot replay " + source + " into itself");
        }
        long present = target.executor().read(c -> Sql.returning(c, "SELECT (SELECT COUNT(*) FROM project)"
                + " + (SELECT COUNT(*) FROM reservation) + (SELECT COUNT(*) FROM entry)"));
        if (present > 0) {
            throw new LedgerException("cannot replay into " + target + ": it is not empty (" + present
                    + " projects, reservations and entries); replay needs a new, empty ledger");
        }
        return source.executor().read(c -> {
            if (source.dialect() == Dialect.POSTGRESQL) {
                Sql.update(c, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"); // one snapshot for the whole copy
            }
            Map<Long, Long> projects = new HashMap<>();
            stream(c, "SELECT id, name, gid, account, active, created_at FROM project ORDER BY id", rows ->
                    target.executor().write(t -> {
                        for (Object[] r : rows) {
                            projects.put(number(r[0]), Sql.returning(t, "INSERT INTO project (name, gid, account,"
                                    + " active, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id", r[1], r[2], r[3], r[4],
                                    r[5]));
                        }
                        return null;
                    }));
            Map<Long, Long> allocations = new HashMap<>();
            List<Object[]> expected = new ArrayList<>();
            stream(c, "SELECT id, project_id, resource, category, starts_at, ends_at, credited, held, settled, last_seq"
                    + " FROM allocation ORDER BY id", rows -> {
                        expected.addAll(rows);
                        target.executor().write(t -> {
                            for (Object[] r : rows) {
                                allocations.put(number(r[0]), Sql.returning(t, "INSERT INTO allocation (project_id,"
                                        + " resource, category, starts_at, ends_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
                                        projects.get(number(r[1])), r[2], r[3], r[4], r[5]));
                            }
                            return null;
                        });
                    });
            copy(c, target, "name, cpu_milli, mem_milli, gpu_milli, mult_milli", "partition_weights", "name", null);
            copy(c, target, "request_id, payload, created_at", "admin_request", "request_id", null);
            copy(c, target, "created_at, kind, rkey, project, message", "alert", "id", null);
            // the projects' shares and their change journal, with the projects' ids of the replay
            copy(c, target, "project_id, description, organization, partitions, caps, nodes", "project_share", "project_id",
                    r -> r[0] = projects.get(number(r[0])));
            copy(c, target, "project_id, user_name", "project_member", "project_id, user_name",
                    r -> r[0] = projects.get(number(r[0])));
            copy(c, target, "project_id, field, before, after, actor, created_at", "project_change", "seq",
                    r -> r[0] = projects.get(number(r[0])));
            long reservations = copy(c, target, Res.COLUMNS.substring("id, ".length()), "reservation", "id",
                    r -> r[6] = r[6] == null ? null : allocations.get(number(r[6])));
            long[] entries = {0};
            stream(c, "SELECT allocation_id, kind, amount, rkey, actor, reason, created_at FROM entry ORDER BY seq",
                    rows -> {
                        target.executor().write(t -> {
                            for (Object[] r : rows) {
                                target.journal().append(t, allocations.get(number(r[0])), Kind.valueOf((String) r[1]),
                                        number(r[2]), (String) r[3], (String) r[4], (String) r[5], number(r[6]));
                            }
                            return null;
                        });
                        entries[0] += rows.size();
                    });
            List<String> problems = new ArrayList<>();
            String[] names = {"granted", "held", "used", "journal length"};
            for (Object[] r : expected) {
                long id = allocations.get(number(r[0]));
                long[] rebuilt = target.executor().read(t -> Sql.one(t, "SELECT credited, held, settled, last_seq"
                        + " FROM allocation WHERE id = ?", rs -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3),
                        rs.getLong(4)}, id));
                for (int i = 0; i < names.length; i++) {
                    if (rebuilt[i] != number(r[6 + i])) {
                        problems.add("allocation #" + r[0] + " (#" + id + " in the replay): " + names[i] + " is "
                                + number(r[6 + i]) + " but the replayed journal gives " + rebuilt[i]);
                    }
                }
            }
            target.check().forEach(p -> problems.add("replay: " + p));
            return new Replay(projects.size(), allocations.size(), reservations, entries[0], problems);
        });
    }

    /** Copies a table's rows in {@code order} into the same table of {@code target}; returns the count. */
    private static long copy(Connection c, JdbcLedger target, String columns, String table, String order,
                             java.util.function.Consumer<Object[]> adjust) throws SQLException {
        String insert = "INSERT INTO " + table + " (" + columns + ") VALUES ("
                + "?, ".repeat(columns.split(",").length - 1) + "?)";
        long[] n = {0};
        stream(c, "SELECT " + columns + " FROM " + table + " ORDER BY " + order, rows -> {
            if (adjust != null) {
                rows.forEach(adjust);
            }
            target.executor().write(t -> {
                for (Object[] r : rows) {
                    Sql.update(t, insert, r);
                }
                return null;
            });
            n[0] += rows.size();
        });
        return n[0];
    }

    private interface Batch {
        void accept(List<Object[]> rows) throws SQLException;
    }

    /** Runs a query and hands its rows on in batches, without holding the whole result in memory. */
    private static void stream(Connection c, String sql, Batch sink) throws SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setFetchSize(REPLAY_BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                List<Object[]> rows = new ArrayList<>();
                while (rs.next()) {
                    Object[] row = new Object[columns];
                    for (int i = 0; i < columns; i++) {
                        row[i] = rs.getObject(i + 1);
                    }
                    rows.add(row);
                    if (rows.size() == REPLAY_BATCH) {
                        sink.accept(rows);
                        rows = new ArrayList<>();
                    }
                }
                if (!rows.isEmpty()) {
                    sink.accept(rows);
                }
            }
        }
    }

    private static long number(Object o) {
        return ((Number) o).longValue();
    }
}
