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

void hook_default_settings(struct hook_settings *s) {
    snprintf(s->agent_socket, sizeof s->agent_socket, "%s", DEFAULT_SOCKET);
    s->agent_timeout = DEFAULT_AGENT_TIMEOUT;
    snprintf(s->jvm_hook, sizeof s->jvm_hook, "%s", DEFAULT_JVM_HOOK);
    snprintf(s->spool_dir, sizeof s->spool_dir, "%s", DEFAULT_SPOOL);
    s->submit_timeout_ms = DEFAULT_SUBMIT_TIMEOUT_MS;
    s->submit_refuses = 0;
    s->cancel_fd = -1;
}

int hook_read_settings(struct hook_settings *s, const char *name, FILE *err) {
    hook_default_settings(s);
    const char *explicit = getenv("ALPSBRIDGE_LEDGER_HOOK_CONFIG");
    const char *path = explicit && *explicit ? explicit : DEFAULT_CONFIG;
    FILE *f = fopen(path, "re");
    if (!f) {
        if (explicit && *explicit) {
            fprintf(err, "%s: ALPSBRIDGE_LEDGER_HOOK_CONFIG names %s, which cannot be read: %s\n", name, path,
                    strerror(errno));
            return -1;
        }
        return 0;
    }
    int r = hook_parse_settings(s, name, path, f, err);
    fclose(f);
    return r;
}

/* ASCII white space: the files are ASCII text, whatever the locale (and clang's analyzer follows it, where it
 * loses track of glibc's ctype tables). */
static int is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Trims the white space around s in place. */
static char *trim(char *s) {
    while (is_blank(*s)) s++;
    for (char *e = s + strlen(s); e > s && is_blank(e[-1]);) *--e = '\0';
    return s;
}

/* One line of in without its newline, into line (HOOK_LINE_MAX + 1 bytes): its length, -1 at the end of the file,
 * -2 when it is longer than HOOK_LINE_MAX, -3 when it holds a NUL byte (not text). */
static int read_line(FILE *in, char *line) {
    int c, n = 0, refused = 0;
    while (!refused && (c = getc(in)) != EOF && c != '\n') {
        if (c == '\0') {
            refused = -3;
        } else if (n == HOOK_LINE_MAX) {
            refused = -2;
        } else {
            line[n++] = (char)c;
        }
    }
    line[n] = '\0';
    if (refused) return refused;
    return c == EOF && n == 0 ? -1 : n;
}

int hook_parse_settings(struct hook_settings *s, const char *name, const char *path, FILE *in, FILE *err) {
    char line[HOOK_LINE_MAX + 1];
    for (int number = 1;; number++) {
        int length = read_line(in, line);
        if (length == -1) break;
        if (length < -1) {
            /* a long line read in parts would be two settings, the second one whatever the first left over */
            fprintf(err, "%s: %s:%d: %s\n", name, path, number,
                    length == -2 ? "the line is longer than " HOOK_LINE_MAX_TEXT " bytes" : "a NUL byte: not text");
            return -1;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = '\0';
        char *key = trim(line), *value = trim(eq + 1);
        for (char *k = key; *k; k++) *k = (char)tolower((unsigned char)*k);
        if (strcmp(key, "agent_socket") == 0) {
            if (strlen(value) >= sizeof s->agent_socket) {
                fprintf(err, "%s: %s:%d: agent_socket %s is longer than a unix socket path may be\n", name, path,
                        number, value);
                return -1;
            }
            snprintf(s->agent_socket, sizeof s->agent_socket, "%s", value);
        } else if (strcmp(key, "agent_timeout") == 0) {
            char *end;
            errno = 0;
            long t = strtol(value, &end, 10);
            if (*value == '\0' || *end != '\0' || errno != 0 || t < 1 || t > HOOK_TIMEOUT_MAX) {
                fprintf(err, "%s: %s:%d: agent_timeout takes whole seconds from 1 to %d, not '%s'\n", name, path,
                        number, HOOK_TIMEOUT_MAX, value);
                return -1;
            }
            s->agent_timeout = t;
        } else if (strcmp(key, "jvm_hook") == 0 && *value) {
            snprintf(s->jvm_hook, sizeof s->jvm_hook, "%s", value);
        } else if (strcmp(key, "submit_timeout") == 0) {
            char *end;
            double t = strtod(value, &end);
            if (*value == '\0' || *end != '\0' || !(t >= 0.05 && t <= 600)) {
                fprintf(err, "%s: %s:%d: submit_timeout takes seconds from 0.05 to 600, not '%s'\n", name, path,
                        number, value);
                return -1;
            }
            s->submit_timeout_ms = (long)(t * 1000);
        } else if (strcmp(key, "submit_when_unavailable") == 0) {
            if (strcmp(value, "allow") != 0 && strcmp(value, "refuse") != 0) {
                fprintf(err, "%s: %s:%d: submit_when_unavailable takes allow or refuse, not '%s'\n", name, path,
                        number, value);
                return -1;
            }
            s->submit_refuses = strcmp(value, "refuse") == 0;
        } else if (strcmp(key, "spool") == 0 && *value) {
            snprintf(s->spool_dir, sizeof s->spool_dir, "%s", value);
        }
    }
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
    return (long)(deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

static struct timespec deadline_in(long ms) {
    struct timespec d;
    clock_gettime(CLOCK_MONOTONIC, &d);
    d.tv_sec += ms / 1000;
    d.tv_nsec += (ms % 1000) * 1000000L;
    if (d.tv_nsec >= 1000000000L) {
        d.tv_sec++;
        d.tv_nsec -= 1000000000L;
    }
    return d;
}

/* Whether `cancel` (-1: none) is readable now. */
static int cancelled(int cancel) {
    if (cancel < 0) return 0;
    struct pollfd p = {.fd = cancel, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
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

/* Writes all n bytes by the deadline: 0 done, -1 not (the deadline, cancelled, or the agent hung up). send with
 * MSG_NOSIGNAL: an agent that hangs up is an error to report, not a signal to die of (and the plugin must not
 * change slurmctld's signal handling). */
static int write_all(int fd, const char *from, size_t n, const struct timespec *deadline, int cancel) {
    for (size_t sent = 0; sent < n;) {
        if (await(fd, POLLOUT, deadline, cancel) < 0) return -1;
        ssize_t w = send(fd, from + sent, n - sent, MSG_NOSIGNAL);
        if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (w <= 0) return -1;
        sent += (size_t)w;
    }
    return 0;
}

/* How long one connect may wait before the deadline and `cancel` are looked at again. */
#define CONNECT_SLICE_MS 100

/*
 * A connection to the agent's socket by the deadline, non-blocking once made: the fd, or -1 with errno
 * (ETIMEDOUT: the deadline passed or `cancel` became readable while the agent did not accept). A unix connect to a
 * listener whose backlog is full (an agent stopped, or in a long pause) waits for room; a blocking connect waits
 * for SO_SNDTIMEO at most and then fails with EAGAIN (a non-blocking one fails at once and cannot wait), so it
 * waits in slices, each bounded, until the deadline.
 */
static int connect_by(const char *path, const struct timespec *deadline, int cancel) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    for (;;) {
        long left = remaining_ms(deadline);
        if (left <= 0 || cancelled(cancel)) {
            close(fd);
            errno = ETIMEDOUT;
            return -1;
        }
        long slice = left < CONNECT_SLICE_MS ? left : CONNECT_SLICE_MS;
        struct timeval limit = {.tv_sec = 0, .tv_usec = slice * 1000};
        if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit) != 0) break;
        if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 || errno == EISCONN) {
            int flags = fcntl(fd, F_GETFL);
            if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) break;
            return fd;
        }
        if (errno != EAGAIN && errno != EINTR && errno != EINPROGRESS) break;
    }
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

/* The call as a frame (its length not yet sealed): 0, or -1 when it is over MAX_FRAME or memory ran out. */
static int request(struct buffer *b, const struct hook_settings *s, const char *mode, int argc, char **argv,
                   char **env) {
    b->length = 4; /* the length, written by seal */
    b->capacity = 4096;
    b->data = malloc(b->capacity);
    if (!b->data) return -1;
    int too_big = add_item(b, "v", "1") | add_item(b, "mode", mode);
    for (int i = 0; i < argc && !too_big; i++) too_big |= add_item(b, "arg", argv[i]);
    if (strcmp(mode, "submit") == 0) {
        /* the agent's request to the service is bounded by the same time (whole seconds, at least 1) */
        char seconds[32];
        snprintf(seconds, sizeof seconds, "%ld", (s->submit_timeout_ms + 999) / 1000);
        too_big |= add_item(b, "arg", "--timeout") | add_item(b, "arg", seconds);
    }
    for (char **e = env; e && *e && !too_big; e++) {
        if (strncmp(*e, "SLURM_", 6) == 0) too_big |= add_item(b, "env", *e);
    }
    return too_big ? -1 : 0;
}

/* Stamps the epilog's frame with the time it ended (the item `at`): 0, or -1 when it does not fit. */
static int stamp(struct buffer *b) {
    struct timespec now;
    struct tm utc;
    char at[64];
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &utc);
    size_t k = strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(at + k, sizeof at - k, ".%06ldZ", now.tv_nsec / 1000);
    if (add_item(b, "at", at) != 0) return -1;
    seal(b);
    return 0;
}

static void say_spooled(const struct hook_settings *s, char **env, const char *file, FILE *err) {
    const char *restarts = hook_env_get(env, "SLURM_JOB_RESTART_COUNT");
    fprintf(err, "ledger epilog: job %s run %ld: spooled for settlement (%s/%s)\n", hook_env_get(env, "SLURM_JOB_ID"),
            (restarts && *restarts ? atol(restarts) : 0) + 1, s->spool_dir, file);
}

int hook_spool(const struct hook_settings *s, const char *name, char **env, FILE *err) {
    struct buffer b;
    char file[512], why[9000];
    if (request(&b, s, "epilog", 0, NULL, env) != 0 || stamp(&b) != 0) {
        fprintf(err, "%s: the settlement is over %d bytes or out of memory: not spooled\n", name, MAX_FRAME);
        free(b.data);
        return HOOK_UNAVAILABLE;
    }
    int r = spool_epilog(s->spool_dir, env, &b, file, sizeof file, why, sizeof why);
    free(b.data);
    if (r != 0) {
        fprintf(err, "%s: %s\n", name, why);
        return HOOK_UNAVAILABLE;
    }
    say_spooled(s, env, file, err);
    return HOOK_OK;
}

int hook_parse_reply(const char *reply, size_t n, const char *name, const char *socket, FILE *err) {
    if (n == 0 || reply[n - 1] != '\0') {
        fprintf(err, "%s: the hook agent on %s answered with an unterminated item (a protocol error): exit 3"
                     " (unavailable)\n", name, socket);
        return HOOK_UNAVAILABLE;
    }
    for (const char *item = reply + strlen(reply) + 1; item < reply + n; item += strlen(item) + 1) {
        if (strncmp(item, "say=", 4) == 0) fprintf(err, "%s\n", item + 4);
    }
    /* strictly "exit=" and 1 to 3 digits, no leading zero, 0 to 255: never a sign, a space or a value that wraps */
    const char *code = reply + 5;
    char *end = NULL;
    long exit_code = -1;
    if (strncmp(reply, "exit=", 5) == 0 && isdigit((unsigned char)code[0]) && (code[0] != '0' || !code[1])
        && strlen(code) <= 3) {
        errno = 0;
        exit_code = strtol(code, &end, 10);
        if (errno != 0 || end == code || *end != '\0') exit_code = -1;
    }
    if (exit_code < 0 || exit_code > 255) {
        /* its first 40 bytes, control characters shown as '?': the message stays one line of text in the log */
        char shown[41];
        size_t k = 0;
        for (; k < sizeof shown - 1 && reply[k]; k++) {
            unsigned char c = (unsigned char)reply[k];
            shown[k] = c < 0x20 || c == 0x7f ? '?' : (char)c;
        }
        shown[k] = '\0';
        fprintf(err, "%s: the hook agent on %s answered without an exit code from 0 to 255 ('%s'; a protocol"
                     " error): exit 3 (unavailable)\n", name, socket, shown);
        return HOOK_UNAVAILABLE;
    }
    return (int)exit_code;
}

int hook_call(const struct hook_settings *s, const char *name, const char *mode, int argc, char **argv, char **env,
              FILE *err, char *why_no_agent, size_t why_size) {
    int submit = strcmp(mode, "submit") == 0;
    if (why_size) why_no_agent[0] = '\0';
    /* connect, send and answer, all by one deadline */
    struct timespec deadline = deadline_in(submit ? s->submit_timeout_ms : s->agent_timeout * 1000);

    struct buffer b;
    if (request(&b, s, mode, argc, argv, env) != 0) {
        fprintf(err, "%s: the call (arguments and SLURM_* environment) is over %d bytes, the agent's limit\n", name,
                MAX_FRAME);
        free(b.data);
        return HOOK_USAGE;
    }
    seal(&b);

    int fd = connect_by(s->agent_socket, &deadline, s->cancel_fd);
    if (fd < 0) {
        int e = errno;
        free(b.data);
        if (e == ETIMEDOUT) {
            if (submit) {
                fprintf(err, "%s: the hook agent on %s did not accept the call within %ld ms (submit_timeout)\n",
                        name, s->agent_socket, s->submit_timeout_ms);
            } else {
                fprintf(err, "%s: the hook agent on %s did not accept the call within %ld s (agent_timeout): exit 3"
                             " (unavailable)\n", name, s->agent_socket, s->agent_timeout);
            }
            return HOOK_UNAVAILABLE;
        }
        char why[512];
        snprintf(why, sizeof why, "no hook agent answers on %s (%s)", s->agent_socket, strerror(e));
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
    if (strcmp(mode, "epilog") == 0) {
        /* an agent answers: write the settlement into its spool, tell it the name, and go (see the top) */
        size_t unstamped = b.length;
        if (stamp(&b) == 0) {
            char file[512], why[9000];
            if (spool_epilog(s->spool_dir, env, &b, file, sizeof file, why, sizeof why) == 0) {
                /* the notice is a courtesy: the agent also finds the file when it next looks at its spool */
                if (add_item(&b, "spooled", file) == 0) {
                    seal(&b);
                    write_all(fd, b.data, b.length, &deadline, s->cancel_fd);
                }
                close(fd);
                free(b.data);
                say_spooled(s, env, file, err);
                return HOOK_OK;
            }
            fprintf(err, "%s: %s; the hook agent is handed the call\n", name, why);
        }
        b.length = unstamped;
        seal(&b);
    }
    /* a failed send may be the agent's answer and hang-up (a refusal): its answer is read all the same */
    write_all(fd, b.data, b.length, &deadline, s->cancel_fd);
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
        free(reply);
        if (submit) {
            fprintf(err, "%s: the hook agent on %s did not answer within %ld ms (submit_timeout)\n", name,
                    s->agent_socket, s->submit_timeout_ms);
        } else {
            fprintf(err, "%s: the hook agent on %s did not answer within %ld s (agent_timeout): exit 3 (unavailable)\n",
                    name, s->agent_socket, s->agent_timeout);
        }
        return HOOK_UNAVAILABLE;
    }
    if (r < 0) {
        fprintf(err, "%s: the hook agent on %s hung up without a whole answer: exit 3 (unavailable)\n", name,
                s->agent_socket);
        free(reply);
        return HOOK_UNAVAILABLE;
    }
    int exit_code = hook_parse_reply(reply, n, name, s->agent_socket, err);
    free(reply);
    return exit_code;
}
