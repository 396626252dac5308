package org.alpsbridge.proxy.server;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.ha.Availability;
import org.alpsbridge.proxy.ha.NotActiveException;
import org.alpsbridge.proxy.wire.AdminCommand;
import org.alpsbridge.proxy.wire.Exchange;
import org.alpsbridge.proxy.wire.Reply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one {@link Exchange} into its {@link Reply}, on the worker pool: authenticate, authorise,
 * remember reservation-changing exchanges, call the backend chain under its time limit, and turn
 * every way that can fail into a BASIL FAILURE for the caller. Knows nothing of sockets. The standby of a
 * pair ({@code ha_db}) answers every BASIL exchange "not active" before anything else, credential unread.
 */
final class ExchangeProcessor {

    private static final Logger log = LoggerFactory.getLogger(ExchangeProcessor.class);

    /** Past the backend's own limit, so that exec's kill (with its precise message) answers first. */
    private static final Duration GRACE = Duration.ofSeconds(2);

    private final ProxyConfig config;
    private final Gatekeeper gatekeeper;
    private final Backend backend;
    private final Map<String, AdminHandler> admin;
    private final ExchangeMemory memory;
    private final Availability pair;
    private final ExecutorService workers;
    private final ScheduledExecutorService timers;
    private final Map<CompletableFuture<Reply>, Exchange> pending = new ConcurrentHashMap<>();

    ExchangeProcessor(ProxyConfig config, Gatekeeper gatekeeper, Backend backend, Map<String, AdminHandler> admin,
            ExchangeMemory memory, Availability pair, ExecutorService workers, ScheduledExecutorService timers) {
        this.config = config;
        this.gatekeeper = gatekeeper;
        this.backend = backend;
        this.admin = Map.copyOf(admin);
        this.memory = memory;
        this.pair = pair;
        this.workers = workers;
        this.timers = timers;
    }

    /** Exchanges accepted and not yet answered. */
    int inFlight() {
        return pending.size();
    }

    /**
     * Answers every exchange still in flight with a TRANSIENT failure saying why (the daemon is stopping),
     * so their clients hear a reason instead of a dropped connection.
     */
    void abandonAll(String reason) {
        for (Map.Entry<CompletableFuture<Reply>, Exchange> e : pending.entrySet()) {
            e.getKey().complete(internalError(e.getValue(), reason));
        }
    }

    CompletableFuture<Reply> process(Exchange exchange) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        pending.put(reply, exchange);
        reply.whenComplete((r, e) -> pending.remove(reply));
        try {
            workers.execute(() -> {
                try {
                    reply.complete(handle(exchange, reply));
                } catch (RuntimeException | Error e) {
                    log.error("exchange {} failed inside the daemon", exchange.exchangeId(), e);
                    reply.complete(internalError(exchange, "internal error in the apbasil proxy: " + e));
                }
            });
        } catch (RejectedExecutionException e) {
            reply.complete(internalError(exchange, "the apbasil proxy is busy: " + config.workers()
                    + " workers and " + config.queue() + " queued requests; try again"));
        }
        return reply;
    }

    /** A TRANSIENT answer when the daemon itself cannot serve: a BASIL FAILURE for BASIL, a rejection for admin. */
    private static Reply internalError(Exchange exchange, String message) {
        if (exchange.kind() == Exchange.Kind.BASIL) {
            return BasilDocuments.failure(BasilDocuments.probe(exchange.payload()), true,
                    BasilDocuments.SOURCE_DAEMON, message);
        }
        return Reply.rejected(message, true);
    }

    private Reply handle(Exchange exchange, CompletableFuture<Reply> reply) {
        return switch (exchange.kind()) {
            case BASIL -> basil(exchange, reply);
            case ADMIN -> admin(exchange);
        };
    }

    private Reply basil(Exchange exchange, CompletableFuture<Reply> reply) {
        if (pair != null && !pair.active()) {
            // Before authentication: a credential the client hands on to the active proxy is not spent here.
            return Reply.notActive(pair.notActiveReason());
        }
        BasilDocuments.Request request = BasilDocuments.probe(exchange.payload());
        Caller caller;
        try {
            caller = gatekeeper.authenticate(exchange);
            gatekeeper.authorizeBasil(caller, request.method());
        } catch (Gatekeeper.Refusal r) {
            log.warn("refused {} exchange {}: {}", request.method(), exchange.exchangeId(), r.getMessage());
            return BasilDocuments.failure(request, r.isTransient(), BasilDocuments.SOURCE_SECURITY, r.getMessage());
        }
        if (request.problem() != null) {
            return BasilDocuments.refusal(request);
        }
        Call call = new Call(exchange.payload(), request.protocol(), request.method(), request.queryType(),
                caller, exchange.exchangeId());
        Duration limit = config.apbasilTimeout(call.methodKey());
        Deadline deadline = new Deadline(Thread.currentThread());
        ScheduledFuture<?> guard = timers.schedule(() -> {
            reply.complete(BasilDocuments.failure(request, true, BasilDocuments.SOURCE_BACKEND,
                    "the backend did not answer " + call.methodKey() + " within " + limit.plus(GRACE).toMillis() + " ms"));
            deadline.interruptWorker();
        }, limit.plus(GRACE).toNanos(), TimeUnit.NANOSECONDS);
        try {
            byte[] answer = memory.once(call, exchange.digest(), limit.plus(GRACE), () -> backend.call(call));
            if (answer.length > config.maxResponseBytes()) {
                throw new BackendException("the " + call.methodKey() + " response of " + answer.length
                        + " bytes is over max_response_bytes=" + config.maxResponseBytes(), false);
            }
            return Reply.ok(answer);
        } catch (BackendException e) {
            if (e.getCause() instanceof NotActiveException) {
                log.warn("{} exchange {} from uid {} not run: {}", call.methodKey(), exchange.exchangeId(), caller.uid(),
                        e.getMessage());
                return Reply.notActive(e.getMessage());
            }
            log.warn("{} exchange {} from uid {}: {}", call.methodKey(), exchange.exchangeId(), caller.uid(),
                    e.getMessage());
            return BasilDocuments.failure(request, e.isTransient(), BasilDocuments.SOURCE_BACKEND, e.getMessage());
        } finally {
            guard.cancel(false);
            deadline.workerDone();
        }
    }

    /**
     * Interrupts a worker stuck past its deadline (an in-process backend that hangs), but never one that
     * has already moved on to another exchange.
     */
    private static final class Deadline {
        private final Thread worker;
        private boolean done;

        Deadline(Thread worker) {
            this.worker = worker;
        }

        synchronized void interruptWorker() {
            if (!done) {
                worker.interrupt();
            }
        }

        void workerDone() {
            synchronized (this) {
                done = true;
            }
            Thread.interrupted(); // an interrupt that raced with completion must not hit the next exchange
        }
    }

    private Reply admin(Exchange exchange) {
        AdminCommand command = exchange.command();
        try {
            Caller caller = gatekeeper.authenticate(exchange);
            gatekeeper.authorizeAdmin(caller, command.name());
            AdminHandler handler = admin.get(command.name());
            if (handler == null) {
                return Reply.rejected("unknown admin command '" + command.name() + "'; this daemon has "
                        + admin.keySet(), false);
            }
            return Reply.ok(handler.handle(command.args(), caller));
        } catch (Gatekeeper.Refusal r) {
            log.warn("refused admin command {}: {}", command.name(), r.getMessage());
            return Reply.rejected(r.getMessage(), r.isTransient());
        } catch (Exception e) {
            return Reply.rejected("admin command '" + command.name() + "' failed: " + e.getMessage(), false);
        }
    }

}
