package org.alpsbridge.timing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** The jobs a replay submits: drawn from a seeded distribution, or read from a {@code sacct} export. */
public final class Workload {

    private Workload() {
    }

    /**
     * Draws jobs the way a mixed HPC queue looks: sizes log-uniform between 1 and {@code maxNodes}
     * (many small jobs, a few large), wall times log-uniform between 1 minute and 12 hours, arrivals
     * a Poisson process with the given mean gap. The same seed gives the same jobs.
     */
    public static List<Job> generate(long seed, int count, int maxNodes, double meanGapSeconds,
                                     List<String> users, List<String> accounts) {
        if (count < 0 || maxNodes < 1 || meanGapSeconds < 0 || users.isEmpty() || accounts.isEmpty()) {
            throw new IllegalArgumentException("workload: need count >= 0, maxNodes >= 1, a gap >= 0, users and accounts");
        }
        Random random = new Random(seed);
        List<Job> jobs = new ArrayList<>(count);
        double clock = 0;
        for (int i = 0; i < count; i++) {
            clock += -Math.log(1 - random.nextDouble()) * meanGapSeconds;
            int nodes = (int) Math.min(maxNodes, Math.floor(Math.exp(random.nextDouble() * Math.log(maxNodes + 1.0))));
            long wall = (long) Math.exp(Math.log(60) + random.nextDouble() * (Math.log(12 * 3600) - Math.log(60)));
            int who = random.nextInt(users.size());
            jobs.add(new Job(1000 + i, (long) clock, Math.max(1, nodes), wall,
                    users.get(who), accounts.get(who % accounts.size())));
        }
        return jobs;
    }

    /**
     * Reads a {@code sacct} export, one job per line:
     * {@code sacct -a -X -P -n -o JobID,NNodes,ElapsedRaw,User,Account,Submit} (pipe-separated; Submit is
     * optional and, when present, either epoch seconds or {@code yyyy-MM-ddTHH:mm:ss}). Submission times
     * are made relative to the first job. Lines starting with '#' and blank lines are skipped.
     */
    public static List<Job> readSacct(Path file) throws IOException {
        List<Job> jobs = new ArrayList<>();
        long first = Long.MIN_VALUE;
        int lineNo = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNo++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\\|", -1);
            if (f.length < 5) {
                throw new IOException(file + ":" + lineNo + ": expected JobID|NNodes|ElapsedRaw|User|Account[|Submit], got \"" + line + "\"");
            }
            try {
                long id = Long.parseLong(f[0].replaceAll("[^0-9].*$", ""));
                int nodes = Integer.parseInt(f[1].trim());
                long elapsed = Long.parseLong(f[2].trim());
                long submit = f.length > 5 && !f[5].isBlank() ? parseSubmit(f[5].trim()) : jobs.size();
                if (first == Long.MIN_VALUE) {
                    first = submit;
                }
                jobs.add(new Job(id, Math.max(0, submit - first), nodes, elapsed, f[3].trim(), f[4].trim()));
            } catch (RuntimeException e) {
                throw new IOException(file + ":" + lineNo + ": " + e.getMessage() + " in \"" + line + "\"", e);
            }
        }
        jobs.sort((a, b) -> Long.compare(a.submitSecond(), b.submitSecond()));
        return jobs;
    }

    private static long parseSubmit(String s) {
        if (s.chars().allMatch(Character::isDigit)) {
            return Long.parseLong(s);
        }
        return java.time.LocalDateTime.parse(s).toEpochSecond(java.time.ZoneOffset.UTC);
    }
}
