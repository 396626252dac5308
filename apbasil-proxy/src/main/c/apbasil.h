/*
 * The native drop-in apbasil client: shared declarations of its parts.
 *   settings.c  the settings (environment, then the key=value file), read and checked as ClientSettings.java does,
 *               and the proxy addresses (ProxyAddress.java), a comma-separated list tried in order
 *   document.c  what a request is (Probe.java's first look) and the client's own BASIL FAILURE document,
 *               byte for byte what FailureDocument.java writes
 *   reply.c     the daemon's reply frame (Reply.java), held in a bounded buffer that spills to an unlinked file
 *   sha256.c    the exchange digest the MUNGE credential carries (Exchange.digest)
 *   tls.c       TLS with tls_ca, OpenSSL loaded only when it is used
 *   apbasil.c   main: the exchange (Exchange.java), MUNGE, TCP/unix sockets, failover over the proxies, retries and
 *               the whole-call deadline
 * The parts that read untrusted input (settings.c, reply.c) have libFuzzer targets in fuzz/.
 */
#ifndef APBASIL_H
#define APBASIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

#define MESSAGE_MAX 8192

/* ---- settings.c ---- */

/* In ClientSettings.KEYS's order: the unknown-key message lists them so. */
enum {
    KEY_PROXY,
    KEY_AUTH,
    KEY_MUNGE,
    KEY_MUNGE_SOCKET,
    KEY_TIMEOUT,
    KEY_CONNECT_TIMEOUT,
    KEY_RETRIES,
    KEY_TLS_CA,
    KEY_COUNT
};

struct settings {
    /* each value as looked up (environment, then file), stripped; NULL = not set (the default applies) */
    char *value[KEY_COUNT];
    char *file[KEY_COUNT]; /* what the file said (owned) */
};

extern const char *const setting_names[KEY_COUNT];
extern const char *const setting_defaults[KEY_COUNT];

/* Parses a settings file's bytes; 0, or -1 with the message ("PATH:LINE: ...") in problem. */
int settings_parse(const char *path, const unsigned char *text, size_t length, struct settings *out,
                   char problem[MESSAGE_MAX]);
/* Reads APBASIL_CONFIG (or the default file) and the environment; 0, or -1 with the message in problem. */
int settings_load(struct settings *out, char problem[MESSAGE_MAX]);
/* The value of key (environment over file, default when unset) after checking it; NULL with problem set if bad. */
const char *settings_get(const struct settings *s, int key, char problem[MESSAGE_MAX]);
/* One proxy: host:port, [v6]:port or unix:/path, as ProxyAddress.java reads it. */
struct address {
    char text[1024];
    int unix_socket;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char host[512];
    int port;
};

/* ProxyAddress.parseList: the proxies, in the order they are tried (malloc'd array in *out, its length in *count);
 * 0, or -1 with the Java client's message in problem. */
int parse_proxies(const char *text, struct address **out, size_t *count, char problem[MESSAGE_MAX]);
/* A number as Java's Double.parseDouble reads it (after strip); 0 ok, -1 not a number. */
int java_double(const char *text, double *out);
void settings_free(struct settings *s);

/* ---- document.c ---- */

struct probe {
    int readable;    /* the document's root start tag could be read */
    int request;     /* root is BasilRequest */
    char *protocol;  /* the root's protocol attribute (decoded), or NULL */
    char *method;    /* the method attribute, or NULL */
};

void probe_request(const unsigned char *doc, size_t length, struct probe *out);
void probe_free(struct probe *p);
/* Writes the BASIL FAILURE document for a request into a malloc'd buffer; its length in *length. */
char *failure_document(const unsigned char *request, size_t request_length, int transient, const char *message,
                       size_t *length);

/* ---- reply.c ---- */

#define REPLY_MAX_BYTES (512 * 1024 * 1024) /* ProxyConnection.DEFAULT_MAX_REPLY_BYTES */
#define REPLY_MEMORY (4 * 1024 * 1024)     /* held in memory; more spills to an unlinked temporary file */

/* Reads exactly n bytes; returns n, fewer at end of stream, or -1 with errno set (ETIMEDOUT at the deadline). */
typedef ssize_t (*read_fn)(void *source, unsigned char *buffer, size_t n);

enum reply_status { REPLY_OK = 0, REPLY_REJECTED = 1, REPLY_REJECTED_TRANSIENT = 2, REPLY_NOT_ACTIVE = 3 };

enum reply_outcome {
    REPLY_READ,       /* a whole reply: status and payload below */
    REPLY_EOF,        /* the stream ended before the whole reply */
    REPLY_IO_ERROR,   /* reading failed: errno in io_errno */
    REPLY_TOO_LARGE,  /* announced length out of range: announced */
    REPLY_UNREADABLE, /* not a reply frame: why */
    REPLY_NO_SPACE    /* the payload could not be held: why */
};

struct reply {
    enum reply_outcome outcome;
    int status;
    int32_t announced;
    int io_errno;
    const char *why;
    uint64_t payload_length;
    unsigned char *memory; /* the first bytes of the payload (REPLY_MEMORY at most) */
    int spill;             /* fd of the unlinked file holding the whole payload, or -1 */
};

void reply_init(struct reply *r, unsigned char *memory);
/* Reads one reply frame from source; keeps the payload within REPLY_MEMORY bytes of memory plus the spill file. */
void reply_read(struct reply *r, read_fn read, void *source);
/* Copies the payload to fd; 0, or -1 with errno. */
int reply_write(const struct reply *r, int fd);
void reply_discard(struct reply *r);

/* ---- sha256.c ---- */

struct sha256 {
    uint32_t h[8];
    unsigned char block[64];
    size_t filled;
    uint64_t total;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
void sha256_final(struct sha256 *s, unsigned char out[32]);

/* ---- tls.c ---- */

/* Loads OpenSSL and trusts only tls_ca's certificates; 0, or -1 with the Java client's message in problem. */
int tls_setup(const char *ca, char problem[MESSAGE_MAX]);
/* The handshake on a connected non-blocking socket, checking the certificate names host; NULL with why (errno
 * ETIMEDOUT at the deadline, why left empty). */
void *tls_start(int fd, const char *host, long long deadline, char *why, size_t size);
/* Up to n bytes: >0 read, 0 end of stream, -1 with errno (ETIMEDOUT at the deadline). */
ssize_t tls_read(void *session, int fd, unsigned char *buffer, size_t n, long long deadline);
/* All n bytes; 0, or -1 with errno. */
int tls_write(void *session, int fd, const unsigned char *p, size_t n, long long deadline);
void tls_free(void *session);

/* ---- apbasil.c ---- */

/* Waits until fd is ready for events or the deadline passes; 0, or -1 with errno (ETIMEDOUT). */
int wait_for(int fd, short events, long long deadline);

#endif
