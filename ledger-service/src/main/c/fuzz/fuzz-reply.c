/*
 * libFuzzer target: the agent's answer reader (hook-core.c, hook_parse_reply). Any bytes give an exit code from 0 to
 * 255, which only an answer whose first item is exactly "exit=N" can give, or 3 (unavailable) with a protocol
 * error said; never the "no agent" code that would start the JVM hook.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook-core.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    /* the frame's body in a buffer of its own size: a read past it is ASan's to see */
    char *reply = malloc(size ? size : 1);
    if (!reply) abort();
    memcpy(reply, data, size);
    char *said = NULL;
    size_t said_size = 0;
    FILE *err = open_memstream(&said, &said_size);
    if (!err) abort();
    int code = hook_parse_reply(reply, size, "fuzz", "/run/agent.sock", err);
    fclose(err);
    if (code < 0 || code > 255) {
        fprintf(stderr, "exit code %d out of 0..255\n", code);
        abort();
    }
    int protocol_error = strstr(said, "fuzz: the hook agent on /run/agent.sock answered") != NULL;
    int plain = size > 5 && reply[size - 1] == '\0' && strncmp(reply, "exit=", 5) == 0;
    if (!plain && !protocol_error) {
        fprintf(stderr, "a malformed answer read as exit %d with no protocol error\n", code);
        abort();
    }
    if (protocol_error && code != HOOK_UNAVAILABLE) {
        fprintf(stderr, "a protocol error read as exit %d\n", code);
        abort();
    }
    if (!protocol_error) {
        char expected[16];
        snprintf(expected, sizeof expected, "exit=%d", code);
        if (strcmp(reply, expected) != 0) {
            fprintf(stderr, "'%.20s' read as exit %d\n", reply, code);
            abort();
        }
    }
    free(said);
    free(reply);
    return 0;
}
