/*
 * TLS to the daemon when tls_ca is set, as the Java client does it: only tls_ca's certificates are trusted, and
 * the certificate must name the host or address the client was pointed at (Java's "HTTPS" endpoint check: an IP
 * address against the IP names, a host name against the DNS names, with SNI). OpenSSL is loaded with dlopen
 * when tls_ca is set, not linked: linking libssl and libcrypto costs every call, TLS or not, about 1.7 ms.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "deadline.h"
#include "tls.h"

/* Each OpenSSL function used, typed by its own declaration in the headers. */
#define OPENSSL_FUNCTIONS(F)                                                                                    \
    F(crypto, PEM_read_X509) F(crypto, X509_STORE_add_cert) F(crypto, X509_free) F(crypto, ERR_clear_error)      \
    F(crypto, ERR_peek_last_error) F(crypto, ERR_reason_error_string) F(crypto, X509_verify_cert_error_string)  \
    F(crypto, X509_VERIFY_PARAM_set1_ip_asc) F(ssl, TLS_client_method) F(ssl, SSL_CTX_new) F(ssl, SSL_CTX_ctrl) \
    F(ssl, SSL_CTX_set_options) F(ssl, SSL_CTX_get_cert_store) F(ssl, SSL_CTX_set_verify) F(ssl, SSL_new)        \
    F(ssl, SSL_set_fd) F(ssl, SSL_get0_param) F(ssl, SSL_ctrl) F(ssl, SSL_set1_host) F(ssl, SSL_connect)         \
    F(ssl, SSL_get_error) F(ssl, SSL_get_verify_result) F(ssl, SSL_read_ex) F(ssl, SSL_write_ex) F(ssl, SSL_free)

#define DECLARE(lib, name) static __typeof__(&name) p_##name;
OPENSSL_FUNCTIONS(DECLARE)

static SSL_CTX *context;

static int load(char *problem, size_t size, const char *ca) {
    void *ssl = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    void *crypto = ssl ? dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!ssl || !crypto) {
        snprintf(problem, size, "cannot use tls_ca %s: TLS needs OpenSSL 3 (libssl.so.3): %s", ca, dlerror());
        return -1;
    }
#define RESOLVE(lib, name)                                                                                      \
    if (!(*(void **)&p_##name = dlsym(lib, #name))) {                                                           \
        snprintf(problem, size, "cannot use tls_ca %s: OpenSSL has no %s", ca, #name);                          \
        return -1;                                                                                              \
    }
    OPENSSL_FUNCTIONS(RESOLVE)
    return 0;
}

int tls_setup(const char *ca, char problem[MESSAGE_MAX]) {
    FILE *in = fopen(ca, "r");
    if (!in) {
        snprintf(problem, MESSAGE_MAX, "cannot use tls_ca %s: %s", ca, strerror(errno));
        return -1;
    }
    if (load(problem, MESSAGE_MAX, ca) != 0) {
        fclose(in);
        return -1;
    }
    context = p_SSL_CTX_new(p_TLS_client_method());
    if (!context) {
        fclose(in);
        snprintf(problem, MESSAGE_MAX, "cannot use tls_ca %s: OpenSSL could not make a TLS context", ca);
        return -1;
    }
    p_SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
    /* A daemon that dies mid-answer is an end of stream, as the Java client reads it, not a protocol error. */
    p_SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF);
    X509_STORE *store = p_SSL_CTX_get_cert_store(context);
    int count = 0;
    X509 *cert;
    while ((cert = p_PEM_read_X509(in, NULL, NULL, NULL)) != NULL) {
        p_X509_STORE_add_cert(store, cert);
        p_X509_free(cert);
        count++;
    }
    int err = ferror(in) ? errno : 0;
    fclose(in);
    p_ERR_clear_error();
    if (count == 0) {
        if (err) snprintf(problem, MESSAGE_MAX, "cannot use tls_ca %s: %s", ca, strerror(err));
        else snprintf(problem, MESSAGE_MAX, "cannot use tls_ca %s: no PEM certificate in it", ca);
        return -1;
    }
    p_SSL_CTX_set_verify(context, SSL_VERIFY_PEER, NULL);
    return 0;
}

/* After an operation that did not complete: wait as OpenSSL asks; 0 go on, 1 end of stream, -1 with errno. */
static int settle(SSL *ssl, int fd, int result, long long deadline) {
    int e = p_SSL_get_error(ssl, result);
    if (e == SSL_ERROR_WANT_READ) return wait_for(fd, POLLIN, deadline);
    if (e == SSL_ERROR_WANT_WRITE) return wait_for(fd, POLLOUT, deadline);
    if (e == SSL_ERROR_ZERO_RETURN) return 1;
    if (e == SSL_ERROR_SYSCALL && errno == 0) return 1;
    if (e != SSL_ERROR_SYSCALL) errno = EPROTO;
    return -1;
}

void *tls_start(int fd, const char *host, long long deadline, char *why, size_t size) {
    SSL *ssl = p_SSL_new(context);
    if (!ssl || !p_SSL_set_fd(ssl, fd)) {
        snprintf(why, size, "SSLException: OpenSSL could not start a session");
        if (ssl) p_SSL_free(ssl);
        return NULL;
    }
    unsigned char ip[16];
    if (inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1) {
        p_X509_VERIFY_PARAM_set1_ip_asc(p_SSL_get0_param(ssl), host);
    } else {
        p_SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)host);
        p_SSL_set1_host(ssl, host);
    }
    for (;;) {
        int r = p_SSL_connect(ssl);
        if (r == 1) return ssl;
        int e = p_SSL_get_error(ssl, r);
        if ((e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
            && wait_for(fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline) == 0)
            continue;
        int timed_out = errno == ETIMEDOUT;
        long verify = p_SSL_get_verify_result(ssl);
        unsigned long failure = p_ERR_peek_last_error();
        if (timed_out) {
            why[0] = '\0';
        } else if (verify != X509_V_OK) {
            snprintf(why, size, "SSLHandshakeException: %s", p_X509_verify_cert_error_string(verify));
        } else if (failure && p_ERR_reason_error_string(failure)) {
            snprintf(why, size, "SSLHandshakeException: %s", p_ERR_reason_error_string(failure));
        } else {
            snprintf(why, size, "SSLHandshakeException: the connection closed during the TLS handshake");
        }
        p_ERR_clear_error();
        p_SSL_free(ssl);
        errno = timed_out ? ETIMEDOUT : EPROTO;
        return NULL;
    }
}

ssize_t tls_read(void *session, int fd, unsigned char *buffer, size_t n, long long deadline) {
    for (;;) {
        size_t got = 0;
        int ok = p_SSL_read_ex(session, buffer, n, &got);
        if (ok) return (ssize_t)got;
        int s = settle(session, fd, ok, deadline);
        if (s != 0) return s > 0 ? 0 : -1;
    }
}

int tls_write(void *session, int fd, const unsigned char *p, size_t n, long long deadline) {
    while (n > 0) {
        size_t done = 0;
        int ok = p_SSL_write_ex(session, p, n, &done);
        if (ok) {
            p += done, n -= done;
            continue;
        }
        int s = settle(session, fd, ok, deadline);
        if (s != 0) {
            if (s > 0) errno = EPIPE;
            return -1;
        }
    }
    return 0;
}

void tls_free(void *session) {
    if (session) p_SSL_free(session);
}
