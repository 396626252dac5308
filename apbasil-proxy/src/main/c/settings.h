/*
 * The settings (environment, then the key=value file), read and checked as ClientSettings.java does, and the
 * proxy addresses (ProxyAddress.java), a comma-separated list tried in order.
 */
#ifndef SETTINGS_H
#define SETTINGS_H

#include <stddef.h>
#include <sys/un.h>
#include "message.h"

/* In ClientSettings.KEYS's order: the unknown-key message lists them so. */
enum {
    KEY_PROXY,
    KEY_AUTH,
    KEY_MUNGE,
    KEY_MUNGE_SOCKET,
    KEY_TIMEOUT,
    KEY_CONNECT_TIMEOUT,
    KEY_RETRIES,
    KEY_TLS_CA,
    KEY_COUNT
};

struct settings {
    /* each value as looked up (environment, then file), stripped; NULL = not set (the default applies) */
    char *value[KEY_COUNT];
    char *file[KEY_COUNT]; /* what the file said (owned) */
};

extern const char *const setting_names[KEY_COUNT];
extern const char *const setting_defaults[KEY_COUNT];

/* Parses a settings file's bytes; 0, or -1 with the message ("PATH:LINE: ...") in problem. */
int settings_parse(const char *path, const unsigned char *text, size_t length, struct settings *out,
                   char problem[MESSAGE_MAX]);
/* Reads APBASIL_CONFIG (or the default file) and the environment; 0, or -1 with the message in problem. */
int settings_load(struct settings *out, char problem[MESSAGE_MAX]);
/* The value of key (environment over file, default when unset) after checking it; NULL with problem set if bad. */
const char *settings_get(const struct settings *s, int key, char problem[MESSAGE_MAX]);
/* One proxy: host:port, [v6]:port or unix:/path, as ProxyAddress.java reads it. */
struct address {
    char text[1024];
    int unix_socket;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char host[512];
    int port;
};

/* ProxyAddress.parseList: the proxies, in the order they are tried (malloc'd array in *out, its length in *count);
 * 0, or -1 with the Java client's message in problem. */
int parse_proxies(const char *text, struct address **out, size_t *count, char problem[MESSAGE_MAX]);
/* A number as Java's Double.parseDouble reads it (after strip); 0 ok, -1 not a number. */
int java_double(const char *text, double *out);
void settings_free(struct settings *s);

#endif
