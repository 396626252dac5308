package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the hooks ask slurmctld beyond their environment, and what they tell it, through Slurm's own
 * commands (which find slurmctld through {@code SLURM_CONF}, default {@code /etc/slurm/slurm.conf}). Each
 * is one RPC; none is made while slurmctld holds a lock the hook's job needs (the prolog and epilog run in
 * threads of their own).
 */
final class Slurm implements Hook.JobRecords, SqueueBatch.Listings, UnheardProlog.Slurmctld {

    private static final long TIMEOUT_SECONDS = 20;
    /** squeue's fields of a job record; no free-text field (name, comment), so nothing a user typed can be taken for one. */
    private static final String FIELDS = "JobID:|,TimeLimit:|,TimeUsed:|,Reason:|,RestartCnt:|,State:|";
    /** The same of a job waiting or starting, with what says whether its limit may still change as it starts. */
    private static final String WAITING_FIELDS = "JobID:|,ArrayJobID:|,ArrayTaskID:|,TimeLimit:|,MinTime:|,Partition:|,"
            + "State:|,TimeUsed:|,Reason:|,RestartCnt:|";

    /** slurm.conf for Slurm's commands; null: theirs ({@code SLURM_CONF} or /etc/slurm/slurm.conf). */
    private final String slurmConf;

    Slurm(String slurmConf) {
        this.slurmConf = slurmConf == null || slurmConf.isBlank() ? null : slurmConf;
    }

    /**
     * The job's time limit, time used, reason, restart count and state ({@code squeue -O}); empty when
     * slurmctld no longer knows the job. The job's free-text fields (name, comment) are not asked for, so
     * nothing a user typed can be taken for a field.
     */
    @Override
    public Map<String, String> job(String jobId) throws IOException {
        Map<String, String> facts = jobs(List.of(jobId)).get(jobId);
        return facts == null ? new HashMap<>() : facts;
    }

    /**
     * {@link #job} of several jobs in one squeue call (one RPC to slurmctld, however many jobs): by job id;
     * a job slurmctld no longer knows is absent.
     */
    @Override
    public Map<String, Map<String, String>> jobs(Collection<String> jobIds) throws IOException {
        String out;
        try {
            out = run(List.of("squeue", "-h", "-t", "all", "-j", String.join(",", jobIds), "-O", FIELDS));
        } catch (IOException e) {
            // squeue asked for one job id that slurmctld has forgotten answers so, not with an empty list
            if (e.getMessage().contains("Invalid job id")) {
                return new HashMap<>();
            }
            throw e;
        }
        return parse(out, "jobs " + String.join(",", jobIds));
    }

    /**
     * {@link #job} of every job waiting to start (PENDING, each task of an array on its own) or being started
     * (CONFIGURING: its PrologSlurmctld runs), by {@link SlurmJob#queueKey} ({@code ARRAYJOB_TASK} for a task of
     * an array, else the job id), with the job's {@code partition} and {@code mintime} (its {@code --time-min},
     * {@code 0:00} when none: slurmctld may lower such a job's limit as it starts it): one RPC for a whole wave
     * of prologs. squeue asks slurmctld for every job whichever it prints, so this costs what a
     * {@code -j ID,ID} of a few does.
     */
    @Override
    public Map<String, Map<String, String>> waiting() throws IOException {
        String out = run(List.of("squeue", "-h", "-r", "-t", "PENDING,CONFIGURING", "-O", WAITING_FIELDS));
        Map<String, Map<String, String>> all = new HashMap<>();
        for (String[] f : rows(out, 10, "the jobs waiting or starting")) {
            Map<String, String> facts = facts(f[3], f[7], f[8], f[9], f[6]);
            facts.put("mintime", f[4].strip());
            facts.put("partition", f[5].strip());
            String task = f[2].strip();
            all.put(task.matches("[0-9]+") ? f[1].strip() + "_" + task : f[0].strip(), facts);
        }
        return all;
    }

    private static Map<String, Map<String, String>> parse(String out, String asked) throws IOException {
        Map<String, Map<String, String>> all = new HashMap<>();
        for (String[] f : rows(out, 6, asked)) {
            all.put(f[0].strip(), facts(f[1], f[2], f[3], f[4], f[5]));
        }
        return all;
    }

    /** squeue's lines of {@code |}-separated fields, each with {@code fields} at least. */
    private static List<String[]> rows(String out, int fields, String asked) throws IOException {
        List<String[]> rows = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.strip().split("\\|", -1);
            if (f.length < fields) {
                throw new IOException("squeue answered '" + line.strip() + "' for " + asked);
            }
            rows.add(f);
        }
        return rows;
    }

    private static Map<String, String> facts(String limit, String used, String reason, String restarts, String state) {
        Map<String, String> facts = new HashMap<>();
        facts.put("limit", limit.strip());
        facts.put("used", used.strip());
        facts.put("reason", reason.strip());
        facts.put("restarts", restarts.strip());
        facts.put("state", state.strip());
        return facts;
    }

    /** Whether any of these nodes is down or failed now ({@code sinfo -n}). */
    boolean anyNodeDown(String nodeList) throws IOException {
        if (nodeList == null || nodeList.isBlank()) {
            return false;
        }
        for (String state : run(List.of("sinfo", "-h", "-N", "-n", nodeList, "-o", "%T")).split("\n")) {
            String s = state.strip().toLowerCase();
            if (s.startsWith("down") || s.startsWith("fail")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Leaves a note on the job that its owner sees in {@code scontrol show job} ({@code AdminComment}, which
     * users cannot change); {@code noRequeue} also clears the job's requeue flag, so that the failing prolog
     * makes slurmctld cancel the job instead of requeueing it to be denied again, for ever.
     */
    void note(String jobId, String text, boolean noRequeue) throws IOException {
        List<String> argv = new ArrayList<>(List.of("scontrol", "update", "JobId=" + jobId));
        if (noRequeue) {
            argv.add("Requeue=0");
        }
        argv.add("AdminComment=" + text.replace('\n', ' '));
        run(argv);
    }

    /**
     * {@code scontrol requeue}: the job goes back to pending for a new run, as after a failing prolog; false when
     * slurmctld refuses because the job may not be requeued ({@code --no-requeue}, not a batch job).
     */
    @Override
    public boolean requeue(String jobId) throws IOException {
        try {
            run(List.of("scontrol", "requeue", jobId));
            return true;
        } catch (IOException e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("presently disabled") || m.contains("Only batch jobs")) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void cancel(String jobId) throws IOException {
        run(List.of("scancel", jobId));
    }

    private String run(List<String> argv) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(argv)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        if (slurmConf != null) {
            pb.environment().put("SLURM_CONF", slurmConf);
        }
        Process p = pb.start();
        try {
            // Wait first, read after: the answers are a line or two, far below a pipe's buffer, and reading
            // first would wait as long as the command (squeue retries a missing slurm.conf for a minute).
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", argv) + " did not finish in " + TIMEOUT_SECONDS + " s");
            }
            byte[] out = p.getInputStream().readAllBytes();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", argv) + " failed (exit " + p.exitValue() + "): " + err);
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + argv.get(0));
        }
    }
}
