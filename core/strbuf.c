/* strbuf.c - growable byte buffer.  See strbuf.h. */
#include "config.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ltk_strbuf_reserve(ltk_strbuf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need < b->len)
        return -1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    char *d = realloc(b->data, cap);
    if (d == NULL)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

int ltk_strbuf_append(ltk_strbuf *b, const void *s, size_t n)
{
    if (ltk_strbuf_reserve(b, n) != 0)
        return -1;
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int ltk_strbuf_puts(ltk_strbuf *b, const char *s)
{
    return ltk_strbuf_append(b, s, strlen(s));
}

int ltk_strbuf_putc(ltk_strbuf *b, char c)
{
    if (b->len + 1 < b->cap) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return 0;
    }
    return ltk_strbuf_append(b, &c, 1);
}

int ltk_strbuf_printf(ltk_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if ((size_t)n < sizeof small)
        return ltk_strbuf_append(b, small, (size_t)n);
    if (ltk_strbuf_reserve(b, (size_t)n) != 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

int ltk_strbuf_put_varint(ltk_strbuf *b, uint64_t v)
{
    char tmp[10];
    size_t n = 0;
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        if (v)
            byte |= 0x80;
        tmp[n++] = (char)byte;
    } while (v);
    return ltk_strbuf_append(b, tmp, n);
}

void ltk_strbuf_clear(ltk_strbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void ltk_strbuf_free(ltk_strbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int ltk_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    uint64_t out = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (q >= end)
            return -1;
        uint8_t byte = *q++;
        if (shift == 63 && (byte & 0x7e))
            return -1;
        out |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *p = q;
            *v = out;
            return 0;
        }
    }
    return -1;
}
