/*
 * The daemon's reply frame (Reply.java): a 4-byte big-endian length, then 'A' 'P' 'B' 1, a status byte and the
 * payload. The payload is held in a fixed buffer of REPLY_MEMORY bytes; a larger one (an INVENTORY of a big
 * machine) goes on into an unlinked temporary file in $TMPDIR or /tmp, so memory stays bounded whatever the size
 * and nothing reaches stdout until the whole reply has arrived. A frame the Java client would refuse is refused
 * with its message, after reading as much of it as the Java client reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reply.h"

void reply_init(struct reply *r, unsigned char *memory) {
    memset(r, 0, sizeof *r);
    r->memory = memory;
    r->spill = -1;
}

static int open_spill(void) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != ENOENT)) return fd;
    /* A file system without O_TMPFILE: a named file, unlinked at once. */
    char path[4096];
    snprintf(path, sizeof path, "%s/apbasil-reply-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0) unlink(path);
    return fd;
}

static int write_all(int fd, const unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads n bytes into buffer; 1 when all came, else sets the outcome and returns 0. */
static int need(struct reply *r, read_fn read, void *source, unsigned char *buffer, size_t n) {
    ssize_t got = read(source, buffer, n);
    if (got == (ssize_t)n) return 1;
    if (got < 0) {
        r->outcome = REPLY_IO_ERROR;
        r->io_errno = errno;
    } else {
        r->outcome = REPLY_EOF;
    }
    return 0;
}

void reply_read(struct reply *r, read_fn read, void *source) {
    unsigned char header[5];
    if (!need(r, read, source, header, 4)) return;
    int32_t length = (int32_t)((uint32_t)header[0] << 24 | (uint32_t)header[1] << 16 | (uint32_t)header[2] << 8
                               | header[3]);
    r->announced = length;
    if (length < 0 || length > REPLY_MAX_BYTES) {
        r->outcome = REPLY_TOO_LARGE;
        return;
    }
    size_t head = length < 5 ? (size_t)length : 5;
    if (head > 0 && !need(r, read, source, header, head)) return;
    const char *bad = NULL;
    if (head < 4) bad = "truncated reply frame";
    else if (memcmp(header, "APB\1", 4) != 0) bad = "not an alpsbridge proxy frame (bad magic or version)";
    else if (head < 5) bad = "truncated reply frame";
    else if (header[4] > REPLY_NOT_ACTIVE) bad = "unknown reply status";
    uint64_t left = (uint64_t)length - head;
    r->status = head == 5 ? header[4] : 0;
    size_t held = 0; /* payload bytes in memory (all of them until a spill) */
    unsigned char scratch[64 * 1024];
    while (left > 0) {
        /* The Java client reads the whole frame before it looks at it: so does this one. */
        size_t chunk = left < REPLY_MEMORY ? (size_t)left : REPLY_MEMORY;
        unsigned char *target;
        int keep = 1, append = 0;
        if (bad) {
            target = scratch, keep = 0;
        } else if (r->spill >= 0) {
            target = r->memory, append = 1;
        } else if (held + chunk <= REPLY_MEMORY) {
            target = r->memory + held;
        } else if (r->status == REPLY_OK) {
            r->spill = open_spill();
            if (r->spill < 0 || write_all(r->spill, r->memory, held) != 0) {
                r->outcome = REPLY_NO_SPACE;
                r->io_errno = errno;
                r->why = "cannot hold the reply in a temporary file";
                return;
            }
            target = r->memory, append = 1;
        } else if (held < REPLY_MEMORY) {
            /* A refusal's reason longer than the buffer: what fits is kept, the rest read and dropped. */
            chunk = REPLY_MEMORY - held;
            target = r->memory + held;
        } else {
            target = scratch, keep = 0;
        }
        if (!keep && chunk > sizeof scratch) chunk = sizeof scratch;
        if (!need(r, read, source, target, chunk)) return;
        left -= chunk;
        if (!keep) continue;
        if (append && write_all(r->spill, r->memory, chunk) != 0) {
            r->outcome = REPLY_NO_SPACE;
            r->io_errno = errno;
            r->why = "cannot hold the reply in a temporary file";
            return;
        }
        if (!append) held += chunk;
        r->payload_length += chunk;
    }
    if (bad) {
        r->outcome = REPLY_UNREADABLE;
        r->why = bad;
        return;
    }
    r->outcome = REPLY_READ;
}

int reply_write(const struct reply *r, int fd) {
    if (r->spill < 0) return write_all(fd, r->memory, (size_t)r->payload_length);
    if (lseek(r->spill, 0, SEEK_SET) < 0) return -1;
    uint64_t left = r->payload_length;
    while (left > 0) {
        size_t chunk = left < REPLY_MEMORY ? (size_t)left : REPLY_MEMORY;
        ssize_t got = read(r->spill, r->memory, chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            if (got == 0) errno = EIO;
            return -1;
        }
        if (write_all(fd, r->memory, (size_t)got) != 0) return -1;
        left -= (uint64_t)got;
    }
    return 0;
}

void reply_discard(struct reply *r) {
    if (r->spill >= 0) close(r->spill);
    r->spill = -1;
}
