/*
 * line_shape.h - a line's shape: a hash of its bytes with every ASCII digit
 * read as '0' (line_shape.c).  Two lines of one shape differ in their digits
 * only, so whatever a step does that tests a digit only as a digit, never as
 * a particular one, it does alike to both: fuse's line cache (fuse_shape.c)
 * and the shared layer's fits by shape (fit_memo in parser.c) rest on it.
 */
#ifndef LTK_LINE_SHAPE_H
#define LTK_LINE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "byteword.h"

/**
 * ltk_zero_digits() makes every one of '0'..'9' of the eight bytes w
 * '0' (its low four bits cleared); the other bytes stay (byteword.h).
 */
static inline uint64_t ltk_zero_digits(uint64_t w)
{
    uint64_t digit = ltk_digit_bytes(w);
    return w & ~((digit >> 3) - (digit >> 7)); /* 0x10 - 0x01: 0x0f at each digit */
}

/*
 * One round per eight bytes: the full 128-bit product of the state and an
 * odd constant, its halves folded (every input bit reaches every output
 * bit, in three instructions where the 128-bit product is one).
 */
static inline uint64_t ltk_shape_round(uint64_t h, uint64_t w)
{
#if defined(__SIZEOF_INT128__)
    __extension__ unsigned __int128 p = (unsigned __int128)(h ^ w) * 0x9e3779b97f4a7c15ULL;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#else
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 31);
#endif
}

/**
 * The shape of a line's bytes s[0..n): a 64-bit hash, never 0, of the length
 * and the bytes with each of '0'..'9' replaced by '0'.
 */
uint64_t ltk_line_shape(const char *s, size_t n);

#endif
