package org.alpsbridge.ledger.service.api;

import java.time.Instant;
import java.util.List;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Weights;

/**
 * The bodies of the API's writes that are not a ledger record already (RESERVE and RELEASE send
 * {@code ReserveRequest} and {@code ReleaseRequest} as they are). Fields mirror the {@code Ledger} methods'
 * parameters; {@code requestId} is the idempotency key of an administrative write (a retry with the same id
 * is applied once, the same id with another request is refused).
 */
public final class Requests {

    private Requests() {
    }

    /**
     * A body without a field its operation cannot do without is the caller's mistake (400 naming the field), not
     * a failure of the service: a CONFIRM without its lookup was a NullPointerException and a 500 (found by
     * ApiFuzzTest).
     */
    private static void required(Object value, String field) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is required");
        }
    }

    /** Most STARTs one {@code POST /v1/starts} may carry. */
    public static final int MAX_STARTS = 1_000;

    /** Several jobs' STARTs in one request (a wave of slurmctld prologs), each decided as its own START. */
    public record Starts(List<ReserveRequest> starts) {
        public Starts {
            required(starts, "starts");
            if (starts.isEmpty() || starts.size() > MAX_STARTS || starts.contains(null)) {
                throw new IllegalArgumentException("starts holds 1 to " + MAX_STARTS + " reservations, not "
                        + starts.size() + (starts.contains(null) ? " with a null among them" : ""));
            }
        }
    }

    public record AddProject(String name, int gid, String account) {
        public AddProject {
            required(name, "name");
        }
    }

    public record Grant(String project, Resource resource, long minutes, Instant from, Instant to, String category,
                        String requestId) {
        public Grant {
            required(project, "project");
            required(resource, "resource");
            required(from, "from");
            required(to, "to");
        }
    }

    public record Credit(String project, Resource resource, Instant at, long minutes, String reason,
                         String requestId) {
        public Credit {
            required(project, "project");
            required(resource, "resource");
            required(at, "at");
        }
    }

    public record Withdraw(String project, Resource resource, Instant at, long minutes, boolean force, String reason,
                           String requestId) {
        public Withdraw {
            required(project, "project");
            required(resource, "resource");
            required(at, "at");
        }
    }

    public record Transfer(String from, String to, Resource resource, Instant at, long minutes, String requestId) {
        public Transfer {
            required(from, "from");
            required(to, "to");
            required(resource, "resource");
            required(at, "at");
        }
    }

    public record Adjust(String project, Resource resource, Instant at, long newBase, String requestId) {
        public Adjust {
            required(project, "project");
            required(resource, "resource");
            required(at, "at");
        }
    }

    public record Refund(Lookup lookup, long amount, String reason, String requestId) {
        public Refund {
            required(lookup, "lookup");
        }
    }

    public record SetWeights(String partition, Weights weights) {
        public SetWeights {
            required(partition, "partition");
            required(weights, "weights");
        }
    }

    public record Bind(String key, long resId) {
        public Bind {
            required(key, "key");
        }
    }

    public record VoidHold(String key, String reason) {
        public VoidHold {
            required(key, "key");
        }
    }

    public record Confirm(Lookup lookup, Instant at, ReserveRequest ifUnknown) {
        public Confirm {
            required(lookup, "lookup");
            required(at, "at");
        }
    }

    /**
     * @param present keys of the reservations in flight that the scheduler still has: the caller decides
     *     (the predicate of {@code Ledger.sweep} cannot travel), the service never touches them
     */
    public record Sweep(Instant now, long unconfirmedGraceSeconds, long confirmedGraceSeconds, List<String> present) {
    }

    /** Who the service takes the caller for: {@code GET /v1/whoami}. */
    public record Identity(int uid, int gid, String user, String role) {
    }

    /**
     * A web console sign-in for the caller of {@code POST /v1/web-login}: {@code path} (with its single-use
     * token) is to be opened on the service's own address, or {@code url} when the site set {@code console_url}.
     */
    public record SignInLink(String path, String url, Instant expires, String user, String role) {
    }

    /**
     * Every refusal and failure: {@code rule} names the access rule for a 403, else null; {@code transient}
     * is true on a 503 (the ledger's store is unreachable, e.g. during a database failover): the same request
     * may be sent again after the {@code Retry-After} seconds and is applied once.
     */
    public record Problem(String error, String rule,
                          @com.fasterxml.jackson.annotation.JsonProperty("transient") boolean isTransient) {

        public Problem(String error, String rule) {
            this(error, rule, false);
        }
    }
}
