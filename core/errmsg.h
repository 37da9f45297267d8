/*
 * errmsg.h - per-handle error messages (internal).
 *
 * Every handle embeds a logtk_errbuf; failing calls record a code and a
 * formatted message with logtk_error_set() and return the code, so
 * `return logtk_error_set(&h->err, LOGTK_ERR_IO, "%s: %s", path, strerror(e));`
 * is the usual shape.
 */
#ifndef LOGTK_ERRMSG_H
#define LOGTK_ERRMSG_H

#include "logtk.h"

#define LOGTK_ERRMSG_MAX 512

typedef struct logtk_errbuf {
    int code;
    char msg[LOGTK_ERRMSG_MAX];
} logtk_errbuf;

/** Records code and message; returns code. */
int logtk_error_set(logtk_errbuf *e, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Clears the error (message becomes ""). */
void logtk_error_clear(logtk_errbuf *e);

/** The message, or logtk_strerror(code) when none was formatted; "" when no error. */
const char *logtk_error_text(const logtk_errbuf *e);

/** Copies another handle's error into e; returns its code. */
int logtk_error_copy(logtk_errbuf *e, const logtk_errbuf *from);

#endif
