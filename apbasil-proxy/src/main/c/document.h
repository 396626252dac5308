/*
 * What a request is (Probe.java's first look) and the client's own BASIL FAILURE document, byte for byte what
 * FailureDocument.java writes.
 */
#ifndef DOCUMENT_H
#define DOCUMENT_H

#include <stddef.h>

struct probe {
    int readable;    /* the document's root start tag could be read */
    int request;     /* root is BasilRequest */
    char *protocol;  /* the root's protocol attribute (decoded), or NULL */
    char *method;    /* the method attribute, or NULL */
};

void probe_request(const unsigned char *doc, size_t length, struct probe *out);
void probe_free(struct probe *p);
/* Writes the BASIL FAILURE document for a request into a malloc'd buffer; its length in *length. */
char *failure_document(const unsigned char *request, size_t request_length, int transient, const char *message,
                       size_t *length);

#endif
