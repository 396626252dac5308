/*
 * The request's first look and the client's own FAILURE document. probe_request reads what Probe.java reads with
 * its hardened parser: the root's protocol and method, and, for a BasilResponse, its ResponseData's method; what it
 * cannot read with certainty (a DOCTYPE, an undeclared entity, another encoding) counts as unreadable, as Woodstox
 * refuses it. failure_document writes what Failures.failure writes through JAXB: an XML declaration without
 * encoding, US-ASCII with every other character as a decimal reference to its UTF-16 units, four-space indents.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document.h"

struct text {
    char *data;
    size_t length, capacity;
};

static void put(struct text *t, const char *s, size_t n) {
    if (t->length + n + 1 > t->capacity) {
        size_t c = t->capacity ? t->capacity : 1024;
        while (c < t->length + n + 1) c *= 2;
        t->data = realloc(t->data, c);
        if (!t->data) abort();
        t->capacity = c;
    }
    memcpy(t->data + t->length, s, n);
    t->length += n;
    t->data[t->length] = '\0';
}

static void puts_(struct text *t, const char *s) {
    put(t, s, strlen(s));
}

/* Next code point of possibly broken UTF-8, as Java's decoder replaces: a maximal bad subpart is one U+FFFD. */
static unsigned next_code_point(const unsigned char **pp, const unsigned char *end) {
    const unsigned char *p = *pp;
    unsigned c = *p;
    if (c < 0x80) {
        *pp = p + 1;
        return c;
    }
    size_t len;
    unsigned cp, lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, cp = c & 0x0F;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, cp = c & 0x07;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        *pp = p + 1;
        return 0xFFFD;
    }
    size_t i = 1;
    for (; i < len; i++) {
        if (p + i >= end) break;
        unsigned b = p[i];
        if (b < lo || b > hi) break;
        lo = 0x80, hi = 0xBF;
        cp = cp << 6 | (b & 0x3F);
    }
    *pp = p + i;
    return i == len ? cp : 0xFFFD;
}

/* Escapes text as JAXB does with US-ASCII: &lt; &gt; &amp; always, &quot; in attributes, non-ASCII as &#N;. */
static void escaped(struct text *t, const char *s, int attribute) {
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    char ref[32];
    while (p < end) {
        unsigned cp = next_code_point(&p, end);
        switch (cp) {
        case '<': puts_(t, "&lt;"); continue;
        case '>': puts_(t, "&gt;"); continue;
        case '&': puts_(t, "&amp;"); continue;
        case '"':
            if (attribute) {
                puts_(t, "&quot;");
                continue;
            }
            break;
        default: break;
        }
        if (cp < 0x80) {
            char c = (char)cp;
            put(t, &c, 1);
        } else if (cp < 0x10000) {
            snprintf(ref, sizeof ref, "&#%u;", cp);
            puts_(t, ref);
        } else {
            cp -= 0x10000;
            snprintf(ref, sizeof ref, "&#%u;&#%u;", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
            puts_(t, ref);
        }
    }
}

char *failure_document(const unsigned char *request, size_t request_length, int transient, const char *message,
                       size_t *length) {
    struct probe p;
    probe_request(request, request_length, &p);
    static const char *const methods[] = {"QUERY", "RESERVE", "CONFIRM", "RELEASE", "SWITCH"};
    const char *method = "UNDEFINED";
    for (size_t i = 0; p.method && i < sizeof methods / sizeof *methods; i++)
        if (strcmp(p.method, methods[i]) == 0) method = methods[i];
    struct text t = {0};
    puts_(&t, "<?xml version=\"1.0\"?>\n<BasilResponse protocol=\"");
    escaped(&t, p.protocol ? p.protocol : "", 1);
    puts_(&t, "\">\n    <ResponseData status=\"FAILURE\" method=\"");
    puts_(&t, method);
    puts_(&t, transient ? "\" error_class=\"TRANSIENT\"" : "\" error_class=\"PERMANENT\"");
    puts_(&t, " error_source=\"SYSTEM\">\n        <Message severity=\"ERROR\">");
    escaped(&t, message, 0);
    puts_(&t, "</Message>\n    </ResponseData>\n</BasilResponse>\n");
    probe_free(&p);
    *length = t.length;
    return t.data;
}

/* ---- the first look ---- */

struct cursor {
    const unsigned char *p, *end;
};

static int at(struct cursor *c, const char *s) {
    size_t n = strlen(s);
    return (size_t)(c->end - c->p) >= n && memcmp(c->p, s, n) == 0;
}

static int space(unsigned c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_space(struct cursor *c) {
    while (c->p < c->end && space(*c->p)) c->p++;
}

static int name_char(unsigned c, int first) {
    if (c >= 0x80) return 1; /* non-ASCII name characters: taken as Woodstox takes most of them */
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':') return 1;
    return !first && ((c >= '0' && c <= '9') || c == '-' || c == '.');
}

/* A name; 0 if none here. */
static size_t name(struct cursor *c) {
    const unsigned char *s = c->p;
    if (c->p >= c->end || !name_char(*c->p, 1)) return 0;
    while (c->p < c->end && name_char(*c->p, 0)) c->p++;
    return (size_t)(c->p - s);
}

/* Skips to just past the end marker; 0 if the document ends first. */
static int skip_past(struct cursor *c, const char *marker) {
    size_t n = strlen(marker);
    while ((size_t)(c->end - c->p) >= n) {
        if (memcmp(c->p, marker, n) == 0) {
            c->p += n;
            return 1;
        }
        if (*c->p < 0x20 && !space(*c->p)) return 0;
        c->p++;
    }
    return 0;
}

/* Comments, processing instructions and white space between markup; 0 on anything unreadable. */
static int skip_misc(struct cursor *c) {
    for (;;) {
        skip_space(c);
        if (at(c, "<!--")) {
            c->p += 4;
            if (!skip_past(c, "--")) return 0;
            if (!at(c, ">")) return 0;
            c->p++;
        } else if (at(c, "<?")) {
            c->p += 2;
            struct cursor n = *c;
            size_t len = name(&n);
            if (len == 3 && strncasecmp((const char *)c->p, "xml", 3) == 0) return 0;
            if (!skip_past(c, "?>")) return 0;
        } else {
            return 1;
        }
    }
}

/* An attribute value with its references decoded and its white space normalised; NULL if malformed. */
static char *attribute_value(struct cursor *c) {
    if (c->p >= c->end || (*c->p != '"' && *c->p != '\'')) return NULL;
    unsigned char quote = *c->p++;
    struct text t = {0};
    put(&t, "", 0);
    while (c->p < c->end && *c->p != quote) {
        unsigned ch = *c->p;
        if (ch == '<' || (ch < 0x20 && !space(ch))) goto bad;
        if (ch == '&') {
            static const char *const names[] = {"lt;", "gt;", "amp;", "quot;", "apos;"};
            static const char chars[] = "<>&\"'";
            c->p++;
            int done = 0;
            for (int i = 0; i < 5 && !done; i++)
                if (at(c, names[i])) {
                    put(&t, &chars[i], 1);
                    c->p += strlen(names[i]);
                    done = 1;
                }
            if (done) continue;
            if (!at(c, "#")) goto bad;
            c->p++;
            int hex = at(c, "x");
            if (hex) c->p++;
            unsigned long v = 0;
            int digits = 0;
            while (c->p < c->end && *c->p != ';') {
                unsigned d = *c->p;
                int x = d >= '0' && d <= '9' ? (int)(d - '0')
                        : hex && d >= 'a' && d <= 'f' ? (int)(d - 'a' + 10)
                        : hex && d >= 'A' && d <= 'F' ? (int)(d - 'A' + 10) : -1;
                if (x < 0 || v > 0x10FFFF) goto bad;
                v = v * (hex ? 16 : 10) + (unsigned)x;
                digits++;
                c->p++;
            }
            if (!digits || c->p >= c->end || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || v == 0xFFFE
                || v == 0xFFFF || (v < 0x20 && !space((unsigned)v)))
                goto bad;
            c->p++;
            char u[4];
            size_t n;
            if (v < 0x80) u[0] = (char)v, n = 1;
            else if (v < 0x800) u[0] = (char)(0xC0 | v >> 6), u[1] = (char)(0x80 | (v & 0x3F)), n = 2;
            else if (v < 0x10000)
                u[0] = (char)(0xE0 | v >> 12), u[1] = (char)(0x80 | ((v >> 6) & 0x3F)), u[2] = (char)(0x80 | (v & 0x3F)),
                n = 3;
            else
                u[0] = (char)(0xF0 | v >> 18), u[1] = (char)(0x80 | ((v >> 12) & 0x3F)),
                u[2] = (char)(0x80 | ((v >> 6) & 0x3F)), u[3] = (char)(0x80 | (v & 0x3F)), n = 4;
            put(&t, u, n);
            continue;
        }
        if (ch == '\r') {
            /* line ends become \n, then white space in an attribute a space */
            if (c->p + 1 < c->end && c->p[1] == '\n') c->p++;
            ch = ' ';
        } else if (ch == '\t' || ch == '\n') {
            ch = ' ';
        }
        char b = (char)ch;
        put(&t, &b, 1);
        c->p++;
    }
    if (c->p >= c->end) goto bad;
    c->p++;
    return t.data;
bad:
    free(t.data);
    return NULL;
}

/*
 * A start tag: its local name into element, protocol and method (unprefixed attributes) into the probe's
 * fields when wanted. 0 if it is not a well-formed start tag.
 */
static int start_tag(struct cursor *c, char *element, size_t size, char **protocol, char **method) {
    if (!at(c, "<")) return 0;
    c->p++;
    const unsigned char *s = c->p;
    size_t n = name(c);
    if (!n) return 0;
    const unsigned char *colon = memchr(s, ':', n);
    const unsigned char *local = colon ? colon + 1 : s;
    size_t ln = (size_t)(s + n - local);
    if (colon) return 0; /* a prefixed root needs its namespace declared: not taken apart here */
    if (ln >= size) ln = size - 1;
    memcpy(element, local, ln);
    element[ln] = '\0';
    char seen[32][64];
    int count = 0;
    for (;;) {
        int had_space = c->p < c->end && space(*c->p);
        skip_space(c);
        if (at(c, ">") || at(c, "/>")) return 1;
        if (!had_space) return 0;
        const unsigned char *as = c->p;
        size_t an = name(c);
        if (!an || an >= 64 || memchr(as, ':', an)) return 0; /* prefixed attributes: not taken apart here */
        for (int i = 0; i < count; i++)
            if (strlen(seen[i]) == an && memcmp(seen[i], as, an) == 0) return 0; /* duplicate attribute */
        if (count == 32) return 0;
        memcpy(seen[count], as, an);
        seen[count++][an] = '\0';
        skip_space(c);
        if (!at(c, "=")) return 0;
        c->p++;
        skip_space(c);
        char *value = attribute_value(c);
        if (!value) return 0;
        if (an == 5 && memcmp(as, "xmlns", 5) == 0) {
            free(value);
            continue;
        }
        char **slot = an == 8 && memcmp(as, "protocol", 8) == 0 ? protocol
                      : an == 6 && memcmp(as, "method", 6) == 0 ? method : NULL;
        if (slot) {
            free(*slot);
            *slot = value;
        } else {
            free(value);
        }
    }
}

void probe_request(const unsigned char *doc, size_t length, struct probe *out) {
    memset(out, 0, sizeof *out);
    struct cursor c = {doc, doc + length};
    if (at(&c, "\xEF\xBB\xBF")) c.p += 3;
    if (at(&c, "<?xml") && c.p + 5 < c.end && space(c.p[5])) {
        c.p += 5;
        if (!skip_past(&c, "?>")) return;
    }
    if (!skip_misc(&c)) return;
    char root[64];
    char *protocol = NULL, *method = NULL, *ignored = NULL;
    if (!start_tag(&c, root, sizeof root, &protocol, &method)) goto unreadable;
    if (strcmp(root, "BasilRequest") == 0) {
        out->readable = out->request = 1;
        out->protocol = protocol;
        out->method = method;
        return;
    }
    if (strcmp(root, "BasilResponse") != 0) goto unreadable;
    free(method);
    method = NULL;
    out->readable = 1;
    out->protocol = protocol;
    protocol = NULL;
    /* The next element, if it is ResponseData, gives the method; text and markup between are skipped. */
    int self_closing = c.p < c.end && *c.p == '/';
    c.p += self_closing ? 2 : 1;
    if (self_closing) return;
    for (;;) {
        while (c.p < c.end && *c.p != '<') {
            if (*c.p == '&' || (*c.p < 0x20 && !space(*c.p))) return;
            c.p++;
        }
        if (c.p >= c.end || at(&c, "</")) return;
        if (at(&c, "<!--") || at(&c, "<?")) {
            if (!skip_misc(&c)) return;
            continue;
        }
        if (at(&c, "<![CDATA[")) {
            c.p += 9;
            if (!skip_past(&c, "]]>")) return;
            continue;
        }
        char element[64];
        if (!start_tag(&c, element, sizeof element, &ignored, &method)) {
            free(ignored);
            free(method);
            return;
        }
        free(ignored);
        if (strcmp(element, "ResponseData") == 0) out->method = method;
        else free(method);
        return;
    }
unreadable:
    free(protocol);
    free(method);
    out->readable = 0;
}

void probe_free(struct probe *p) {
    free(p->protocol);
    free(p->method);
    p->protocol = p->method = NULL;
}
