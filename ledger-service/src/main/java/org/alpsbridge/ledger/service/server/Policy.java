package org.alpsbridge.ledger.service.server;

import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.service.api.Route;

/**
 * The access rules, each with the name a refusal cites. Superusers pass every rule; admins every rule but
 * {@code superuser-only}; standard users read only projects whose Unix group they are in, see only their
 * own jobs in detail, and send job events only for their own jobs and only where the site allows it.
 */
final class Policy {

    private final Ledger ledger;
    private final boolean standardJobEvents;

    Policy(Ledger ledger, boolean standardJobEvents) {
        this.ledger = ledger;
        this.standardJobEvents = standardJobEvents;
    }

    /** The route's own rule, before any per-project or per-job rule. */
    void admit(Caller c, Route route) {
        switch (route.access()) {
            case SUPERUSER -> {
                if (c.role() != Role.SUPERUSER) {
                    throw Refusal.forbidden("superuser-only", c + " may not use " + route.method() + " "
                            + route.path() + ": only superusers change projects, credit and weights or sweep");
                }
            }
            case ADMIN -> {
                if (!readsAll(c)) {
                    throw Refusal.forbidden("admin-only", c + " may not use " + route.method() + " " + route.path()
                            + ": admins and superusers only");
                }
            }
            case JOB_EVENT -> {
                if (c.role() == Role.STANDARD && !standardJobEvents) {
                    throw Refusal.forbidden("job-events-need-admin", c + " may not send job events: this site"
                            + " lets only admins and superusers charge (standard_job_events=false)");
                }
            }
            default -> {
            }
        }
    }

    /** A read of one project (by name or account); null = every project the caller may read. */
    void readProject(Caller c, String project) {
        if (readsAll(c) || project == null) {
            return;
        }
        boolean member = ledger.projects().stream()
                .anyMatch(p -> (project.equals(p.name()) || project.equals(p.account())) && c.groups().contains(p.gid()));
        if (!member) {
            throw Refusal.forbidden("standard-reads-own-groups", c + " may not read project '" + project
                    + "': it is not in that project's Unix group");
        }
    }

    /** What a standard caller may see of a list about projects; everything for the others. */
    <T> List<T> visible(Caller c, List<T> items, Function<T, String> project) {
        if (readsAll(c)) {
            return items;
        }
        Set<String> mine = ledger.projects().stream().filter(p -> c.groups().contains(p.gid()))
                .map(Project::name).collect(Collectors.toSet());
        return items.stream().filter(i -> mine.contains(project.apply(i))).toList();
    }

    List<Project> visibleProjects(Caller c, List<Project> projects) {
        return readsAll(c) ? projects
                : projects.stream().filter(p -> c.groups().contains(p.gid())).toList();
    }

    /** A job's detail: standard users see only their own; chargers any job, whose events they send. */
    void readJob(Caller c, Reservation r) {
        if (!readsAll(c) && c.role() != Role.CHARGER && !c.is(r.owner())) {
            throw Refusal.forbidden("standard-own-jobs", c + " may not see reservation " + r.key()
                    + " in detail: it is another user's job");
        }
    }

    /** A job event for {@code owner}: admins and superusers may act for anyone. */
    void actFor(Caller c, String owner, String what) {
        if (c.role() == Role.STANDARD && !c.is(owner)) {
            throw Refusal.forbidden("standard-own-job-events", c + " may not " + what + " for user '" + owner
                    + "': only admins and superusers act for another user");
        }
    }

    /** Reading every journal entry at once, or alerts of no project, is an admin's. */
    void readAll(Caller c, String what) {
        if (!readsAll(c)) {
            throw Refusal.forbidden("admin-only", c + " may not read " + what);
        }
    }

    /** Superusers and admins read everything; chargers and standard users their groups' projects and own jobs. */
    private static boolean readsAll(Caller c) {
        return c.role() == Role.SUPERUSER || c.role() == Role.ADMIN;
    }
}
