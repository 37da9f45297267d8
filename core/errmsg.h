/*
 * errmsg.h - per-handle error messages (internal).
 *
 * Every handle embeds a ltk_errbuf; failing calls record a code and a
 * formatted message with ltk_error_set() and return the code, so
 * `return ltk_error_set(&h->err, LOGTK_ERR_IO, "%s: %s", path, strerror(e));`
 * is the usual shape.
 */
#ifndef LTK_ERRMSG_H
#define LTK_ERRMSG_H

#include "logtk.h"

#define LTK_ERRMSG_MAX 512

typedef struct ltk_errbuf {
    int code;
    char msg[LTK_ERRMSG_MAX];
} ltk_errbuf;

/** Records code and message; returns code. */
int ltk_error_set(ltk_errbuf *e, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((cold, format(printf, 3, 4)))
#endif
    ;

/** Clears the error (message becomes ""). */
void ltk_error_clear(ltk_errbuf *e);

/** The message, or logtk_strerror(code) when none was formatted; "" when no error. */
const char *ltk_error_text(const ltk_errbuf *e);

/** Copies another handle's error into e; returns its code. */
int ltk_error_copy(ltk_errbuf *e, const ltk_errbuf *from);

#endif
