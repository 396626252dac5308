/* The site factors file: see site-factors.h. */
#include "site-factors.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ASCII white space: the files are ASCII text, whatever the locale (and clang's analyzer follows it, where it
 * loses track of glibc's ctype tables). */
static int is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int by_account(const void *a, const void *b) {
    return strcasecmp(((const struct factor *)a)->account, ((const struct factor *)b)->account);
}

/* One line without its newline into line (FACTOR_LINE_MAX + 1 bytes): its length, -1 at the end, -2 too long or
 * not text (the rest of the line is read and dropped: a long line is never read as two). */
static int read_line(FILE *in, char *line) {
    int c, n = 0, refused = 0;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (c == '\0' || n == FACTOR_LINE_MAX) refused = 1;
        if (!refused) line[n++] = (char)c;
    }
    /* n <= FACTOR_LINE_MAX: the terminator fits */
    line[n] = '\0';
    if (refused) return -2;
    return c == EOF && n == 0 ? -1 : n;
}

/* "ACCOUNT SCALED" with nothing after: 0 and the factor, or -1. */
static int parse_line(char *line, struct factor *f) {
    char *p = line;
    while (is_blank(*p)) p++;
    char *account = p;
    while (*p && !is_blank(*p)) p++;
    size_t length = (size_t)(p - account);
    if (length == 0 || length > FACTOR_ACCOUNT_MAX) return -1;
    while (is_blank(*p)) p++;
    if (!isdigit((unsigned char)*p)) return -1;
    char *end;
    errno = 0;
    unsigned long value = strtoul(p, &end, 10);
    if (errno != 0 || value > UINT32_MAX / 2) return -1;
    while (is_blank(*end)) end++;
    if (*end) return -1;
    memcpy(f->account, account, length);
    f->account[length] = '\0';
    f->value = (uint32_t)value;
    return 0;
}

int factors_parse(FILE *in, struct factor **out, size_t *count, int *bad, int *first_bad) {
    struct factor *read = NULL;
    size_t n = 0, capacity = 0;
    char line[FACTOR_LINE_MAX + 1];
    *bad = 0;
    *first_bad = 0;
    for (int number = 1;; number++) {
        int length = read_line(in, line);
        if (length == -1) break;
        if (length == 0 || line[0] == '#') continue;
        struct factor f;
        if (length < 0 || parse_line(line, &f) != 0) {
            if ((*bad)++ == 0) *first_bad = number;
            continue;
        }
        if (n == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            struct factor *more = realloc(read, capacity * sizeof *read);
            if (!more) {
                free(read);
                return -1;
            }
            read = more;
        }
        read[n++] = f;
    }
    if (n) qsort(read, n, sizeof *read, by_account);
    *out = read;
    *count = n;
    return 0;
}

uint32_t factors_find(const struct factor *factors, size_t count, const char *account) {
    if (!account || !count) return 0;
    struct factor key = {.value = 0};
    snprintf(key.account, sizeof key.account, "%s", account);
    const struct factor *found = bsearch(&key, factors, count, sizeof *factors, by_account);
    return found ? found->value : 0;
}
