/*
 * prep/ledger: the alpsbridge ledger inside slurmctld, as a PrEp plugin with asynchronous completion (slurm.conf:
 * PrEpPlugins=prep/ledger, without PrologSlurmctld/EpilogSlurmctld). It makes the same calls as the script hooks
 * (ledger-prolog, ledger-epilog: hold at dispatch, denial, settlement at end), through the same code
 * (hook-core.c) and the same resident `alpsbridge ledger hook-agent`, with the same environment slurmctld would
 * give the scripts (job_common_env_vars): the agent cannot tell them apart, so the semantics are the hooks' own.
 *
 * What it spares slurmctld: the script path forks slurmscriptd's child and execs a program per job and per end;
 * here slurmctld's thread only copies the job's environment into a queue under the job lock it already holds
 * and returns. A fixed pool of worker threads (WORKERS) makes the calls and reports each outcome through Slurm's
 * callback, as an exit status (the hooks' exit codes: 0 ok, 1 denied, 3 unavailable, ...), so slurmctld treats
 * it exactly as the script's: a non-zero prolog requeues the job or, when the hold was denied (the agent set
 * Requeue=0 with the reason in AdminComment), cancels it.
 *
 * At unload (fini) the queue is drained: an epilog still queued is written to the agent's spool (local and
 * durable; with no agent, the JVM hook settles it); a prolog still queued is dropped, because slurmctld runs
 * PrologSlurmctld again at start-up for every job still CONFIGURING (read_config.c, _sync_nodes_to_jobs, in 22.05 and
 * 26.05 alike), and the agent's hold is keyed by job and run, so the repeat holds once. slurmctld 22.05 and 26.05
 * call fini only in MEMORY_LEAK_DEBUG builds, not at a normal shutdown: there the queue ends with the process.
 *
 * With no agent listening, a call runs the JVM hook (jvm_hook=) as a child process, as the script client does.
 * Settings: ledger-hook.conf, as the client reads it (hook-core.h). Messages go to slurmctld's log.
 *
 * One source for Slurm 22.05 and 26.05 (both tested), built against the configured source of the one that loads it
 * (its job_record_t): the PrEp interface, its callbacks and job_common_env_vars are the same in both; only the
 * interface's header moved (src/common to src/interfaces in 23.02), chosen by __has_include.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2 */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#if __has_include("src/interfaces/prep.h")
#include "src/interfaces/prep.h" /* 23.02 and later */
#else
#include "src/common/prep.h"
#endif
#include "src/common/env.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "hook-core.h"

const char plugin_name[] = "alpsbridge ledger PrEp plugin";
const char plugin_type[] = "prep/ledger";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Worker threads: calls to the agent at once. The agent answers a prolog in milliseconds (it batches starts), so a
 * few suffice; more would only queue at the agent. */
#define WORKERS 4

struct task {
    struct task *next;
    uint32_t job_id;
    bool epilog;
    char **env; /* malloc'd copies, NULL-ended */
    struct timespec queued;
    long enqueue_us; /* what slurmctld's own thread spent on it */
};

static long micros_since(const struct timespec *from) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - from->tv_sec) * 1000000L + (now.tv_nsec - from->tv_nsec) / 1000;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static struct task *head, *tail;
static bool stopping;
static int started;
static pthread_t workers[WORKERS];
static struct hook_settings settings;
static bool in_slurmctld;
static int cancel_pipe[2] = {-1, -1}; /* written at fini: calls still waiting for the agent give up */
static void (*prolog_done)(int rc, uint32_t job_id, bool timed_out);
static void (*epilog_done)(int rc, uint32_t job_id, bool timed_out);

static void free_env(char **env) {
    for (char **e = env; e && *e; e++) free(*e);
    free(env);
}

/*
 * slurmctld's job_common_env_vars, found at init: slurmd loads PrEp plugins too and has no such symbol, so the
 * plugin does not link to it (slurmd would refuse to load a plugin bound at load time to a missing symbol).
 */
static char **(*common_env_vars)(job_record_t *job_ptr, bool is_complete);

/* The job's environment as slurmctld gives its PrologSlurmctld/EpilogSlurmctld, copied out of Slurm's allocator. */
static char **job_env(job_record_t *job_ptr, bool epilog) {
    char **slurm_env = common_env_vars(job_ptr, epilog);
    size_t n = 0;
    while (slurm_env && slurm_env[n]) n++;
    char **env = calloc(n + 2, sizeof *env);
    for (size_t i = 0; env && i < n; i++) env[i] = strdup(slurm_env[i]);
    if (env) env[n] = strdup(epilog ? "SLURM_SCRIPT_CONTEXT=epilog_slurmctld" : "SLURM_SCRIPT_CONTEXT=prolog_slurmctld");
    for (size_t i = 0; i < n; i++) xfree(slurm_env[i]);
    xfree(slurm_env);
    for (size_t i = 0; env && i <= n; i++) {
        if (!env[i]) {
            free_env(env);
            return NULL;
        }
    }
    return env;
}

/* Each line a call wrote, into slurmctld's log: the agent's words (a denial's reason) as info, else as error. */
static void log_lines(char *text, int code, const char *what, uint32_t job_id) {
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (code == HOOK_OK) {
            info("%s: %s JobId=%u: %s", plugin_type, what, job_id, line);
        } else {
            error("%s: %s JobId=%u: %s", plugin_type, what, job_id, line);
        }
    }
}

/* No agent: the JVM hook as a child with the job's environment (and why), its exit status as the outcome. */
static int run_jvm_hook(const char *mode, char **env, const char *why, FILE *out) {
    size_t n = 0;
    while (env[n]) n++;
    char **child_env = calloc(n + 2, sizeof *child_env);
    char note[6144];
    snprintf(note, sizeof note, "LEDGER_HOOK_FALLBACK=%s; this call runs the JVM hook %s instead", why,
             settings.jvm_hook);
    if (!child_env) return HOOK_UNAVAILABLE << 8;
    memcpy(child_env, env, n * sizeof *child_env);
    child_env[n] = note;
    fprintf(out, "%s\n", note + strlen("LEDGER_HOOK_FALLBACK="));
    char *argv[] = {settings.jvm_hook, (char *)mode, NULL};
    pid_t pid;
    int e = posix_spawn(&pid, settings.jvm_hook, NULL, NULL, argv, child_env);
    free(child_env);
    if (e != 0) {
        fprintf(out, "cannot run the JVM hook %s: %s\n", settings.jvm_hook, strerror(e));
        return HOOK_UNAVAILABLE << 8;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return HOOK_UNAVAILABLE << 8;
    }
    return status;
}

/* One call, its outcome as a wait status (what the callbacks take: a script's exit code << 8). */
static int run(struct task *t) {
    const char *mode = t->epilog ? "epilog" : "prolog";
    const char *name = t->epilog ? "ledger-epilog" : "ledger-prolog";
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) return HOOK_UNAVAILABLE << 8;
    char why[600];
    int code = hook_call(&settings, name, mode, 0, NULL, t->env, out, why, sizeof why);
    int status;
    if (code == HOOK_NO_AGENT) {
        status = run_jvm_hook(mode, t->env, why, out);
        code = WIFEXITED(status) ? WEXITSTATUS(status) : HOOK_UNAVAILABLE;
    } else {
        status = (code & 0xff) << 8;
    }
    fclose(out);
    log_lines(text, code, mode, t->job_id);
    free(text);
    return status;
}

static void *work(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!head && !stopping) pthread_cond_wait(&more, &lock);
        if (stopping) { /* fini drains what is left */
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        struct task *t = head;
        head = t->next;
        if (!head) tail = NULL;
        pthread_mutex_unlock(&lock);
        int status = run(t);
        pthread_mutex_lock(&lock);
        bool late = stopping;
        pthread_mutex_unlock(&lock);
        if (late) {
            /* slurmctld is shutting down (its job records may be gone): no callback. A prolog runs again at
             * start-up; an epilog's settlement was spooled before any wait for the agent. */
            info("%s: %s JobId=%u ended during shutdown, not reported", plugin_type, t->epilog ? "epilog" : "prolog",
                 t->job_id);
            free_env(t->env);
            free(t);
            continue;
        }
        /* the whole wait as slurmctld sees it, and its own share: what the storm compares with the scripts' */
        verbose("%s: %s JobId=%u exit %d after %ld us (%ld us on slurmctld's thread)", plugin_type,
                t->epilog ? "epilog" : "prolog", t->job_id, WIFEXITED(status) ? WEXITSTATUS(status) : 128,
                micros_since(&t->queued), t->enqueue_us);
        if (t->epilog) {
            if (epilog_done) epilog_done(status, t->job_id, false);
        } else if (prolog_done) {
            prolog_done(status, t->job_id, false);
        }
        free_env(t->env);
        free(t);
    }
}

extern int init(void) {
    in_slurmctld = running_in_slurmctld();
    if (!in_slurmctld) return SLURM_SUCCESS; /* slurmd loads PrEp plugins too: nothing to do there */
    *(void **)&common_env_vars = dlsym(RTLD_DEFAULT, "job_common_env_vars");
    if (!common_env_vars) {
        error("%s: this slurmctld has no job_common_env_vars: the plugin was built for another Slurm", plugin_type);
        return SLURM_ERROR;
    }
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    int r = out ? hook_read_settings(&settings, plugin_type, out) : -1;
    if (out) fclose(out);
    if (r < 0) {
        error("%s: %s", plugin_type, text ? text : "cannot read ledger-hook.conf");
        free(text);
        return SLURM_ERROR;
    }
    free(text);
    if (pipe2(cancel_pipe, O_CLOEXEC) != 0) {
        error("%s: cannot make a pipe: %m", plugin_type);
        return SLURM_ERROR;
    }
    settings.cancel_fd = cancel_pipe[0];
    stopping = false;
    for (started = 0; started < WORKERS; started++) {
        if (pthread_create(&workers[started], NULL, work, NULL) != 0) {
            error("%s: cannot start worker %d: %m", plugin_type, started);
            return SLURM_ERROR;
        }
    }
    info("%s: %d workers, hook agent %s, spool %s", plugin_type, WORKERS, settings.agent_socket, settings.spool_dir);
    return SLURM_SUCCESS;
}

extern void fini(void) {
    if (!in_slurmctld) return;
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_cond_broadcast(&more);
    pthread_mutex_unlock(&lock);
    if (cancel_pipe[1] >= 0 && write(cancel_pipe[1], "x", 1) != 1) {
        error("%s: cannot wake the workers: %m", plugin_type);
    }
    for (int i = 0; i < started; i++) pthread_join(workers[i], NULL);
    started = 0;
    /* what is still queued: epilogs into the spool (durable: settled by the agent whenever it next runs);
     * prologs are dropped, slurmctld runs them again at start-up for jobs still CONFIGURING */
    int spooled = 0, dropped = 0;
    for (struct task *t = head, *next; t; t = next) {
        next = t->next;
        if (t->epilog) {
            run(t);
            spooled++;
        } else {
            dropped++;
        }
        free_env(t->env);
        free(t);
    }
    head = tail = NULL;
    for (int i = 0; i < 2; i++) {
        if (cancel_pipe[i] >= 0) close(cancel_pipe[i]);
        cancel_pipe[i] = -1;
    }
    settings.cancel_fd = -1;
    if (spooled || dropped) {
        info("%s: at shutdown %d queued epilogs handed on, %d queued prologs left for slurmctld to run again at start-up",
             plugin_type, spooled, dropped);
    }
}

extern void prep_p_register_callbacks(prep_callbacks_t *callbacks) {
    prolog_done = callbacks->prolog_slurmctld;
    epilog_done = callbacks->epilog_slurmctld;
}

extern int prep_p_prolog(job_env_t *job_env, slurm_cred_t *cred) {
    (void)job_env;
    (void)cred;
    return SLURM_SUCCESS;
}

extern int prep_p_epilog(job_env_t *job_env, slurm_cred_t *cred) {
    (void)job_env;
    (void)cred;
    return SLURM_SUCCESS;
}

/* Called with the job locked: copy what the call needs, queue it, return. */
static int enqueue(job_record_t *job_ptr, bool epilog, bool *async) {
    void (*done)(int, uint32_t, bool) = epilog ? epilog_done : prolog_done;
    *async = false;
    if (!done) {
        error("%s: slurmctld gave no completion callback; JobId=%u runs without the ledger's %s", plugin_type,
              job_ptr->job_id, epilog ? "settlement" : "hold");
        return SLURM_SUCCESS;
    }
    struct task *t = calloc(1, sizeof *t);
    if (t) clock_gettime(CLOCK_MONOTONIC, &t->queued);
    if (t) t->env = job_env(job_ptr, epilog);
    if (!t || !t->env) {
        free(t);
        error("%s: out of memory for JobId=%u", plugin_type, job_ptr->job_id);
        return SLURM_ERROR;
    }
    t->job_id = job_ptr->job_id;
    t->epilog = epilog;
    t->enqueue_us = micros_since(&t->queued);
    pthread_mutex_lock(&lock);
    if (tail) {
        tail->next = t;
    } else {
        head = t;
    }
    tail = t;
    pthread_cond_signal(&more);
    pthread_mutex_unlock(&lock);
    *async = true;
    return SLURM_SUCCESS;
}

extern int prep_p_prolog_slurmctld(job_record_t *job_ptr, bool *async) {
    return enqueue(job_ptr, false, async);
}

extern int prep_p_epilog_slurmctld(job_record_t *job_ptr, bool *async) {
    return enqueue(job_ptr, true, async);
}

extern void prep_p_required(prep_call_type_t type, bool *required) {
    *required = running_in_slurmctld() && (type == PREP_PROLOG_SLURMCTLD || type == PREP_EPILOG_SLURMCTLD);
}
