/*
 * fuzz_parse.c - random lines into the online parsers, each event checked
 * against the promise of logtk.h: the line's template with its parameters
 * (the line's own text, in order) substituted rebuilds the line
 * (tests/rebuild_check.h, which does not use the library's matcher).
 *
 * The first byte picks the parser (fuse or drain) and whether a line is
 * fed again with its digits changed; the rest is split at '\n' into lines.
 * A line fed again has the shape of the first (its length and bytes,
 * digits aside), so fuse's fits by shape (parser.c fit_by_shape) answer it
 * from the first line's fit whenever they may.  After finish every line is
 * extracted against the template it was given (logtk_parser_extract, which
 * fits by shape in a table of its own) and checked the same way: a template
 * still matches each line assigned to it.  With fuse, a second parser with
 * its line cache off ("line_cache=none") is fed the same lines, and each
 * event must be the same: the cache may only save work, never change an
 * answer.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "rebuild_check.h"

/* Aborts (a finding) when an event breaks the promise for its line. */
static void check_event(const logtk_event *ev, const char *line, size_t len)
{
    for (size_t k = 0; k < ev->nparams; k++)
        if (ev->params[k].ptr < line || ev->params[k].ptr + ev->params[k].len > line + len)
            abort(); /* a parameter that is not the line's own text */
    if (!rebuilds(ev->template_text.ptr, ev->template_text.len, ev->params, ev->nparams, line, len))
        abort();
}

/*
 * Feeds one line and checks its event; returns its template id (0: none).
 * With `plain` (fuse without its line cache), feeds it the line too and
 * aborts when its event differs.
 */
static uint32_t feed_checked(logtk_parser *p, logtk_parser *plain, const char *line, size_t len)
{
    logtk_event ev, other;
    int rc = logtk_parser_feed(p, line, len, &ev);
    if (plain) {
        /* p's event stays as it is while the other handle is fed */
        int rc2 = logtk_parser_feed(plain, line, len, &other);
        if (rc2 == LOGTK_ERR_NOMEM || rc == LOGTK_ERR_NOMEM)
            return 0;
        if (rc2 != rc || (rc == LOGTK_OK && (other.template_id != ev.template_id ||
                                             other.nparams != ev.nparams ||
                                             other.template_text.len != ev.template_text.len ||
                                             memcmp(other.template_text.ptr, ev.template_text.ptr,
                                                    ev.template_text.len) != 0)))
            abort(); /* the line cache changed an answer */
        for (size_t k = 0; rc == LOGTK_OK && k < ev.nparams; k++)
            if (other.params[k].ptr != ev.params[k].ptr || other.params[k].len != ev.params[k].len)
                abort();
        if (rc != LOGTK_OK || ev.template_id == 0)
            return 0;
    } else if (rc != LOGTK_OK || ev.template_id == 0) {
        return 0;
    }
    check_event(&ev, line, len);
    return ev.template_id;
}

/* After finish: the line's parameters against the template it was given. */
static void extract_checked(logtk_parser *p, uint32_t id, const char *line, size_t len)
{
    logtk_event ev;
    if (id == 0)
        return;
    int rc = logtk_parser_extract(p, id, line, len, &ev);
    if (rc == LOGTK_ERR_NOMEM)
        return;
    if (rc != LOGTK_OK)
        abort(); /* the template no longer matches a line assigned to it */
    check_event(&ev, line, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *parser = data[0] & 1 ? "drain" : "fuse";
    int again = (data[0] & 2) != 0;
    logtk_parser *p, *plain = NULL;
    if (logtk_parser_new(&p, parser) != LOGTK_OK)
        return 0;
    if (strcmp(parser, "fuse") == 0 &&
        (logtk_parser_new(&plain, parser) != LOGTK_OK ||
         logtk_parser_set_option(plain, "line_cache", "none") != LOGTK_OK)) {
        logtk_parser_free(plain);
        logtk_parser_free(p);
        return 0;
    }
    /* each line's digit-changed copy at the line's own offset, and the ids given */
    char *copy = malloc(size);
    uint32_t *ids = calloc(2 * size, sizeof *ids);
    if (copy == NULL || ids == NULL) {
        free(copy);
        free(ids);
        logtk_parser_free(plain);
        logtk_parser_free(p);
        return 0;
    }
    const char *text = (const char *)data + 1, *end = (const char *)data + size;
    while (text < end) {
        const char *nl = memchr(text, '\n', (size_t)(end - text));
        size_t len = (size_t)((nl ? nl : end) - text), off = (size_t)(text - (const char *)data);
        ids[2 * off] = feed_checked(p, plain, text, len);
        if (again) {
            memcpy(copy + off, text, len);
            for (size_t i = off; i < off + len; i++)
                if (copy[i] >= '0' && copy[i] <= '9')
                    copy[i] = (char)('0' + (copy[i] - '0' + 7) % 10);
            ids[2 * off + 1] = feed_checked(p, plain, copy + off, len);
        }
        text += len + (nl != NULL);
    }
    if (logtk_parser_finish(p) == LOGTK_OK) {
        for (text = (const char *)data + 1; text < end;) {
            const char *nl = memchr(text, '\n', (size_t)(end - text));
            size_t len = (size_t)((nl ? nl : end) - text), off = (size_t)(text - (const char *)data);
            extract_checked(p, ids[2 * off], text, len);
            if (again)
                extract_checked(p, ids[2 * off + 1], copy + off, len);
            text += len + (nl != NULL);
        }
    }
    free(copy);
    free(ids);
    logtk_parser_free(plain);
    logtk_parser_free(p);
    return 0;
}
