/*
 * fuzz_format.c - differential fuzzer for log formats.
 *
 * The input's first line is a format string, the other lines are log lines.
 * Formats that compile are matched line by line twice: with the hand-written
 * fast matcher and with PCRE2 alone.  Both must give the same record (same
 * matched flag, same slices); anything else aborts.  Lines where PCRE2 hits
 * its match limit are skipped: there PCRE2 has no answer to compare with.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"

void ltk_format_set_fast_path(logtk_format *f, int enabled);
int ltk_format_is_simple(const logtk_format *f);

static int same(const logtk_record *a, const logtk_record *b)
{
    if (a->matched != b->matched || a->nfields != b->nfields || a->content.ptr != b->content.ptr ||
        a->content.len != b->content.len)
        return 0;
    for (size_t i = 0; i < a->nfields; i++)
        if (a->fields[i].len != b->fields[i].len ||
            (a->fields[i].len && a->fields[i].ptr != b->fields[i].ptr))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl = memchr(text, '\n', size);
    size_t spec_len = nl ? (size_t)(nl - text) : size;
    char *spec = malloc(spec_len + 1);
    if (!spec)
        return 0;
    memcpy(spec, text, spec_len);
    spec[spec_len] = '\0';
    logtk_format *f;
    if (logtk_format_new(&f) != LOGTK_OK) {
        free(spec);
        return 0;
    }
    if (logtk_format_compile(f, spec) == LOGTK_OK) {
        const char *p = nl ? nl + 1 : text + size, *end = text + size;
        while (p < end) {
            const char *e = memchr(p, '\n', (size_t)(end - p));
            size_t len = e ? (size_t)(e - p) : (size_t)(end - p);
            logtk_record a, b;
            ltk_format_set_fast_path(f, 1);
            int ra = logtk_format_match(f, p, len, &a);
            ltk_format_set_fast_path(f, 0);
            int rb = logtk_format_match(f, p, len, &b);
            if (rb == LOGTK_OK && (ra != LOGTK_OK || !same(&a, &b)))
                abort();
            if (!a.matched && (a.content.ptr != p || a.content.len != len))
                abort();
            p = e ? e + 1 : end;
        }
    } else if (logtk_format_errmsg(f)[0] == '\0') {
        abort();
    }
    logtk_format_free(f);
    free(spec);
    return 0;
}
