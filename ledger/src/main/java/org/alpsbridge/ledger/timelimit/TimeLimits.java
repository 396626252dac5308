package org.alpsbridge.ledger.timelimit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.ledger.LedgerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a reservation's time limit comes from. BASIL RESERVE carries none, so the proxy asks the
 * scheduler ({@code squeue -h -j BATCH_ID -o %l}) or a file, and falls back to a per-partition default;
 * the choice is logged.
 */
public final class TimeLimits {

    private static final Logger log = LoggerFactory.getLogger(TimeLimits.class);

    /** Looks up one job's limit; empty when the source does not know the job. */
    @FunctionalInterface
    public interface Source {
        Optional<TimeLimit> of(String batchId);
    }

    private final Source source;
    private final Map<String, Long> partitionDefaults;
    private final long fallbackSeconds;

    /**
     * @param source the job-information source, or null for defaults only
     * @param partitionDefaults default limit in seconds per partition
     * @param fallbackSeconds the limit when neither the source nor a partition default knows (must be &gt; 0)
     */
    public TimeLimits(Source source, Map<String, Long> partitionDefaults, long fallbackSeconds) {
        if (fallbackSeconds <= 0) {
            throw new LedgerException("default time limit must be positive, got " + fallbackSeconds + " s");
        }
        this.source = source;
        this.partitionDefaults = Map.copyOf(partitionDefaults);
        this.fallbackSeconds = fallbackSeconds;
    }

    /** The limit of a job, from the source if it knows it, else the partition's default. */
    public TimeLimit resolve(String batchId, String partition) {
        if (source != null && batchId != null) {
            try {
                Optional<TimeLimit> found = source.of(batchId);
                if (found.isPresent()) {
                    log.info("time limit of job {}: {} s from {}", batchId, found.get().seconds(), found.get().source());
                    return found.get();
                }
            } catch (RuntimeException e) {
                log.warn("time limit of job {}: source failed ({}); using the default", batchId, e.getMessage());
            }
        }
        Long d = partition == null ? null : partitionDefaults.get(partition);
        TimeLimit limit = d != null ? new TimeLimit(d, "partition " + partition + " default")
                : new TimeLimit(fallbackSeconds, "site default");
        log.info("time limit of job {}: {} s from {}", batchId, limit.seconds(), limit.source());
        return limit;
    }

    /** {@link SlurmTime#parse}: kept for callers of this class. */
    public static Optional<Long> parseSlurmTime(String text) {
        return SlurmTime.parse(text);
    }

    /**
     * Asks the scheduler by running a command with {@code {job}} replaced by the batch id, e.g.
     * {@code squeue -h -j {job} -o %l}; its first output line is the limit. A command that fails, prints
     * nothing or takes longer than {@code timeoutMs} means "unknown".
     */
    public static Source command(List<String> template, long timeoutMs) {
        String description = String.join(" ", template);
        return batchId -> {
            if (!batchId.matches("[0-9A-Za-z_.\\-]+")) {
                return Optional.empty(); // never hand an odd id to a command line
            }
            List<String> cmd = new ArrayList<>();
            for (String part : template) {
                cmd.add(part.replace("{job}", batchId));
            }
            try {
                Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
                p.getOutputStream().close();
                if (!p.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    log.warn("'{}' for job {} took longer than {} ms", description, batchId, timeoutMs);
                    return Optional.empty();
                }
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                if (p.exitValue() != 0 || out.isEmpty()) {
                    return Optional.empty();
                }
                return parseSlurmTime(out.lines().findFirst().orElse(""))
                        .map(s -> new TimeLimit(s, description.replace("{job}", batchId)));
            } catch (IOException e) {
                log.warn("cannot run '{}': {}", description, e.getMessage());
                return Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        };
    }

    /** {@code squeue -h -j JOB -o %l}, with a 5 s timeout. */
    public static Source squeue() {
        return command(List.of("squeue", "-h", "-j", "{job}", "-o", "%l"), 5_000);
    }

    /**
     * A file of {@code BATCH_ID LIMIT} lines (LIMIT as a Slurm time, e.g. {@code 90} minutes or
     * {@code 1-00:00:00}), re-read on every lookup so tests and sites can update it; {@code #} comments.
     */
    public static Source file(Path path) {
        return batchId -> {
            List<String> lines;
            try {
                lines = Files.readAllLines(path, StandardCharsets.UTF_8);
            } catch (IOException e) {
                log.warn("cannot read time-limit file {}: {}", path, e.getMessage());
                return Optional.empty();
            }
            for (String line : lines) {
                String l = line.strip();
                if (l.isEmpty() || l.startsWith("#")) {
                    continue;
                }
                String[] f = l.split("[\\s=]+", 2);
                if (f.length == 2 && f[0].equals(batchId)) {
                    return parseSlurmTime(f[1]).map(s -> new TimeLimit(s, "file " + path));
                }
            }
            return Optional.empty();
        };
    }
}
