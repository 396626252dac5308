package org.alpsbridge.ledger.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.alpsbridge.ledger.Alert;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Usage;

/** Read-only views: balances, holds, failures, per-job statements, journal, usage by user, alerts. */
final class Reports {

    private final Executor executor;

    Reports(Executor executor) {
        this.executor = executor;
    }

    List<Balance> balances(String project) {
        return executor.read(c -> Sql.list(c, "SELECT " + Alloc.COLUMNS
                + " FROM allocation a JOIN project p ON p.id = a.project_id"
                + (project == null ? "" : " WHERE p.name = ? OR p.account = ?")
                + " ORDER BY p.name, a.resource, a.starts_at", Alloc::of,
                project == null ? new Object[0] : new Object[] {project, project})).stream().map(Alloc::balance).toList();
    }

    Optional<Reservation> reservation(Lookup lookup) {
        return Optional.ofNullable(executor.read(c -> {
            Res r = Sql.one(c, "SELECT " + Res.COLUMNS + " FROM reservation WHERE cluster = ? AND res_id = ?"
                    + (lookup.batchId() == null ? "" : " AND batch_id = ?") + " ORDER BY id DESC LIMIT 1",
                    Res::of, lookup.batchId() == null ? new Object[] {lookup.cluster(), lookup.resId()}
                            : new Object[] {lookup.cluster(), lookup.resId(), lookup.batchId()});
            return r == null ? null : r.view();
        }));
    }

    List<Reservation> holds(String project) {
        return reservationsWhere("state IN ('HELD', 'CONFIRMED')" + (project == null ? "" : " AND project = ?")
                + " ORDER BY t_reserve, id", project);
    }

    List<Reservation> failures(String project, int limit) {
        return reservationsWhere("state = 'DENIED'" + (project == null ? "" : " AND project = ?")
                + " ORDER BY id DESC LIMIT " + Math.max(1, limit), project);
    }

    List<Reservation> reservations(String cluster, String batchId) {
        return executor.read(c -> Sql.list(c, "SELECT " + Res.COLUMNS + " FROM reservation WHERE cluster = ?"
                + " AND batch_id = ? ORDER BY id", Res::of, cluster == null ? Ledger.DEFAULT_CLUSTER : cluster, batchId))
                .stream().map(Res::view).toList();
    }

    private List<Reservation> reservationsWhere(String where, String project) {
        return executor.read(c -> Sql.list(c, "SELECT " + Res.COLUMNS + " FROM reservation WHERE " + where,
                Res::of, project == null ? new Object[0] : new Object[] {project})).stream().map(Res::view).toList();
    }

    List<JournalEntry> journal(String reservationKey) {
        return entries(reservationKey == null ? "" : " WHERE rkey = ?", "seq",
                reservationKey == null ? new Object[0] : new Object[] {reservationKey});
    }

    List<JournalEntry> allocationJournal(long allocationId) {
        return entries(" WHERE allocation_id = ?", "allocation_seq", new Object[] {allocationId});
    }

    private List<JournalEntry> entries(String where, String order, Object[] parameters) {
        return executor.read(c -> Sql.list(c, "SELECT seq, allocation_id, allocation_seq, kind, amount, rkey, actor,"
                + " reason, created_at FROM entry" + where + " ORDER BY " + order,
                rs -> new JournalEntry(rs.getLong(1), rs.getLong(2), rs.getLong(3), Kind.valueOf(rs.getString(4)),
                        rs.getLong(5), rs.getString(6), rs.getString(7), rs.getString(8),
                        Instant.ofEpochSecond(rs.getLong(9))),
                parameters));
    }

    List<Usage> usage(String project) {
        return executor.read(c -> Sql.list(c, "SELECT r.project, a.resource, r.owner, COUNT(*),"
                + " SUM(CASE WHEN r.state IN ('HELD', 'CONFIRMED') THEN r.hold ELSE 0 END), SUM(r.charge),"
                + " r.cluster, r.allocation_id"
                + " FROM reservation r JOIN allocation a ON a.id = r.allocation_id WHERE r.state <> 'DENIED'"
                + (project == null ? "" : " AND r.project = ?")
                + " GROUP BY r.project, a.resource, r.owner, r.cluster, r.allocation_id"
                + " ORDER BY r.project, a.resource, r.owner, r.cluster, r.allocation_id",
                rs -> new Usage(rs.getString(1), Resource.valueOf(rs.getString(2)), rs.getString(3), rs.getLong(4),
                        rs.getLong(5), rs.getLong(6), rs.getString(7), rs.getLong(8)),
                project == null ? new Object[0] : new Object[] {project}));
    }

    List<Alert> alerts(int limit) {
        return executor.read(c -> Sql.list(c, "SELECT id, created_at, kind, rkey, project, message FROM alert"
                + " ORDER BY id DESC LIMIT " + Math.max(1, limit),
                rs -> new Alert(rs.getLong(1), Instant.ofEpochSecond(rs.getLong(2)), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getString(6))));
    }
}
