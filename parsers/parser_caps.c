/*
 * parser_caps.c - what a parser's documented caps cut, for the caller.
 *
 * Some algorithms are quadratic (or worse) in distinct messages or in the
 * words of a line; past a documented size they cap their work (see each
 * algorithm's file and the LIMITS section of logtk-parse(1)).  A cap must
 * never act silently: the algorithm notes how much it touched here, and the
 * caller reads it back with logtk_parser_capped() to warn the user.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parser_impl.h"
#include "parser_state.h"

void ltk_parser_note_cap(logtk_parser *p, uint64_t count, const char *fmt, ...)
{
    size_t used = strlen(p->capped_what);
    if (used > 0 && used + 2 < sizeof p->capped_what) {
        memcpy(p->capped_what + used, "; ", 3);
        used += 2;
    }
    if (used + 1 < sizeof p->capped_what) {
        va_list ap;
        va_start(ap, fmt);
        /* a message too long for the buffer is cut: the count stays exact */
        vsnprintf(p->capped_what + used, sizeof p->capped_what - used, fmt, ap);
        va_end(ap);
    }
    p->capped += count;
}

uint64_t logtk_parser_capped(const logtk_parser *p, const char **what)
{
    if (what)
        *what = p != NULL && p->capped_what[0] ? p->capped_what : NULL;
    return p != NULL ? p->capped : 0;
}
