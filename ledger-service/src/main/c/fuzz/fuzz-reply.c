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
    /* what the answer is, decided here independently: a whole answer whose first item is "exit=" and 0 to 255
     * written plainly (no sign, space or leading zero) */
    int expected = -1;
    if (size > 5 && reply[size - 1] == '\0' && strncmp(reply, "exit=", 5) == 0) {
        const char *n = reply + 5;
        size_t digits = strspn(n, "0123456789");
        if (digits >= 1 && digits <= 3 && n[digits] == '\0' && (n[0] != '0' || digits == 1) && atoi(n) <= 255) {
            expected = atoi(n);
        }
    }
    /* the protocol error is the last line said (the agent's own lines come first) */
    const char *error_line = "answered without an exit code from 0 to 255";
    const char *unterminated = "answered with an unterminated item";
    size_t length = strlen(said);
    const char *last = said + length;
    if (last > said && last[-1] == '\n') last--;
    while (last > said && last[-1] != '\n') last--;
    int protocol_error = strstr(last, error_line) != NULL || strstr(last, unterminated) != NULL;
    /* (a valid answer's own lines may say anything, the protocol error's words included) */
    if (expected >= 0 ? code != expected : code != HOOK_UNAVAILABLE || !protocol_error) {
        fprintf(stderr, "'%.20s' read as exit %d (expected %d, protocol error said: %d)\n", reply, code, expected,
                protocol_error);
        abort();
    }
    free(said);
    free(reply);
    return 0;
}
