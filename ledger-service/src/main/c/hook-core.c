/*
 * The ledger hooks' call to the agent: see hook-core.h. Plain C, libc only, thread-safe (the PrEp plugin calls
 * it from several workers at once): no globals but a counter for spool names.
 */
#include "hook-core.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int hook_read_settings(struct hook_settings *s, const char *name, FILE *err) {
    snprintf(s->agent_socket, sizeof s->agent_socket, "%s", DEFAULT_SOCKET);
    s->agent_timeout = DEFAULT_AGENT_TIMEOUT;
    snprintf(s->jvm_hook, sizeof s->jvm_hook, "%s", DEFAULT_JVM_HOOK);
    snprintf(s->spool_dir, sizeof s->spool_dir, "%s", DEFAULT_SPOOL);
    s->submit_timeout_ms = DEFAULT_SUBMIT_TIMEOUT_MS;
    s->submit_refuses = 0;
    s->cancel_fd = -1;
    const char *explicit = getenv("ALPSBRIDGE_LEDGER_HOOK_CONFIG");
    const char *path = explicit && *explicit ? explicit : DEFAULT_CONFIG;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (explicit && *explicit) {
            fprintf(err, "%s: ALPSBRIDGE_LEDGER_HOOK_CONFIG names %s, which cannot be read: %s\n", name, path,
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
            if (strlen(value) >= sizeof s->agent_socket) {
                fprintf(err, "%s: agent_socket %s is longer than a unix socket path may be\n", name, value);
                fclose(f);
                return -1;
            }
            strcpy(s->agent_socket, value);
        } else if (strcmp(key, "agent_timeout") == 0) {
            char *end;
            long t = strtol(value, &end, 10);
            if (*value == '\0' || *end != '\0' || t < 1) {
                fprintf(err, "%s: agent_timeout takes whole seconds (1 or more), not '%s'\n", name, value);
                fclose(f);
                return -1;
            }
            s->agent_timeout = t;
        } else if (strcmp(key, "jvm_hook") == 0 && *value) {
            snprintf(s->jvm_hook, sizeof s->jvm_hook, "%s", value);
        } else if (strcmp(key, "submit_timeout") == 0) {
            char *end;
            double t = strtod(value, &end);
            if (*value == '\0' || *end != '\0' || !(t >= 0.05 && t <= 600)) {
                fprintf(err, "%s: submit_timeout takes seconds from 0.05 to 600, not '%s'\n", name, value);
                fclose(f);
                return -1;
            }
            s->submit_timeout_ms = (long)(t * 1000);
        } else if (strcmp(key, "submit_when_unavailable") == 0) {
            if (strcmp(value, "allow") != 0 && strcmp(value, "refuse") != 0) {
                fprintf(err, "%s: submit_when_unavailable takes allow or refuse, not '%s'\n", name, value);
                fclose(f);
                return -1;
            }
            s->submit_refuses = strcmp(value, "refuse") == 0;
        } else if (strcmp(key, "spool") == 0 && *value) {
            snprintf(s->spool_dir, sizeof s->spool_dir, "%s", value);
        }
    }
    fclose(f);
    return 0;
}

const char *hook_env_get(char **env, const char *key) {
    size_t n = strlen(key);
    for (char **e = env; e && *e; e++) {
        if (strncmp(*e, key, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    }
    return NULL;
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
static int spool_epilog(const char *spool_dir, char **env, const struct buffer *b, char *file, size_t file_size, char *why,
                        size_t why_size) {
    const char *job = hook_env_get(env, "SLURM_JOB_ID");
    const char *restarts = hook_env_get(env, "SLURM_JOB_RESTART_COUNT");
    const char *cluster = hook_env_get(env, "SLURM_CLUSTER_NAME");
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
    /* pid and a counter: the plugin's workers share one pid */
    static unsigned long written;
    snprintf(tmp, sizeof tmp, "%s/.tmp-%s-c%ld-%lu", spool_dir, file, (long)getpid(),
             __atomic_add_fetch(&written, 1, __ATOMIC_RELAXED));
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

/* Waits for the socket to be ready; 0 ready, -1 the deadline passed or `cancel` became readable. */
static int await(int fd, short events, const struct timespec *deadline, int cancel) {
    for (;;) {
        long ms = remaining_ms(deadline);
        if (ms <= 0) return -1;
        struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = cancel, .events = POLLIN}};
        int r = poll(p, cancel >= 0 ? 2 : 1, ms > 60000 ? 60000 : (int)ms);
        if (r > 0 && cancel >= 0 && p[1].revents) return -1;
        if (r > 0) return 0;
        if (r < 0 && errno != EINTR) return -1;
    }
}

/* Reads exactly n bytes: 0 done, -1 the deadline passed (or cancelled), -2 the agent hung up. */
static int read_all(int fd, char *into, size_t n, const struct timespec *deadline, int cancel) {
    size_t got = 0;
    while (got < n) {
        if (await(fd, POLLIN, deadline, cancel) < 0) return -1;
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

int hook_call(const struct hook_settings *s, const char *name, const char *mode, int argc, char **argv, char **env,
              FILE *err, char *why_no_agent, size_t why_size) {
    int submit = strcmp(mode, "submit") == 0;

    struct buffer b = {.data = malloc(4096), .length = 4 /* the length, written below */, .capacity = 4096};
    if (!b.data) return HOOK_UNAVAILABLE;
    int too_big = add_item(&b, "v", "1") | add_item(&b, "mode", mode);
    for (int i = 0; i < argc && !too_big; i++) too_big |= add_item(&b, "arg", argv[i]);
    if (submit) {
        /* the agent's request to the service is bounded by the same time (whole seconds, at least 1) */
        char seconds[32];
        snprintf(seconds, sizeof seconds, "%ld", (s->submit_timeout_ms + 999) / 1000);
        too_big |= add_item(&b, "arg", "--timeout") | add_item(&b, "arg", seconds);
    }
    for (char **e = env; e && *e && !too_big; e++) {
        if (strncmp(*e, "SLURM_", 6) == 0) too_big |= add_item(&b, "env", *e);
    }
    if (too_big) {
        fprintf(err, "%s: the call (arguments and SLURM_* environment) is over %d bytes, the agent's limit\n", name,
                MAX_FRAME);
        free(b.data);
        return HOOK_USAGE;
    }
    seal(&b);

    /* writes are send(MSG_NOSIGNAL): an agent that hangs up is an error to report, not a signal to die of (and the
     * plugin must not change slurmctld's signal handling) */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(err, "%s: cannot make a socket: %s\n", name, strerror(errno));
        free(b.data);
        return HOOK_UNAVAILABLE;
    }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, s->agent_socket);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int e = errno;
        char why[512];
        snprintf(why, sizeof why, "no hook agent answers on %s (%s)", s->agent_socket, strerror(e));
        close(fd);
        free(b.data);
        if (submit) { /* never a JVM under slurmctld's locks: the ledger cannot say */
            fprintf(err, "%s: %s\n", name, why);
            return HOOK_UNAVAILABLE;
        }
        if (e == ENOENT || e == ECONNREFUSED) {
            snprintf(why_no_agent, why_size, "%s", why);
            return HOOK_NO_AGENT;
        }
        fprintf(err, "%s: %s: exit 3 (unavailable)\n", name, why);
        return HOOK_UNAVAILABLE;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    if (submit) {
        deadline.tv_sec += s->submit_timeout_ms / 1000;
        deadline.tv_nsec += (s->submit_timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    } else {
        deadline.tv_sec += s->agent_timeout;
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
            if (spool_epilog(s->spool_dir, env, &b, file, sizeof file, why, sizeof why) == 0) {
                /* the notice is a courtesy: the agent also finds the file when it next looks at its spool */
                if (add_item(&b, "spooled", file) == 0) {
                    seal(&b);
                    for (size_t sent = 0; sent < b.length;) {
                        ssize_t w = send(fd, b.data + sent, b.length - sent, MSG_NOSIGNAL);
                        if (w < 0 && errno == EINTR) continue;
                        if (w <= 0) break;
                        sent += (size_t)w;
                    }
                }
                close(fd);
                free(b.data);
                const char *restarts = hook_env_get(env, "SLURM_JOB_RESTART_COUNT");
                fprintf(err, "ledger epilog: job %s run %ld: spooled for settlement (%s/%s)\n", hook_env_get(env, "SLURM_JOB_ID"),
                        (restarts && *restarts ? atol(restarts) : 0) + 1, s->spool_dir, file);
                return HOOK_OK;
            }
            fprintf(err, "%s: %s; the hook agent is handed the call\n", name, why);
        }
        b.length = unstamped;
        seal(&b);
    }
    size_t sent = 0;
    while (sent < b.length) {
        if (await(fd, POLLOUT, &deadline, s->cancel_fd) < 0) break;
        ssize_t w = send(fd, b.data + sent, b.length - sent, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break; /* the agent may have answered and hung up (a refusal): read its answer */
        sent += (size_t)w;
    }
    free(b.data);
    shutdown(fd, SHUT_WR);
    unsigned char head[4];
    int r = read_all(fd, (char *)head, 4, &deadline, s->cancel_fd);
    uint32_t n = 0;
    char *reply = NULL;
    if (r == 0) {
        n = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
        if (n > MAX_FRAME || !(reply = malloc(n + 1))) {
            r = -2;
        } else {
            r = read_all(fd, reply, n, &deadline, s->cancel_fd);
        }
    }
    close(fd);
    if (r == -1) {
        if (submit) {
            fprintf(err, "%s: the hook agent on %s did not answer within %ld ms (submit_timeout)\n", name,
                    s->agent_socket, s->submit_timeout_ms);
        } else {
            fprintf(err, "%s: the hook agent on %s did not answer within %ld s (agent_timeout): exit 3 (unavailable)\n",
                    name, s->agent_socket, s->agent_timeout);
        }
        return HOOK_UNAVAILABLE;
    }
    if (r < 0 || n < 7 || reply[n - 1] != '\0' || strncmp(reply, "exit=", 5) != 0) {
        fprintf(err, "%s: the hook agent on %s hung up without a whole answer: exit 3 (unavailable)\n", name,
                s->agent_socket);
        free(reply);
        return HOOK_UNAVAILABLE;
    }
    int exit_code = atoi(reply + 5);
    for (char *item = reply + strlen(reply) + 1; item < reply + n; item += strlen(item) + 1) {
        if (strncmp(item, "say=", 4) == 0) fprintf(err, "%s\n", item + 4);
    }
    free(reply);
    return exit_code;
}
