/*
 * parser_test_util.h - small helpers shared by the parser tests: make a
 * parser, feed a list of lines and finish, read a line's template id or
 * text, compare a template's text, and make a template directly.  Include
 * after test_harness.h.
 */
#ifndef LTK_PARSER_TEST_UTIL_H
#define LTK_PARSER_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "logtk.h"
#include "parser_impl.h" /* ltk_tmpl_create */
#include "test_harness.h"

static inline logtk_parser *new_parser(const char *algo)
{
    logtk_parser *p = NULL;
    CHECK_STATUS(logtk_parser_new(&p, algo), LOGTK_OK);
    return p;
}

static inline void feed_all(logtk_parser *p, const char *const *lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
}

/* The final template id of line `line` (0-based). */
static inline uint32_t tid(logtk_parser *p, uint64_t line)
{
    uint32_t id = 0;
    CHECK_STATUS(logtk_parser_assignment(p, line, &id), LOGTK_OK);
    return id;
}

/* Nonzero when template `id` reads exactly `want`; says what it is otherwise. */
static inline int template_is(logtk_parser *p, uint32_t id, const char *want)
{
    logtk_slice t;
    if (logtk_parser_template(p, id, &t, NULL) != LOGTK_OK)
        return 0;
    if (t.len != strlen(want) || memcmp(t.ptr, want, t.len) != 0) {
        fprintf(stderr, "%s: template %u is \"%.*s\", expected \"%s\"\n",
                logtk_parser_algorithm(p), (unsigned)id, (int)t.len, t.ptr, want);
        return 0;
    }
    return 1;
}

/* A parser of algorithm algo, with one parameter set (param NULL: none), fed
   lines and finished; NULL if there is no such algorithm. */
static inline logtk_parser *run_parser(const char *algo, const char *const *lines, size_t n,
                                       const char *param, const char *value)
{
    logtk_parser *p = NULL;
    if (logtk_parser_new(&p, algo) != LOGTK_OK)
        return NULL;
    if (param)
        CHECK_STATUS(logtk_parser_set_option(p, param, value), LOGTK_OK);
    for (size_t i = 0; i < n; i++)
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    return p;
}

/* Template text of line i. */
static inline logtk_slice text_of(logtk_parser *p, uint64_t i)
{
    uint32_t id = 0;
    logtk_slice t = {"", 0};
    uint64_t count;
    if (logtk_parser_assignment(p, i, &id) == LOGTK_OK)
        logtk_parser_template(p, id, &t, &count);
    return t;
}

/* Checks that line i's final template text is want (a macro, so a failure names the caller's line). */
#define CHECK_TEXT(p, i, want)                                                                     \
    do {                                                                                           \
        logtk_slice text_ = text_of(p, i);                                                         \
        CHECK_BYTES(text_.ptr, text_.len, want);                                                   \
    } while (0)

/* Nonzero when lines a and b have templates of the same text. */
static inline int same_text(logtk_parser *p, uint64_t a, uint64_t b)
{
    logtk_slice x = text_of(p, a), y = text_of(p, b);
    return x.len == y.len && memcmp(x.ptr, y.ptr, x.len) == 0;
}

/* The tokens of text split at spaces (up to SPLIT_MAX), pointing into text: their count. */
enum { SPLIT_MAX = 64 };
/* ev holds n parameters, parameter k reading want[k] (NULL: any text). */
static inline int params_are(const logtk_event *ev, size_t n, const char *const *want)
{
    if (ev->nparams != n)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (want[k] != NULL && (ev->params[k].len != strlen(want[k]) ||
                                memcmp(ev->params[k].ptr, want[k], ev->params[k].len) != 0))
            return 0;
    return 1;
}

static inline size_t split_at_spaces(const char *text, logtk_slice tok[SPLIT_MAX])
{
    size_t n = 0;
    for (const char *c = text; *c && n < SPLIT_MAX;) {
        const char *e = strchr(c, ' ');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        tok[n].ptr = c;
        tok[n++].len = len;
        c += len + (e != NULL);
    }
    return n;
}

/* A template made directly (tokens split at spaces), as an algorithm would: its id. */
static inline uint32_t make_template(logtk_parser *p, const char *text)
{
    logtk_slice tok[SPLIT_MAX];
    size_t n = split_at_spaces(text, tok);
    return ltk_tmpl_create(p, tok, n);
}

#endif
