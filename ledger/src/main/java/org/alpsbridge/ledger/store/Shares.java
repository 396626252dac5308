package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.ProjectChange;
import org.alpsbridge.ledger.ProjectShare;

/**
 * Projects' shares of the cluster (description, organisation, partitions, caps, nodes) and explicit members, and the
 * append-only journal of their changes: a change and its journal rows are one transaction.
 */
final class Shares {

    private final Executor executor;
    private final Lookups lookups;
    private final Dialect dialect;

    Shares(Executor executor, Lookups lookups, Dialect dialect) {
        this.executor = executor;
        this.lookups = lookups;
        this.dialect = dialect;
    }

    List<ProjectShare> shares(String project) {
        return executor.read(c -> {
            Long only = project == null ? null : lookups.requireProject(c, project).id();
            return read(c, only);
        });
    }

    ProjectShare setShare(ProjectShare share, String actor) {
        String who = actor == null || actor.isBlank() ? "admin" : actor.strip();
        return executor.write(c -> {
            Project p = lookups.requireProject(c, share.project());
            // one writer per project at a time on PostgreSQL: the project's row is the lock
            Sql.one(c, "SELECT id FROM project WHERE id = ?" + dialect.forUpdate(), rs -> rs.getLong(1), p.id());
            ProjectShare before = read(c, p.id()).get(0);
            ProjectShare after = new ProjectShare(p.name(), share.description(), share.organization(),
                    share.partitions(), share.caps(), share.members(), share.nodes());
            Map<String, String[]> changed = new LinkedHashMap<>();
            differs(changed, "description", before.description(), after.description());
            differs(changed, "organization", before.organization(), after.organization());
            differs(changed, "partitions", String.join(",", before.partitions()), String.join(",", after.partitions()));
            differs(changed, "caps", before.grpTres(), after.grpTres());
            differs(changed, "nodes", before.nodes(), after.nodes());
            differs(changed, "members", String.join(",", before.members()), String.join(",", after.members()));
            if (changed.isEmpty()) {
                return before;
            }
            long now = Journal.now();
            Sql.update(c, "DELETE FROM project_share WHERE project_id = ?", p.id());
            Sql.update(c, "INSERT INTO project_share (project_id, description, organization, partitions, caps, nodes)"
                    + " VALUES (?, ?, ?, ?, ?, ?)", p.id(), after.description(), after.organization(),
                    String.join(",", after.partitions()), after.grpTres(), after.nodes());
            if (changed.containsKey("members")) {
                Sql.update(c, "DELETE FROM project_member WHERE project_id = ?", p.id());
                for (String m : after.members()) {
                    Sql.update(c, "INSERT INTO project_member (project_id, user_name) VALUES (?, ?)", p.id(), m);
                }
            }
            for (Map.Entry<String, String[]> e : changed.entrySet()) {
                Sql.update(c, "INSERT INTO project_change (project_id, field, before, after, actor, created_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?)", p.id(), e.getKey(), e.getValue()[0], e.getValue()[1], who, now);
            }
            return after;
        });
    }

    List<ProjectChange> changes(String project, int limit) {
        if (limit <= 0) {
            throw new LedgerException("limit must be positive, got " + limit);
        }
        return executor.read(c -> {
            Long only = project == null ? null : lookups.requireProject(c, project).id();
            return Sql.list(c, "SELECT ch.seq, p.name, ch.field, ch.before, ch.after, ch.actor, ch.created_at"
                    + " FROM project_change ch JOIN project p ON p.id = ch.project_id"
                    + (only == null ? "" : " WHERE ch.project_id = " + only) + " ORDER BY ch.seq DESC LIMIT " + limit,
                    rs -> new ProjectChange(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), Instant.ofEpochSecond(rs.getLong(7))));
        });
    }

    private static void differs(Map<String, String[]> changed, String field, String before, String after) {
        if (!before.equals(after)) {
            changed.put(field, new String[] {before, after});
        }
    }

    /** The shares of one project (by id) or of all (null), in name order, with the empty share where none is set. */
    private static List<ProjectShare> read(Connection c, Long projectId) throws SQLException {
        String where = projectId == null ? "" : " WHERE p.id = " + projectId;
        Map<Long, List<String>> members = new HashMap<>();
        Sql.list(c, "SELECT m.project_id, m.user_name FROM project_member m JOIN project p ON p.id = m.project_id"
                + where, rs -> members.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(rs.getString(2)));
        return Sql.list(c, "SELECT p.id, p.name, s.description, s.organization, s.partitions, s.caps, s.nodes FROM project p"
                + " LEFT JOIN project_share s ON s.project_id = p.id" + where + " ORDER BY p.name", rs -> {
                    String partitions = rs.getString(5);
                    return new ProjectShare(rs.getString(2), rs.getString(3), rs.getString(4),
                            partitions == null || partitions.isEmpty() ? List.of() : List.of(partitions.split(",")),
                            ProjectShare.parseCaps(rs.getString(6)), members.getOrDefault(rs.getLong(1), List.of()),
                            rs.getString(7));
                });
    }
}
