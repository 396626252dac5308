/*
 * The whole call's deadline: a monotonic clock in nanoseconds, and the one wait every socket operation makes, so
 * that no read, write, connect or TLS handshake outlives the deadline it was given.
 */
#ifndef DEADLINE_H
#define DEADLINE_H

#include <stddef.h>

/* CLOCK_MONOTONIC in nanoseconds: deadlines are points on it. */
long long now_ns(void);
/* Waits until fd is ready for events or the deadline passes; 0, or -1 with errno (ETIMEDOUT). */
int wait_for(int fd, short events, long long deadline);

#endif
