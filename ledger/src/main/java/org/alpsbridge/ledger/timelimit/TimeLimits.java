package org.alpsbridge.ledger.timelimit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.alpsbridge.ledger.LedgerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a reservation's time limit comes from. BASIL RESERVE carries none, so the proxy asks a source (the
 * scheduler's job table as the proxy reads it in the background, or a file) and falls back to a per-partition
 * default; the choice is logged. There is deliberately no source that runs {@code squeue} per lookup: slurmctld
 * 18.08 holds its job lock while it waits for RESERVE, so a squeue inside a RESERVE waits on the very call it
 * is part of.
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
                    return SlurmTime.parse(f[1]).map(s -> new TimeLimit(s, "file " + path));
                }
            }
            return Optional.empty();
        };
    }
}
