/* errmsg.c - status codes, per-handle error messages, version. */
#include "config.h"
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int logtk_error_set(logtk_errbuf *e, int code, const char *fmt, ...)
{
    va_list ap;
    e->code = code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

void logtk_error_clear(logtk_errbuf *e)
{
    e->code = LOGTK_OK;
    e->msg[0] = '\0';
}

const char *logtk_error_text(const logtk_errbuf *e)
{
    if (e->msg[0] != '\0')
        return e->msg;
    return e->code == LOGTK_OK ? "" : logtk_strerror(e->code);
}

int logtk_error_copy(logtk_errbuf *e, const logtk_errbuf *from)
{
    e->code = from->code;
    memcpy(e->msg, from->msg, sizeof e->msg);
    return e->code;
}

const char *logtk_strerror(int status)
{
    switch (status) {
    case LOGTK_OK: return "success";
    case LOGTK_DONE: return "end of input";
    case LOGTK_ERR_NOMEM: return "out of memory";
    case LOGTK_ERR_IO: return "input/output error";
    case LOGTK_ERR_INVALID: return "invalid argument";
    case LOGTK_ERR_SYNTAX: return "syntax error";
    case LOGTK_ERR_DATA: return "bad input data";
    case LOGTK_ERR_LINE_TOO_LONG: return "line too long";
    case LOGTK_ERR_ARCHIVE: return "damaged or unreadable archive";
    case LOGTK_ERR_STATE: return "damaged, foreign or incompatible state";
    case LOGTK_ERR_NOT_FOUND: return "not found";
    case LOGTK_ERR_LIMIT: return "limit reached (regex match limit or model size limit)";
    case LOGTK_ERR_UNSUPPORTED: return "operation not supported";
    default: return "unknown error";
    }
}

#define LOGTK_STRINGIFY_(x) #x
#define LOGTK_STRINGIFY(x) LOGTK_STRINGIFY_(x)

const char *logtk_version(void)
{
    return LOGTK_STRINGIFY(LOGTK_VERSION_MAJOR) "." LOGTK_STRINGIFY(LOGTK_VERSION_MINOR) "."
        LOGTK_STRINGIFY(LOGTK_VERSION_PATCH);
}

unsigned logtk_version_number(void)
{
    return LOGTK_VERSION_NUMBER;
}

void logtk_free(void *ptr)
{
    free(ptr);
}
