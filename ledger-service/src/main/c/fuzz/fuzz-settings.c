/*
 * libFuzzer target: ledger-hook.conf's reader (hook-core.c, hook_parse_settings). Any bytes are read as settings or
 * refused with a message naming the file and line; what is accepted is within each key's documented range.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook-core.h"

#define FILE_NAME "/etc/alpsbridge/ledger-hook.conf"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    FILE *in = fmemopen(size ? (void *)data : (void *)"", size, "r");
    char *said = NULL;
    size_t said_size = 0;
    FILE *err = open_memstream(&said, &said_size);
    if (!in || !err) abort();
    struct hook_settings s;
    memset(&s, 0, sizeof s);
    hook_default_settings(&s);
    int r = hook_parse_settings(&s, "fuzz", FILE_NAME, in, err);
    fclose(in);
    fclose(err);
    if (r != 0) {
        if (strncmp(said, "fuzz: " FILE_NAME ":", strlen("fuzz: " FILE_NAME ":")) != 0) {
            fprintf(stderr, "a refusal that does not name the file and line: %s\n", said);
            abort();
        }
    } else {
        if (said_size != 0) {
            fprintf(stderr, "accepted, yet said: %s\n", said);
            abort();
        }
        if (s.agent_timeout < 1 || s.agent_timeout > HOOK_TIMEOUT_MAX || s.submit_timeout_ms < 50
            || s.submit_timeout_ms > 600000 || strlen(s.agent_socket) >= sizeof s.agent_socket
            || (s.submit_refuses != 0 && s.submit_refuses != 1) || !s.jvm_hook[0] || !s.spool_dir[0]) {
            fprintf(stderr, "accepted out of range: agent_timeout %ld submit_timeout_ms %ld\n", s.agent_timeout,
                    s.submit_timeout_ms);
            abort();
        }
    }
    free(said);
    return 0;
}
