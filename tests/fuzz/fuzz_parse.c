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
 * from the first line's fit whenever they may.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "rebuild_check.h"

/* Feeds one line; aborts (a finding) when its event breaks the promise. */
static void feed_checked(logtk_parser *p, const char *line, size_t len)
{
    logtk_event ev;
    if (logtk_parser_feed(p, line, len, &ev) != LOGTK_OK || ev.template_id == 0)
        return;
    for (size_t k = 0; k < ev.nparams; k++)
        if (ev.params[k].ptr < line || ev.params[k].ptr + ev.params[k].len > line + len)
            abort(); /* a parameter that is not the line's own text */
    if (!rebuilds(ev.template_text.ptr, ev.template_text.len, ev.params, ev.nparams, line, len))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *parser = data[0] & 1 ? "drain" : "fuse";
    int again = (data[0] & 2) != 0;
    logtk_parser *p;
    if (logtk_parser_new(&p, parser) != LOGTK_OK)
        return 0;
    char *copy = malloc(size);
    if (copy == NULL) {
        logtk_parser_free(p);
        return 0;
    }
    const char *text = (const char *)data + 1, *end = (const char *)data + size;
    while (text < end) {
        const char *nl = memchr(text, '\n', (size_t)(end - text));
        size_t len = (size_t)((nl ? nl : end) - text);
        feed_checked(p, text, len);
        if (again) {
            memcpy(copy, text, len);
            for (size_t i = 0; i < len; i++)
                if (copy[i] >= '0' && copy[i] <= '9')
                    copy[i] = (char)('0' + (copy[i] - '0' + 7) % 10);
            feed_checked(p, copy, len);
        }
        text += len + (nl != NULL);
    }
    logtk_parser_finish(p);
    free(copy);
    logtk_parser_free(p);
    return 0;
}
