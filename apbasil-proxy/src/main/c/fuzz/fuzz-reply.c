/*
 * libFuzzer target: the reply reader (reply.c) and the request's first look (document.c). Any bytes from the
 * "daemon" end in exactly one outcome; a whole reply's payload is exactly the frame's bytes after the header; the
 * FAILURE document written for the same bytes taken as a request is US-ASCII and complete.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document.h"
#include "reply.h"

struct source {
    const unsigned char *data;
    size_t size, at;
};

static ssize_t from_memory(void *p, unsigned char *buffer, size_t n) {
    struct source *s = p;
    size_t left = s->size - s->at;
    if (n > left) n = left;
    memcpy(buffer, s->data + s->at, n);
    s->at += n;
    return (ssize_t)n;
}

static unsigned char memory[REPLY_MEMORY];

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    struct source src = {data, size, 0};
    struct reply r;
    reply_init(&r, memory);
    reply_read(&r, from_memory, &src);
    if (r.outcome == REPLY_READ) {
        if (r.status > REPLY_NOT_ACTIVE || r.payload_length + 9 != (uint64_t)r.announced + 4
            || (r.spill < 0 && memcmp(memory, data + 9, (size_t)r.payload_length) != 0)) {
            fprintf(stderr, "a whole reply read wrongly\n");
            abort();
        }
    }
    reply_discard(&r);
    char message[256];
    snprintf(message, sizeof message, "%.*s", (int)(size < 200 ? size : 200), (const char *)data);
    size_t n;
    char *doc = failure_document(data, size, size % 2, message, &n);
    static const char end[] = "</Message>\n    </ResponseData>\n</BasilResponse>\n";
    if (strncmp(doc, "<?xml version=\"1.0\"?>\n<BasilResponse protocol=\"", 46) != 0 || n < sizeof end
        || strcmp(doc + n - (sizeof end - 1), end) != 0) {
        fprintf(stderr, "an incomplete failure document\n");
        abort();
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)doc[i] >= 0x80) {
            fprintf(stderr, "a failure document that is not US-ASCII\n");
            abort();
        }
    free(doc);
    return 0;
}
