/*
 * libFuzzer target: the site factors file's reader (site-factors.c), as site_factor/ledger reads it under slurmctld's
 * job write lock. Any bytes give sorted factors, each a whole account (no white space, at most FACTOR_ACCOUNT_MAX
 * bytes) with a value of at most UINT32_MAX / 2, each findable by its name; never more factors than lines.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "site-factors.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    FILE *in = fmemopen(size ? (void *)data : (void *)"", size, "r");
    if (!in) abort();
    struct factor *factors = NULL;
    size_t count = 0;
    int bad = 0, first_bad = 0;
    if (factors_parse(in, &factors, &count, &bad, &first_bad) != 0) abort();
    fclose(in);
    size_t lines = 1;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    if (count + (size_t)bad > lines || (bad && first_bad < 1)) {
        fprintf(stderr, "%zu factors and %d bad lines from %zu lines\n", count, bad, lines);
        abort();
    }
    for (size_t i = 0; i < count; i++) {
        const struct factor *f = &factors[i];
        size_t n = strlen(f->account);
        if (n == 0 || n > FACTOR_ACCOUNT_MAX || f->value > UINT32_MAX / 2) abort();
        for (size_t k = 0; k < n; k++) {
            if (isspace((unsigned char)f->account[k])) abort();
        }
        if (i > 0 && strcasecmp(factors[i - 1].account, f->account) > 0) abort();
        /* the value found for a name is one of that name's (a name given twice may have either) */
        uint32_t found = factors_find(factors, count, f->account);
        int same = 0;
        for (size_t k = 0; k < count; k++) {
            same |= strcasecmp(factors[k].account, f->account) == 0 && factors[k].value == found;
        }
        if (!same) abort();
    }
    free(factors);
    return 0;
}
