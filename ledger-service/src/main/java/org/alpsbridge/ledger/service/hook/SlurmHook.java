package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.service.api.Route;
import org.alpsbridge.ledger.timelimit.SlurmTime;

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
              slurm_conf=PATH (for squeue/scontrol; default theirs)  munge_socket=PATH (default libmunge's)
              log_file=slurmctld|none|PATH (default slurmctld: SlurmctldLogFile of slurm.conf; Slurm 22.05
                                       itself drops what these hooks print, so each line is appended there)

            The hooks run as SlurmUser and sign with its MUNGE identity (env ALPSBRIDGE_MUNGE_SOCKET, default
            libmunge's socket). Give SlurmUser the service's charger role (ledger-service.conf
            charger_uids=UID): it may send job events for any user and moves no credit.

            Exit codes: 0 the job may run / the run is settled; 1 denied by the ledger (slurmctld cancels the
            job); 2 bad options; 3 the service cannot be reached (prolog: slurmctld requeues the job; epilog:
            the hold stays until `ledger sweep`); 4 the job's record from slurmctld is missing or malformed.
            """;

    /** Settings file read before the options (env {@code ALPSBRIDGE_LEDGER_HOOK_CONFIG} names another). */
    static final String DEFAULT_CONFIG = "/etc/alpsbridge/ledger-hook.conf";

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
        String db = env.get("ALPSBRIDGE_LEDGER");
        boolean allow = false;
        int retryFor = prolog ? 5 : 60;
        int timeout = 10;
        String slurmConf = null;
        String logFile = "slurmctld";
        try {
            String explicit = env.get("ALPSBRIDGE_LEDGER_HOOK_CONFIG");
            Path file = Path.of(explicit == null || explicit.isBlank() ? DEFAULT_CONFIG : explicit);
            for (Map.Entry<String, String> e : config(file, explicit != null && !explicit.isBlank()).entrySet()) {
                String v = e.getValue();
                switch (e.getKey()) {
                    case "db" -> db = v;
                    case "when_unavailable" -> allow = policy(v);
                    case "prolog_retry_for" -> retryFor = prolog ? seconds("prolog_retry_for", v) : retryFor;
                    case "epilog_retry_for" -> retryFor = prolog ? retryFor : seconds("epilog_retry_for", v);
                    case "timeout" -> timeout = Math.max(1, seconds("timeout", v));
                    case "slurm_conf" -> slurmConf = v;
                    case "log_file" -> logFile = v;
                    case "munge_socket" -> System.setProperty("alpsbridge.munge_socket", v);
                    default -> throw new IllegalArgumentException(file + ": unknown key '" + e.getKey()
                            + "' (db, when_unavailable, prolog_retry_for, epilog_retry_for, timeout, slurm_conf, log_file, munge_socket)");
                }
            }
            for (int i = 1; i < args.length; i++) {
                switch (args[i]) {
                    case "--help", "-h" -> {
                        out.print(HELP);
                        return OK;
                    }
                    case "--db" -> db = value(args, ++i);
                    case "--when-unavailable" -> allow = policy(value(args, ++i));
                    case "--retry-for" -> retryFor = seconds(args[i], value(args, ++i));
                    case "--timeout" -> timeout = Math.max(1, seconds(args[i], value(args, ++i)));
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] + "' (see --help)");
                }
            }
            if (db == null || db.isBlank()) {
                throw new IllegalArgumentException("no ledger service: give --db http://HOST:PORT or set ALPSBRIDGE_LEDGER");
            }
        } catch (IllegalArgumentException e) {
            err.println("ledger " + args[0] + ": " + e.getMessage());
            return USAGE;
        }
        ServiceCall service;
        try {
            service = new ServiceCall(db.strip(), timeout * 1000);
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
        HookLog log = new HookLog(err, HookLog.resolve(logFile, slurmConf, env.get("SLURM_CONF")));
        Hook hook = new Hook(job, new Slurm(slurmConf), service, log, retryFor * 1000L);
        return prolog ? hook.prolog(allow) : hook.epilog();
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    /** {@code key=value} lines, {@code #} comments; an absent file is empty unless it was asked for. */
    private static Map<String, String> config(Path file, boolean required) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            if (required) {
                throw new IllegalArgumentException("ALPSBRIDGE_LEDGER_HOOK_CONFIG names " + file + ", which does not exist");
            }
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e);
        }
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).replaceFirst("#.*", "").strip();
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException(file + ":" + (n + 1) + ": expected key=value, got '" + line + "'");
            }
            out.put(line.substring(0, eq).strip().toLowerCase(java.util.Locale.ROOT), line.substring(eq + 1).strip());
        }
        return out;
    }

    private static boolean policy(String v) {
        if (!v.equals("refuse") && !v.equals("allow")) {
            throw new IllegalArgumentException("when-unavailable takes refuse or allow, not '" + v + "'");
        }
        return v.equals("allow");
    }

    private static int seconds(String what, String v) {
        try {
            int s = Integer.parseInt(v);
            if (s < 0) {
                throw new NumberFormatException();
            }
            return s;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " takes whole seconds, not '" + v + "'");
        }
    }

    /** One call's work on one run of a job. */
    private record Hook(SlurmJob job, Slurm slurm, ServiceCall service, HookLog log, long retryMillis) {

        int prolog(boolean allow) {
            String what = "ledger prolog: job " + job.jobId() + " run " + job.resId();
            long limit;
            try {
                Map<String, String> facts = slurm.job(job.jobId());
                Optional<Long> l = facts.isEmpty() ? Optional.empty() : SlurmTime.parse(facts.get("limit"));
                if (l.isEmpty()) {
                    String why = "job has no finite time limit ('" + facts.get("limit")
                            + "'), so its worst case cannot be held; submit it with --time";
                    deny(what, why);
                    return DENIED;
                }
                limit = l.get();
            } catch (IOException | RuntimeException e) {
                log.say(what + ": cannot read the job's time limit from slurmctld: " + e.getMessage());
                return NO_JOB;
            }
            Instant now = Instant.now();
            Map<String, String> outcome;
            try {
                outcome = post(Route.RESERVE, EventJson.reserve(job, limit, now));
                if ("DENIED".equals(outcome.get("decision"))) {
                    deny(what, outcome.get("message") + " (" + outcome.get("reason") + ")");
                    return DENIED;
                }
                if (!"OK".equals(outcome.get("decision"))) {
                    throw new ServiceCall.Refused(outcome.get("decision") + ": " + outcome.get("message"));
                }
                post(Route.CONFIRM, EventJson.confirm(job, now));
            } catch (ServiceCall.Unavailable | ServiceCall.Refused e) {
                if (allow) {
                    log.say(what + ": " + e.getMessage() + "; the job runs unheld (--when-unavailable allow),"
                            + " the epilog charges it as a forced debit");
                    return OK;
                }
                log.say(what + ": " + e.getMessage() + "; refused (--when-unavailable refuse): slurmctld requeues"
                        + " the job and tries again later");
                noteQuietly("ledger unavailable, job requeued: " + e.getMessage(), false);
                return UNAVAILABLE;
            }
            log.say(what + ": held " + outcome.get("hold") + " of project " + outcome.get("project")
                    + ", available " + outcome.get("available") + ("true".equals(outcome.get("replayed")) ? " (retry)" : ""));
            return OK;
        }

        int epilog() {
            String what = "ledger epilog: job " + job.jobId() + " run " + job.resId();
            long elapsed = ReleaseRequest.BY_CLOCK;
            boolean nodeFailure = false;
            boolean requeued = false;
            long limit = 0;
            try {
                Map<String, String> facts = slurm.job(job.jobId());
                if (!facts.isEmpty()) {
                    limit = SlurmTime.parse(facts.get("limit")).orElse(0L);
                    requeued = Integer.parseInt(facts.get("restarts")) > job.restart()
                            || facts.get("state").startsWith("PENDING");
                    if (requeued) {
                        // slurmctld has already reset the run's times for the next run: the ledger measures
                        // this run from its CONFIRM at the prolog; a node that is down now failed it
                        nodeFailure = slurm.anyNodeDown(job.nodeList());
                    } else {
                        elapsed = SlurmTime.parse(facts.get("used")).orElse(0L);
                        nodeFailure = "NodeDown".equals(facts.get("reason")) || facts.get("state").startsWith("NODE_FAIL");
                    }
                }
            } catch (IOException | RuntimeException e) {
                log.say(what + ": cannot read the job from slurmctld (" + e.getMessage()
                        + "); the ledger measures the run from its start");
            }
            try {
                // The epilog also follows runs the prolog denied or failed on (slurmctld runs it for every
                // job that was allocated nodes): those have nothing to settle, and a RELEASE must not turn
                // a remembered denial into a settlement. A run the prolog let go unheld (allow) is charged.
                Map<String, String> held = retrying(Route.RESERVATION, EventJson.lookupQuery(job), null);
                if (held != null && "DENIED".equals(held.get("state"))) {
                    log.say(what + ": denied at the prolog, nothing to settle");
                    return OK;
                }
                if (held == null && requeued) {
                    log.say(what + ": never held (the prolog failed and slurmctld requeued the job), nothing to settle");
                    return OK;
                }
                Map<String, String> o = post(Route.RELEASE, EventJson.release(job, elapsed, nodeFailure, limit, Instant.now()));
                log.say(what + ": settled " + o.get("charge") + " of hold " + o.get("hold") + " on project "
                        + o.get("project") + (nodeFailure ? " (node failure: not charged)" : "")
                        + (elapsed == ReleaseRequest.BY_CLOCK ? " (requeued: measured by the ledger)" : ", elapsed " + elapsed + " s")
                        + ("true".equals(o.get("replayed")) ? " (retry)" : "")
                        + ("CONFLICT".equals(o.get("decision")) ? " CONFLICT: " + o.get("message") : ""));
                return OK;
            } catch (ServiceCall.Unavailable | ServiceCall.Refused e) {
                log.say(what + ": " + e.getMessage() + "; NOT settled: the hold stays in the ledger until"
                        + " `alpsbridge ledger sweep` or a RELEASE by hand");
                return UNAVAILABLE;
            }
        }

        private Map<String, String> post(Route route, String json) throws ServiceCall.Unavailable, ServiceCall.Refused {
            return retrying(route, "", json);
        }

        /**
         * One request (a read when {@code json} is null), tried again on an unavailable service with growing
         * pauses for up to the retry time. No lambdas here: each costs a JVM this young a class spun at run time.
         */
        private Map<String, String> retrying(Route route, String query, String json)
                throws ServiceCall.Unavailable, ServiceCall.Refused {
            long deadline = System.currentTimeMillis() + retryMillis;
            long pause = 200;
            while (true) {
                try {
                    return json == null ? service.get(route, query) : service.post(route, json);
                } catch (ServiceCall.Unavailable e) {
                    if (System.currentTimeMillis() + pause > deadline) {
                        throw e;
                    }
                    try {
                        Thread.sleep(pause);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw e;
                    }
                    pause = Math.min(pause * 2, 5_000);
                }
            }
        }

        private void deny(String what, String why) {
            log.say(what + ": DENIED: " + why + "; slurmctld cancels the job");
            try {
                slurm.note(job.jobId(), "ledger denied: " + why, true);
            } catch (IOException e) {
                log.say(what + ": could not note the denial on the job (" + e.getMessage() + ")");
            }
        }

        private void noteQuietly(String text, boolean noRequeue) {
            try {
                slurm.note(job.jobId(), text, noRequeue);
            } catch (IOException e) {
                log.say("ledger prolog: job " + job.jobId() + ": could not note on the job (" + e.getMessage() + ")");
            }
        }
    }
}
