/*
 * TLS with tls_ca, OpenSSL loaded only when it is used. Waits through deadline.h, never through the caller.
 */
#ifndef TLS_H
#define TLS_H

#include <stddef.h>
#include <sys/types.h>
#include "message.h"

/* Loads OpenSSL and trusts only tls_ca's certificates; 0, or -1 with the Java client's message in problem. */
int tls_setup(const char *ca, char problem[MESSAGE_MAX]);
/* The handshake on a connected non-blocking socket, checking the certificate names host; NULL with why (errno
 * ETIMEDOUT at the deadline, why left empty). */
void *tls_start(int fd, const char *host, long long deadline, char *why, size_t size);
/* Up to n bytes: >0 read, 0 end of stream, -1 with errno (ETIMEDOUT at the deadline). */
ssize_t tls_read(void *session, int fd, unsigned char *buffer, size_t n, long long deadline);
/* All n bytes; 0, or -1 with errno. */
int tls_write(void *session, int fd, const unsigned char *p, size_t n, long long deadline);
void tls_free(void *session);

#endif
