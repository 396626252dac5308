/*
 * ledger-prolog / ledger-epilog: slurmctld's PrologSlurmctld and EpilogSlurmctld for the alpsbridge ledger,
 * the per-call half. slurmctld starts one per job on its dispatch path, so this is plain C that starts in a
 * millisecond: it sends its mode, its arguments and slurmctld's SLURM_* environment to the resident
 * `alpsbridge ledger hook-agent` over a unix socket, prints the agent's lines on stderr and exits with the
 * agent's exit code (the hooks' own: 0 ok, 1 denied, 2 bad options, 3 unavailable, 4 no job record).
 *
 * The name it is run by picks the hook (ledger-prolog, ledger-epilog, ledger-submit; any other name takes
 * prolog, epilog or submit as its first argument). Settings from /etc/alpsbridge/ledger-hook.conf (env ALPSBRIDGE_LEDGER_HOOK_CONFIG
 * names another; the Makefile's CONFIG builds in another default), of which it reads these keys and leaves the
 * rest to the agent:
 *   agent_socket=/run/alpsbridge/ledger-hook.sock   where the agent listens
 *   agent_timeout=60                               seconds to wait for the agent's answer; then exit 3
 *   jvm_hook=/usr/lib/alpsbridge/ledger-hook-jvm   run instead when no agent listens (the socket is missing
 *                                                  or refuses connections), so a site without the agent
 *                                                  still charges; the JVM hook logs that it was the fallback
 *   spool=/var/spool/alpsbridge/ledger-hook        the agent's spool of settlements (epilog, below)
 *   submit_timeout=2                               submit: seconds (decimals allowed) it waits for the agent
 *   submit_when_unavailable=allow                  submit: allow or refuse a job when the ledger cannot say
 *
 * ledger-submit is run by slurmctld's job_submit/lua plugin (ledger-service/src/main/lua/job_submit.lua), under its locks, for
 * every sbatch, srun and salloc: the job (SLURM_JOB_ACCOUNT, _USER, _PARTITION, _CPUS, _TIME_LIMIT) goes to
 * the agent, which asks the ledger whether the project could cover its worst case now (nothing is held).
 * Exit 0: it may be queued; 1: it may not (the lines say why, with the figures). Whenever the ledger cannot
 * say (no agent: no JVM is started here; no answer within submit_timeout; the service unreachable; anything
 * unexpected), submit_when_unavailable decides: allow (the default) exits 0 saying so, refuse exits 3. The
 * prolog's hold at dispatch guards an allowed job as before.
 * The wire format (AgentCodec.java): a 4-byte big-endian length, then NUL-ended UTF-8 key=value items. The call
 * itself is hook-core.c's, which slurmctld's PrEp plugin (prep_ledger.c) shares.
 *
 * The epilog does not wait for the agent: once an agent answers the socket, the client writes the settlement
 * into the agent's spool itself (a temporary name, fsync, rename, the directory fsync'd: on disk before
 * slurmctld is answered), tells the agent its name on the socket and exits 0. slurmctld 22.05 schedules the
 * freed CPUs at once only when a job's EpilogSlurmctld has ended before slurmd reports the job's own epilog
 * done (proc_req.c _slurm_rpc_epilog_complete: job_epilog_complete is true only for a job no longer
 * COMPLETING, and prep_epilog_slurmctld_callback schedules nothing); an epilog that ends later leaves the
 * CPUs idle until the next periodic pass (sched_interval, 60 s). So the epilog is a few system calls. When
 * the spool cannot be written, the agent is handed the call and writes it, as before.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook-core.h"

extern char **environ;

static const char *name = "ledger-hook";
static struct hook_settings settings;

/* Runs the JVM hook in this process's place (same pid, arguments and environment), saying why. */
static int run_jvm_hook(const char *mode, int argc, char **argv, const char *why) {
    if (why) {
        char note[6144];
        snprintf(note, sizeof note, "%s; this call runs the JVM hook %s instead", why, settings.jvm_hook);
        fprintf(stderr, "%s: %s\n", name, note);
        setenv("LEDGER_HOOK_FALLBACK", note, 1);
    }
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) return HOOK_UNAVAILABLE;
    args[0] = settings.jvm_hook;
    args[1] = (char *)mode;
    for (int i = 0; i < argc; i++) args[i + 2] = argv[i];
    execv(settings.jvm_hook, args);
    int e = errno;
    free(args);
    fprintf(stderr, "%s: cannot run the JVM hook %s: %s\n", name, settings.jvm_hook, strerror(e));
    return HOOK_UNAVAILABLE;
}

/* Hands the call to the agent (or, with none, to the JVM hook) and passes its answer on. */
static int call(const char *mode, int argc, char **argv) {
    if (strcmp(mode, "submit") != 0) {
        for (int i = 0; i < argc; i++) {
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                /* the whole text (options, settings, exit codes) is the JVM hook's */
                run_jvm_hook(mode, argc, argv, NULL);
                printf("Usage: %s [OPTIONS]   (slurm.conf: %s=/usr/bin/%s)\n"
                       "Hands the call to `alpsbridge ledger hook-agent` on %s; see man ledger-prolog.\n"
                       "Exit codes: 0 ok; 1 denied; 2 bad options; 3 the agent or the service cannot answer; 4 no job record.\n",
                       name, strcmp(mode, "prolog") == 0 ? "PrologSlurmctld" : "EpilogSlurmctld", name,
                       settings.agent_socket);
                return HOOK_OK;
            }
        }
    }
    char why[600];
    int code = hook_call(&settings, name, mode, argc, argv, environ, stderr, why, sizeof why);
    return code == HOOK_NO_AGENT ? run_jvm_hook(mode, argc, argv, why) : code;
}

/*
 * A submission's answer: 0 and 1 are the ledger's word; anything else means it could not say, and
 * submit_when_unavailable decides, never a refusal the ledger did not give unless the site asked for it.
 */
static int submit_verdict(int code) {
    if (code == HOOK_OK || code == HOOK_DENIED) return code;
    if (settings.submit_refuses) {
        fprintf(stderr, "ledger: the job is refused because the ledger cannot say whether its project can cover it"
                        " (submit_when_unavailable=refuse); try again later\n");
        return HOOK_UNAVAILABLE;
    }
    fprintf(stderr, "%s: the ledger cannot say now; the job is accepted (submit_when_unavailable=allow), its hold"
                    " at dispatch still guards it\n", name);
    return HOOK_OK;
}

int main(int argc, char **argv) {
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    const char *mode = NULL;
    if (strcmp(base, "ledger-prolog") == 0) {
        mode = "prolog";
    } else if (strcmp(base, "ledger-epilog") == 0) {
        mode = "epilog";
    } else if (strcmp(base, "ledger-submit") == 0) {
        mode = "submit";
    } else if (argc > 1 && (strcmp(argv[1], "prolog") == 0 || strcmp(argv[1], "epilog") == 0
                            || strcmp(argv[1], "submit") == 0)) {
        mode = argv[1];
        argv++;
        argc--;
    } else {
        fprintf(stderr, "ledger-hook-client: run me as ledger-prolog, ledger-epilog or ledger-submit, or give prolog,"
                        " epilog or submit first\n");
        return HOOK_USAGE;
    }
    name = strcmp(mode, "prolog") == 0 ? "ledger-prolog" : strcmp(mode, "epilog") == 0 ? "ledger-epilog" : "ledger-submit";
    argv++;
    argc--;
    if (strcmp(mode, "submit") == 0) {
        for (int i = 0; i < argc; i++) {
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                printf("Usage: ledger-submit   (run by slurmctld's job_submit/lua plugin: job_submit.lua)\n"
                       "Asks `alpsbridge ledger hook-agent` on %s whether the job's project could cover its worst\n"
                       "case now (SLURM_JOB_ACCOUNT, SLURM_JOB_USER, SLURM_JOB_PARTITION, SLURM_JOB_CPUS,\n"
                       "SLURM_JOB_TIME_LIMIT in minutes); nothing is held. Settings (ledger-hook.conf):\n"
                       "submit_timeout (seconds, 2), submit_when_unavailable (allow|refuse, allow).\n"
                       "Exit codes: 0 the job may be queued (or the ledger cannot say and allow); 1 refused (the\n"
                       "reason, with the figures, on stderr); 3 the ledger cannot say and\n"
                       "submit_when_unavailable=refuse.\n", DEFAULT_SOCKET);
                return HOOK_OK;
            }
        }
        if (hook_read_settings(&settings, name, stderr) < 0) return submit_verdict(HOOK_USAGE);
        return submit_verdict(call(mode, argc, argv));
    }
    if (hook_read_settings(&settings, name, stderr) < 0) return HOOK_USAGE;
    return call(mode, argc, argv);
}
