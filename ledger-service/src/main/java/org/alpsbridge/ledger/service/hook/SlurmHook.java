package org.alpsbridge.ledger.service.hook;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * slurmctld's {@code PrologSlurmctld} and {@code EpilogSlurmctld}: the prolog holds the worst case of a job's
 * run in the ledger service before the job starts (or denies it), the epilog settles what the run used on
 * Slurm's own elapsed time. A JVM is started per call on slurmctld's dispatch path, so only plain JDK classes
 * are loaded (no logging framework, no JSON or HTTP library) and {@code bin/ledger-prolog} adds a CDS archive.
 * Messages go to stderr and, as Slurm 22.05 drops that, to slurmctld's log file ({@link HookLog}).
 */
public final class SlurmHook {

    /** The job may run (prolog) or its run is settled or had nothing to settle (epilog). */
    public static final int OK = 0;
    /** The ledger denied the job: slurmctld cancels it (its requeue flag was cleared) and the reason is on the job. */
    public static final int DENIED = 1;
    /** Bad options. */
    public static final int USAGE = 2;
    /**
     * The service could not be reached or refused the hook (prolog with {@code --when-unavailable refuse}:
     * slurmctld requeues the job and dispatches it again later; epilog: the run stays held in the ledger).
     */
    public static final int UNAVAILABLE = 3;
    /** The job's record from slurmctld was missing or malformed (environment or squeue). */
    public static final int NO_JOB = 4;

    /**
     * Set by the C client when it runs this hook because no agent answered its socket: why, so that the
     * fallback is said in slurmctld's log (the client's own stderr is dropped by Slurm 22.05).
     */
    static final String FALLBACK_ENV = "LEDGER_HOOK_FALLBACK";

    static final String HELP = """
            Usage: ledger-prolog [OPTIONS]      (slurm.conf: PrologSlurmctld=/usr/bin/ledger-prolog)
                   ledger-epilog [OPTIONS]      (slurm.conf: EpilogSlurmctld=/usr/bin/ledger-epilog)

            Charges Slurm jobs to the alpsbridge ledger service. slurmctld runs the prolog before a job starts:
            it holds the job's worst case (CPUs x time limit x the partition's billing weights, the ledger's
            cost model) in the project named by the job's account, or denies the job when the project cannot
            pay. A denied job is cancelled by slurmctld and never runs; its owner sees why in
            `scontrol show job` (AdminComment=ledger denied: ...) and `alpsbridge ledger failures`. The epilog
            settles the run on Slurm's own elapsed time (a run that ended by node failure costs nothing) and
            gives the rest of the hold back. A requeued job is held and charged once per run (the ledger's key
            is cluster, job id and restart count + 1). Facts come from slurmctld's environment (SLURM_JOB_ID,
            SLURM_JOB_ACCOUNT, SLURM_JOB_USER/UID, SLURM_JOB_PARTITION, SLURM_JOB_NUM_NODES,
            SLURM_JOB_CPUS_PER_NODE, SLURM_JOB_RESTART_COUNT, SLURM_CLUSTER_NAME) and squeue (time limit, time
            used, reason).

            Options:
              --db URL                 the ledger service, http://HOST:PORT or https://HOST:PORT
                                       (default: env ALPSBRIDGE_LEDGER)
              --when-unavailable refuse|allow
                                       prolog, when the service cannot answer (no connection, timeout, 5xx):
                                       refuse (default) fails the prolog, so slurmctld requeues the job and
                                       tries later; allow lets it run unheld, and the epilog charges it as a
                                       forced debit (flagged in `ledger alerts`)
              --retry-for SECONDS      keep trying an unavailable service this long (default: prolog 5,
                                       epilog 60)
              --timeout SECONDS        per request (default 10)
              --help                   this text

            slurm.conf gives the hooks no arguments, so their settings come from /etc/alpsbridge/ledger-hook.conf
            (env ALPSBRIDGE_LEDGER_HOOK_CONFIG names another), key=value lines, options win over it:
              db=URL  when_unavailable=refuse|allow  prolog_retry_for=5  epilog_retry_for=60  timeout=10
              slurm_conf=PATH (for squeue/scontrol; default theirs)  munge_socket=PATH (default: env
                                       ALPSBRIDGE_MUNGE_SOCKET, else libmunge's)
              tls_ca=PATH (the CA of an https:// service; default: env ALPSBRIDGE_LEDGER_TLS_CA, else the JDK's)
              log_file=slurmctld|none|PATH (default slurmctld: SlurmctldLogFile of slurm.conf; Slurm 22.05
                                       itself drops what these hooks print, so each line is appended there)

            The resident agent (`alpsbridge ledger hook-agent`, a systemd unit running as SlurmUser) does the
            work; ledger-prolog and ledger-epilog are then a small C client that hands it each call over a unix
            socket and exits with its answer. The prolog is answered when the job is held or denied; the epilog
            is written to the agent's spool (fsync'd) and answered at once, and the agent settles it, trying an
            unavailable service for as long as it takes (the spool survives a restart). No agent listening
            (the socket is missing or refuses): the client runs the JVM hook itself, as before, and says so in
            slurmctld's log. Keys of the agent and the client:
              agent_socket=/run/alpsbridge/ledger-hook.sock   agent_timeout=60 (the client waits this long for
                                       an answer, then exits 3: keep it above prolog_retry_for + timeout)
              agent_threads=64 (calls served at once)  agent_workers=4 (settlements sent at once)
              spool=/var/spool/alpsbridge/ledger-hook   jvm_hook=/usr/lib/alpsbridge/ledger-hook-jvm (the fallback)
              agent_metrics= (HOST:PORT of the agent's Prometheus /metrics; none by default)

            ledger-submit (the same client) is run by slurmctld's job_submit.lua (JobSubmitPlugins=lua) for every
            sbatch, srun and salloc: the agent asks the ledger whether the job's project could cover its worst
            case now (nothing is held), and a job it cannot cover is refused with the figures. It never starts a
            JVM; when the ledger cannot say, submit_when_unavailable decides:
              submit_timeout=2 (seconds the client waits for the agent)  submit_when_unavailable=allow|refuse

            The hooks run as SlurmUser and sign with its MUNGE identity (env ALPSBRIDGE_MUNGE_SOCKET, default
            libmunge's socket). Give SlurmUser the service's charger role (ledger-service.conf
            charger_uids=UID): it may send job events for any user and moves no credit.

            Exit codes: 0 the job may run / the run is settled; 1 denied by the ledger (slurmctld cancels the
            job); 2 bad options; 3 the service (or the agent) cannot be reached or answer in time (prolog:
            slurmctld requeues the job; JVM epilog: the hold stays until `ledger sweep`; the agent's epilog
            spools instead); 4 the job's record from slurmctld is missing or malformed.
            """;

    private SlurmHook() {
    }

    /** {@code prolog} or {@code epilog}, then the options. */
    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.err, System.out));
    }

    static int run(String[] args, Map<String, String> env, PrintStream err, PrintStream out) {
        if (args.length == 0 || !(args[0].equals("prolog") || args[0].equals("epilog"))) {
            err.println("ledger hook: the first argument must be prolog or epilog");
            return USAGE;
        }
        boolean prolog = args[0].equals("prolog");
        List<String> options = Arrays.asList(args).subList(1, args.length);
        if (options.contains("--help") || options.contains("-h")) {
            out.print(HELP);
            return OK;
        }
        HookSettings settings;
        ServiceCall service;
        try {
            settings = HookSettings.read(env, prolog, options);
            service = new ServiceCall(settings);
        } catch (IllegalArgumentException e) {
            err.println("ledger " + args[0] + ": " + e.getMessage());
            return USAGE;
        }
        SlurmJob job;
        try {
            job = SlurmJob.fromEnvironment(env);
        } catch (IllegalArgumentException e) {
            err.println("ledger " + args[0] + ": " + e.getMessage());
            return NO_JOB;
        }
        HookLog log = new HookLog(err, HookLog.resolve(settings.logFile(), settings.slurmConf(), env.get("SLURM_CONF")));
        String fallback = env.get(FALLBACK_ENV);
        if (fallback != null && !fallback.isBlank()) {
            log.say("ledger " + args[0] + ": job " + job.jobId() + ": " + fallback.strip());
        }
        Slurm slurm = new Slurm(settings.slurmConf());
        Hook hook = new Hook(job, slurm, slurm, service, log, prolog ? settings.prologRetryMillis() : settings.epilogRetryMillis(),
                HeldRuns.NONE);
        return prolog ? hook.prolog(settings.allow()) : hook.epilog(Instant.now());
    }
}
