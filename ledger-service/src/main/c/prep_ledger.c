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
 * The queue holds at most QUEUE_MAX prologs waiting for a worker (each with its copy of the job's environment). A
 * prolog that finds it full is not sent to the agent: the next free worker answers it, ahead of every queued call
 * and without asking the agent, with exit 3 (unavailable), as when the agent does not answer in time, and slurmctld
 * requeues the job to be dispatched again later. An epilog is always queued
 * (a settlement is never dropped): a job has at most one epilog, so the running jobs bound them.
 *
 * At unload (fini, also at `scontrol reconfigure` on 22.05 when PrEpPlugins changed, with slurmctld's locks held) the
 * queue is drained: an epilog still queued is written to the agent's spool (local and durable; the agent settles it
 * when it next looks there); a prolog still queued is dropped, because slurmctld runs PrologSlurmctld again at
 * start-up for every job still CONFIGURING (read_config.c, _sync_nodes_to_jobs, in 22.05 and 26.05 alike), and the
 * agent's hold is keyed by job and run, so the repeat holds once. slurmctld 22.05 and 26.05 call fini only in
 * MEMORY_LEAK_DEBUG builds, not at a normal shutdown: there the queue ends with the process.
 * fini never waits for a worker for long: a worker may be inside slurmctld's completion callback, waiting for the job
 * write lock that fini's caller holds, so joining it could wait for ever. fini wakes the calls in progress (they
 * give up at once), waits at most FINI_WAIT_MS for them, and leaves: a worker still in a callback finishes it once
 * the lock is free and then ends. The plugin's code stays mapped for such a worker: init pins the .so
 * (RTLD_NODELETE), so slurmctld's dlclose never unmaps code a thread is in; each init's workers and their state
 * (struct pool) end with the last of them.
 *
 * With no agent listening, a call runs the JVM hook (jvm_hook=) as a child process, as the script client does: with
 * the job's environment only, stdin /dev/null, its output (into slurmctld's log) on a pipe and no other descriptor,
 * every signal unblocked and at its default, in a process group of its own that is killed when it runs past
 * agent_timeout (exit 3, unavailable).
 * Settings: ledger-hook.conf, as the client reads it (hook-core.h). Messages go to slurmctld's log, through Slurm's
 * own log functions by their Slurm-only names (slurm_error, log_var): glibc has an error(3) too.
 *
 * One source for Slurm 22.05 and 26.05 (both tested), built against the configured source of the one that loads it
 * (its job_record_t): the PrEp interface, its callbacks and job_common_env_vars are the same in both; only the
 * interface's header moved (src/common to src/interfaces in 23.02), chosen by __has_include.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2, dladdr, RTLD_NODELETE, posix_spawn_file_actions_addclosefrom_np */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
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

/* Slurm's error() by its Slurm-only name: glibc's error(3) has the same name and would win by link order alone. */
extern int slurm_error(const char *, ...) __attribute__((format(printf, 1, 2)));
#undef error
#define error slurm_error

/* Worker threads: calls to the agent at once. The agent answers a prolog in milliseconds (it batches starts), so a
 * few suffice; more would only queue at the agent. */
#define WORKERS 4
/* Prologs waiting for a worker (see the top for what happens past it). */
#define QUEUE_MAX 4096
/* How long fini waits for the calls in progress to give up once woken. */
#define FINI_WAIT_MS 2000

struct task {
    struct task *next;
    uint32_t job_id;
    bool epilog;
    char **env; /* malloc'd copies, NULL-ended; NULL: a prolog shed because the queue was full */
    struct timespec queued;
    long enqueue_us; /* what slurmctld's own thread spent on it */
};

/* One init's workers and what they share; freed by the last of them (fini counts as one). Under `lock`. */
struct pool {
    struct hook_settings settings;
    int cancel[2];  /* written at fini: calls still waiting for the agent give up */
    bool stopping;
    int holders;    /* workers still running, plus one until fini */
    int calling;    /* workers inside a call (not a callback) */
};

static long micros_since(const struct timespec *from) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - from->tv_sec) * 1000000L + (now.tv_nsec - from->tv_nsec) / 1000;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;    /* a task queued, or stopping */
static pthread_cond_t quiet = PTHREAD_COND_INITIALIZER;   /* a call ended */
static struct task *head, *tail;
static int queued_prologs;
static struct pool *current; /* NULL when not initialised (or in slurmd) */
static bool in_slurmctld;
static void (*prolog_done)(int rc, uint32_t job_id, bool timed_out);
static void (*epilog_done)(int rc, uint32_t job_id, bool timed_out);

static void free_env(char **env) {
    for (char **e = env; e && *e; e++) free(*e);
    free(env);
}

static void free_task(struct task *t) {
    free_env(t->env);
    free(t);
}

/* Drops one hold on p (under lock); the last one closes its pipe and frees it. */
static void release(struct pool *p) {
    if (--p->holders > 0) return;
    for (int i = 0; i < 2; i++) {
        if (p->cancel[i] >= 0) close(p->cancel[i]);
    }
    free(p);
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

/* Each line a call wrote, into slurmctld's log: the agent's words (a denial's reason) as info, else as error. The
 * text is walked in place, one line at a time; no tokeniser's hidden state is shared between the workers. */
static void log_lines(char *text, int code, const char *what, uint32_t job_id) {
    for (char *line = text, *end; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end) *end = '\0';
        if (!*line) continue;
        if (code == HOOK_OK) {
            info("%s: %s JobId=%u: %s", plugin_type, what, job_id, line);
        } else {
            error("%s: %s JobId=%u: %s", plugin_type, what, job_id, line);
        }
    }
}

/* Waits for `pid` (its own process group) by the deadline, killing the group then; its wait status, or -1 (killed
 * at the deadline, or cancelled). */
static int reap_by(pid_t pid, const struct timespec *deadline, int cancel) {
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR) return -1;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ms = (deadline->tv_sec - now.tv_sec) * 1000L + (deadline->tv_nsec - now.tv_nsec) / 1000000L;
        struct pollfd p = {.fd = cancel, .events = POLLIN};
        if (ms <= 0 || poll(&p, 1, 0) > 0) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            return -1;
        }
        poll(NULL, 0, ms < 20 ? (int)ms : 20);
    }
}

/* Copies the child's output into `out` until it closes it, by the deadline (or cancel). */
static void copy_output(int from, FILE *out, const struct timespec *deadline, int cancel) {
    char buffer[4096];
    size_t total = 0;
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ms = (deadline->tv_sec - now.tv_sec) * 1000L + (deadline->tv_nsec - now.tv_nsec) / 1000000L;
        if (ms <= 0) return;
        struct pollfd p[2] = {{.fd = from, .events = POLLIN}, {.fd = cancel, .events = POLLIN}};
        int r = poll(p, 2, ms > 60000 ? 60000 : (int)ms);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0 || p[1].revents) return;
        ssize_t n = read(from, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        /* slurmctld's log gets the first 64 KiB; the rest is read and dropped so the child never blocks */
        if (total < MAX_FRAME) fwrite(buffer, 1, (size_t)n, out);
        total += (size_t)n;
    }
}

/* No agent: the JVM hook as a child with the job's environment (and why), its exit status as the outcome; bounded
 * by agent_timeout (see the top). */
static int run_jvm_hook(const struct pool *p, const char *mode, char **env, const char *why, FILE *out) {
    const struct hook_settings *s = &p->settings;
    size_t n = 0;
    while (env[n]) n++;
    char **child_env = calloc(n + 2, sizeof *child_env);
    char note[6144];
    snprintf(note, sizeof note, "LEDGER_HOOK_FALLBACK=%s; this call runs the JVM hook %s instead", why, s->jvm_hook);
    if (!child_env) return HOOK_UNAVAILABLE << 8;
    memcpy(child_env, env, n * sizeof *child_env);
    child_env[n] = note;
    fprintf(out, "%s\n", note + strlen("LEDGER_HOOK_FALLBACK="));
    int output[2];
    if (pipe2(output, O_CLOEXEC) != 0) {
        fprintf(out, "cannot run the JVM hook %s: a pipe: %s\n", s->jvm_hook, strerror(errno));
        free(child_env);
        return HOOK_UNAVAILABLE << 8;
    }
    posix_spawn_file_actions_t files;
    posix_spawnattr_t attr;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&files, output[1], 1);
    posix_spawn_file_actions_adddup2(&files, output[1], 2);
    posix_spawn_file_actions_addclosefrom_np(&files, 3); /* slurmctld's sockets, files and pipes stay its own */
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setsigmask(&attr, &none);  /* slurmctld's threads block signals the JVM must get */
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setpgroup(&attr, 0);       /* killed as a group at the deadline: the launcher and its JVM */
    char *argv[] = {(char *)s->jvm_hook, (char *)mode, NULL};
    pid_t pid;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += s->agent_timeout;
    int e = posix_spawn(&pid, s->jvm_hook, &files, &attr, argv, child_env);
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    free(child_env);
    close(output[1]);
    if (e != 0) {
        close(output[0]);
        fprintf(out, "cannot run the JVM hook %s: %s\n", s->jvm_hook, strerror(e));
        return HOOK_UNAVAILABLE << 8;
    }
    copy_output(output[0], out, &deadline, p->cancel[0]);
    close(output[0]);
    int status = reap_by(pid, &deadline, p->cancel[0]);
    if (status < 0) {
        fprintf(out, "the JVM hook %s did not end within %ld s (agent_timeout), or slurmctld is unloading the"
                     " plugin: killed, exit 3 (unavailable)\n", s->jvm_hook, s->agent_timeout);
        return HOOK_UNAVAILABLE << 8;
    }
    return status;
}

/* One call, its outcome as a wait status (what the callbacks take: a script's exit code << 8). */
static int run(const struct pool *p, struct task *t) {
    const char *mode = t->epilog ? "epilog" : "prolog";
    if (!t->env) {
        error("%s: %s JobId=%u: %d prologs are already waiting for the hook agent: exit 3 (unavailable), the job"
              " is requeued", plugin_type, mode, t->job_id, QUEUE_MAX);
        return HOOK_UNAVAILABLE << 8;
    }
    const char *name = t->epilog ? "ledger-epilog" : "ledger-prolog";
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) return HOOK_UNAVAILABLE << 8;
    char why[600];
    int code = hook_call(&p->settings, name, mode, 0, NULL, t->env, out, why, sizeof why);
    int status;
    if (code == HOOK_NO_AGENT) {
        status = run_jvm_hook(p, mode, t->env, why, out);
        code = WIFEXITED(status) ? WEXITSTATUS(status) : HOOK_UNAVAILABLE;
    } else {
        status = (code & 0xff) << 8;
    }
    fclose(out);
    log_lines(text, code, mode, t->job_id);
    free(text);
    return status;
}

static void *work(void *arg) {
    struct pool *p = arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!head && !p->stopping) pthread_cond_wait(&more, &lock);
        if (p->stopping) break; /* fini drains what is left */
        struct task *t = head;
        head = t->next;
        if (!head) tail = NULL;
        if (!t->epilog && t->env) queued_prologs--;
        p->calling++;
        pthread_mutex_unlock(&lock);
        int status = run(p, t);
        pthread_mutex_lock(&lock);
        p->calling--;
        pthread_cond_broadcast(&quiet);
        bool late = p->stopping;
        pthread_mutex_unlock(&lock);
        if (late) {
            /* slurmctld is unloading the plugin (its job records may be gone): no callback. A prolog runs again at
             * start-up; an epilog's settlement was spooled before any wait for the agent. */
            info("%s: %s JobId=%u ended during shutdown, not reported", plugin_type, t->epilog ? "epilog" : "prolog",
                 t->job_id);
        } else {
            /* the whole wait as slurmctld sees it, and its own share: what the storm compares with the scripts' */
            verbose("%s: %s JobId=%u exit %d after %ld us (%ld us on slurmctld's thread)", plugin_type,
                    t->epilog ? "epilog" : "prolog", t->job_id, WIFEXITED(status) ? WEXITSTATUS(status) : 128,
                    micros_since(&t->queued), t->enqueue_us);
            /* may wait for the job write lock (fini's caller may hold it: fini does not wait for this) */
            if (t->epilog) {
                if (epilog_done) epilog_done(status, t->job_id, false);
            } else if (prolog_done) {
                prolog_done(status, t->job_id, false);
            }
        }
        free_task(t);
        pthread_mutex_lock(&lock);
    }
    release(p);
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Keeps this .so mapped after slurmctld's dlclose (see the top): 0, or -1. */
static int pin(void) {
    Dl_info self;
    if (!dladdr((void *)&plugin_type, &self) || !self.dli_fname) return -1;
    return dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) ? 0 : -1;
}

/* Stops the workers of a pool that never served (init failed half-way): they are idle, so joining is safe. */
static void unwind(struct pool *p, pthread_t *threads, int started) {
    pthread_mutex_lock(&lock);
    p->stopping = true;
    p->holders++; /* this function's own hold while it joins */
    pthread_cond_broadcast(&more);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    pthread_mutex_lock(&lock);
    p->holders--;  /* the workers' holds are gone: only init's */
    release(p);
    pthread_mutex_unlock(&lock);
}

extern int init(void) {
    in_slurmctld = running_in_slurmctld();
    if (!in_slurmctld) return SLURM_SUCCESS; /* slurmd loads PrEp plugins too: nothing to do there */
    *(void **)&common_env_vars = dlsym(RTLD_DEFAULT, "job_common_env_vars");
    if (!common_env_vars) {
        error("%s: this slurmctld has no job_common_env_vars: the plugin was built for another Slurm", plugin_type);
        return SLURM_ERROR;
    }
    if (pin() != 0) {
        error("%s: cannot keep the plugin loaded for its workers: %s", plugin_type, dlerror());
        return SLURM_ERROR;
    }
    struct pool *p = calloc(1, sizeof *p);
    if (!p) {
        error("%s: out of memory", plugin_type);
        return SLURM_ERROR;
    }
    p->cancel[0] = p->cancel[1] = -1;
    p->holders = 1;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    int r = out ? hook_read_settings(&p->settings, plugin_type, out) : -1;
    if (out) fclose(out);
    if (r < 0) {
        error("%s: %s", plugin_type, text ? text : "cannot read ledger-hook.conf");
        free(text);
        free(p);
        return SLURM_ERROR;
    }
    free(text);
    if (pipe2(p->cancel, O_CLOEXEC) != 0) {
        error("%s: cannot make a pipe: %m", plugin_type);
        free(p);
        return SLURM_ERROR;
    }
    p->settings.cancel_fd = p->cancel[0];
    pthread_t threads[WORKERS];
    for (int started = 0; started < WORKERS; started++) {
        pthread_mutex_lock(&lock);
        p->holders++;
        pthread_mutex_unlock(&lock);
        int e = pthread_create(&threads[started], NULL, work, p);
        if (e != 0) {
            pthread_mutex_lock(&lock);
            p->holders--;
            pthread_mutex_unlock(&lock);
            error("%s: cannot start worker %d: %s", plugin_type, started, strerror(e));
            unwind(p, threads, started);
            return SLURM_ERROR;
        }
    }
    for (int i = 0; i < WORKERS; i++) pthread_detach(threads[i]);
    pthread_mutex_lock(&lock);
    current = p;
    pthread_mutex_unlock(&lock);
    info("%s: %d workers, hook agent %s, spool %s", plugin_type, WORKERS, p->settings.agent_socket,
         p->settings.spool_dir);
    return SLURM_SUCCESS;
}

extern void fini(void) {
    if (!in_slurmctld) return;
    pthread_mutex_lock(&lock);
    struct pool *p = current;
    current = NULL;
    if (!p) {
        pthread_mutex_unlock(&lock);
        return;
    }
    p->stopping = true;
    pthread_cond_broadcast(&more);
    struct task *left = head;
    head = tail = NULL;
    queued_prologs = 0;
    pthread_mutex_unlock(&lock);
    if (write(p->cancel[1], "x", 1) != 1) error("%s: cannot wake the workers: %m", plugin_type);
    /* what is still queued: epilogs into the spool (durable: settled by the agent whenever it next runs);
     * prologs are dropped, slurmctld runs them again at start-up for jobs still CONFIGURING */
    int spooled = 0, dropped = 0;
    for (struct task *t = left, *next; t; t = next) {
        next = t->next;
        if (t->epilog) {
            char *text = NULL;
            size_t size = 0;
            FILE *out = open_memstream(&text, &size);
            if (out) {
                int code = hook_spool(&p->settings, "ledger-epilog", t->env, out);
                fclose(out);
                log_lines(text, code, "epilog", t->job_id);
                spooled += code == HOOK_OK;
            }
            free(text);
        } else {
            dropped++;
        }
        free_task(t);
    }
    /* the calls in progress give up at once (the cancel pipe); a worker in a callback is not waited for */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += FINI_WAIT_MS / 1000;
    pthread_mutex_lock(&lock);
    while (p->calling > 0 && pthread_cond_timedwait(&quiet, &lock, &until) == 0) {
    }
    int still = p->calling;
    release(p);
    pthread_mutex_unlock(&lock);
    if (still) error("%s: %d calls to the hook agent still ending at unload", plugin_type, still);
    if (spooled || dropped) {
        info("%s: at shutdown %d queued epilogs spooled, %d queued prologs left for slurmctld to run again at start-up",
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
    if (!t) {
        error("%s: out of memory for JobId=%u", plugin_type, job_ptr->job_id);
        return SLURM_ERROR;
    }
    clock_gettime(CLOCK_MONOTONIC, &t->queued);
    t->job_id = job_ptr->job_id;
    t->epilog = epilog;
    pthread_mutex_lock(&lock);
    bool shed = !epilog && queued_prologs >= QUEUE_MAX;
    if (!shed && !epilog) queued_prologs++; /* counted now: the slot is this prolog's */
    pthread_mutex_unlock(&lock);
    if (!shed) {
        t->env = job_env(job_ptr, epilog);
        if (!t->env) {
            pthread_mutex_lock(&lock);
            if (!epilog) queued_prologs--;
            pthread_mutex_unlock(&lock);
            free(t);
            error("%s: out of memory for JobId=%u", plugin_type, job_ptr->job_id);
            return SLURM_ERROR;
        }
    }
    t->enqueue_us = micros_since(&t->queued);
    pthread_mutex_lock(&lock);
    if (!current) {
        if (!shed && !epilog) queued_prologs--;
        pthread_mutex_unlock(&lock);
        free_task(t);
        error("%s: not initialised; JobId=%u runs without the ledger's %s", plugin_type, job_ptr->job_id,
              epilog ? "settlement" : "hold");
        return SLURM_ERROR;
    }
    if (shed) { /* answered first: it needs no agent */
        t->next = head;
        head = t;
        if (!tail) tail = t;
    } else {
        if (tail) {
            tail->next = t;
        } else {
            head = t;
        }
        tail = t;
    }
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
