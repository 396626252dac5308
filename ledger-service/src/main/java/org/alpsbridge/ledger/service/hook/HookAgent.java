package org.alpsbridge.ledger.service.hook;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.agent.AgentServer;

/**
 * {@code alpsbridge ledger hook-agent}: the resident half of {@code ledger-prolog} and {@code ledger-epilog}.
 * slurmctld starts the small C client per call; the client hands the call to this agent over a unix socket and
 * exits with its answer, so no JVM starts on slurmctld's dispatch path. The agent runs the prolog as
 * {@link SlurmHook} would (same {@link Hook}, same exit codes and lines), reading job records in batches
 * ({@link SqueueBatch}, listed ahead of a wave when jobs end), sending a wave's holds together
 * ({@link StartBatch}) and keeping its HTTP connections to the service alive; an epilog is written to the
 * spool and answered at once, and settled by {@link EpilogSpool}'s workers for as long as the service takes
 * to answer. Only callers of the agent's own user and root are served (the socket's {@code SO_PEERCRED}).
 */
public final class HookAgent implements AutoCloseable {

    /** How long a caller may take to send its request before the agent hangs up on it. */
    private static final long REQUEST_SECONDS = 30;
    /** How often the journal gets a line of what the agent did (when it did something). */
    private static final long REPORT_SECONDS = 10;
    /** A settlement waits this long after the last prolog was answered, */
    private static final long PROLOG_QUIET_MILLIS = 200;
    /** but no longer than this in all (prologs without end do not starve settlements). */
    private static final long YIELD_MILLIS = 5_000;

    private final HookSettings settings;
    private final Path socket;
    private final AgentServer server;
    private final Slurm slurm;
    private final SqueueBatch squeue;
    private final ServiceCall service;
    private final StartBatch starts;
    private final Path logFile;
    private final EpilogSpool spool;
    private final PrintStream log;
    private final AgentStats stats = new AgentStats();
    private final AgentMetrics metrics;
    private final HeldRuns held = new HeldRuns();
    private final UnheardProlog unheard = new UnheardProlog();
    /** How often the runs whose prolog's answer slurmctld did not hear are looked at. */
    private static final long UNHEARD_SECONDS = 2;
    /** Runs slurmctld's commands for {@link #unheard}, off the timer that keeps the calls' deadlines. */
    private final java.util.concurrent.ScheduledExecutorService unheardTimer =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "ledger-hook-agent-unheard");
                t.setDaemon(true);
                return t;
            });
    /** Prologs being answered now, and when the last one was. */
    private final java.util.concurrent.atomic.AtomicInteger prologs = new java.util.concurrent.atomic.AtomicInteger();
    private volatile long lastProlog = System.nanoTime() - TimeUnit.SECONDS.toNanos(60);
    /**
     * After a submission check the ledger could not answer, the next ones are answered "cannot say" at once for
     * this long: slurmctld holds its locks while job_submit waits, so a hung service costs one submission its
     * submit_timeout every 10 s, not every submission (then one is asked again).
     */
    private static final long QUOTE_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(10);
    private volatile long quotesDownUntil = System.nanoTime() - QUOTE_BACKOFF_NANOS;
    private final ScheduledFuture<?> reports;

    private HookAgent(HookSettings settings, Map<String, String> env, PrintStream log) throws IOException {
        this.settings = settings;
        this.log = log;
        this.socket = settings.agentSocket();
        this.service = new ServiceCall(settings, stats);
        this.starts = new StartBatch(service, stats.startRequests);
        service.startingThrough(starts);
        this.slurm = new Slurm(settings.slurmConf());
        this.logFile = HookLog.resolve(settings.logFile(), settings.slurmConf(), env.get("SLURM_CONF"));
        log.println("ledger hook-agent: the hooks' lines go to " + (logFile == null ? "the callers' stderr only"
                + " (log_file=" + settings.logFile() + "; for slurmctld: no SlurmctldLogFile in slurm.conf)" : logFile));
        this.squeue = new SqueueBatch(slurm, stats.squeues, stats.prologRecords);
        this.spool = new EpilogSpool(settings.spool(), settings.agentWorkers(), this::settle, log);
        this.metrics = new AgentMetrics(spool::pending);
        this.server = AgentServer.start(socket, new AgentServer.Limits("ledger hook-agent", "hook agent",
                AgentCodec.MAX_FRAME, settings.agentThreads(), 0, TimeUnit.SECONDS.toMillis(REQUEST_SECONDS), 0),
                new Calls(), log);
        this.reports = server.timer().scheduleWithFixedDelay(this::everyPeriod, REPORT_SECONDS, REPORT_SECONDS,
                TimeUnit.SECONDS);
        unheardTimer.scheduleWithFixedDelay(this::seeUnheardThrough, UNHEARD_SECONDS, UNHEARD_SECONDS, TimeUnit.SECONDS);
        if (settings.agentMetrics() != null) {
            try {
                metrics.serve(settings.agentMetrics());
            } catch (IOException e) {
                close();
                throw e;
            }
            log.println("ledger hook-agent: metrics on http://" + settings.agentMetrics().getHostString() + ":"
                    + metrics.port() + "/metrics");
        }
    }

    /** The runs whose prolog's answer slurmctld did not hear: those it started without it are requeued or cancelled. */
    private void seeUnheardThrough() {
        if (unheard.size() == 0) {
            return;
        }
        HookLog said = new HookLog(log, logFile);
        for (String line : unheard.reconcile(slurm, this::voidHold)) {
            said.say(line);
        }
    }

    /** Voids the hold this agent's prolog made for a run that never started; false: try again later. */
    private boolean voidHold(SlurmJob job) {
        if (!held.settling(job)) {
            return true; // no hold of this agent's (denied, unavailable, or held before its start)
        }
        if (new Hook(job, squeue, slurm, service, new HookLog(log, logFile), 0, held).voidHold()) {
            return true;
        }
        held.held(job);
        return false;
    }

    /**
     * Starts the agent on the settings of {@code ledger-hook.conf} (env {@code ALPSBRIDGE_LEDGER_HOOK_CONFIG}
     * names another): binds the socket and settles what the spool holds.
     *
     * @param log where the agent says what it does (its journal)
     * @throws IllegalArgumentException naming a bad setting
     * @throws IOException when the socket cannot be bound (another agent holds it) or the spool is unusable
     */
    public static HookAgent start(Map<String, String> env, PrintStream log) throws IOException {
        return start(env, List.of(), log);
    }

    /**
     * {@link #start(Map, PrintStream)} with options over the file's settings, as a call's would be
     * ({@code --db URL}, {@code --when-unavailable}, {@code --timeout}).
     */
    public static HookAgent start(Map<String, String> env, List<String> options, PrintStream log) throws IOException {
        HookSettings settings = HookSettings.read(env).withOptions(true, options);
        // Keep-alive connections to the service: the JDK keeps up to this many per host (default 5).
        System.setProperty("http.maxConnections", Integer.toString(settings.agentThreads() + settings.agentWorkers()));
        HookAgent agent = new HookAgent(settings, env, log);
        agent.warm();
        return agent;
    }

    /**
     * Runs the submission path once before the agent says it is ready: a call decoded as the C client frames it, a
     * quote for a job of no project (read-only: the service holds nothing) and its answer framed. The classes it
     * loads, the code the JIT compiles first and the service's connection (and its first query) are then paid
     * here, not by the first submission, which slurmctld waits for under its locks within submit_timeout.
     */
    private void warm() {
        long start = System.nanoTime();
        byte[] call = String.join("\0", "v=1", "mode=submit", "arg=--timeout", "arg=1",
                "env=SLURM_JOB_ACCOUNT=alpsbridge-warm-up", "env=SLURM_JOB_USER=alpsbridge-warm-up",
                "env=SLURM_JOB_PARTITION=alpsbridge-warm-up", "env=SLURM_JOB_CPUS=1", "env=SLURM_JOB_TIME_LIMIT=1", "")
                .getBytes(StandardCharsets.UTF_8);
        AgentRequest request = AgentCodec.request(call);
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        int exit = Submission.fromEnvironment(request.env()).check(service,
                new HookLog(new PrintStream(said, true, StandardCharsets.UTF_8), null));
        AgentCodec.frame(new AgentReply(exit, said.toString(StandardCharsets.UTF_8).lines().toList()));
        log.println("ledger hook-agent: the submission path is warm (a quote of no project's job answered exit "
                + exit + " in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms)");
    }

    /** The socket it listens on. */
    public Path socket() {
        return socket;
    }

    /** How many spooled epilogs wait to be settled. */
    public int pendingSettlements() {
        return spool.pending();
    }

    /** The period's line, and what the spool holds that no notice brought (a client's notice was lost). */
    private void everyPeriod() {
        stats.report(log);
        try {
            int found = spool.rescan();
            if (found > 0) {
                log.println("ledger hook-agent: " + found + " spooled epilog(s) found in " + settings.spool()
                        + " before (or without) their client's notice, settling them");
            }
        } catch (IOException | RuntimeException e) {
            log.println("ledger hook-agent: cannot read the spool " + settings.spool() + ": " + e);
        }
    }

    /** A process of its own (the tests', like {@code alpsbridge ledger hook-agent}): prints READY, stops on SIGTERM. */
    public static void main(String[] args) throws Exception {
        HookAgent agent = start(System.getenv(), System.out);
        Runtime.getRuntime().addShutdownHook(new Thread(agent::close));
        System.out.println("READY " + agent.socket());
        System.out.flush();
        Thread.currentThread().join();
    }

    /** The agent's side of a call ({@link AgentServer} does the socket, the callers' check and the deadline). */
    private final class Calls implements AgentServer.Calls<Call> {

        @Override
        public Call request(byte[] payload) {
            return new Call(AgentCodec.request(payload));
        }

        @Override
        public byte[] answer(Call call, String who) {
            AgentReply reply = handle(call.request);
            call.exit = reply.exit();
            if (call.request.prolog()) {
                try {
                    call.job = SlurmJob.fromEnvironment(call.request.env());
                    unheard.sending(call.job);
                } catch (IllegalArgumentException e) {
                    // no run to follow (answered with the reason)
                }
            }
            // the C client that spooled an epilog went without waiting
            return call.request.spooled() == null ? AgentCodec.frame(reply) : null;
        }

        @Override
        public void answered(Call call, boolean reached) {
            SlurmJob job = call.job;
            if (job == null) {
                return;
            }
            if (reached) {
                unheard.heard(job);
            } else {
                log.println("ledger hook-agent: job " + job.jobId() + " run " + job.resId() + ": the prolog's answer (exit "
                        + call.exit + ") was not heard: its caller was gone (killed by slurmctld?)");
                unheard.unheard(job, call.exit);
            }
        }

        @Override
        public byte[] refused(String who, String self) {
            return AgentCodec.frame(new AgentReply(SlurmHook.UNAVAILABLE, List.of("ledger hook agent: user " + who
                    + " may not use this agent (it serves " + self + ", slurmctld's SlurmUser, and root)")));
        }

        @Override
        public byte[] badRequest(String reason) {
            return AgentCodec.frame(new AgentReply(SlurmHook.USAGE, List.of("ledger hook agent: bad request: " + reason)));
        }
    }

    /** A call being served: its request, and the answer's exit once decided (a prolog's: and its run). */
    private static final class Call {
        final AgentRequest request;
        volatile int exit = -1;
        volatile SlurmJob job;

        Call(AgentRequest request) {
            this.request = request;
        }
    }

    AgentReply handle(AgentRequest request) {
        long start = System.nanoTime();
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(said, true, StandardCharsets.UTF_8);
        String name = "ledger " + request.mode();
        HookSettings s;
        ServiceCall svc;
        try {
            s = settings.withOptions(request.prolog(), request.options());
            svc = request.options().isEmpty() ? service : new ServiceCall(s, stats);
        } catch (IllegalArgumentException e) {
            return new AgentReply(SlurmHook.USAGE, List.of(name + ": " + e.getMessage()));
        }
        if (request.submit()) {
            // job_submit, under slurmctld's locks: one read-only question, never retried (the client's
            // submit_timeout bounds the wait and its submit_when_unavailable decides without an answer)
            Submission job;
            try {
                job = Submission.fromEnvironment(request.env());
            } catch (IllegalArgumentException e) {
                return new AgentReply(SlurmHook.NO_JOB, List.of(name + ": " + e.getMessage()));
            }
            long down = quotesDownUntil - System.nanoTime();
            int exit = job.check(down > 0 ? null : svc, new HookLog(err, logFile));
            if (down > 0 && exit == SlurmHook.UNAVAILABLE) {
                err.println(name + ": the ledger did not answer a submission check a moment ago; asked again in "
                        + TimeUnit.NANOSECONDS.toMillis(down) + " ms");
            } else if (exit == SlurmHook.UNAVAILABLE) {
                quotesDownUntil = System.nanoTime() + QUOTE_BACKOFF_NANOS;
            }
            stats.submissions.add(start, 1);
            metrics.count(AgentMetrics.SUBMISSIONS, exit);
            return new AgentReply(exit, said.toString(StandardCharsets.UTF_8).lines().toList());
        }
        SlurmJob job;
        try {
            job = SlurmJob.fromEnvironment(request.env());
        } catch (IllegalArgumentException e) {
            return new AgentReply(SlurmHook.NO_JOB, List.of(name + ": " + e.getMessage()));
        }
        int exit;
        if (request.prolog()) {
            prologs.incrementAndGet();
            try {
                exit = new Hook(job, squeue, slurm, svc, new HookLog(err, logFile), s.prologRetryMillis(), held)
                        .prolog(s.allow());
            } finally {
                lastProlog = System.nanoTime();
                prologs.decrementAndGet();
            }
            stats.prologs.add(start, 1);
            metrics.count(AgentMetrics.PROLOGS, exit);
        } else if (request.spooled() != null) {
            // the C client wrote the settlement into the spool itself and did not wait for this answer; a job
            // ended, so the next wave's prologs are near: their records are listed now, off their path
            squeue.lookAhead();
            try {
                if (!spool.adopt(request.spooled())) {
                    log.println("ledger hook-agent: " + name + ": job " + job.jobId() + ": no " + request.spooled()
                            + " in the spool (settled already)");
                }
            } catch (IllegalArgumentException e) {
                log.println("ledger hook-agent: " + name + ": " + e.getMessage());
            }
            stats.epilogsSpooledByClient.add(start, 1);
            exit = SlurmHook.OK;
        } else {
            squeue.lookAhead();
            try {
                Path file = spool.put(job, request.at(Instant.now()));
                err.println(name + ": job " + job.jobId() + " run " + job.resId() + ": spooled for settlement (" + file + ")");
                exit = SlurmHook.OK;
                stats.epilogsSpooled.add(start, 1);
            } catch (IOException e) {
                new HookLog(err, logFile).say(name + ": job " + job.jobId() + " run " + job.resId()
                        + ": cannot write the spool (" + e + "); NOT settled: the hold stays until `alpsbridge ledger sweep`");
                exit = SlurmHook.UNAVAILABLE;
            }
        }
        return new AgentReply(exit, said.toString(StandardCharsets.UTF_8).lines().toList());
    }

    /** A spooled epilog, settled as the JVM epilog settles, trying an unavailable service until it answers. */
    private int settle(AgentRequest request) {
        SlurmJob job;
        HookSettings s;
        try {
            job = SlurmJob.fromEnvironment(request.env());
            s = settings.withOptions(false, request.options());
        } catch (IllegalArgumentException e) {
            log.println("ledger hook-agent: a spooled epilog is unusable: " + e.getMessage());
            metrics.count(AgentMetrics.SETTLEMENTS, SlurmHook.NO_JOB);
            return SlurmHook.NO_JOB;
        }
        ServiceCall svc = request.options().isEmpty() ? service : new ServiceCall(s, stats);
        yieldToPrologs();
        long start = System.nanoTime();
        int exit = new Hook(job, squeue, slurm, svc, new HookLog(log, logFile), Hook.FOREVER, held)
                .epilog(request.at());
        stats.settlements.add(start, 1);
        metrics.count(AgentMetrics.SETTLEMENTS, exit);
        return exit;
    }

    /**
     * Waits while prologs are being answered (and {@link #PROLOG_QUIET_MILLIS} after the last), at most
     * {@link #YIELD_MILLIS}: a job holds its CPUs while its prolog runs, so slurmctld's dispatch path comes first;
     * a settlement waits for no one, and sent a moment later it competes with none of them for the CPU, munged
     * or the service.
     */
    private void yieldToPrologs() {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(YIELD_MILLIS);
        while (System.nanoTime() < until && (prologs.get() > 0
                || System.nanoTime() - lastProlog < TimeUnit.MILLISECONDS.toNanos(PROLOG_QUIET_MILLIS))) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops accepting, answers the calls in flight, leaves unsettled epilogs in the spool for the next start. */
    @Override
    public void close() {
        reports.cancel(false);
        unheardTimer.shutdownNow();
        metrics.close();
        server.close(TimeUnit.SECONDS.toMillis(30));
        stats.report(log);
        spool.close();
        squeue.close();
        starts.close();
    }
}
