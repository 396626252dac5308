/*
 * The site factors file that `alpsbridge ledger site-factor --slurm-file PATH` writes and site_factor/ledger reads:
 * one line "ACCOUNT SCALED" per account, '#' comments and empty lines allowed. Plain C, no Slurm: the fuzz target
 * reads it as the plugin does.
 */
#ifndef ALPSBRIDGE_SITE_FACTORS_H
#define ALPSBRIDGE_SITE_FACTORS_H

#include <stdint.h>
#include <stdio.h>

/* The longest account the file may name (Slurm's accounts are far shorter), and the longest line. */
#define FACTOR_ACCOUNT_MAX 127
#define FACTOR_LINE_MAX 511

struct factor {
    char account[FACTOR_ACCOUNT_MAX + 1];
    uint32_t value; /* at most UINT32_MAX / 2: Slurm adds it to NICE_OFFSET unchecked */
};

/*
 * The factors in `in`, sorted by account case-insensitively, into *out (malloc'd; *count of them): 0, or -1 when
 * memory ran out. A line that is not "ACCOUNT SCALED" (a bad number, a word too many, a line over FACTOR_LINE_MAX
 * bytes, a NUL byte) is skipped and counted in *bad, the first one's number in *first_bad.
 */
int factors_parse(FILE *in, struct factor **out, size_t *count, int *bad, int *first_bad);

/* The factor of `account` among `count` sorted factors, 0 for one the file does not name. */
uint32_t factors_find(const struct factor *factors, size_t count, const char *account);

#endif
