/*
 * The daemon's reply frame (Reply.java), held in a bounded buffer that spills to an unlinked file.
 */
#ifndef REPLY_H
#define REPLY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

#endif
