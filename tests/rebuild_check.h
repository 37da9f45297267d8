/*
 * rebuild_check.h - the promise of logtk.h on one line, checked without the
 * template matcher: the template with its parameters substituted equals
 * the line, blank runs folded.  Used by test_template_invariant (every
 * parser on every Loghub log) and by the fuzz target fuzz_parse.
 */
#ifndef LTK_REBUILD_CHECK_H
#define LTK_REBUILD_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "logtk.h"

static inline int is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
           (c >= 0x1c && c <= 0x1f);
}

/* Appends s[0..n) to out with blank runs folded to one space. */
static inline size_t fold_append(char *out, size_t o, const char *s, size_t n, int *in_blank)
{
    for (size_t i = 0; i < n; i++) {
        if (is_blank((unsigned char)s[i])) {
            *in_blank = 1;
            continue;
        }
        if (*in_blank && o > 0)
            out[o++] = ' ';
        *in_blank = 0;
        out[o++] = s[i];
    }
    return o;
}

/*
 * 1 when the template with its parameters substituted equals content, blank
 * runs folded and ends trimmed on both sides.
 */
static inline int rebuilds(const char *t, size_t tlen, const logtk_slice *params, size_t np,
                    const char *content, size_t clen)
{
    size_t cap = tlen + clen + 1;
    for (size_t k = 0; k < np; k++)
        cap += params[k].len;
    char *a = malloc(cap), *b = malloc(clen + 1);
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    size_t o = 0, k = 0;
    int in_blank = 0;
    for (size_t i = 0; i < tlen;) {
        if (i + 3 <= tlen && memcmp(t + i, "<*>", 3) == 0) {
            if (k < np) {
                o = fold_append(a, o, params[k].ptr, params[k].len, &in_blank);
            }
            k++;
            i += 3;
        } else {
            o = fold_append(a, o, t + i, 1, &in_blank);
            i++;
        }
    }
    in_blank = 0;
    size_t ob = fold_append(b, 0, content, clen, &in_blank);
    int ok = k == np && o == ob && memcmp(a, b, o) == 0;
    free(a);
    free(b);
    return ok;
}

#endif
