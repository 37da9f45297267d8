/*
 * tokenize.c - whitespace tokenizer with Python's str.split() semantics on ASCII.
 *
 * The reference parsers (logparser) split content with str.split(), which
 * treats space, \t \n \v \f \r and the four ASCII separators \x1c-\x1f as
 * whitespace and drops empty tokens.  Matching that exactly matters for
 * accuracy parity: a \x1c inside a message separates tokens in the reference.
 * Every separator is <= 0x20, so inside a token the scan checks 8 bytes at
 * a time for any byte <= 0x20 (ltk_bytes_skip_to_low) and only then
 * consults a 256-entry table;
 * tokens are slices of the input and the array is reused across lines.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byteword.h"
#include "tokenize.h"

static const unsigned char split_space[256] = {
    ['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, [' '] = 1,
};

int ltk_is_split_space(unsigned char c)
{
    return split_space[c];
}

int ltk_tokenize(ltk_tokens *t, const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    t->n = 0;
    while (i < len) {
        while (i < len && split_space[s[i]])
            i++;
        if (i == len)
            break;
        size_t start = i;
        /* 8 bytes a step while none is <= 0x20 (every separator is) */
        const char *at = text + i, *end = text + len;
        while (end - at >= 8) {
            at = ltk_bytes_skip_to_low(at, end);
            if (end - at < 8 || split_space[(unsigned char)*at])
                break;
            at++;
        }
        i = (size_t)(at - text);
        while (i < len && !split_space[s[i]])
            i++;
        if (t->n == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 64;
            logtk_slice *q = realloc(t->tok, cap * sizeof *q);
            if (q == NULL)
                return LOGTK_ERR_NOMEM;
            t->tok = q;
            t->cap = cap;
        }
        t->tok[t->n].ptr = text + start;
        t->tok[t->n].len = i - start;
        t->n++;
    }
    return LOGTK_OK;
}

void ltk_tokens_free(ltk_tokens *t)
{
    free(t->tok);
    t->tok = NULL;
    t->n = t->cap = 0;
}
