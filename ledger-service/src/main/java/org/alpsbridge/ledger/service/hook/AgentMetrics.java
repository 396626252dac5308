package org.alpsbridge.ledger.service.hook;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import org.alpsbridge.metrics.Metric;

/**
 * The hook agent's Prometheus endpoint ({@code agent_metrics=HOST:PORT}): the spool's depth, and the prologs,
 * settlements and submission checks by outcome. The outcome is the hook's exit: {@code unavailable} is a prolog the
 * ledger did not answer within {@code prolog_retry_for} + {@code timeout} (a timeout: {@code when_unavailable}
 * decided it). The JDK's small HTTP server: one thread, nothing to add to the agent's class path.
 */
final class AgentMetrics implements AutoCloseable {

    static final String PREFIX = "alpsbridge_ledger_hook_agent_";
    static final Metric SPOOL_PENDING = Metric.gauge(PREFIX + "spool_pending", "Epilogs in the spool waiting to be"
            + " settled with the ledger (it grows while the ledger service does not answer).");
    static final Metric PROLOGS = Metric.counter(PREFIX + "prologs_total", "Prologs answered, by outcome: ok (held),"
            + " denied (the ledger refused the job), unavailable (no answer in time: when_unavailable decided), failed"
            + " (no job or bad options).", "outcome").withValues("outcome", "ok", "denied", "unavailable", "failed");
    static final Metric SETTLEMENTS = Metric.counter(PREFIX + "settlements_total", "Spooled epilogs settled with the"
            + " ledger, by outcome: ok, unavailable (the service refused it: left to `alpsbridge ledger sweep`; or the"
            + " agent stopped first: sent at its next start), failed (unusable: left to `alpsbridge ledger sweep`).",
            "outcome").withValues("outcome", "ok", "unavailable", "failed");
    static final Metric SUBMISSIONS = Metric.counter(PREFIX + "submissions_total", "Submission checks for job_submit, by"
            + " outcome: ok, denied, unavailable, failed.", "outcome").withValues("outcome", "ok", "denied", "unavailable",
            "failed");

    private final Map<Metric, Map<String, LongAdder>> counted = new ConcurrentHashMap<>();
    private final IntSupplier pending;
    private HttpServer server;

    AgentMetrics(IntSupplier pending) {
        this.pending = pending;
    }

    /** Every family the agent may export. */
    static List<Metric> declared() {
        return List.of(SPOOL_PENDING, PROLOGS, SETTLEMENTS, SUBMISSIONS);
    }

    /** The outcome label of a hook's exit code. */
    static String outcome(int exit) {
        return switch (exit) {
            case SlurmHook.OK -> "ok";
            case SlurmHook.DENIED -> "denied";
            case SlurmHook.UNAVAILABLE -> "unavailable";
            default -> "failed";
        };
    }

    /** Counts a hook's exit; an outcome {@code family} does not declare is a programming error (thrown). */
    void count(Metric family, int exit) {
        counted.computeIfAbsent(family, f -> new ConcurrentHashMap<>())
                .computeIfAbsent(family.check("outcome", outcome(exit)), o -> new LongAdder()).increment();
    }

    String prometheus() {
        StringBuilder p = new StringBuilder(512);
        SPOOL_PENDING.header(p).append(SPOOL_PENDING.name()).append(' ').append(pending.getAsInt()).append('\n');
        for (Metric family : List.of(PROLOGS, SETTLEMENTS, SUBMISSIONS)) {
            family.header(p);
            // every declared outcome from the start at 0: increase() over a series born at 1 would miss the first
            Map<String, Long> series = new TreeMap<>();
            family.series().forEach(s -> series.put(s.get(0), 0L));
            counted.getOrDefault(family, Map.of()).forEach((o, n) -> series.put(o, n.sum()));
            series.forEach((o, n) -> p.append(family.name()).append("{outcome=\"").append(o).append("\"} ").append(n)
                    .append('\n'));
        }
        return p.toString();
    }

    /** Serves {@code /metrics} on {@code address}; a bind failure names it. */
    void serve(InetSocketAddress address) throws IOException {
        try {
            server = HttpServer.create(address, 16);
        } catch (IOException e) {
            throw new IOException("agent_metrics=" + address.getHostString() + ":" + address.getPort()
                    + ": cannot listen (" + e.getMessage() + ")", e);
        }
        server.createContext("/metrics", exchange -> {
            byte[] body = prometheus().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(exchange.getRequestMethod().equals("GET") ? 200 : 405, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    /** The port it listens on (the real one when 0 was asked), or -1. */
    int port() {
        return server == null ? -1 : server.getAddress().getPort();
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
    }
}
