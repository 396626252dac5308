/*
 * The drop-in client's settings, as ClientSettings.java reads them: each key from the environment variable
 * APBASIL_KEY, then KEY=value in the file named by APBASIL_CONFIG (default /etc/alpsbridge/apbasil.conf; missing
 * is fine unless named), then the default. The same checks and the same messages, so a site's typo reads the
 * same from either client. Java's String.strip() and Character.isWhitespace are followed for the Unicode spaces.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "settings.h"

#ifndef DEFAULT_CONFIG
#define DEFAULT_CONFIG "/etc/alpsbridge/apbasil.conf"
#endif
#define MAX_CONFIG_BYTES (1024 * 1024)
#define STR_(x) #x
#define STR(x) STR_(x)

const char *const setting_names[KEY_COUNT] = {"proxy",   "auth",            "munge",   "munge_socket",
                                              "timeout", "connect_timeout", "retries", "tls_ca"};
const char *const setting_defaults[KEY_COUNT] = {"127.0.0.1:6830", "munge", "socket", NULL, "300", "3", "8", NULL};
/* As ClientSettings.MAX_SECONDS and MAX_RETRIES: the conformance suite compares the two clients' refusals. */
#define MAX_SECONDS 86400
#define MAX_RETRIES 100

/* Length of the UTF-8 sequence at p if it is one of Java's whitespace code points, else 0. */
static size_t java_space(const unsigned char *p, const unsigned char *end) {
    if (p >= end) return 0;
    unsigned c = p[0];
    if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return 1;
    if (c == 0xE1 && end - p >= 3 && p[1] == 0x9A && p[2] == 0x80) return 3; /* U+1680 */
    if (c == 0xE2 && end - p >= 3) {
        unsigned cp = 0x2000 | ((unsigned)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
        if ((p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if ((cp >= 0x2000 && cp <= 0x2006) || (cp >= 0x2008 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029
            || cp == 0x205F)
            return 3;
    }
    if (c == 0xE3 && end - p >= 3 && p[1] == 0x80 && p[2] == 0x80) return 3; /* U+3000 */
    return 0;
}

/* Java's String.strip() on [*start, *end). */
static void strip(const unsigned char **start, const unsigned char **end) {
    size_t n;
    while (*start < *end && (n = java_space(*start, *end)) > 0) *start += n;
    while (*end > *start) {
        const unsigned char *p = *end - 1;
        while (p > *start && (*p & 0xC0) == 0x80 && *end - p < 3) p--;
        n = java_space(p, *end);
        if (n == 0 || p + n != *end) break;
        *end = p;
    }
}

static char *copy(const unsigned char *start, const unsigned char *end) {
    char *s = malloc((size_t)(end - start) + 1);
    if (!s) abort();
    memcpy(s, start, (size_t)(end - start));
    s[end - start] = '\0';
    return s;
}

/* ProxyAddress.parse: host:port, [v6]:port or unix:/path; 0, or -1 with the Java client's message. */
static int parse_address(const char *text, struct address *a, char problem[MESSAGE_MAX]) {
    memset(a, 0, sizeof *a);
    snprintf(a->text, sizeof a->text, "%s", text);
    if (strncmp(text, "unix:", 5) == 0) {
        if (text[5] == '\0') {
            snprintf(problem, MESSAGE_MAX, "unix: address without a path: %s", text);
            return -1;
        }
        if (strlen(text + 5) >= sizeof a->path) {
            snprintf(problem, MESSAGE_MAX, "proxy address %s: the path is longer than a unix socket path may be",
                     text);
            return -1;
        }
        a->unix_socket = 1;
        strcpy(a->path, text + 5);
        return 0;
    }
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || colon[1] == '\0') {
        snprintf(problem, MESSAGE_MAX, "proxy address %s is not host:port or unix:/path", text);
        return -1;
    }
    size_t hl = (size_t)(colon - text);
    const char *host = text;
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') host++, hl -= 2;
    if (hl >= sizeof a->host) hl = sizeof a->host - 1;
    memcpy(a->host, host, hl);
    a->host[hl] = '\0';
    /* Integer.parseInt: an optional sign and decimal digits, within an int */
    const char *p = colon + 1;
    int negative = 0;
    if (*p == '+' || *p == '-') negative = *p++ == '-';
    long long port = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        port = port * 10 + (*p - '0');
        if (port > 2147483648LL) break;
    }
    if (*p != '\0' || !digits || port > 2147483647LL + negative) {
        snprintf(problem, MESSAGE_MAX, "proxy address %s has a port that is not a number", text);
        return -1;
    }
    if (negative) port = -port;
    if (port < 0 || port > 65535) {
        snprintf(problem, MESSAGE_MAX, "proxy address %s has port %lld outside 0-65535", text, port);
        return -1;
    }
    a->port = (int)port;
    return 0;
}

/* ProxyAddress.parseList: one address, or several separated by commas, each stripped; an empty entry is refused. */
int parse_proxies(const char *text, struct address **out, size_t *count, char problem[MESSAGE_MAX]) {
    size_t n = 1;
    for (const char *c = text; *c; c++) n += *c == ',';
    struct address *list = calloc(n, sizeof *list);
    if (!list) abort();
    if (n == 1) {
        if (parse_address(text, list, problem) != 0) goto bad;
    } else {
        const unsigned char *all = (const unsigned char *)text, *all_end = all + strlen(text);
        strip(&all, &all_end);
        const unsigned char *p = all;
        for (size_t i = 0; i < n; i++) {
            const unsigned char *comma = memchr(p, ',', (size_t)(all_end - p));
            const unsigned char *s = p, *e = comma ? comma : all_end;
            p = comma ? comma + 1 : all_end;
            strip(&s, &e);
            if (s == e) {
                snprintf(problem, MESSAGE_MAX, "proxy list %.*s has an empty entry (number %zu); expected host:port or "
                         "unix:/path, separated by commas", (int)(all_end - all), (const char *)all, i + 1);
                goto bad;
            }
            char *entry = copy(s, e);
            int status = parse_address(entry, &list[i], problem);
            free(entry);
            if (status != 0) goto bad;
        }
    }
    *out = list;
    *count = n;
    return 0;
bad:
    free(list);
    return -1;
}

/* Whether text is exactly a number Java's Double.parseDouble accepts (its own trim aside). */
int java_double(const char *text, double *out) {
    const char *p = text;
    while (*p && (unsigned char)*p <= ' ') p++;
    size_t n = strlen(p);
    while (n > 0 && (unsigned char)p[n - 1] <= ' ') n--;
    char buf[128];
    if (n == 0 || n >= sizeof buf) return -1; /* a text this long is no setting's number */
    memcpy(buf, p, n);
    buf[n] = '\0';
    const char *s = buf;
    int negative = 0;
    if (*s == '+' || *s == '-') negative = *s++ == '-';
    if (strcmp(s, "NaN") == 0) {
        *out = NAN;
        return 0;
    }
    if (strcmp(s, "Infinity") == 0) {
        *out = negative ? -INFINITY : INFINITY;
        return 0;
    }
    size_t len = strlen(buf);
    if (len > 0 && strchr("fFdD", buf[len - 1])) buf[--len] = '\0';
    const char *q = s;
    int digits = 0;
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
        q += 2;
        while (strchr("0123456789abcdefABCDEF", *q) && *q) q++, digits++;
        if (*q == '.') {
            q++;
            while (strchr("0123456789abcdefABCDEF", *q) && *q) q++, digits++;
        }
        if (!digits || (*q != 'p' && *q != 'P')) return -1;
        q++;
        if (*q == '+' || *q == '-') q++;
        if (*q < '0' || *q > '9') return -1;
        while (*q >= '0' && *q <= '9') q++;
    } else {
        while (*q >= '0' && *q <= '9') q++, digits++;
        if (*q == '.') {
            q++;
            while (*q >= '0' && *q <= '9') q++, digits++;
        }
        if (!digits) return -1;
        if (*q == 'e' || *q == 'E') {
            q++;
            if (*q == '+' || *q == '-') q++;
            if (*q < '0' || *q > '9') return -1;
            while (*q >= '0' && *q <= '9') q++;
        }
    }
    if (*q != '\0') return -1;
    char *end;
    *out = strtod(buf, &end);
    return *end == '\0' ? 0 : -1;
}

/* What is wrong with a value, as ClientSettings.problem: 0 fine, else -1 with the message. */
static int problem(int key, const char *value, char *out, size_t size) {
    const char *expected = NULL;
    double d;
    switch (key) {
    case KEY_PROXY: {
        /* the address list's own message, as ClientSettings.problem gives it */
        struct address *list;
        size_t n;
        char why[MESSAGE_MAX];
        if (parse_proxies(value, &list, &n, why) == 0) {
            free(list);
            return 0;
        }
        snprintf(out, size, "%s", why);
        return -1;
    }
    case KEY_AUTH:
        if (strcmp(value, "munge") && strcmp(value, "none")) expected = "munge or none";
        break;
    case KEY_MUNGE:
        /* Only how the Java client gets a credential; this one always uses libmunge, but takes the same values. */
        if (strcmp(value, "socket") && strcmp(value, "program") && strcmp(value, "library"))
            expected = "socket, program or library";
        break;
    case KEY_TIMEOUT:
    case KEY_CONNECT_TIMEOUT:
        /* Infinity and NaN parse, and are refused as out of range: a limit that cannot be kept is no limit */
        if (java_double(value, &d) != 0 || !(d >= 0 && d <= MAX_SECONDS))
            expected = "seconds from 0 to " STR(MAX_SECONDS);
        break;
    case KEY_RETRIES:
        if (java_double(value, &d) != 0 || !(d >= 0 && d <= MAX_RETRIES) || d != (double)(long)d)
            expected = "a whole number from 0 to " STR(MAX_RETRIES);
        break;
    default:
        break;
    }
    if (!expected) return 0;
    snprintf(out, size, "%s=%s: expected %s", setting_names[key], value, expected);
    return -1;
}

/* Strict UTF-8 (Java's decoder with REPORT): no overlongs, surrogates or code points above U+10FFFF. */
static int valid_utf8(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t len;
        unsigned min, cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            len = 2, min = 0x80, cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3, min = 0x800, cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4, min = 0x10000, cp = c & 0x07;
        } else {
            return 0;
        }
        if (n - i < len) return 0;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        i += len;
    }
    return 1;
}

int settings_parse(const char *path, const unsigned char *text, size_t length, struct settings *out,
                   char problem_out[MESSAGE_MAX]) {
    if (!valid_utf8(text, length)) {
        snprintf(problem_out, MESSAGE_MAX, "%s: not UTF-8 text", path);
        return -1;
    }
    const unsigned char *p = text, *end = text + length;
    long line = 0;
    while (p < end) {
        /* Lines end at \n, \r or \r\n, as Files.readAllLines reads them. */
        const unsigned char *eol = p;
        while (eol < end && *eol != '\n' && *eol != '\r') eol++;
        const unsigned char *next = eol < end ? eol + 1 : eol;
        if (eol < end && *eol == '\r' && next < end && *next == '\n') next++;
        line++;
        const unsigned char *ls = p, *le = eol;
        p = next;
        strip(&ls, &le);
        const unsigned char *ts = ls, *te = le;
        const unsigned char *hash = memchr(ts, '#', (size_t)(te - ts));
        if (hash) {
            te = hash;
            strip(&ts, &te);
        }
        if (ts == te) continue;
        const unsigned char *eq = memchr(ts, '=', (size_t)(te - ts));
        if (!eq || eq == ts) {
            snprintf(problem_out, MESSAGE_MAX, "%s:%ld: expected key=value, got '%.*s'", path, line,
                     (int)(le - ls), (const char *)ls);
            return -1;
        }
        const unsigned char *ks = ts, *ke = eq, *vs = eq + 1, *ve = te;
        strip(&ks, &ke);
        strip(&vs, &ve);
        char *key = copy(ks, ke);
        for (char *k = key; *k; k++)
            if (*k >= 'A' && *k <= 'Z') *k = (char)(*k - 'A' + 'a');
        int which = -1;
        for (int k = 0; k < KEY_COUNT; k++)
            if (strcmp(key, setting_names[k]) == 0) which = k;
        if (which < 0) {
            char names[256] = "";
            for (int k = 0; k < KEY_COUNT; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", setting_names[k]);
            snprintf(problem_out, MESSAGE_MAX, "%s:%ld: unknown key '%s' (known keys: %s)", path, line, key, names);
            free(key);
            return -1;
        }
        free(key);
        char *value = copy(vs, ve);
        char why[MESSAGE_MAX - 512];
        if (problem(which, value, why, sizeof why) != 0) {
            snprintf(problem_out, MESSAGE_MAX, "%s:%ld: %s", path, line, why);
            free(value);
            return -1;
        }
        free(out->file[which]);
        out->file[which] = value;
    }
    return 0;
}

/* The environment's value of APBASIL_<KEY>, stripped; NULL when unset or blank (as ClientSettings.lookup). */
static char *environment(const char *key) {
    char name[64] = "APBASIL_";
    size_t n = strlen(name);
    for (const char *k = key; *k && n < sizeof name - 1; k++) name[n++] = (char)(*k >= 'a' && *k <= 'z' ? *k - 32 : *k);
    name[n] = '\0';
    const char *v = getenv(name);
    if (!v) return NULL;
    const unsigned char *s = (const unsigned char *)v, *e = s + strlen(v);
    strip(&s, &e);
    return s == e ? NULL : copy(s, e);
}

/* A path as Java's Path.of prints it: repeated slashes as one, no trailing slash. */
static void normalize(char *path) {
    char *w = path;
    for (char *r = path; *r; r++) {
        if (*r == '/' && w > path && w[-1] == '/') continue;
        *w++ = *r;
    }
    if (w > path + 1 && w[-1] == '/') w--;
    *w = '\0';
}

int settings_load(struct settings *out, char problem_out[MESSAGE_MAX]) {
    memset(out, 0, sizeof *out);
    char *named = environment("config");
    char path[4096];
    snprintf(path, sizeof path, "%s", named ? named : DEFAULT_CONFIG);
    normalize(path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        if (named) {
            snprintf(problem_out, MESSAGE_MAX, "APBASIL_CONFIG names %s, which does not exist", path);
            free(named);
            return -1;
        }
    } else {
        unsigned char *text = NULL;
        size_t length = 0;
        int err = 0;
        if (fd < 0) {
            err = errno;
        } else {
            text = malloc(MAX_CONFIG_BYTES + 1);
            if (!text) abort();
            ssize_t got;
            while (length <= MAX_CONFIG_BYTES
                   && (got = read(fd, text + length, MAX_CONFIG_BYTES + 1 - length)) != 0) {
                if (got < 0) {
                    if (errno == EINTR) continue;
                    err = errno;
                    break;
                }
                length += (size_t)got;
            }
            close(fd);
            if (!err && length > MAX_CONFIG_BYTES) err = EFBIG;
        }
        int status = 0;
        if (err) {
            snprintf(problem_out, MESSAGE_MAX, "cannot read %s: %s", path, strerror(err));
            status = -1;
        } else {
            status = settings_parse(path, text, length, out, problem_out);
        }
        free(text);
        if (status != 0) {
            free(named);
            return -1;
        }
    }
    free(named);
    for (int k = 0; k < KEY_COUNT; k++) {
        out->value[k] = environment(setting_names[k]);
        if (!out->value[k] && out->file[k] && *out->file[k]) out->value[k] = strdup(out->file[k]);
    }
    return 0;
}

const char *settings_get(const struct settings *s, int key, char problem_out[MESSAGE_MAX]) {
    const char *v = s->value[key];
    problem_out[0] = '\0';
    if (!v) return setting_defaults[key];
    if (problem(key, v, problem_out, MESSAGE_MAX) != 0) return NULL;
    return v;
}

void settings_free(struct settings *s) {
    for (int k = 0; k < KEY_COUNT; k++) {
        free(s->value[k]);
        free(s->file[k]);
        s->value[k] = s->file[k] = NULL;
    }
}
