package org.alpsbridge.proxy.ledger;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.ledger.timelimit.TimeLimit;
import org.alpsbridge.ledger.timelimit.SlurmTime;
import org.alpsbridge.ledger.timelimit.TimeLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slurm's jobs' accounts and time limits, read by {@code squeue -h -o "%i|%a|%l"} on a thread of its own every
 * {@code interval}, never during a call. slurmctld 18.08 sends RESERVE (and INVENTORY) while it holds its job write
 * lock, and squeue needs that lock: asked from inside the RESERVE, squeue would wait for the very answer it holds
 * up (seen here: every such lookup ran into its time limit). A job submitted and started between two reads is
 * not in the table: its account is then the owner's group's project and its time limit the default, as the log
 * says.
 */
final class SlurmJobTable implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SlurmJobTable.class);

    private record Job(String account, Long limitSeconds) {
    }

    private final Map<String, Job> jobs = new ConcurrentHashMap<>();
    private final ScheduledExecutorService reader = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "slurm-job-table");
        t.setDaemon(true);
        return t;
    });
    private final List<String> command;

    SlurmJobTable(List<String> command, Duration interval) {
        this.command = List.copyOf(command);
        reader.scheduleWithFixedDelay(this::read, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The table of {@code squeue -h -o %i|%a|%l}, read every 2 s. */
    static SlurmJobTable squeue() {
        return new SlurmJobTable(List.of("squeue", "-h", "-o", "%i|%a|%l"), Duration.ofSeconds(2));
    }

    Optional<String> account(String batchId) {
        Job j = jobs.get(batchId);
        return j == null || j.account().isEmpty() || j.account().equals("(null)") ? Optional.empty() : Optional.of(j.account());
    }

    /** As a time-limit source for the ledger. */
    TimeLimits.Source limits() {
        return batchId -> {
            Job j = jobs.get(batchId);
            return j == null || j.limitSeconds() == null ? Optional.empty()
                    : Optional.of(new TimeLimit(j.limitSeconds(), "squeue (read in the background)"));
        };
    }

    /** Parses lines of {@code ID|ACCOUNT|LIMIT} into the table, replacing it. */
    void accept(String text) {
        Map<String, Job> fresh = new java.util.HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.strip().split("\\|", -1);
            if (f.length != 3 || f[0].isEmpty()) {
                continue;
            }
            Long limit;
            try {
                limit = SlurmTime.parse(f[2]).orElse(null);
            } catch (RuntimeException e) {
                limit = null;
            }
            fresh.put(f[0], new Job(f[1].strip(), limit));
        }
        jobs.keySet().retainAll(fresh.keySet());
        jobs.putAll(fresh);
    }

    private void read() {
        File out = null;
        try {
            out = File.createTempFile("alpsbridge-squeue", ".out");
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).redirectOutput(out).start();
            p.getOutputStream().close();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                log.debug("'{}' took longer than 60 s; the job table keeps its last reading", String.join(" ", command));
                return;
            }
            if (p.exitValue() == 0) {
                accept(Files.readString(out.toPath(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            log.debug("cannot run '{}': {}", String.join(" ", command), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (out != null) {
                out.delete();
            }
        }
    }

    @Override
    public void close() {
        reader.shutdownNow();
    }
}
