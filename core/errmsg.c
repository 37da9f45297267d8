/* errmsg.c - status codes, per-handle error messages, version. */
#include "config.h"
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ltk_error_set(ltk_errbuf *e, int code, const char *fmt, ...)
{
    va_list ap;
    e->code = code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

void ltk_error_clear(ltk_errbuf *e)
{
    e->code = LOGTK_OK;
    e->msg[0] = '\0';
}

const char *ltk_error_text(const ltk_errbuf *e)
{
    if (e->msg[0] != '\0')
        return e->msg;
    return e->code == LOGTK_OK ? "" : logtk_strerror(e->code);
}

int ltk_error_copy(ltk_errbuf *e, const ltk_errbuf *from)
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

#define LTK_STRINGIFY_(x) #x
#define LTK_STRINGIFY(x) LTK_STRINGIFY_(x)

const char *logtk_version(void)
{
    return LTK_STRINGIFY(LOGTK_VERSION_MAJOR) "." LTK_STRINGIFY(LOGTK_VERSION_MINOR) "."
        LTK_STRINGIFY(LOGTK_VERSION_PATCH);
}

unsigned logtk_version_number(void)
{
    return LOGTK_VERSION_NUMBER;
}

void logtk_free(void *ptr)
{
    free(ptr);
}
