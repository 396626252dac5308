/*
 * Runs a libFuzzer target's body over saved inputs without libFuzzer (any compiler), for every C directory's fuzz
 * targets (apbasil-proxy/src/main/c, ledger-service/src/main/c, affinity/spank: their Makefiles' `replay` link it
 * with each target). Each argument is a file or a directory of files. Before each input it names it on stderr
 * ("Running: PATH", as libFuzzer does), so the input a sanitizer or an abort stopped on is the last one named; the
 * default test run replays the committed corpora with it (org.alpsbridge.slurm.harness.FuzzCorpus, in slurm-harness).
 * Exit 0 when every input was read and run, 1 when one could not be read; a crashing input ends the program there.
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
            unsigned char *bigger = realloc(b, cap *= 2);
            if (!bigger) free(b); /* b is lost either way: the input is refused below */
            b = bigger;
        }
    }
    fclose(f);
    if (!b) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    fprintf(stderr, "Running: %s\n", path);
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
        /* scandir, not readdir: the inputs in one order on every machine, and no static state */
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, alphasort);
        if (n < 0) {
            perror(argv[i]);
            failed++;
            continue;
        }
        for (int k = 0; k < n; k++) {
            if (names[k]->d_name[0] != '.') {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
                failed += replay_file(path);
                count++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %d inputs\n", count);
    return failed != 0;
}
