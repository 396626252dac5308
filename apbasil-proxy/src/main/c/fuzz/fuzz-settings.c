/*
 * libFuzzer target: the settings file reader (settings.c). Any bytes are read as settings or refused with a
 * message naming the file and line (or "not UTF-8 text"); what is accepted is only known keys with values that
 * pass the same check the environment's values get.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

#define FILE_NAME "/etc/alpsbridge/apbasil.conf"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    struct settings s;
    memset(&s, 0, sizeof s);
    char problem[MESSAGE_MAX];
    if (settings_parse(FILE_NAME, data, size, &s, problem) != 0) {
        if (strncmp(problem, FILE_NAME ":", strlen(FILE_NAME) + 1) != 0) {
            fprintf(stderr, "a refusal that does not name the file: %s\n", problem);
            abort();
        }
    } else {
        for (int k = 0; k < KEY_COUNT; k++) {
            if (!s.file[k]) continue;
            s.value[k] = strdup(s.file[k]);
            const char *v = settings_get(&s, k, problem);
            if (problem[0]) {
                fprintf(stderr, "accepted %s=%s, which the check refuses: %s\n", setting_names[k], s.file[k], problem);
                abort();
            }
            (void)v;
        }
    }
    settings_free(&s);
    return 0;
}
