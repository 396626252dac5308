/*
 * A fuzz target that crashes on two inputs and takes every other: "abort" aborts, "overflow" reads one byte past a
 * heap block (AddressSanitizer's report ends the program). FuzzCorpusTest links it with fuzz-replay.c to prove
 * that a corpus input crashing its target fails the replay, named.
 */
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    if (size == 5 && memcmp(data, "abort", 5) == 0) abort();
    if (size == 8 && memcmp(data, "overflow", 8) == 0) {
        unsigned char *copy = malloc(size);
        if (!copy) return 0;
        memcpy(copy, data, size);
        volatile size_t end = size; /* gcc would refuse the read it can see is past the block */
        unsigned char past = copy[end];
        free(copy);
        return past;
    }
    return 0;
}
