package org.alpsbridge.ledger.service.hook;

import org.alpsbridge.ledger.service.client.ServiceHttp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.alpsbridge.ledger.service.api.Route;

/**
 * The agent's STARTs (the prologs' holds): those asked while a request is under way are sent together in the
 * next one, {@code POST /v1/starts}: one MUNGE credential, one round trip, and the service puts them to the
 * ledger side by side, so that they share its commits. slurmctld starts a wave of prologs at once (one per
 * freed CPU); one request each made the wave pay a credential, an HTTP exchange and a credential check per job
 * on the slurmctld host's CPUs, which the wave's prologs share. The first START of a wave goes alone, at once;
 * the ones that come meanwhile wait for it and follow together.
 *
 * <p>A batch the service refuses (4xx: one bad start refuses the whole request) or does not know (404: a
 * service older than the route) is sent again one START per prolog, each by its own prolog, so that each gets
 * its own answer (and after a 404 every START goes alone). A batch the service cannot take now (unavailable)
 * fails each of its prologs, which try again as they would alone ({@link Hook}'s retries).
 */
final class StartBatch implements AutoCloseable {

    /** STARTs sent in one request at most. */
    static final int MAX = 256;
    /**
     * Requests under way at once at most: a START waits for none when fewer are under way, and for the first of
     * them to end otherwise (then it goes with the others that came meanwhile).
     */
    static final int SENDERS = 2;

    private final ServiceCall service;
    private final AgentStats.Timer timer;
    private final List<Asked> asked = new ArrayList<>();
    private volatile boolean closed;
    /** The service has no {@code /v1/starts}: each START goes alone. */
    private volatile boolean alone;

    /** One prolog's START and its answer. */
    private record Asked(String json, CompletableFuture<Map<String, String>> answer) {
    }

    /** The batch was refused: this START is to be sent alone, by its own prolog. */
    private static final class SendAlone extends Exception {
        SendAlone() {
            super(null, null, false, false);
        }
    }

    /** @param timer counts the requests and how many STARTs each carried */
    StartBatch(ServiceCall service, AgentStats.Timer timer) {
        this.service = service;
        this.timer = timer;
        for (int i = 0; i < SENDERS; i++) {
            Thread sender = new Thread(this::loop, "ledger-hook-starts-" + i);
            sender.setDaemon(true);
            sender.start();
        }
    }

    /** The START's answer (its top-level fields), as {@link ServiceCall#post} gives it for one sent alone. */
    Map<String, String> start(String json) throws ServiceHttp.Unavailable, ServiceHttp.Refused {
        if (alone) {
            return service.postAlone(Route.START, json);
        }
        Asked a = new Asked(json, new CompletableFuture<>());
        synchronized (asked) {
            if (closed) {
                throw new ServiceHttp.Unavailable("the agent is stopping");
            }
            asked.add(a);
            asked.notifyAll();
        }
        try {
            return a.answer.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SendAlone) {
                return service.postAlone(Route.START, json);
            }
            if (e.getCause() instanceof ServiceHttp.Refused r) {
                throw r;
            }
            if (e.getCause() instanceof ServiceHttp.Unavailable u) {
                throw u;
            }
            throw new ServiceHttp.Unavailable("the START failed in the agent: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServiceHttp.Unavailable("interrupted while waiting for the ledger service");
        }
    }

    private void loop() {
        while (true) {
            List<Asked> batch;
            synchronized (asked) {
                while (asked.isEmpty() && !closed) {
                    try {
                        asked.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (asked.isEmpty()) {
                    return;
                }
                List<Asked> first = asked.subList(0, Math.min(MAX, asked.size()));
                batch = new ArrayList<>(first);
                first.clear();
            }
            long start = System.nanoTime();
            send(batch);
            timer.add(start, batch.size());
        }
    }

    private void send(List<Asked> batch) {
        if (batch.size() == 1 || alone) {
            for (Asked a : batch) {
                try {
                    a.answer.complete(service.postAlone(Route.START, a.json));
                } catch (ServiceHttp.Unavailable | ServiceHttp.Refused | RuntimeException e) {
                    a.answer.completeExceptionally(e);
                }
            }
            return;
        }
        StringBuilder body = new StringBuilder(batch.size() * 400).append("{\"starts\":[");
        for (int i = 0; i < batch.size(); i++) {
            body.append(i == 0 ? "" : ",").append(batch.get(i).json);
        }
        body.append("]}");
        try {
            List<Map<String, String>> outcomes = service.postForList(Route.STARTS, body.toString());
            if (outcomes.size() == batch.size()) {
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).answer.complete(outcomes.get(i));
                }
                return;
            }
        } catch (ServiceHttp.Unavailable e) {
            batch.forEach(a -> a.answer.completeExceptionally(e));
            return;
        } catch (ServiceHttp.Refused e) {
            alone |= e.status == 404;
        } catch (RuntimeException e) {
            // sent alone below
        }
        batch.forEach(a -> a.answer.completeExceptionally(new SendAlone()));
    }

    /** Answers what is asked already, then stops. */
    @Override
    public void close() {
        synchronized (asked) {
            closed = true;
            asked.notifyAll();
        }
    }
}
