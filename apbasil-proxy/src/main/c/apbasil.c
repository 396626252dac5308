/*
 * apbasil: the native drop-in BASIL client. slurmctld, slurmstepd and pbs_mom run it once per BASIL call, so it
 * is plain C that starts in a millisecond; it does what the Java client (org.alpsbridge.proxy.client.Apbasil)
 * does, with the same settings, wire format, retries, messages and exit status, and holds none of the proxy's
 * logic. It reads one BASIL request on stdin, sends it to the alpsbridge apbasil proxy and prints the response
 * on stdout, exit 0. When no response can be had it prints a BASIL FAILURE (TRANSIENT when a retry may help) in
 * the request's protocol version on stdout, the reason on stderr, and exits 1; stdout never carries a partial
 * document (the reply is held, spilling to an unlinked temporary file, until all of it has arrived).
 * APBASIL_PROXY may list several proxies: they are tried in order (failover), as the Java client does.
 *
 * Settings (settings.c): APBASIL_PROXY, APBASIL_AUTH, APBASIL_MUNGE, APBASIL_MUNGE_SOCKET, APBASIL_TIMEOUT,
 * APBASIL_CONNECT_TIMEOUT, APBASIL_RETRIES, APBASIL_TLS_CA, or key=value in $APBASIL_CONFIG (default
 * /etc/alpsbridge/apbasil.conf).
 *
 * Its parts, each a unit (NAME.c with its NAME.h) that includes only the headers of the parts below it, so that
 * none calls back into another (.ci/c-include-graph checks that the include graph has no circle):
 *   message.h   MESSAGE_MAX, the size of every message buffer
 *   deadline.c  the monotonic clock and the one wait every socket operation makes
 *   settings.c  the settings, read and checked as ClientSettings.java does, and the proxy addresses
 *   document.c  what a request is (Probe.java's first look) and the client's own BASIL FAILURE document
 *   reply.c     the daemon's reply frame (Reply.java), held in a bounded buffer that spills to an unlinked file
 *   sha256.c    the exchange digest the MUNGE credential carries (Exchange.digest)
 *   tls.c       TLS with tls_ca, OpenSSL loaded only when it is used (waits through deadline.c)
 *   apbasil.c   main: the exchange (Exchange.java), MUNGE, TCP/unix sockets, failover over the proxies, retries and
 *               the whole call's deadline
 * The parts that read untrusted input (settings.c, reply.c) have libFuzzer targets in fuzz/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <munge.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "deadline.h"
#include "document.h"
#include "message.h"
#include "reply.h"
#include "settings.h"
#include "sha256.h"
#include "tls.h"

#define FIRST_BACKOFF_MILLIS 100
#define AUTH_PROBE_LIMIT_NS 5000000000LL
#define DEFAULT_MUNGE_SOCKET "/run/munge/munge.socket.2"

enum { KIND_BASIL = 1, KIND_ADMIN = 2 };

/* Why an exchange gave no response document; as ApbasilException: may the request have run, may a retry help. */
struct failure {
    char message[MESSAGE_MAX];
    int sent;
    int transient;
};

struct connection {
    int fd;
    void *ssl;
    long long connect_deadline; /* for the connect and the TLS handshake: connect_timeout, or sooner the call's end */
    long long deadline;
    int unix_socket;
};


static void fail(struct failure *f, int sent, int transient, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static void fail(struct failure *f, int sent, int transient, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(f->message, sizeof f->message, format, args);
    va_end(args);
    f->sent = sent;
    f->transient = transient;
}

/* ---- I/O with the whole call's deadline (deadline.c) ---- */

static ssize_t connection_read(void *source, unsigned char *buffer, size_t n) {
    struct connection *c = source;
    size_t got = 0;
    while (got < n) {
        ssize_t r;
        r = c->ssl ? tls_read(c->ssl, c->fd, buffer + got, n - got, c->deadline) : read(c->fd, buffer + got, n - got);
        if (r > 0) {
            got += (size_t)r;
        } else if (r == 0) {
            break;
        } else if (errno == EAGAIN && !c->ssl) {
            if (wait_for(c->fd, POLLIN, c->deadline) != 0) return -1;
        } else if (errno != EINTR) {
            return -1;
        }
    }
    return (ssize_t)got;
}

static int connection_write(struct connection *c, const unsigned char *p, size_t n) {
    if (c->ssl) return tls_write(c->ssl, c->fd, p, n, c->deadline);
    while (n > 0) {
        ssize_t r = send(c->fd, p, n, MSG_NOSIGNAL);
        if (r >= 0) {
            p += r, n -= (size_t)r;
        } else if (errno == EAGAIN) {
            if (wait_for(c->fd, POLLOUT, c->deadline) != 0) return -1;
        } else if (errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

static void connection_close(struct connection *c) {
    tls_free(c->ssl);
    if (c->fd >= 0) close(c->fd);
    c->ssl = NULL;
    c->fd = -1;
}

/* What the Java client prints for a socket error: the exception's class and message. */
static const char *describe(int err, int unix_socket, char *out, size_t size) {
    if (err == ECONNREFUSED) snprintf(out, size, "ConnectException: Connection refused");
    else if (err == EHOSTUNREACH) snprintf(out, size, "NoRouteToHostException: No route to host");
    else if (err == ECONNRESET && !unix_socket) snprintf(out, size, "SocketException: Connection reset");
    else snprintf(out, size, "%s: %s", unix_socket ? "IOException" : "SocketException", strerror(err));
    return out;
}

static int tls_enabled;
static long long connect_timeout_ms; /* connect_timeout; 0: none of its own */

/* Connects by c->connect_deadline; 0, or -1 with why (the Java client's wording), or errno ETIMEDOUT and why "". */
static int open_connection(const struct address *a, struct connection *c, char *why, size_t size) {
    c->fd = -1;
    c->ssl = NULL;
    c->unix_socket = a->unix_socket;
    if (a->unix_socket) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        strcpy(sa.sun_path, a->path);
        /* Blocking, with a send timeout: a unix connect waits while the daemon's backlog is full (a daemon that
         * stopped accepting) for SO_SNDTIMEO at most, then fails with EAGAIN; a non-blocking one cannot wait. */
        c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c->fd < 0) return describe(errno, 1, why, size), -1;
        long long left = c->connect_deadline - now_ns();
        if (left < 1000) left = 1000;
        struct timeval limit = {(time_t)(left / 1000000000LL), (suseconds_t)(left % 1000000000LL / 1000)};
        setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
        if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            int err = errno;
            if (err == EAGAIN) {
                errno = ETIMEDOUT;
                return -1;
            }
            /* the Java client says SocketException here, not IOException */
            if (err == ECONNREFUSED) snprintf(why, size, "ConnectException: Connection refused");
            else snprintf(why, size, "SocketException: %s", strerror(err));
            return -1;
        }
        fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
        return 0;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *found = NULL;
    char port[16];
    snprintf(port, sizeof port, "%d", a->port);
    if (getaddrinfo(a->host, port, &hints, &found) != 0 || !found) {
        snprintf(why, size, "UnknownHostException: %s", a->host);
        return -1;
    }
    /* As InetAddress.getByName: the first IPv4 address when there is one. */
    struct addrinfo *use = found;
    for (struct addrinfo *i = found; i; i = i->ai_next)
        if (i->ai_family == AF_INET) {
            use = i;
            break;
        }
    c->fd = socket(use->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        freeaddrinfo(found);
        return describe(errno, 0, why, size), -1;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int r = connect(c->fd, use->ai_addr, use->ai_addrlen);
    freeaddrinfo(found);
    if (r != 0) {
        if (errno != EINPROGRESS) return describe(errno, 0, why, size), -1;
        if (wait_for(c->fd, POLLOUT, c->connect_deadline) != 0) return -1;
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err) {
            errno = err;
            return describe(err, 0, why, size), -1;
        }
    }
    if (!tls_enabled) return 0;
    c->ssl = tls_start(c->fd, a->host, c->connect_deadline, why, size);
    return c->ssl ? 0 : -1;
}

/* ---- one exchange ---- */

struct exchange {
    int kind;
    char id[96];
    const unsigned char *payload;
    size_t payload_length;
};

/* What the MUNGE credential carries (Exchange.digest): SHA-256 of kind, the id's length and bytes, the payload. */
static void digest(const struct exchange *e, unsigned char out[32]) {
    struct sha256 sha;
    sha256_init(&sha);
    unsigned char kind = (unsigned char)e->kind;
    size_t n = strlen(e->id);
    unsigned char length[4] = {(unsigned char)(n >> 24), (unsigned char)(n >> 16), (unsigned char)(n >> 8),
                               (unsigned char)n};
    sha256_update(&sha, &kind, 1);
    sha256_update(&sha, length, 4);
    sha256_update(&sha, e->id, n);
    sha256_update(&sha, e->payload, e->payload_length);
    sha256_final(&sha, out);
}

/* Unique among all clients of a daemon within its exchange memory: wall time, monotonic time, 64 random bits. */
static void new_exchange_id(char *out, size_t size) {
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    unsigned long long random = 0;
    if (getrandom(&random, sizeof random, GRND_NONBLOCK) != (ssize_t)sizeof random)
        random = (unsigned long long)now_ns() ^ ((unsigned long long)getpid() << 32);
    snprintf(out, size, "%llx-%llx-%llx", (unsigned long long)wall.tv_sec * 1000ULL + (unsigned long long)wall.tv_nsec / 1000000ULL,
             (unsigned long long)now_ns(), random);
}

static unsigned char reply_memory[REPLY_MEMORY];

/*
 * ProxyConnection.roundTrip: connect, write the frame in one piece, read the reply. 0 with the reply read (its
 * status still to be looked at), or -1 with the failure.
 */
static int round_trip(const struct address *a, const struct exchange *e, const char *credential, long long deadline,
                      struct reply *r, struct failure *f) {
    long long left = deadline - now_ns();
    long long timeout_ms = left / 1000000;
    if (timeout_ms < 0) timeout_ms = 0;
    /* As ProxyConnection: connect_timeout when it is shorter than what is left of the call */
    long long connect_ms = connect_timeout_ms > 0 && connect_timeout_ms <= timeout_ms ? connect_timeout_ms : timeout_ms;
    struct connection c = {.deadline = deadline,
                           .connect_deadline = connect_ms < timeout_ms ? now_ns() + connect_ms * 1000000LL : deadline};
    char why[1024] = "";
    if (open_connection(a, &c, why, sizeof why) != 0) {
        int timed_out = errno == ETIMEDOUT && why[0] == '\0';
        connection_close(&c);
        if (timed_out) snprintf(why, sizeof why, "timed out after %lld ms", connect_ms);
        fail(f, 0, 1, "cannot connect to the apbasil proxy at %s: %s", a->text, why);
        return -1;
    }
    size_t idn = strlen(e->id), credn = strlen(credential);
    size_t body = 4 + 1 + 2 + idn + 2 + credn + e->payload_length;
    if (body > 0x7FFFFFFF) {
        connection_close(&c);
        fail(f, 0, 0, "the request of %zu bytes is too large to send", e->payload_length);
        return -1;
    }
    unsigned char *frame = malloc(4 + body);
    if (!frame) abort();
    unsigned char *w = frame;
    *w++ = (unsigned char)(body >> 24), *w++ = (unsigned char)(body >> 16), *w++ = (unsigned char)(body >> 8),
    *w++ = (unsigned char)body;
    memcpy(w, "APB\1", 4), w += 4;
    *w++ = (unsigned char)e->kind;
    *w++ = (unsigned char)(idn >> 8), *w++ = (unsigned char)idn;
    memcpy(w, e->id, idn), w += idn;
    *w++ = (unsigned char)(credn >> 8), *w++ = (unsigned char)credn;
    memcpy(w, credential, credn), w += credn;
    memcpy(w, e->payload, e->payload_length);
    int write_failed = connection_write(&c, frame, 4 + body) != 0 ? errno : 0;
    free(frame);
    /* After a failed write the daemon may still have said why it refused the request part-way: read it. */
    reply_init(r, reply_memory);
    reply_read(r, connection_read, &c);
    connection_close(&c);
    if (write_failed && r->outcome != REPLY_READ) {
        if (write_failed == ETIMEDOUT) snprintf(why, sizeof why, "no reply within %lld ms", timeout_ms);
        else describe(write_failed, a->unix_socket, why, sizeof why);
        fail(f, 1, 1, "the apbasil proxy at %s failed: %s", a->text, why);
        reply_discard(r);
        return -1;
    }
    switch (r->outcome) {
    case REPLY_READ:
        return 0;
    case REPLY_EOF:
        fail(f, 1, 1, "the apbasil proxy at %s failed: the connection closed before a reply (daemon stopped or "
             "restarted?)", a->text);
        break;
    case REPLY_IO_ERROR:
        if (r->io_errno == ETIMEDOUT) snprintf(why, sizeof why, "no reply within %lld ms", timeout_ms);
        else describe(r->io_errno, a->unix_socket, why, sizeof why);
        fail(f, 1, 1, "the apbasil proxy at %s failed: %s", a->text, why);
        break;
    case REPLY_TOO_LARGE:
        fail(f, 1, 1, "the apbasil proxy at %s announced a reply of %d bytes (limit %d)", a->text, r->announced,
             REPLY_MAX_BYTES);
        break;
    case REPLY_UNREADABLE:
        if (strcmp(r->why, "unknown reply status") == 0)
            fail(f, 1, 1, "the apbasil proxy at %s sent an unreadable reply: unknown reply status %d", a->text,
                 r->status);
        else
            fail(f, 1, 1, "the apbasil proxy at %s sent an unreadable reply: %s", a->text, r->why);
        break;
    case REPLY_NO_SPACE:
        fail(f, 1, 1, "the apbasil proxy at %s failed: %s: %s", a->text, r->why, strerror(r->io_errno));
        break;
    }
    reply_discard(r);
    return -1;
}

/* The reply's payload as text (a refusal's reason), NUL-terminated within the buffer. */
static const char *reason(struct reply *r) {
    size_t n = r->payload_length < REPLY_MEMORY - 1 ? (size_t)r->payload_length : REPLY_MEMORY - 1;
    r->memory[n] = '\0';
    return (const char *)r->memory;
}

/*
 * The first proxy that takes requests without a credential, or NULL (Apbasil.daemonWithoutAuth): asked only when
 * no credential could be had, with an admin command no daemon registers. An auth=munge daemon refuses it for want
 * of a credential, an auth=none one as unknown; an unreachable, busy or standby proxy is passed over.
 */
static const struct address *daemon_without_auth(const struct address *proxies, size_t count, long long deadline) {
    static const unsigned char command[] = {0, 18, 'a', 'p', 'b', 'a', 's', 'i', 'l', '-', 'a', 'u', 't', 'h', '-',
                                            'p', 'r', 'o', 'b', 'e'};
    for (size_t i = 0; i < count; i++) {
        long long left = deadline - now_ns();
        if (left > AUTH_PROBE_LIMIT_NS) left = AUTH_PROBE_LIMIT_NS;
        if (left <= 0) return NULL;
        struct exchange probe = {.kind = KIND_ADMIN, .payload = command, .payload_length = sizeof command};
        new_exchange_id(probe.id, sizeof probe.id);
        struct reply r;
        struct failure f = {.sent = 0}; /* written by round_trip only on failure, and then read by no one */
        if (round_trip(&proxies[i], &probe, "", now_ns() + left, &r, &f) != 0) continue;
        int status = r.status, refused = strncmp(reason(&r), "authentication failed", 21) == 0;
        reply_discard(&r);
        if (status == REPLY_REJECTED) return refused ? NULL : &proxies[i];
    }
    return NULL;
}

static int service_failure(munge_err_t e) {
    return e == EMUNGE_SOCKET || e == EMUNGE_SNAFU || e == EMUNGE_NO_MEMORY || e == EMUNGE_TIMEOUT;
}

/* A MUNGE credential over the exchange's digest, from libmunge; NULL with the failure (Apbasil.credential). */
static char *credential(const char *socket_path, const struct exchange *e, const struct address *proxies,
                        size_t count, long long deadline, struct failure *f) {
    unsigned char d[32];
    digest(e, d);
    munge_ctx_t ctx = munge_ctx_create();
    if (!ctx) abort();
    char *cred = NULL;
    munge_err_t err = EMUNGE_SUCCESS;
    char detail[MESSAGE_MAX - 512] = "";
    if (socket_path && (err = munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket_path)) != EMUNGE_SUCCESS) {
        snprintf(detail, sizeof detail, "munge_ctx_set(SOCKET): %s", munge_strerror(err));
    } else if ((err = munge_encode(&cred, ctx, d, (int)sizeof d)) != EMUNGE_SUCCESS) {
        const char *path = socket_path ? socket_path : DEFAULT_MUNGE_SOCKET;
        if (err == EMUNGE_SOCKET) {
            /* In the Java client's words: which socket, and the system's reason for not reaching it. */
            int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            struct sockaddr_un sa = {.sun_family = AF_UNIX};
            snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
            int cerr = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ? errno : 0;
            if (fd >= 0) close(fd);
            if (cerr)
                snprintf(detail, sizeof detail, "munge failed: cannot connect to munged at %s (%s); is munged running?",
                         path, strerror(cerr));
        }
        if (!detail[0]) {
            const char *m = munge_ctx_strerror(ctx);
            snprintf(detail, sizeof detail, "munge failed: %s", m ? m : munge_strerror(err));
        }
    }
    munge_ctx_destroy(ctx);
    if (err == EMUNGE_SUCCESS) return cred;
    const struct address *a = service_failure(err) ? daemon_without_auth(proxies, count, deadline) : NULL;
    if (a) {
        fail(f, 0, 0, "APBASIL_AUTH is munge (the default) but the apbasil proxy at %s runs with auth=none: set "
             "APBASIL_AUTH=none (or auth=none in /etc/alpsbridge/apbasil.conf) for this client, or run the daemon "
             "with auth=munge", a->text);
    } else {
        fail(f, 0, service_failure(err), "no MUNGE credential for the request: %s", detail);
    }
    return NULL;
}

/* A failure's message as one entry of the list's summary, after the address (Apbasil.withoutAddress). */
static const char *without_address(const char *message, const char *address) {
    static const char connect[] = "cannot connect to the apbasil proxy at ", at[] = "the apbasil proxy at ";
    size_t n = strlen(address);
    if (strncmp(message, connect, sizeof connect - 1) == 0 && strncmp(message + sizeof connect - 1, address, n) == 0
        && strncmp(message + sizeof connect - 1 + n, ": ", 2) == 0) {
        static char out[MESSAGE_MAX]; /* returned: outlives the call, as the messages it is put beside */
        snprintf(out, sizeof out, "cannot connect: %s", message + sizeof connect - 1 + n + 2);
        return out;
    }
    if (strncmp(message, at, sizeof at - 1) == 0 && strncmp(message + sizeof at - 1, address, n) == 0
        && message[sizeof at - 1 + n] == ' ') {
        const char *rest = message + sizeof at - 1 + n + 1;
        return strncmp(rest, "is ", 3) == 0 ? rest + 3 : rest;
    }
    return message;
}

static void sleep_ms(long long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* ---- the program ---- */

static unsigned char *read_stdin(size_t *length) {
    size_t cap = 64 * 1024, n = 0;
    unsigned char *b = malloc(cap);
    if (!b) abort();
    for (;;) {
        if (n == cap) {
            cap *= 2;
            b = realloc(b, cap);
            if (!b) abort();
        }
        ssize_t r = read(0, b + n, cap - n);
        if (r == 0) break;
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        n += (size_t)r;
    }
    *length = n;
    return b;
}

/* Prints the failure as the Java client does: reason on stderr, FAILURE document on stdout; exit 1. */
static int report(const unsigned char *request, size_t length, const struct failure *f) {
    fprintf(stderr, "apbasil: %s\n", f->message);
    size_t n;
    char *doc = failure_document(request, length, f->transient, f->message, &n);
    fwrite(doc, 1, n, stdout);
    fflush(stdout);
    free(doc);
    return 1;
}

static int usage(void) {
    fputs("Usage: apbasil < request.xml\n"
          "The alpsbridge drop-in BASIL client: reads one BASIL request on stdin, sends it to the alpsbridge apbasil\n"
          "proxy daemon and prints the BASIL response on stdout. Exit status: 0 the response is on stdout (it may\n"
          "itself be a BASIL FAILURE from ALPS); 1 no response could be had (the daemon is unreachable, failed, or\n"
          "refused the request itself): a BASIL FAILURE document on stdout, the reason on stderr.\n"
          "Settings (environment, else key=value in $APBASIL_CONFIG, default /etc/alpsbridge/apbasil.conf):\n"
          "  APBASIL_PROXY         host:port or unix:/path of the daemon (default 127.0.0.1:6830); a comma-separated\n"
          "                        list is tried in order, moving on from a proxy that cannot be reached or answers\n"
          "                        that it is not active (a standby)\n"
          "  APBASIL_AUTH          munge (default) or none, as the daemon's auth\n"
          "  APBASIL_MUNGE_SOCKET  munged's socket (default libmunge's)\n"
          "  APBASIL_MUNGE         socket, program or library: how the Java client gets a credential (this one\n"
          "                        always uses libmunge)\n"
          "  APBASIL_TIMEOUT       seconds for the whole call, retries included (default 300; at most 86400)\n"
          "  APBASIL_CONNECT_TIMEOUT  seconds each proxy may take to accept the connection (and finish the TLS\n"
          "                        handshake) before the next is tried (default 3; 0: only APBASIL_TIMEOUT)\n"
          "  APBASIL_RETRIES       extra rounds over the proxies for what is safe to retry, after waits of 0.1 s\n"
          "                        doubling each time (default 8: 25.5 s of waits, which outlast a proxy pair's\n"
          "                        failover and a proxy's restart)\n"
          "  APBASIL_TLS_CA        PEM file of the CA that signed the daemon's certificate: TLS over TCP\n",
          stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) return usage();
    signal(SIGPIPE, SIG_IGN);
    size_t length;
    unsigned char *request = read_stdin(&length);
    struct failure f = {.transient = 1};
    struct settings s;
    char problem[MESSAGE_MAX] = "";
    /* In the Java client's order, so that the first bad setting is the one named. */
    if (settings_load(&s, problem) != 0) {
        snprintf(f.message, sizeof f.message, "%s", problem);
        return report(request, length, &f);
    }
    const char *proxy = settings_get(&s, KEY_PROXY, problem);
    const char *timeout = proxy ? settings_get(&s, KEY_TIMEOUT, problem) : NULL;
    struct address *proxies;
    size_t count;
    const char *auth = NULL, *retries = NULL, *munge_socket = NULL;
    if (!timeout || parse_proxies(proxy, &proxies, &count, problem) != 0) {
        snprintf(f.message, sizeof f.message, "%s", problem);
        return report(request, length, &f);
    }
    /* settings_get took only seconds from 0 to a day and retries from 0 to 100: no product below overflows */
    double seconds;
    java_double(timeout, &seconds);
    long long deadline = now_ns() + (long long)(seconds * 1000) * 1000000LL;
    const char *connect_timeout = settings_get(&s, KEY_CONNECT_TIMEOUT, problem);
    if (!connect_timeout) goto bad_setting;
    java_double(connect_timeout, &seconds);
    /* as ClientSettings.connectTimeout: 0 none of its own, else at least a millisecond */
    connect_timeout_ms = (long long)(seconds * 1000);
    if (seconds > 0 && connect_timeout_ms < 1) connect_timeout_ms = 1;
    int tcp = 0;
    for (size_t i = 0; i < count; i++) tcp |= !proxies[i].unix_socket;
    if (tcp) {
        const char *ca = settings_get(&s, KEY_TLS_CA, problem);
        if (ca && tls_setup(ca, problem) != 0) {
            fail(&f, 0, 0, "%s", problem);
            return report(request, length, &f);
        }
        tls_enabled = ca != NULL;
    }
    auth = settings_get(&s, KEY_AUTH, problem);
    if (!auth) goto bad_setting;
    int munge = strcmp(auth, "munge") == 0;
    if (munge) {
        if (!settings_get(&s, KEY_MUNGE, problem)) goto bad_setting;
        munge_socket = settings_get(&s, KEY_MUNGE_SOCKET, problem);
    }
    retries = settings_get(&s, KEY_RETRIES, problem);
    if (!retries) goto bad_setting;
    double r;
    java_double(retries, &r);
    long attempts_left = (long)r;

    struct exchange e = {.kind = KIND_BASIL, .payload = request, .payload_length = length};
    new_exchange_id(e.id, sizeof e.id);
    struct probe p;
    int probed = 0, query = 0;
    long long backoff = FIRST_BACKOFF_MILLIS;
    struct reply reply;
    /*
     * As Apbasil.exchange: the proxies in order, a round over them one attempt. A failure that is safe to retry moves
     * on to the next proxy (NOT_ACTIVE: a standby ran nothing); any other ends the call with its own message.
     */
    for (long attempt = 0;; attempt++) {
        char round[MESSAGE_MAX] = "";
        size_t used = 0;
        int sent = 0, tried = 0;
        for (size_t i = 0; i < count; i++) {
            const struct address *a = &proxies[i];
            if (tried && deadline - now_ns() < 1000000LL) {
                used += (size_t)snprintf(round + used, sizeof round - used, "; %s: not tried, the call's timeout had "
                                         "passed", a->text);
                if (used >= sizeof round) used = sizeof round - 1;
                continue;
            }
            tried = 1;
            char *cred = NULL;
            /* a fresh credential for each proxy: they may share one munged, which refuses a replay */
            if (munge && !(cred = credential(munge_socket, &e, proxies, count, deadline, &f)))
                return report(request, length, &f);
            int ok = round_trip(a, &e, cred ? cred : "", deadline, &reply, &f);
            free(cred);
            if (ok == 0) {
                if (reply.status == REPLY_OK) {
                    if (reply_write(&reply, 1) != 0) {
                        fprintf(stderr, "apbasil: cannot write the response on stdout: %s\n", strerror(errno));
                        return 1;
                    }
                    return 0;
                }
                if (reply.status == REPLY_NOT_ACTIVE)
                    fail(&f, 0, 1, "the apbasil proxy at %s is not active: %s", a->text, reason(&reply));
                else
                    fail(&f, 1, reply.status == REPLY_REJECTED_TRANSIENT,
                         "the apbasil proxy at %s refused the request: %s", a->text, reason(&reply));
                reply_discard(&reply);
            }
            if (f.sent && !probed) {
                probe_request(request, length, &p);
                query = p.request && p.method && strcmp(p.method, "QUERY") == 0;
                probe_free(&p);
                probed = 1;
            }
            if (!f.transient || (f.sent && !query)) return report(request, length, &f);
            sent |= f.sent;
            used += (size_t)snprintf(round + used, sizeof round - used, "; %s: %s", a->text,
                                     without_address(f.message, a->text));
            if (used >= sizeof round) used = sizeof round - 1;
        }
        if (count > 1) fail(&f, sent, 1, "no apbasil proxy answered: %s", round + 2);
        int time_left = deadline - now_ns() > backoff * 1000000LL;
        if (attempt >= attempts_left || !time_left) return report(request, length, &f);
        sleep_ms(backoff);
        backoff *= 2;
    }
bad_setting:
    snprintf(f.message, sizeof f.message, "%s", problem);
    f.transient = 1;
    return report(request, length, &f);
}
