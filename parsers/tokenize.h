/*
 * tokenize.h - whitespace tokenizer (internal).
 *
 * Splits text on runs of ASCII whitespace exactly as Python's str.split()
 * with no argument does on ASCII text: space, \t \n \v \f \r and the
 * separators \x1c-\x1f; leading and trailing whitespace give no empty tokens.
 * Tokens are slices of the input; the token array is reused across lines.
 */
#ifndef LTK_TOKENIZE_H
#define LTK_TOKENIZE_H

#include <stddef.h>

#include "logtk.h"

typedef struct ltk_tokens {
    logtk_slice *tok; /* tokens, slices of the text given to ltk_tokenize() */
    size_t n;
    size_t cap;
} ltk_tokens;

#define LTK_TOKENS_INIT {NULL, 0, 0}

/** Nonzero for the bytes Python's str.split() treats as whitespace in ASCII. */
int ltk_is_split_space(unsigned char c);

/**
 * Splits text[0..len) into t (previous contents replaced).  Returns LOGTK_OK or
 * LOGTK_ERR_NOMEM.
 */
int ltk_tokenize(ltk_tokens *t, const char *text, size_t len);

/** Frees the token array. */
void ltk_tokens_free(ltk_tokens *t);

#endif
