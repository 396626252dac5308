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
 * The wire format (AgentCodec.java): a 4-byte big-endian length, then NUL-ended UTF-8 key=value items.
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
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef DEFAULT_JVM_HOOK
#define DEFAULT_JVM_HOOK "/usr/lib/alpsbridge/ledger-hook-jvm"
#endif
#ifndef DEFAULT_CONFIG
#define DEFAULT_CONFIG "/etc/alpsbridge/ledger-hook.conf"
#endif
#define DEFAULT_SOCKET "/run/alpsbridge/ledger-hook.sock"
#define DEFAULT_SPOOL "/var/spool/alpsbridge/ledger-hook"
#define MAX_FRAME (64 * 1024)

enum { OK = 0, USAGE = 2, UNAVAILABLE = 3 };

extern char **environ;

static const char *name = "ledger-hook";
static char agent_socket[sizeof(((struct sockaddr_un *)0)->sun_path)] = DEFAULT_SOCKET;
static long agent_timeout = 60;
static char jvm_hook[4096] = DEFAULT_JVM_HOOK;
static char spool_dir[4096] = DEFAULT_SPOOL;
static long submit_timeout_ms = 2000;
static int submit_refuses = 0; /* submit_when_unavailable=refuse */

/* Reads the keys this client needs; the agent and the JVM hook check the whole file. */
static int read_config(void) {
    const char *explicit = getenv("ALPSBRIDGE_LEDGER_HOOK_CONFIG");
    const char *path = explicit && *explicit ? explicit : DEFAULT_CONFIG;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (explicit && *explicit) {
            fprintf(stderr, "%s: ALPSBRIDGE_LEDGER_HOOK_CONFIG names %s, which cannot be read: %s\n", name, path,
                    strerror(errno));
            return -1;
        }
        return 0;
    }
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = '\0';
        char *key = line, *value = eq + 1;
        while (isspace((unsigned char)*key)) key++;
        for (char *e = key + strlen(key); e > key && isspace((unsigned char)e[-1]);) *--e = '\0';
        while (isspace((unsigned char)*value)) value++;
        for (char *e = value + strlen(value); e > value && isspace((unsigned char)e[-1]);) *--e = '\0';
        for (char *k = key; *k; k++) *k = (char)tolower((unsigned char)*k);
        if (strcmp(key, "agent_socket") == 0) {
            if (strlen(value) >= sizeof agent_socket) {
                fprintf(stderr, "%s: agent_socket %s is longer than a unix socket path may be\n", name, value);
                fclose(f);
                return -1;
            }
            strcpy(agent_socket, value);
        } else if (strcmp(key, "agent_timeout") == 0) {
            char *end;
            long t = strtol(value, &end, 10);
            if (*value == '\0' || *end != '\0' || t < 1) {
                fprintf(stderr, "%s: agent_timeout takes whole seconds (1 or more), not '%s'\n", name, value);
                fclose(f);
                return -1;
            }
            agent_timeout = t;
        } else if (strcmp(key, "jvm_hook") == 0 && *value) {
            snprintf(jvm_hook, sizeof jvm_hook, "%s", value);
        } else if (strcmp(key, "submit_timeout") == 0) {
            char *end;
            double t = strtod(value, &end);
            if (*value == '\0' || *end != '\0' || !(t >= 0.05 && t <= 600)) {
                fprintf(stderr, "%s: submit_timeout takes seconds from 0.05 to 600, not '%s'\n", name, value);
                fclose(f);
                return -1;
            }
            submit_timeout_ms = (long)(t * 1000);
        } else if (strcmp(key, "submit_when_unavailable") == 0) {
            if (strcmp(value, "allow") != 0 && strcmp(value, "refuse") != 0) {
                fprintf(stderr, "%s: submit_when_unavailable takes allow or refuse, not '%s'\n", name, value);
                fclose(f);
                return -1;
            }
            submit_refuses = strcmp(value, "refuse") == 0;
        } else if (strcmp(key, "spool") == 0 && *value) {
            snprintf(spool_dir, sizeof spool_dir, "%s", value);
        }
    }
    fclose(f);
    return 0;
}

/* Runs the JVM hook in this process's place (same pid, arguments and environment), saying why. */
static int run_jvm_hook(const char *mode, int argc, char **argv, const char *why) {
    char note[6144];
    if (why) {
        snprintf(note, sizeof note, "%s; this call runs the JVM hook %s instead", why, jvm_hook);
        fprintf(stderr, "%s: %s\n", name, note);
        setenv("LEDGER_HOOK_FALLBACK", note, 1);
    }
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) return UNAVAILABLE;
    args[0] = jvm_hook;
    args[1] = (char *)mode;
    for (int i = 0; i < argc; i++) args[i + 2] = argv[i];
    execv(jvm_hook, args);
    fprintf(stderr, "%s: cannot run the JVM hook %s: %s\n", name, jvm_hook, strerror(errno));
    return UNAVAILABLE;
}

struct buffer {
    char *data;
    size_t length, capacity;
};

static int add_item(struct buffer *b, const char *key, const char *value) {
    size_t need = strlen(key) + 1 + strlen(value) + 1;
    if (b->length + need > 4 + MAX_FRAME) return -1;
    if (b->length + need > b->capacity) {
        size_t c = (b->capacity + need) * 2;
        char *d = realloc(b->data, c);
        if (!d) return -1;
        b->data = d;
        b->capacity = c;
    }
    b->length += (size_t)sprintf(b->data + b->length, "%s=%s", key, value) + 1; /* keeps the NUL */
    return 0;
}

/* Writes the frame's length into its first 4 bytes. */
static void seal(struct buffer *b) {
    uint32_t length = (uint32_t)(b->length - 4);
    b->data[0] = (char)(length >> 24);
    b->data[1] = (char)(length >> 16);
    b->data[2] = (char)(length >> 8);
    b->data[3] = (char)length;
}

/* Whether s is a non-empty string of digits. */
static int digits(const char *s) {
    if (!s || !*s) return 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s)) return 0;
    }
    return 1;
}

/*
 * The epilog's settlement written into the agent's spool as the agent names it (EpilogSpool.java: job-ID-run-N
 * [-CLUSTER].epilog, N = restart count + 1), durably: a temporary name, fsync, rename, the directory fsync'd.
 * 0 and the file's name in `file`, or -1 and why in `why` (the agent is then handed the call instead).
 */
static int spool_epilog(const struct buffer *b, char *file, size_t file_size, char *why, size_t why_size) {
    const char *job = getenv("SLURM_JOB_ID");
    const char *restarts = getenv("SLURM_JOB_RESTART_COUNT");
    const char *cluster = getenv("SLURM_CLUSTER_NAME");
    if (!digits(job) || (restarts && *restarts && !digits(restarts)) || strlen(job) > 18
        || (restarts && strlen(restarts) > 9)) {
        snprintf(why, why_size, "SLURM_JOB_ID or SLURM_JOB_RESTART_COUNT is not a number");
        return -1;
    }
    long run = (restarts && *restarts ? atol(restarts) : 0) + 1;
    char suffix[300] = "";
    if (cluster && *cluster) {
        size_t n = 0;
        suffix[n++] = '-';
        for (const char *c = cluster; *c && n < sizeof suffix - 1; c++) {
            suffix[n++] = isalnum((unsigned char)*c) || *c == '_' || *c == '.' || *c == '-' ? *c : '_';
        }
        suffix[n] = '\0';
    }
    snprintf(file, file_size, "job-%s-run-%ld%s.epilog", job, run, suffix);
    char path[8192], tmp[8192];
    snprintf(path, sizeof path, "%s/%s", spool_dir, file);
    snprintf(tmp, sizeof tmp, "%s/.tmp-%s-c%ld", spool_dir, file, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, why_size, "cannot write the spool %s: %s", spool_dir, strerror(errno));
        return -1;
    }
    size_t done = 0;
    while (done < b->length) {
        ssize_t w = write(fd, b->data + done, b->length - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += (size_t)w;
    }
    int failed = done < b->length || fsync(fd) != 0;
    int e = errno;
    close(fd);
    if (failed || rename(tmp, path) != 0) {
        if (!failed) e = errno;
        unlink(tmp);
        snprintf(why, why_size, "cannot write %s: %s", path, strerror(e));
        return -1;
    }
    int dir = open(spool_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 || fsync(dir) != 0) {
        /* renamed but maybe not durable: the agent is handed the call too, and writes it again */
        snprintf(why, why_size, "cannot fsync the spool %s: %s", spool_dir, strerror(errno));
        if (dir >= 0) close(dir);
        return -1;
    }
    close(dir);
    return 0;
}

static long remaining_ms(const struct timespec *deadline) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Waits for the socket to be ready; 0 ready, -1 the deadline passed. */
static int await(int fd, short events, const struct timespec *deadline) {
    for (;;) {
        long ms = remaining_ms(deadline);
        if (ms <= 0) return -1;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, ms > 60000 ? 60000 : (int)ms);
        if (r > 0) return 0;
        if (r < 0 && errno != EINTR) return -1;
    }
}

/* Reads exactly n bytes: 0 done, -1 the deadline passed, -2 the agent hung up. */
static int read_all(int fd, char *into, size_t n, const struct timespec *deadline) {
    size_t got = 0;
    while (got < n) {
        if (await(fd, POLLIN, deadline) < 0) return -1;
        ssize_t r = read(fd, into + got, n - got);
        if (r == 0) return -2;
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return -2;
        }
        got += (size_t)r;
    }
    return 0;
}

static int call(const char *mode, int argc, char **argv);

/*
 * A submission's answer: 0 and 1 are the ledger's word; anything else means it could not say, and
 * submit_when_unavailable decides, never a refusal the ledger did not give unless the site asked for it.
 */
static int submit_verdict(int code) {
    if (code == OK || code == 1) return code;
    if (submit_refuses) {
        fprintf(stderr, "ledger: the job is refused because the ledger cannot say whether its project can cover it"
                        " (submit_when_unavailable=refuse); try again later\n");
        return UNAVAILABLE;
    }
    fprintf(stderr, "%s: the ledger cannot say now; the job is accepted (submit_when_unavailable=allow), its hold"
                    " at dispatch still guards it\n", name);
    return OK;
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
        return USAGE;
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
                       "submit_when_unavailable=refuse.\n", agent_socket);
                return OK;
            }
        }
        if (read_config() < 0) return submit_verdict(USAGE);
        return submit_verdict(call(mode, argc, argv));
    }
    if (read_config() < 0) return USAGE;
    return call(mode, argc, argv);
}

/* Hands the call to the agent and passes its answer on (prolog, epilog: the hooks' exit codes). */
static int call(const char *mode, int argc, char **argv) {
    int submit = strcmp(mode, "submit") == 0;
    for (int i = 0; i < argc && !submit; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            /* the whole text (options, settings, exit codes) is the JVM hook's */
            run_jvm_hook(mode, argc, argv, NULL);
            printf("Usage: %s [OPTIONS]   (slurm.conf: %s=/usr/bin/%s)\n"
                   "Hands the call to `alpsbridge ledger hook-agent` on %s; see man ledger-prolog.\n"
                   "Exit codes: 0 ok; 1 denied; 2 bad options; 3 the agent or the service cannot answer; 4 no job record.\n",
                   name, strcmp(mode, "prolog") == 0 ? "PrologSlurmctld" : "EpilogSlurmctld", name, agent_socket);
            return OK;
        }
    }

    struct buffer b = {.data = malloc(4096), .length = 4 /* the length, written below */, .capacity = 4096};
    if (!b.data) return UNAVAILABLE;
    int too_big = add_item(&b, "v", "1") | add_item(&b, "mode", mode);
    for (int i = 0; i < argc && !too_big; i++) too_big |= add_item(&b, "arg", argv[i]);
    if (submit) {
        /* the agent's request to the service is bounded by the same time (whole seconds, at least 1) */
        char seconds[32];
        snprintf(seconds, sizeof seconds, "%ld", (submit_timeout_ms + 999) / 1000);
        too_big |= add_item(&b, "arg", "--timeout") | add_item(&b, "arg", seconds);
    }
    for (char **e = environ; *e && !too_big; e++) {
        if (strncmp(*e, "SLURM_", 6) == 0) too_big |= add_item(&b, "env", *e);
    }
    if (too_big) {
        fprintf(stderr, "%s: the call (arguments and SLURM_* environment) is over %d bytes, the agent's limit\n", name,
                MAX_FRAME);
        return USAGE;
    }
    seal(&b);

    signal(SIGPIPE, SIG_IGN); /* an agent that hangs up is an error to report, not a signal to die of */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot make a socket: %s\n", name, strerror(errno));
        return UNAVAILABLE;
    }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, agent_socket);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int e = errno;
        char why[512];
        snprintf(why, sizeof why, "no hook agent answers on %s (%s)", agent_socket, strerror(e));
        close(fd);
        if (submit) { /* never a JVM under slurmctld's locks: the ledger cannot say */
            fprintf(stderr, "%s: %s\n", name, why);
            return UNAVAILABLE;
        }
        if (e == ENOENT || e == ECONNREFUSED) return run_jvm_hook(mode, argc, argv, why);
        fprintf(stderr, "%s: %s: exit 3 (unavailable)\n", name, why);
        return UNAVAILABLE;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    if (submit) {
        deadline.tv_sec += submit_timeout_ms / 1000;
        deadline.tv_nsec += (submit_timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    } else {
        deadline.tv_sec += agent_timeout;
    }
    if (strcmp(mode, "epilog") == 0) {
        /* an agent answers: write the settlement into its spool, tell it the name, and go (see the top) */
        struct timespec now;
        struct tm utc;
        char at[64], file[512], why[9000];
        clock_gettime(CLOCK_REALTIME, &now);
        gmtime_r(&now.tv_sec, &utc);
        size_t k = strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%S", &utc);
        snprintf(at + k, sizeof at - k, ".%06ldZ", now.tv_nsec / 1000);
        size_t unstamped = b.length;
        if (add_item(&b, "at", at) == 0) {
            seal(&b);
            if (spool_epilog(&b, file, sizeof file, why, sizeof why) == 0) {
                /* the notice is a courtesy: the agent also finds the file when it next looks at its spool */
                if (add_item(&b, "spooled", file) == 0) {
                    seal(&b);
                    for (size_t sent = 0; sent < b.length;) {
                        ssize_t w = write(fd, b.data + sent, b.length - sent);
                        if (w < 0 && errno == EINTR) continue;
                        if (w <= 0) break;
                        sent += (size_t)w;
                    }
                }
                close(fd);
                const char *restarts = getenv("SLURM_JOB_RESTART_COUNT");
                fprintf(stderr, "ledger epilog: job %s run %ld: spooled for settlement (%s/%s)\n", getenv("SLURM_JOB_ID"),
                        (restarts && *restarts ? atol(restarts) : 0) + 1, spool_dir, file);
                return OK;
            }
            fprintf(stderr, "%s: %s; the hook agent is handed the call\n", name, why);
        }
        b.length = unstamped;
        seal(&b);
    }
    size_t sent = 0;
    while (sent < b.length) {
        if (await(fd, POLLOUT, &deadline) < 0) break;
        ssize_t w = write(fd, b.data + sent, b.length - sent);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break; /* the agent may have answered and hung up (a refusal): read its answer */
        sent += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    unsigned char head[4];
    int r = read_all(fd, (char *)head, 4, &deadline);
    uint32_t n = 0;
    char *reply = NULL;
    if (r == 0) {
        n = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
        if (n > MAX_FRAME || !(reply = malloc(n + 1))) {
            r = -2;
        } else {
            r = read_all(fd, reply, n, &deadline);
        }
    }
    close(fd);
    if (r == -1) {
        if (submit) {
            fprintf(stderr, "%s: the hook agent on %s did not answer within %ld ms (submit_timeout)\n", name,
                    agent_socket, submit_timeout_ms);
        } else {
            fprintf(stderr, "%s: the hook agent on %s did not answer within %ld s (agent_timeout): exit 3 (unavailable)\n",
                    name, agent_socket, agent_timeout);
        }
        return UNAVAILABLE;
    }
    if (r < 0 || n < 7 || reply[n - 1] != '\0' || strncmp(reply, "exit=", 5) != 0) {
        fprintf(stderr, "%s: the hook agent on %s hung up without a whole answer: exit 3 (unavailable)\n", name,
                agent_socket);
        return UNAVAILABLE;
    }
    int exit_code = atoi(reply + 5);
    for (char *item = reply + strlen(reply) + 1; item < reply + n; item += strlen(item) + 1) {
        if (strncmp(item, "say=", 4) == 0) fprintf(stderr, "%s\n", item + 4);
    }
    return exit_code;
}
