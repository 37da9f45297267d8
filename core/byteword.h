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
#include <string.h>

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

/**
 * The first byte at or after s, before end, that is 0x20 or below (every
 * ASCII blank and control byte), or a place with fewer than eight bytes left
 * before end, from where the caller goes on byte by byte (its own test of a
 * blank): eight bytes a step while none is.  The test is the cheaper borrow
 * trick, (w - 0x21...) & ~w & 0x80..., exact for the lowest flag only (a
 * borrow runs upward), which is the one taken.  Little-endian only, where
 * the lowest flag is the first byte; elsewhere it returns s.  The
 * tokenizer's scan and a log format's fields.
 */
static inline const char *ltk_bytes_skip_to_low(const char *s, const char *end)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (end - s >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        uint64_t low = (w - 0x21 * LTK_BYTES_ONES) & ~w & LTK_BYTES_HIGH;
        if (low != 0)
            return s + (__builtin_ctzll(low) >> 3);
        s += 8;
    }
#else
    (void)end;
#endif
    return s;
}

#endif
