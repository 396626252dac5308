package org.alpsbridge.ledger.service.api;

import java.util.List;
import org.alpsbridge.ledger.Alert;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.ProjectChange;
import org.alpsbridge.ledger.ProjectShare;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Usage;
import org.alpsbridge.ledger.Weights;

/**
 * Every operation of the API: method, path, query parameters, body and answer. The service dispatches on
 * it, the client builds its requests from it and {@link OpenApi} describes it, so the three cannot drift.
 * Reads are {@code GET} with query parameters; writes are {@code POST} with a JSON body.
 */
public enum Route {
    PROJECTS("GET", "/v1/projects", "Projects (standard users: those of their Unix groups)", null, Project.class, true,
            List.of(), Access.READ),
    ADD_PROJECT("POST", "/v1/projects", "Adds a project", Requests.AddProject.class, Project.class, false,
            List.of(), Access.SUPERUSER),
    SHARES("GET", "/v1/shares", "Projects' shares of the cluster (Slurm description, organisation, partitions, caps)"
            + " and explicit members; all readable projects without project", null, ProjectShare.class, true,
            List.of("project"), Access.READ),
    SET_SHARE("POST", "/v1/share", "Replaces a project's share; each field changed is recorded in the change"
            + " journal with the caller as actor", ProjectShare.class, ProjectShare.class, false, List.of(),
            Access.SUPERUSER),
    PROJECT_CHANGES("GET", "/v1/project-changes", "Changes of projects' shares, newest first", null,
            ProjectChange.class, true, List.of("project", "limit"), Access.ADMIN),
    GRANT("POST", "/v1/grant", "Grants minutes to an allocation [from, to), creating it", Requests.Grant.class,
            Balance.class, false, List.of(), Access.SUPERUSER),
    CREDIT("POST", "/v1/credit", "Adds credit to the allocation active at a time", Requests.Credit.class,
            Balance.class, false, List.of(), Access.SUPERUSER),
    WITHDRAW("POST", "/v1/withdraw", "Takes credit away (force: may overdraw, flagged)", Requests.Withdraw.class,
            Balance.class, false, List.of(), Access.SUPERUSER),
    TRANSFER("POST", "/v1/transfer", "Moves credit between two projects", Requests.Transfer.class, Balance.class,
            true, List.of(), Access.SUPERUSER),
    ADJUST("POST", "/v1/adjust", "Sets the base budget (an ADJUST entry of the difference)", Requests.Adjust.class,
            Balance.class, false, List.of(), Access.SUPERUSER),
    REFUND("POST", "/v1/refund", "Gives back part of a settled job's charge", Requests.Refund.class, Outcome.class,
            false, List.of(), Access.SUPERUSER),
    WEIGHTS("GET", "/v1/partition", "A partition's billing weights", null, Weights.class, false, List.of("name"),
            Access.READ),
    SET_WEIGHTS("POST", "/v1/partition", "Sets a partition's billing weights", Requests.SetWeights.class,
            Weights.class, false, List.of(), Access.SUPERUSER),
    RESERVE("POST", "/v1/reserve", "Holds a job's worst case or denies it", ReserveRequest.class, Outcome.class,
            false, List.of(), Access.JOB_EVENT),
    BIND("POST", "/v1/bind", "Attaches the ALPS reservation id to a hold made with a token", Requests.Bind.class,
            Outcome.class, false, List.of(), Access.JOB_EVENT),
    VOID("POST", "/v1/void", "Voids a hold whose reservation was refused", Requests.VoidHold.class, Outcome.class,
            false, List.of(), Access.JOB_EVENT),
    CONFIRM("POST", "/v1/confirm", "Marks a reservation running", Requests.Confirm.class, Outcome.class, false,
            List.of(), Access.JOB_EVENT),
    START("POST", "/v1/start", "Holds a job's worst case and marks it running, or denies it: RESERVE and CONFIRM in"
            + " one request, for a scheduler whose job starts as soon as it is held (slurmctld's prolog)",
            ReserveRequest.class, Outcome.class, false, List.of(), Access.JOB_EVENT),
    STARTS("POST", "/v1/starts", "START of several jobs in one request (a wave of slurmctld prologs: one credential,"
            + " one round trip, and the jobs share the ledger's commits); the outcomes in the order of the starts."
            + " Any refused start refuses the whole request (send them one by one to learn which)",
            Requests.Starts.class, Outcome.class, true, List.of(), Access.JOB_EVENT),
    QUOTE("POST", "/v1/quote", "Whether a RESERVE of this job would be held now, read only (a submission check:"
            + " nothing is held or written): OK or DENIED with the worst case as hold, the available balance and, when"
            + " denied, the RESERVE's own reason and sentence. Advice: the job's own RESERVE decides",
            ReserveRequest.class, Outcome.class, false, List.of(), Access.JOB_EVENT),
    RELEASE("POST", "/v1/release", "Settles a reservation's actual cost and returns the rest", ReleaseRequest.class,
            Outcome.class, false, List.of(), Access.JOB_EVENT),
    SWEEP("POST", "/v1/sweep", "Resolves abandoned reservations the scheduler no longer has", Requests.Sweep.class,
            Outcome.class, true, List.of(), Access.SUPERUSER),
    BALANCES("GET", "/v1/balances", "Balances of a project's allocations (all readable projects without project)",
            null, Balance.class, true, List.of("project"), Access.READ),
    RESERVATION("GET", "/v1/reservation", "The reservation a CONFIRM or RELEASE would act on (404: none)", null,
            Reservation.class, false, List.of("cluster", "res_id", "batch_id"), Access.READ),
    HOLDS("GET", "/v1/holds", "Holds in flight, oldest first", null, Reservation.class, true, List.of("project"),
            Access.READ),
    FAILURES("GET", "/v1/failures", "Denied RESERVEs with their reasons, newest first", null, Reservation.class, true,
            List.of("project", "limit"), Access.READ),
    JOB("GET", "/v1/job", "Reservations of one batch job", null, Reservation.class, true,
            List.of("cluster", "batch_id"), Access.READ),
    JOURNAL("GET", "/v1/journal", "Journal entries of one reservation, or of one allocation in order (all entries:"
            + " admin)", null, JournalEntry.class, true, List.of("key", "allocation"), Access.READ),
    USAGE("GET", "/v1/usage", "Usage by project, resource and user", null, Usage.class, true, List.of("project"),
            Access.READ),
    ALERTS("GET", "/v1/alerts", "Alerts, newest first", null, Alert.class, true, List.of("limit"), Access.READ),
    CHECK("GET", "/v1/check", "Recomputes every balance from the journal; one line per disagreement", null,
            String.class, true, List.of(), Access.ADMIN),
    WHOAMI("GET", "/v1/whoami", "Who the service takes the caller for, and its role", null,
            Requests.Identity.class, false, List.of(), Access.READ),
    WEB_LOGIN("POST", "/v1/web-login", "A short-lived, single-use sign-in link to the web console for the caller",
            null, Requests.SignInLink.class, false, List.of(), Access.READ),
    OPENAPI("GET", "/openapi.json", "This description (no credential needed: it holds no ledger data)", null,
            Object.class, false, List.of(), Access.ANYONE),
    METRICS("GET", "/metrics", "Ledger call latency by operation and refusals by reason and class (transient,"
            + " permanent), in the Prometheus text format (no credential needed: no ledger data)", null,
            String.class, false, List.of(), Access.ANYONE);

    /** Who may call a route, before the per-project and per-job rules of reads and job events. */
    public enum Access {
        /** No credential needed. */
        ANYONE,
        /** Every authenticated caller; standard users see only their groups' projects and their own jobs. */
        READ,
        /** Superusers and admins. */
        ADMIN,
        /** Superusers and admins for any user; standard users for their own jobs when the site allows it. */
        JOB_EVENT,
        /** Superusers only. */
        SUPERUSER
    }

    private final String method;
    private final String path;
    private final String summary;
    private final Class<?> body;
    private final Class<?> answer;
    private final boolean answersList;
    private final List<String> query;
    private final Access access;

    Route(String method, String path, String summary, Class<?> body, Class<?> answer, boolean answersList,
          List<String> query, Access access) {
        this.method = method;
        this.path = path;
        this.summary = summary;
        this.body = body;
        this.answer = answer;
        this.answersList = answersList;
        this.query = query;
        this.access = access;
    }

    public String method() {
        return method;
    }

    public String path() {
        return path;
    }

    public String summary() {
        return summary;
    }

    /** The JSON body's type; null for reads. */
    public Class<?> body() {
        return body;
    }

    /** The answer's type, or its items' when {@link #answersList()}. */
    public Class<?> answer() {
        return answer;
    }

    public boolean answersList() {
        return answersList;
    }

    public List<String> query() {
        return query;
    }

    public Access access() {
        return access;
    }

    /** The route of a method and path (query excluded), or null. */
    public static Route of(String method, String path) {
        for (Route r : values()) {
            if (r.method.equals(method) && r.path.equals(path)) {
                return r;
            }
        }
        return null;
    }

    /** Whether any route has this path (so a wrong method is a 405, not a 404). */
    public static boolean knownPath(String path) {
        for (Route r : values()) {
            if (r.path.equals(path)) {
                return true;
            }
        }
        return false;
    }
}
