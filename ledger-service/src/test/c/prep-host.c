/*
 * A stand-in slurmctld for prep/ledger: it loads the built prep_ledger.so as slurmctld does (dlopen, init,
 * prep_p_register_callbacks), exports what the plugin takes from slurmctld (log_var, slurm_error, error,
 * get_log_level, running_in_slurmctld or 26.05's run_in_daemon, slurm_xfree, job_common_env_vars), holds a "job
 * write lock" where slurmctld holds its own (around each prep_p_*_slurmctld call and inside each completion
 * callback), and keeps every line the plugin logs. Built against the configured Slurm source the plugin was
 * (job_record_t, prep_callbacks_t): 22.05 and 26.05.
 *   prep-host PLUGIN storm N SOCKET      a loopback agent on SOCKET answers each prolog with ten lines naming its
 *                                        job; N prologs and N epilogs are queued from 4 threads at once. Passes when
 *                                        every call is reported, every line is under its own job, and none is lost.
 *   prep-host PLUGIN stalled SOCKET      an agent that listens on SOCKET and never accepts, its backlog full: one
 *                                        prolog is answered exit 3 within agent_timeout and fini returns.
 *   prep-host PLUGIN overflow QUEUE SOCKET  the same agent; QUEUE prologs + 10: the 10 over the queue's bound are
 *                                        answered exit 3 at once, and fini returns.
 *   prep-host PLUGIN reconfigure SOCKET  a working agent; fini is called while the "job write lock" is held and a
 *                                        worker waits for it inside the completion callback (as at `scontrol
 *                                        reconfigure`): fini returns, and the worker ends after the lock is free.
 *   prep-host PLUGIN fallback MARKER     no agent (agent_socket names no socket), jvm_hook a script that prints its
 *                                        signal mask ("SigBlk:") and descriptors ("fds: ...") and sleeps: the host
 *                                        blocks signals and holds MARKER open as slurmctld would; the prolog is
 *                                        answered exit 3 once agent_timeout kills the script, whose mask was empty
 *                                        and which had no MARKER open.
 * Settings: ALPSBRIDGE_LEDGER_HOOK_CONFIG, as for the plugin. Prints what it measured; exit 0 when it passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#if __has_include("src/interfaces/prep.h")
#include "src/interfaces/prep.h"
#else
#include "src/common/prep.h"
#endif
#include "src/common/log.h"

/* ---- what slurmctld gives the plugin ---- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char **lines;
static size_t line_count, line_capacity;

static void keep(const char *fmt, va_list ap) {
    char *line = NULL;
    if (vasprintf(&line, fmt, ap) < 0) abort();
    pthread_mutex_lock(&log_lock);
    if (line_count == line_capacity) {
        line_capacity = line_capacity ? line_capacity * 2 : 4096;
        lines = realloc(lines, line_capacity * sizeof *lines);
        if (!lines) abort();
    }
    lines[line_count++] = line;
    pthread_mutex_unlock(&log_lock);
    sched_yield(); /* slurmctld's log writes a file under its own lock: other threads run meanwhile */
}

int get_log_level(void) {
    return LOG_LEVEL_VERBOSE;
}

void log_var(const log_level_t level, const char *fmt, ...) {
    (void)level;
    va_list ap;
    va_start(ap, fmt);
    keep(fmt, ap);
    va_end(ap);
}

int slurm_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    keep(fmt, ap);
    va_end(ap);
    return -1;
}

/* slurmctld exports error() too: a plugin that binds it by that name (glibc has one) gets this one here */
int error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    keep(fmt, ap);
    va_end(ap);
    return -1;
}

#ifdef running_in_slurmctld /* 23.02 and later: a macro over run_in_daemon */
bool run_in_daemon(uint32_t daemons) {
    return (daemons & IS_SLURMCTLD) != 0;
}
#else
bool running_in_slurmctld(void) {
    return true;
}
#endif

void slurm_xfree(void **p) {
    free(*p);
    *p = NULL;
}

char **job_common_env_vars(job_record_t *job, bool is_complete) {
    char **env = calloc(6, sizeof *env);
    if (!env) abort();
    if (asprintf(&env[0], "SLURM_JOB_ID=%u", job->job_id) < 0 || asprintf(&env[1], "SLURM_JOB_ACCOUNT=acct%u",
                                                                           job->job_id % 7) < 0
        || asprintf(&env[2], "SLURM_JOB_RESTART_COUNT=0") < 0 || asprintf(&env[3], "SLURM_CLUSTER_NAME=host") < 0
        || asprintf(&env[4], "SLURM_SCRIPT_STANDIN=%s", is_complete ? "epilog" : "prolog") < 0) {
        abort();
    }
    return env;
}

/* ---- slurmctld's side of the PrEp interface ---- */

static pthread_rwlock_t job_lock = PTHREAD_RWLOCK_INITIALIZER; /* slurmctld's job write lock */
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_more = PTHREAD_COND_INITIALIZER;
static int *prolog_status, *epilog_status; /* by job id; -1 not yet */
static int prologs_done, epilogs_done, callbacks_waiting;
static uint32_t jobs;

static void reported(int rc, uint32_t job_id, bool epilog) {
    pthread_mutex_lock(&done_lock);
    callbacks_waiting++;
    pthread_cond_broadcast(&done_more);
    pthread_mutex_unlock(&done_lock);
    pthread_rwlock_wrlock(&job_lock); /* as prep_prolog_slurmctld_callback does */
    pthread_mutex_lock(&done_lock);
    callbacks_waiting--;
    if (job_id >= 1 && job_id <= jobs) {
        int *status = epilog ? epilog_status : prolog_status;
        if (status[job_id] == -1) {
            status[job_id] = rc;
            if (epilog) {
                epilogs_done++;
            } else {
                prologs_done++;
            }
        }
    }
    pthread_cond_broadcast(&done_more);
    pthread_mutex_unlock(&done_lock);
    pthread_rwlock_unlock(&job_lock);
}

static void prolog_reported(int rc, uint32_t job_id, bool timed_out) {
    (void)timed_out;
    reported(rc, job_id, false);
}

static void epilog_reported(int rc, uint32_t job_id, bool timed_out) {
    (void)timed_out;
    reported(rc, job_id, true);
}

static int (*plugin_init)(void);
static void (*plugin_fini)(void);
static int (*plugin_prolog)(job_record_t *, bool *);
static int (*plugin_epilog)(job_record_t *, bool *);
static job_record_t *records;

static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Waits until `want` prologs and epilogs are reported, or `limit_ms`: whether they were. */
static bool await_reports(int prologs, int epilogs, long limit_ms) {
    long until = now_ms() + limit_ms;
    pthread_mutex_lock(&done_lock);
    while ((prologs_done < prologs || epilogs_done < epilogs) && now_ms() < until) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 50 * 1000000L;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&done_more, &done_lock, &t);
    }
    bool all = prologs_done >= prologs && epilogs_done >= epilogs;
    pthread_mutex_unlock(&done_lock);
    return all;
}

static void queue_call(uint32_t job_id, bool epilog) {
    bool async = false;
    pthread_rwlock_wrlock(&job_lock);
    int rc = (epilog ? plugin_epilog : plugin_prolog)(&records[job_id], &async);
    pthread_rwlock_unlock(&job_lock);
    if (rc != 0 || !async) {
        fprintf(stderr, "JobId=%u: the %s was not queued (rc %d)\n", job_id, epilog ? "epilog" : "prolog", rc);
        exit(1);
    }
}

/* ---- the agents ---- */

/* The lines the agent says for each prolog: many, so that workers logging at once interleave their walks. */
#define LINES 10

static int listen_on(const char *path, int backlog) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    unlink(path);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, backlog) != 0) {
        perror(path);
        exit(1);
    }
    return fd;
}

/* Fills the backlog of a listener that never accepts: connects until one would wait. */
static void fill_backlog(const char *path) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    for (int i = 0; i < 64; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            if (errno != EAGAIN) perror("filling the backlog");
            close(fd);
            return; /* the backlog is full */
        }
    }
    fprintf(stderr, "the backlog never filled\n");
    exit(1);
}

/* A loopback agent: reads each call whole, answers a prolog exit=0 with LINES lines naming the job. */
static void *agent(void *arg) {
    int listener = *(int *)arg;
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) return NULL;
        char *call = malloc(70000);
        size_t got = 0;
        ssize_t r;
        while (call && got < 70000 && (r = read(fd, call + got, 70000 - got)) > 0) got += (size_t)r;
        const char *job = "?", *mode = "?";
        for (size_t i = 4; call && i < got; i += strlen(call + i) + 1) {
            if (strncmp(call + i, "env=SLURM_JOB_ID=", 17) == 0) job = call + i + 17;
            if (strncmp(call + i, "mode=", 5) == 0) mode = call + i + 5;
        }
        char reply[2048];
        int n = 4 + snprintf(reply + 4, sizeof reply - 4, "exit=0") + 1;
        for (int k = 1; k <= LINES; k++) {
            n += snprintf(reply + n, sizeof reply - (size_t)n, "say=job %s line %d of %d", job, k, LINES) + 1;
        }
        if (strcmp(mode, "prolog") != 0) n = 4 + snprintf(reply + 4, sizeof reply - 4, "exit=0") + 1;
        uint32_t length = (uint32_t)(n - 4);
        reply[0] = (char)(length >> 24);
        reply[1] = (char)(length >> 16);
        reply[2] = (char)(length >> 8);
        reply[3] = (char)length;
        if (send(fd, reply, (size_t)n, MSG_NOSIGNAL) < 0 && errno != EPIPE) perror("agent");
        free(call);
        close(fd);
    }
}

/* ---- the scenarios ---- */

struct range {
    uint32_t from, to;
};

static void *drive(void *arg) {
    struct range *r = arg;
    for (uint32_t j = r->from; j < r->to; j++) {
        queue_call(j, false);
        queue_call(j, true);
    }
    return NULL;
}

static int storm(const char *socket_path) {
    int listener = listen_on(socket_path, 512);
    pthread_t agent_thread, drivers[4];
    for (int i = 0; i < 4; i++) { /* as many answers at once as the plugin has workers */
        if (pthread_create(&agent_thread, NULL, agent, &listener) != 0) abort();
        pthread_detach(agent_thread);
    }
    if (plugin_init() != 0) return fprintf(stderr, "init failed\n"), 1;
    struct range ranges[4];
    for (int i = 0; i < 4; i++) {
        ranges[i].from = 1 + jobs * (uint32_t)i / 4;
        ranges[i].to = 1 + jobs * (uint32_t)(i + 1) / 4;
        if (pthread_create(&drivers[i], NULL, drive, &ranges[i]) != 0) abort();
    }
    for (int i = 0; i < 4; i++) pthread_join(drivers[i], NULL);
    bool all = await_reports((int)jobs, (int)jobs, 300000);
    plugin_fini();
    /* every agent line: "<mode> JobId=X: job Y line K of LINES"; every spooled line: "... JobId=X: ledger epilog: job Y" */
    int *said = calloc(jobs + 1, sizeof *said), *spooled = calloc(jobs + 1, sizeof *spooled);
    int misplaced = 0, failed = 0;
    pthread_mutex_lock(&log_lock);
    for (size_t i = 0; i < line_count; i++) {
        unsigned under, job, k;
        const char *at = strstr(lines[i], "JobId=");
        if (!at) continue;
        if (sscanf(at, "JobId=%u: job %u line %u of", &under, &job, &k) == 3) {
            if (under != job) {
                misplaced++;
                if (misplaced <= 5) fprintf(stderr, "under another job: %s\n", lines[i]);
            } else if (job >= 1 && job <= jobs) {
                said[job]++;
            }
        } else if (sscanf(at, "JobId=%u: ledger epilog: job %u run", &under, &job) == 2) {
            if (under != job) {
                misplaced++;
                if (misplaced <= 5) fprintf(stderr, "under another job: %s\n", lines[i]);
            } else if (job >= 1 && job <= jobs) {
                spooled[job]++;
            }
        }
    }
    pthread_mutex_unlock(&log_lock);
    int lost = 0;
    for (uint32_t j = 1; j <= jobs; j++) {
        lost += (said[j] < LINES ? LINES - said[j] : 0) + (spooled[j] < 1 ? 1 : 0);
        failed += prolog_status[j] != 0 || epilog_status[j] != 0;
    }
    printf("storm: %u prologs and %u epilogs; reported %d and %d; %d not exit 0; %d lines under another job; %d lost\n",
           jobs, jobs, prologs_done, epilogs_done, failed, misplaced, lost);
    free(said);
    free(spooled);
    close(listener);
    return all && !failed && !misplaced && !lost ? 0 : 1;
}

/* Calls fini in a thread: how long it took, or -1 when it did not return within limit_ms. */
static void *call_fini(void *done) {
    plugin_fini();
    __atomic_store_n((bool *)done, true, __ATOMIC_RELEASE);
    return NULL;
}

static long timed_fini(long limit_ms) {
    static bool done;
    __atomic_store_n(&done, false, __ATOMIC_RELEASE);
    pthread_t t;
    long start = now_ms();
    if (pthread_create(&t, NULL, call_fini, &done) != 0) abort();
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE) && now_ms() - start < limit_ms) usleep(10000);
    if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) return -1; /* left hanging: the process exits */
    pthread_join(t, NULL);
    return now_ms() - start;
}

static int stalled(const char *socket_path, int extra, long limit_ms) {
    int listener = listen_on(socket_path, 1);
    fill_backlog(socket_path);
    if (plugin_init() != 0) return fprintf(stderr, "init failed\n"), 1;
    long start = now_ms();
    for (uint32_t j = 1; j <= jobs; j++) queue_call(j, false);
    /* the stalled case: the one prolog; the overflow: the `extra` past the queue's bound */
    int want = extra ? extra : (int)jobs;
    await_reports(want, 0, limit_ms);
    long took = now_ms() - start;
    pthread_mutex_lock(&done_lock);
    int answered = prologs_done, unavailable = 0;
    for (uint32_t j = 1; j <= jobs; j++) unavailable += prolog_status[j] == (3 << 8);
    pthread_mutex_unlock(&done_lock);
    long fini_ms = timed_fini(10000);
    printf("%s: %d of %u prologs answered in %ld ms, %d of them exit 3; fini %s %ld ms\n", extra ? "overflow" : "stalled",
           answered, jobs, took, unavailable, fini_ms < 0 ? "still waiting after" : "returned in",
           fini_ms < 0 ? 10000 : fini_ms);
    close(listener);
    return answered >= want && unavailable >= want && took <= limit_ms && fini_ms >= 0 ? 0 : 1;
}

static int reconfigure(const char *socket_path) {
    int listener = listen_on(socket_path, 16);
    pthread_t agent_thread;
    if (pthread_create(&agent_thread, NULL, agent, &listener) != 0) abort();
    pthread_detach(agent_thread);
    if (plugin_init() != 0) return fprintf(stderr, "init failed\n"), 1;
    /* slurmctld's reconfigure holds the job write lock while the plugin's worker ends its call and waits for it */
    pthread_rwlock_wrlock(&job_lock);
    bool async = false;
    plugin_prolog(&records[1], &async);
    long start = now_ms();
    pthread_mutex_lock(&done_lock);
    while (callbacks_waiting == 0 && now_ms() - start < 10000) pthread_cond_wait(&done_more, &done_lock);
    int waiting = callbacks_waiting;
    pthread_mutex_unlock(&done_lock);
    long fini_ms = timed_fini(10000);
    pthread_rwlock_unlock(&job_lock);
    bool reported_after = await_reports(1, 0, 10000);
    printf("reconfigure: a worker %s in the callback; fini %s %ld ms with the job write lock held; the prolog %s"
           " reported once the lock was free\n", waiting ? "waited" : "did not wait",
           fini_ms < 0 ? "still waiting after" : "returned in", fini_ms < 0 ? 10000 : fini_ms,
           reported_after ? "was" : "was not");
    close(listener);
    return waiting && fini_ms >= 0 && reported_after ? 0 : 1;
}

/* No agent: the JVM hook (a script here that says its signal mask and descriptors, then outlives agent_timeout) runs
 * with none of slurmctld's blocked signals or descriptors and is killed at agent_timeout. */
static int fallback(const char *marker) {
    /* as slurmctld's threads do: signals blocked, and a descriptor of its own without close-on-exec */
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGHUP);
    sigaddset(&blocked, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &blocked, NULL);
    int own = open(marker, O_RDONLY);
    if (own < 0) return perror(marker), 1;
    if (plugin_init() != 0) return fprintf(stderr, "init failed\n"), 1;
    long start = now_ms();
    queue_call(1, false);
    bool reported_in_time = await_reports(1, 0, 6000);
    long took = now_ms() - start;
    bool clean_mask = false, no_leak = true, said = false;
    pthread_mutex_lock(&log_lock);
    for (size_t i = 0; i < line_count; i++) {
        if (strstr(lines[i], "SigBlk:")) clean_mask = strstr(lines[i], "SigBlk:\t0000000000000000") != NULL;
        if (strstr(lines[i], "fds:")) {
            said = true;
            no_leak = strstr(lines[i], marker) == NULL;
        }
    }
    pthread_mutex_unlock(&log_lock);
    int status = prolog_status[1];
    printf("fallback: the JVM hook's prolog %s %ld ms, status %d; its signal mask %s; slurmctld's descriptor %s\n",
           reported_in_time ? "was reported in" : "was not reported in", took, status, clean_mask ? "empty" : "not empty",
           !said ? "unknown (no output)" : no_leak ? "closed" : "inherited");
    long fini_ms = timed_fini(10000);
    close(own);
    return reported_in_time && status == (3 << 8) && clean_mask && said && no_leak && fini_ms >= 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 4) {
        fprintf(stderr, "usage: prep-host PLUGIN storm N SOCKET | stalled SOCKET | overflow QUEUE SOCKET | reconfigure"
                        " SOCKET | fallback MARKER\n");
        return 2;
    }
    void *plugin = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!plugin) return fprintf(stderr, "%s\n", dlerror()), 1;
    *(void **)&plugin_init = dlsym(plugin, "init");
    *(void **)&plugin_fini = dlsym(plugin, "fini");
    *(void **)&plugin_prolog = dlsym(plugin, "prep_p_prolog_slurmctld");
    *(void **)&plugin_epilog = dlsym(plugin, "prep_p_epilog_slurmctld");
    void (*register_callbacks)(prep_callbacks_t *);
    *(void **)&register_callbacks = dlsym(plugin, "prep_p_register_callbacks");
    if (!plugin_init || !plugin_fini || !plugin_prolog || !plugin_epilog || !register_callbacks) {
        return fprintf(stderr, "%s is not a PrEp plugin\n", argv[1]), 1;
    }
    prep_callbacks_t callbacks = {.prolog_slurmctld = prolog_reported, .epilog_slurmctld = epilog_reported};
    register_callbacks(&callbacks);
    const char *mode = argv[2];
    const char *socket_path = argv[3];
    int extra = 0;
    if (strcmp(mode, "storm") == 0 && argc == 5) {
        jobs = (uint32_t)atoi(argv[3]);
        socket_path = argv[4];
    } else if (strcmp(mode, "overflow") == 0 && argc == 5) {
        extra = 10;
        jobs = (uint32_t)atoi(argv[3]) + (uint32_t)extra;
        socket_path = argv[4];
    } else {
        jobs = 1;
    }
    records = calloc(jobs + 1, sizeof *records);
    prolog_status = malloc((jobs + 1) * sizeof *prolog_status);
    epilog_status = malloc((jobs + 1) * sizeof *epilog_status);
    if (!records || !prolog_status || !epilog_status) abort();
    for (uint32_t j = 0; j <= jobs; j++) {
        records[j].job_id = j;
        prolog_status[j] = epilog_status[j] = -1;
    }
    int rc;
    if (strcmp(mode, "storm") == 0) {
        rc = storm(socket_path);
    } else if (strcmp(mode, "stalled") == 0) {
        rc = stalled(socket_path, 0, 4000);
    } else if (strcmp(mode, "overflow") == 0) {
        rc = stalled(socket_path, extra, 4000);
    } else if (strcmp(mode, "reconfigure") == 0) {
        rc = reconfigure(socket_path);
    } else if (strcmp(mode, "fallback") == 0) {
        rc = fallback(socket_path);
    } else {
        return fprintf(stderr, "unknown mode %s\n", mode), 2;
    }
    if (rc != 0) {
        pthread_mutex_lock(&log_lock);
        for (size_t i = 0; i < line_count && i < 20; i++) fprintf(stderr, "log: %s\n", lines[i]);
        pthread_mutex_unlock(&log_lock);
    }
    fflush(stdout);
    _exit(rc); /* a worker may still be waiting for the agent that never accepts: no exit handlers under it */
}
