/*
 * Runs a libFuzzer target's body over saved inputs without libFuzzer (any compiler): each argument is a file or a
 * directory of files. The default test run (HookFuzzCorpusTest) replays the committed corpus with it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, n = 0, got;
    unsigned char *b = malloc(cap);
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *more = realloc(b, cap *= 2);
            if (!more) free(b);
            b = more;
        }
    }
    fclose(f);
    if (!b) return 1;
    LLVMFuzzerTestOneInput(b, n);
    free(b);
    return 0;
}

int main(int argc, char **argv) {
    int failed = 0, count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            failed++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed += replay_file(argv[i]);
            count++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            failed += replay_file(path);
            count++;
        }
        if (d) closedir(d);
    }
    printf("replayed %d inputs\n", count);
    return failed != 0;
}
