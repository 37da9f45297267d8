/*
 * byteword.h - tests of eight bytes of a string at once, as one 64-bit word
 * (internal; header only).
 *
 * Each test answers with 0x80 at each byte of w that passes and 0 at the
 * others, exactly: no carry or borrow crosses from one byte into the next,
 * so the flags can be counted ((flags >> 7) * ones >> 56) or the first one
 * found (ctz / 8) as well as tested.  Used where a loop over the bytes of a
 * line or a token was a measurable part of the time: the reader's binary
 * check, fuse's line shape and word scans, the fits by shape.
 */
#ifndef LTK_BYTEWORD_H
#define LTK_BYTEWORD_H

#include <stdint.h>

#define LTK_BYTES_ONES 0x0101010101010101ULL
#define LTK_BYTES_HIGH 0x8080808080808080ULL
#define LTK_BYTES_LOW7 0x7f7f7f7f7f7f7f7fULL

/** 0x80 at each byte of w below k (k <= 0x80): (b & 0x7f) + 0x80 - k carries into bit 7 when b >= k. */
static inline uint64_t ltk_bytes_below(uint64_t w, unsigned k)
{
    return ~(((w & LTK_BYTES_LOW7) + (0x80 - k) * LTK_BYTES_ONES) | w) & LTK_BYTES_HIGH;
}

/** 0x80 at each byte of w equal to c: x = b ^ c is 0 there, and only there neither x's
    bit 7 nor that of (x & 0x7f) + 0x7f is set. */
static inline uint64_t ltk_bytes_equal(uint64_t w, unsigned char c)
{
    uint64_t x = w ^ (LTK_BYTES_ONES * c);
    return ~(((x & LTK_BYTES_LOW7) + LTK_BYTES_LOW7) | x) & LTK_BYTES_HIGH;
}

/** 0x80 at each of '0'..'9' in w: t = b ^ '0' is below 10 there, and only there neither
    t's bit 7 nor that of (t & 0x7f) + 0x76 is set. */
static inline uint64_t ltk_digit_bytes(uint64_t w)
{
    uint64_t t = w ^ (0x30 * LTK_BYTES_ONES);
    return ~(((t & LTK_BYTES_LOW7) + 0x76 * LTK_BYTES_ONES) | t) & LTK_BYTES_HIGH;
}

#endif
