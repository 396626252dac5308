package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The agent's reading of job records: the ids asked for while one squeue runs are asked together by the
 * next, so a storm of prologs makes a handful of {@code squeue -j ID,ID,...} calls (each one RPC to
 * slurmctld) instead of a process and an RPC per job. No pause is added to gather a batch: a lone call
 * runs at once.
 */
final class SqueueBatch implements Hook.JobRecords, AutoCloseable {

    private static final long WAIT_SECONDS = 60;

    private final Slurm slurm;
    private final AgentStats.Timer timer;
    private final Map<String, List<CompletableFuture<Map<String, String>>>> waiting = new LinkedHashMap<>();
    private final Thread runner;
    private volatile boolean closed;

    SqueueBatch(Slurm slurm, AgentStats.Timer timer) {
        this.slurm = slurm;
        this.timer = timer;
        this.runner = new Thread(this::loop, "ledger-hook-squeue");
        runner.setDaemon(true);
        runner.start();
    }

    @Override
    public Map<String, String> job(String jobId) throws IOException {
        CompletableFuture<Map<String, String>> f = new CompletableFuture<>();
        synchronized (waiting) {
            if (closed) {
                throw new IOException("the agent is stopping");
            }
            waiting.computeIfAbsent(jobId, k -> new ArrayList<>()).add(f);
            waiting.notifyAll();
        }
        try {
            return new HashMap<>(f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("squeue did not answer for job " + jobId + " in " + WAIT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for squeue");
        }
    }

    private void loop() {
        while (true) {
            Map<String, List<CompletableFuture<Map<String, String>>>> batch;
            synchronized (waiting) {
                while (waiting.isEmpty() && !closed) {
                    try {
                        waiting.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                batch = new LinkedHashMap<>(waiting);
                waiting.clear();
            }
            long start = System.nanoTime();
            try {
                Map<String, Map<String, String>> records = slurm.jobs(batch.keySet());
                timer.add(start, batch.size());
                batch.forEach((id, fs) -> fs.forEach(f -> f.complete(records.getOrDefault(id, Map.of()))));
            } catch (IOException | RuntimeException e) {
                batch.values().forEach(fs -> fs.forEach(f -> f.completeExceptionally(e)));
            }
        }
    }

    @Override
    public void close() {
        synchronized (waiting) {
            closed = true;
            waiting.values().forEach(fs -> fs.forEach(f -> f.completeExceptionally(new IOException("the agent is stopping"))));
            waiting.clear();
            waiting.notifyAll();
        }
    }
}
