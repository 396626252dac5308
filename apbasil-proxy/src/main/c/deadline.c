/*
 * The whole call's deadline (deadline.h). Every socket operation of the client and of tls.c waits here, so a
 * deadline given once bounds the connect, the TLS handshake, each write and each read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "deadline.h"

long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int wait_for(int fd, short events, long long deadline) {
    for (;;) {
        long long left = deadline - now_ns();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {fd, events, 0};
        int ms = (int)((left + 999999) / 1000000);
        int r = poll(&p, 1, ms);
        if (r > 0) return 0;
        if (r < 0 && errno != EINTR) return -1;
    }
}
