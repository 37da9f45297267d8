/*
 * membuf.h - a growable in-memory output for tests and fuzz targets: the
 * logtk_archive_writer's write callback appends here instead of to a file.
 *
 * The bytes are kept NUL-terminated (one spare byte) so tests can treat text
 * output as a C string; `bytes` views the same memory unsigned for code that
 * handles archives as uint8_t.
 */
#ifndef LTK_TESTS_MEMBUF_H
#define LTK_TESTS_MEMBUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct membuf {
    union {
        char *data;
        uint8_t *bytes;
    };
    size_t len, cap;
} membuf;

/** Appends len bytes; the writer-callback signature.  Returns 0, or -1 when out of memory. */
static inline int mem_write(void *user, const void *data, size_t len)
{
    membuf *m = user;
    if (len > PTRDIFF_MAX - m->len - 1)
        return -1; /* no buffer that large (and gcc then knows memcpy's bound) */
    if (m->len + len + 1 > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + len + 1)
            cap *= 2;
        char *p = realloc(m->data, cap);
        if (!p)
            return -1;
        m->data = p;
        m->cap = cap;
    }
    if (len)
        memcpy(m->data + m->len, data, len);
    m->len += len;
    m->data[m->len] = '\0';
    return 0;
}

#endif
