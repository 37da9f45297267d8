/*
 * strbuf.h - growable byte buffer (internal).
 *
 * Reused across lines: ltk_strbuf_clear() keeps the capacity, so a buffer
 * that has seen the longest line never allocates again.
 */
#ifndef LTK_STRBUF_H
#define LTK_STRBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct ltk_strbuf {
    char *data; /* always NUL-terminated when cap > 0 */
    size_t len;
    size_t cap;
} ltk_strbuf;

#define LTK_STRBUF_INIT {NULL, 0, 0}

/** Ensures room for `extra` more bytes plus a NUL.  Returns 0 or -1 (out of memory). */
int ltk_strbuf_reserve(ltk_strbuf *b, size_t extra);

/** Appends n bytes.  Returns 0 or -1. */
int ltk_strbuf_append(ltk_strbuf *b, const void *s, size_t n);

/** Appends a NUL-terminated string.  Returns 0 or -1. */
int ltk_strbuf_puts(ltk_strbuf *b, const char *s);

/** Appends one byte.  Returns 0 or -1. */
int ltk_strbuf_putc(ltk_strbuf *b, char c);

/** Appends printf-formatted text.  Returns 0 or -1. */
int ltk_strbuf_printf(ltk_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Appends an unsigned LEB128 varint.  Returns 0 or -1. */
int ltk_strbuf_put_varint(ltk_strbuf *b, uint64_t v);

/** Empties the buffer, keeping its memory. */
void ltk_strbuf_clear(ltk_strbuf *b);

/** Frees the memory; the buffer is empty and reusable afterwards. */
void ltk_strbuf_free(ltk_strbuf *b);

/**
 * Reads an unsigned LEB128 varint from [*p, end).  Advances *p and returns 0, or
 * returns -1 on truncation or overflow (more than 64 bits) without advancing.
 */
int ltk_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v);

#endif
