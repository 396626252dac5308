package org.alpsbridge.ledger.service.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.LedgerUnavailableException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ProjectShare;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.service.api.OpenApi;
import org.alpsbridge.ledger.service.api.Requests;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out one authenticated request on the ledger: the route's access rule, its body, the
 * {@link Ledger} call, the per-project and per-job rules, the JSON answer. Blocking (JDBC); runs on the
 * service's worker threads, never on an I/O thread.
 */
final class Dispatcher {

    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
    /** STARTs of one request put to the ledger at once at most (SQLite groups up to 256 events per commit). */
    private static final int START_THREADS = 256;

    private final Ledger ledger;
    private final Policy policy;
    private final ObjectMapper json;
    private final byte[] openApi;
    private final SignIns signIns;
    /** Where a request's STARTs wait for their commits side by side, the rest queued; threads end a minute after use. */
    private final ThreadPoolExecutor startThreads = new ThreadPoolExecutor(START_THREADS, START_THREADS, 60,
            TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "ledger-start");
                t.setDaemon(true);
                return t;
            });
    /** The Prometheus text of the ledger's figures, for {@code /metrics}. */
    private final java.util.function.Supplier<String> metrics;

    Dispatcher(Ledger ledger, Policy policy, ObjectMapper json, String version) {
        this(ledger, policy, json, version, null, () -> "");
    }

    /**
     * @param signIns issues the web console's sign-in links; null: the console is off
     * @param metrics the Prometheus text of the ledger's figures, for {@code /metrics}
     */
    Dispatcher(Ledger ledger, Policy policy, ObjectMapper json, String version, SignIns signIns,
               java.util.function.Supplier<String> metrics) {
        this.metrics = metrics;
        startThreads.allowCoreThreadTimeOut(true);
        this.ledger = ledger;
        this.signIns = signIns;
        this.policy = policy;
        this.json = json;
        try {
            this.openApi = json.writeValueAsBytes(OpenApi.document(version));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the OpenAPI description does not serialise", e);
        }
    }

    ApiResponse handle(ApiRequest q) {
        if (q.route() == org.alpsbridge.ledger.service.api.Route.METRICS) {
            return new ApiResponse(200, metrics.get().getBytes(java.nio.charset.StandardCharsets.UTF_8), q.keepAlive(),
                    "text/plain; version=0.0.4; charset=utf-8");
        }
        try {
            return new ApiResponse(200, answer(q), q.keepAlive());
        } catch (Refusal e) {
            log.info("refused {} {} for {}: {}", q.route().method(), q.pathAndQuery(), q.caller(), e.getMessage());
            return problem(q, e.status(), e.getMessage(), e.rule());
        } catch (LedgerUnavailableException e) {
            log.warn("{} {}: ledger store unavailable, answered 503: {}", q.route().method(), q.pathAndQuery(),
                    e.getMessage());
            return problem(q, 503, e.getMessage(), null);
        } catch (LedgerException e) {
            return problem(q, 422, e.getMessage(), null);
        } catch (RuntimeException e) {
            log.error("{} {} failed", q.route().method(), q.pathAndQuery(), e);
            return problem(q, 500, "the ledger service failed: " + e, null);
        }
    }

    private static void startable(ReserveRequest b) {
        if (b.token() != null || b.resId() <= 0) {
            throw new Refusal(400, null, "a START names its reservation by resId (> 0), not by a token: the"
                    + " job starts as it is held, so nothing is bound later");
        }
    }

    /**
     * The STARTs of a request all put to the ledger at once, each from a thread of its own: a job's START waits
     * for a commit, and STARTs waiting together share one (one after the other, each would wait for its own).
     * The first failure, if any, is the request's.
     */
    private List<Outcome> startAll(List<ReserveRequest> starts) {
        List<CompletableFuture<Outcome>> started = new ArrayList<>();
        for (ReserveRequest r : starts) {
            started.add(CompletableFuture.supplyAsync(() -> ledger.start(r), startThreads));
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (CompletableFuture<Outcome> f : started) {
            try {
                outcomes.add(f.join());
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw e;
            }
        }
        return outcomes;
    }

    private ApiResponse problem(ApiRequest q, int status, String message, String rule) {
        try {
            return new ApiResponse(status, json.writeValueAsBytes(new Requests.Problem(message, rule, status == 503)),
                    q.keepAlive());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] answer(ApiRequest q) {
        if (q.route() == org.alpsbridge.ledger.service.api.Route.OPENAPI) {
            return openApi;
        }
        Caller c = q.caller();
        policy.admit(c, q.route());
        Object result = switch (q.route()) {
            case PROJECTS -> policy.visibleProjects(c, ledger.projects());
            case ADD_PROJECT -> {
                Requests.AddProject b = body(q, Requests.AddProject.class);
                yield ledger.addProject(b.name(), b.gid(), b.account());
            }
            case SHARES -> {
                policy.readProject(c, q.param("project"));
                yield policy.visible(c, ledger.shares(q.param("project")), ProjectShare::project);
            }
            case SET_SHARE -> ledger.setShare(body(q, ProjectShare.class), c.user());
            case PROJECT_CHANGES -> ledger.projectChanges(q.param("project"), (int) number(q, "limit", 100));
            case GRANT -> {
                Requests.Grant b = body(q, Requests.Grant.class);
                yield ledger.grant(b.project(), b.resource(), b.minutes(), b.from(), b.to(), b.category(), b.requestId());
            }
            case CREDIT -> {
                Requests.Credit b = body(q, Requests.Credit.class);
                yield ledger.credit(b.project(), b.resource(), b.at(), b.minutes(), b.reason(), b.requestId());
            }
            case WITHDRAW -> {
                Requests.Withdraw b = body(q, Requests.Withdraw.class);
                yield ledger.withdraw(b.project(), b.resource(), b.at(), b.minutes(), b.force(), b.reason(),
                        b.requestId());
            }
            case TRANSFER -> {
                Requests.Transfer b = body(q, Requests.Transfer.class);
                yield ledger.transfer(b.from(), b.to(), b.resource(), b.at(), b.minutes(), b.requestId());
            }
            case ADJUST -> {
                Requests.Adjust b = body(q, Requests.Adjust.class);
                yield ledger.adjustBase(b.project(), b.resource(), b.at(), b.newBase(), b.requestId());
            }
            case REFUND -> {
                Requests.Refund b = body(q, Requests.Refund.class);
                yield ledger.refund(b.lookup(), b.amount(), b.reason(), b.requestId());
            }
            case WEIGHTS -> ledger.weights(required(q, "name"));
            case SET_WEIGHTS -> {
                Requests.SetWeights b = body(q, Requests.SetWeights.class);
                ledger.setWeights(b.partition(), b.weights());
                yield ledger.weights(b.partition());
            }
            case RESERVE -> {
                ReserveRequest b = body(q, ReserveRequest.class);
                policy.actFor(c, b.owner(), "reserve");
                yield ledger.reserve(b);
            }
            case START -> {
                ReserveRequest b = body(q, ReserveRequest.class);
                startable(b);
                policy.actFor(c, b.owner(), "start");
                // RESERVE and CONFIRM in one transaction, idempotent by the key: the job in its prolog waits
                // for one commit, not two
                yield ledger.start(b);
            }
            case STARTS -> {
                Requests.Starts b = body(q, Requests.Starts.class);
                for (ReserveRequest r : b.starts()) {
                    startable(r);
                    policy.actFor(c, r.owner(), "start");
                }
                yield startAll(b.starts());
            }
            case QUOTE -> {
                ReserveRequest b = body(q, ReserveRequest.class);
                // a quote shows the project's balance, so it is asked as the job's own event would be
                policy.actFor(c, b.owner(), "quote");
                yield ledger.quote(b);
            }
            case BIND -> {
                Requests.Bind b = body(q, Requests.Bind.class);
                policy.actFor(c, ownerOf(b.key()), "bind a reservation");
                yield ledger.bind(b.key(), b.resId());
            }
            case VOID -> {
                Requests.VoidHold b = body(q, Requests.VoidHold.class);
                policy.actFor(c, ownerOf(b.key()), "void a hold");
                yield ledger.voidHold(b.key(), b.reason());
            }
            case CONFIRM -> {
                Requests.Confirm b = body(q, Requests.Confirm.class);
                policy.actFor(c, ownerOf(b.lookup(), b.ifUnknown()), "confirm");
                yield ledger.confirm(b.lookup(), b.at(), b.ifUnknown());
            }
            case RELEASE -> {
                ReleaseRequest b = body(q, ReleaseRequest.class);
                policy.actFor(c, ownerOf(b.lookup(), b.ifUnknown()), "release");
                yield ledger.release(b);
            }
            case SWEEP -> {
                Requests.Sweep b = body(q, Requests.Sweep.class);
                Set<String> present = new HashSet<>(b.present() == null ? List.of() : b.present());
                yield ledger.sweep(b.now() == null ? Instant.now() : b.now(),
                        Duration.ofSeconds(b.unconfirmedGraceSeconds()), Duration.ofSeconds(b.confirmedGraceSeconds()),
                        r -> present.contains(r.key()));
            }
            case BALANCES -> {
                policy.readProject(c, q.param("project"));
                yield policy.visible(c, ledger.balances(q.param("project")), b -> b.project());
            }
            case RESERVATION -> {
                Optional<Reservation> r = ledger.reservation(new Lookup(q.param("cluster"),
                        number(q, "res_id", 0), q.param("batch_id")));
                if (r.isEmpty()) {
                    throw new Refusal(404, null, "no such reservation");
                }
                policy.readJob(c, r.get());
                yield r.get();
            }
            case HOLDS -> {
                policy.readProject(c, q.param("project"));
                yield policy.visible(c, ledger.holds(q.param("project")), Reservation::project);
            }
            case FAILURES -> {
                policy.readProject(c, q.param("project"));
                yield policy.visible(c, ledger.failures(q.param("project"), (int) number(q, "limit", 20)),
                        Reservation::project);
            }
            case JOB -> {
                List<Reservation> job = ledger.reservations(q.param("cluster"), required(q, "batch_id"));
                job.forEach(r -> policy.readJob(c, r));
                yield job;
            }
            case JOURNAL -> {
                String key = q.param("key");
                if (q.param("allocation") != null) {
                    long allocation = number(q, "allocation", 0);
                    String project = ledger.balances(null).stream().filter(b -> b.allocationId() == allocation)
                            .findFirst().orElseThrow(() -> new Refusal(404, null, "no such allocation: " + allocation))
                            .project();
                    policy.readProject(c, project);
                    yield ledger.allocationJournal(allocation);
                }
                if (key == null) {
                    policy.readAll(c, "the whole journal");
                } else {
                    reservationOf(key).ifPresent(r -> policy.readJob(c, r));
                }
                yield ledger.journal(key);
            }
            case USAGE -> {
                policy.readProject(c, q.param("project"));
                yield policy.visible(c, ledger.usage(q.param("project")), u -> u.project());
            }
            case ALERTS -> policy.visible(c, ledger.alerts((int) number(q, "limit", 20)), a -> a.project());
            case CHECK -> ledger.check();
            case WHOAMI -> new Requests.Identity(c.uid(), c.gid(), c.user(), c.role().name().toLowerCase());
            case WEB_LOGIN -> {
                if (signIns == null) {
                    throw new Refusal(404, null, "this service runs without its web console (console=false)");
                }
                yield signIns.issue(c.uid(), c.gid(), c.user(), c.role().name().toLowerCase());
            }
            case OPENAPI, METRICS -> throw new IllegalStateException("answered above");
        };
        try {
            return json.writeValueAsBytes(result);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the answer to " + q.route(), e);
        }
    }

    private <T> T body(ApiRequest q, Class<T> type) {
        try {
            T value = json.readValue(q.body(), type);
            if (value == null) {
                throw new Refusal(400, null, q.route().method() + " " + q.route().path() + " needs a JSON body ("
                        + type.getSimpleName() + ")");
            }
            return value;
        } catch (IOException e) {
            // a record's own checks (ReserveRequest refuses 0 nodes, ...) arrive wrapped: they are the ledger's word
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof LedgerException le) {
                    throw le;
                }
            }
            String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw new Refusal(400, null, "bad " + type.getSimpleName() + " body: " + why);
        }
    }

    private static String required(ApiRequest q, String name) {
        String v = q.param(name);
        if (v == null) {
            throw new Refusal(400, null, q.route().path() + " needs the query parameter '" + name + "'");
        }
        return v;
    }

    private static long number(ApiRequest q, String name, long otherwise) {
        String v = q.param(name);
        try {
            return v == null ? otherwise : Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new Refusal(400, null, "query parameter " + name + "=" + v + " is not a whole number");
        }
    }

    /** The reservation of a key {@code cluster/batch/resId} or {@code cluster/batch/~token}, if the ledger has it. */
    private Optional<Reservation> reservationOf(String key) {
        String[] parts = key.split("/", 3);
        if (parts.length < 3) {
            return Optional.empty();
        }
        return ledger.reservations(parts[0], parts[1]).stream().filter(r -> r.key().equals(key)).findFirst();
    }

    private String ownerOf(String key) {
        return reservationOf(key).map(Reservation::owner).orElse(null);
    }

    private String ownerOf(Lookup lookup, ReserveRequest ifUnknown) {
        return ledger.reservation(lookup).map(Reservation::owner)
                .orElse(ifUnknown == null ? null : ifUnknown.owner());
    }
}
