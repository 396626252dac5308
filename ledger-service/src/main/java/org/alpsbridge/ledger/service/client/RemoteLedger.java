package org.alpsbridge.ledger.service.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.alpsbridge.ledger.Alert;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.LedgerUnavailableException;
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
import org.alpsbridge.ledger.service.api.ApiJson;
import org.alpsbridge.ledger.service.api.Requests;
import org.alpsbridge.ledger.service.api.Route;

/**
 * A {@link Ledger} whose every call is one request to a ledger service. What the service refuses comes
 * back as a {@link LedgerException} with the service's reason (and the access rule, for a 403), so the
 * ledger commands print and exit as they do on a database file.
 */
final class RemoteLedger implements Ledger {

    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    private static final int TIMEOUT_MILLIS = 60_000;

    private final URI base;
    private final ServiceHttp http;
    private final ObjectMapper json = ApiJson.mapper(false);

    private RemoteLedger(URI base, ServiceHttp http) {
        this.base = base;
        this.http = http;
    }

    /**
     * @param mungeSocket munged's socket; null: libmunge's default
     * @param sign false: no credential (a service run with {@code --auth none})
     * @param tlsCa trusts the service's certificate for https://; null = the JDK's default trust
     */
    static RemoteLedger connect(String url, Path mungeSocket, boolean sign, Path tlsCa) {
        URI uri;
        try {
            uri = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        } catch (IllegalArgumentException e) {
            throw new LedgerException("'" + url + "' is not a URL: " + e.getMessage());
        }
        if (uri.getHost() == null) {
            throw new LedgerException("ledger service URL '" + url + "' names no host (http://HOST:PORT)");
        }
        return new RemoteLedger(uri, new ServiceHttp(uri, mungeSocket, sign, tlsCa, CONNECT_TIMEOUT_MILLIS,
                TIMEOUT_MILLIS, ServiceHttp.Timing.NONE));
    }

    // ---- one request

    private <T> T call(Route route, Map<String, Object> query, Object body, JavaType answer) {
        StringBuilder q = new StringBuilder();
        for (Map.Entry<String, Object> e : query.entrySet()) {
            if (e.getValue() != null) {
                q.append(q.length() == 0 ? "" : "&").append(e.getKey()).append('=')
                        .append(URLEncoder.encode(e.getValue().toString(), StandardCharsets.UTF_8));
            }
        }
        byte[] bytes;
        try {
            bytes = body == null ? null : json.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new LedgerException("cannot write the request to " + route.path() + ": " + e.getOriginalMessage());
        }
        String text;
        try {
            text = http.send(route, q.toString(), bytes);
        } catch (ServiceHttp.Unavailable e) {
            if (e.status == 0) {
                throw new LedgerUnavailableException(e.getMessage(), e.getCause());
            }
            Requests.Problem p = problem(e.status, e.answer);
            if (e.status == 503 || p.isTransient()) {
                throw new LedgerUnavailableException(base + ": " + p.error(), null);
            }
            throw new LedgerException(p.error()); // a 500, the service's own failure: said, not waited out
        } catch (ServiceHttp.Refused e) {
            if (e.status == 404 && (route == Route.RESERVATION || route == Route.JOURNAL)) {
                return null;
            }
            Requests.Problem p = problem(e.status, e.answer);
            if (p.isTransient()) {
                throw new LedgerUnavailableException(base + ": " + p.error(), null);
            }
            throw new LedgerException((e.status == 403 ? "refused by " + base + ": "
                    : e.status == 401 ? base + ": " : "") + p.error());
        }
        try {
            return json.readValue(text, answer);
        } catch (IOException e) {
            throw notJson(200, e);
        }
    }

    private Requests.Problem problem(int status, String text) {
        try {
            return json.readValue(text, Requests.Problem.class);
        } catch (IOException e) {
            throw notJson(status, e);
        }
    }

    private LedgerException notJson(int status, IOException e) {
        return new LedgerException("ledger service " + base + " answered " + status
                + " with something that is not its JSON: " + e.getMessage());
    }

    private <T> T post(Route route, Object body, Class<T> answer) {
        return call(route, Map.of(), body, json.constructType(answer));
    }

    private <T> List<T> postForList(Route route, Object body, Class<T> item) {
        return call(route, Map.of(), body, json.getTypeFactory().constructCollectionType(List.class, item));
    }

    private <T> List<T> list(Route route, Class<T> item, Object... query) {
        return call(route, query(query), null, json.getTypeFactory().constructCollectionType(List.class, item));
    }

    private static Map<String, Object> query(Object... pairs) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            out.put((String) pairs[i], pairs[i + 1]);
        }
        return out;
    }

    /** A web console sign-in link for this client's uid: its full address, and when it stops working. */
    Requests.SignInLink webLogin() {
        Requests.SignInLink link = post(Route.WEB_LOGIN, null, Requests.SignInLink.class);
        return link.url() != null ? link : new Requests.SignInLink(link.path(), base + link.path(), link.expires(),
                link.user(), link.role());
    }

    // ---- projects, allocations, credit

    @Override
    public Project addProject(String name, int gid, String account) {
        return post(Route.ADD_PROJECT, new Requests.AddProject(name, gid, account), Project.class);
    }

    @Override
    public List<Project> projects() {
        return list(Route.PROJECTS, Project.class);
    }

    @Override
    public List<ProjectShare> shares(String project) {
        return list(Route.SHARES, ProjectShare.class, "project", project);
    }

    @Override
    public ProjectShare setShare(ProjectShare share, String actor) {
        // the service records its authenticated caller as the actor, whatever a client says
        return post(Route.SET_SHARE, share, ProjectShare.class);
    }

    @Override
    public List<ProjectChange> projectChanges(String project, int limit) {
        return list(Route.PROJECT_CHANGES, ProjectChange.class, "project", project, "limit", limit);
    }

    @Override
    public Balance grant(String project, Resource resource, long minutes, Instant from, Instant to, String category,
                         String requestId) {
        return post(Route.GRANT, new Requests.Grant(project, resource, minutes, from, to, category, requestId),
                Balance.class);
    }

    @Override
    public Balance credit(String project, Resource resource, Instant at, long minutes, String reason,
                          String requestId) {
        return post(Route.CREDIT, new Requests.Credit(project, resource, at, minutes, reason, requestId),
                Balance.class);
    }

    @Override
    public Balance withdraw(String project, Resource resource, Instant at, long minutes, boolean force,
                            String reason, String requestId) {
        return post(Route.WITHDRAW, new Requests.Withdraw(project, resource, at, minutes, force, reason, requestId),
                Balance.class);
    }

    @Override
    public List<Balance> transfer(String from, String to, Resource resource, Instant at, long minutes,
                                  String requestId) {
        return postForList(Route.TRANSFER, new Requests.Transfer(from, to, resource, at, minutes, requestId),
                Balance.class);
    }

    @Override
    public Balance adjustBase(String project, Resource resource, Instant at, long newBase, String requestId) {
        return post(Route.ADJUST, new Requests.Adjust(project, resource, at, newBase, requestId), Balance.class);
    }

    @Override
    public Outcome refund(Lookup reservation, long amount, String reason, String requestId) {
        return post(Route.REFUND, new Requests.Refund(reservation, amount, reason, requestId), Outcome.class);
    }

    @Override
    public void setWeights(String partition, Weights weights) {
        post(Route.SET_WEIGHTS, new Requests.SetWeights(partition, weights), Weights.class);
    }

    @Override
    public Weights weights(String partition) {
        return call(Route.WEIGHTS, query("name", partition), null, json.constructType(Weights.class));
    }

    // ---- the reservation lifecycle

    @Override
    public Outcome reserve(ReserveRequest request) {
        return post(Route.RESERVE, request, Outcome.class);
    }

    @Override
    public Outcome quote(ReserveRequest request) {
        return post(Route.QUOTE, request, Outcome.class);
    }

    @Override
    public Outcome bind(String key, long resId) {
        return post(Route.BIND, new Requests.Bind(key, resId), Outcome.class);
    }

    @Override
    public Outcome voidHold(String key, String reason) {
        return post(Route.VOID, new Requests.VoidHold(key, reason), Outcome.class);
    }

    @Override
    public Outcome confirm(Lookup lookup, Instant at, ReserveRequest ifUnknown) {
        return post(Route.CONFIRM, new Requests.Confirm(lookup, at, ifUnknown), Outcome.class);
    }

    @Override
    public Outcome release(ReleaseRequest request) {
        return post(Route.RELEASE, request, Outcome.class);
    }

    /**
     * The predicate runs here, on every hold in flight (the candidates are among them); the service is told
     * which are still present and resolves the others that are past their grace.
     */
    @Override
    public List<Outcome> sweep(Instant now, Duration unconfirmedGrace, Duration confirmedGrace,
                               Predicate<Reservation> stillPresent) {
        List<String> present = holds(null).stream().filter(stillPresent).map(Reservation::key).toList();
        return postForList(Route.SWEEP, new Requests.Sweep(now, unconfirmedGrace.toSeconds(), confirmedGrace.toSeconds(),
                present), Outcome.class);
    }

    // ---- reports

    @Override
    public List<Balance> balances(String project) {
        return list(Route.BALANCES, Balance.class, "project", project);
    }

    @Override
    public Optional<Reservation> reservation(Lookup lookup) {
        return Optional.ofNullable(call(Route.RESERVATION, query("cluster", lookup.cluster(), "res_id", lookup.resId(),
                "batch_id", lookup.batchId()), null, json.constructType(Reservation.class)));
    }

    @Override
    public List<Reservation> holds(String project) {
        return list(Route.HOLDS, Reservation.class, "project", project);
    }

    @Override
    public List<Reservation> failures(String project, int limit) {
        return list(Route.FAILURES, Reservation.class, "project", project, "limit", limit);
    }

    @Override
    public List<Reservation> reservations(String cluster, String batchId) {
        return list(Route.JOB, Reservation.class, "cluster", cluster, "batch_id", batchId);
    }

    @Override
    public List<JournalEntry> journal(String reservationKey) {
        return list(Route.JOURNAL, JournalEntry.class, "key", reservationKey);
    }

    @Override
    public List<JournalEntry> allocationJournal(long allocationId) {
        List<JournalEntry> entries = list(Route.JOURNAL, JournalEntry.class, "allocation", allocationId);
        return entries == null ? List.of() : entries; // no such allocation: no history, as a store answers
    }

    @Override
    public List<Usage> usage(String project) {
        return list(Route.USAGE, Usage.class, "project", project);
    }

    @Override
    public List<Alert> alerts(int limit) {
        return list(Route.ALERTS, Alert.class, "limit", limit);
    }

    @Override
    public List<String> check() {
        return list(Route.CHECK, String.class);
    }

    @Override
    public Replay replayInto(Ledger into) {
        throw new LedgerException("replay reads the store itself: run it on the service host with --db naming the"
                + " store (sqlite:PATH or jdbc:postgresql://...), not the service " + base);
    }

    @Override
    public void close() {
        // the JDK's HttpURLConnection keeps its connections in its own pool
    }

    @Override
    public String toString() {
        return "ledger service " + base;
    }
}
