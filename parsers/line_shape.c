/*
 * line_shape.c - a line's shape (see line_shape.h).
 */
#include "config.h"

#include <string.h>

#include "line_shape.h"
#include "mix.h"

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

/* The bytes' eight-byte word at s with every digit '0'. */
static inline uint64_t shape_word(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return ltk_zero_digits(w);
}

/* Four rounds, one per lane, over the 32 bytes at s (their digits read as '0'). */
static inline void shape_block(uint64_t lane[4], const char *s)
{
#if defined(__SSE2__) && defined(__x86_64__)
    /* digits are the bytes above '/' and below ':' (compared as signed, so
       bytes >= 0x80 are not) */
    const __m128i below = _mm_set1_epi8('0' - 1), above = _mm_set1_epi8('9' + 1);
    const __m128i low = _mm_set1_epi8(0x0f);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    __m128i zb = _mm_andnot_si128(
        _mm_and_si128(_mm_and_si128(_mm_cmpgt_epi8(b, below), _mm_cmplt_epi8(b, above)), low), b);
    __m128i zc = _mm_andnot_si128(
        _mm_and_si128(_mm_and_si128(_mm_cmpgt_epi8(c, below), _mm_cmplt_epi8(c, above)), low), c);
    lane[0] = ltk_shape_round(lane[0], (uint64_t)_mm_cvtsi128_si64(zb));
    lane[1] = ltk_shape_round(lane[1], (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(zb, zb)));
    lane[2] = ltk_shape_round(lane[2], (uint64_t)_mm_cvtsi128_si64(zc));
    lane[3] = ltk_shape_round(lane[3], (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(zc, zc)));
#else
    for (int k = 0; k < 4; k++)
        lane[k] = ltk_shape_round(lane[k], shape_word(s + 8 * k));
#endif
}

/*
 * Every length takes the same path after the whole blocks: the last block
 * (32 bytes, or the last eight bytes of a shorter line) is hashed as a
 * whole, at the line's end, overlapping what came before, instead of a
 * branch per remaining size (16, 8, fewer), which the lengths of a log's
 * lines make unpredictable.  The bytes each round reads depend on the
 * length only, so the shape stays a function of the length and the bytes
 * (digits as '0'), and every byte is read.
 */
uint64_t ltk_line_shape(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;
    /* byte order does not matter: only equality is used */
    if (n >= 32) {
        /*
         * Four chains, one per eight bytes of each 32, joined at the end: a
         * round waits for the product of the one before, so one chain runs
         * at the multiplier's latency, four at its throughput (a line's shape
         * is hashed for every line; Loghub-2k lines are 40 to 300 bytes).
         */
        uint64_t lane[4] = {h, h ^ 0x243f6a8885a308d3ULL, h ^ 0x13198a2e03707344ULL,
                            h ^ 0xa4093822299f31d0ULL};
        /* the whole blocks before the last, then the last, at n - 32 */
        for (size_t i = 0; i < n - 32; i += 32)
            shape_block(lane, s + i);
        shape_block(lane, s + n - 32);
        /* one round joins them: each lane turned by its own amount, so that
           words moved between lanes give another shape */
        h = ltk_shape_round(lane[0] ^ ((lane[1] << 16) | (lane[1] >> 48)),
                        ((lane[2] << 32) | (lane[2] >> 32)) ^ ((lane[3] << 48) | (lane[3] >> 16)));
    } else if (n >= 8) {
        /* words at 0, 8 and 16 where the line has them, and its last eight
           bytes: whatever the length, all of it */
        size_t last = n - 8, second = last < 8 ? last : 8, third = last < 16 ? last : 16;
        h = ltk_shape_round(h, shape_word(s));
        h = ltk_shape_round(h, shape_word(s + second));
        h = ltk_shape_round(h, shape_word(s + third));
        h = ltk_shape_round(h, shape_word(s + last));
    } else {
        w = 0;
        memcpy(&w, s, n);
        h = ltk_shape_round(h, ltk_zero_digits(w));
    }
    /*
     * The length once more, after the bytes: it entered the first round
     * only by xor with the first bytes, so (length, first word) pairs of
     * equal xor met there and gave one shape ("\0" and "\x03\0": 1 ^ 0 is
     * 2 ^ 3; lines without a NUL byte cannot meet so, found by fuzz_parse).
     */
    h = ltk_mix64(h ^ ((uint64_t)n * 0xd6e8feb86659fd93ULL));
    return h ? h : 1;
}
