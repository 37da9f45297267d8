/*
 * fuse_shape.c - the fuse parser's line cache (see fuse_shape.h).
 *
 * Why a line's shape may stand for the line: every rule that turns a line
 * into its sequence hash (the tokenizer, the header, the quick hash, the
 * masks, the quantity asides) tests a digit only as a digit, never as a
 * particular one, and whatever it copies to a masked form it copies from
 * the same place of the line.  So two lines of one shape are split, masked
 * and hashed the same way, and their masked forms differ at most where a
 * digit was copied.  parser_fuse.c keeps a line's sequence here only when
 * no masked form of it kept a digit ("eth0", "do_page_fault2+<*>"); then
 * every line of that shape has the same masked forms, hence the same
 * sequence hash, and that is all the cache answers: the template still
 * comes from the exact table, as for any other line.  It is a cache of a
 * pure function, so what is parsed does not depend on it (nor is it saved
 * in snapshots).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuse_shape.h"

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#define FUSE_SHAPE_MIN 4096
#define FUSE_SHAPE_MAX (1u << 18)

/*
 * One round per eight bytes: the full 128-bit product of the state and an
 * odd constant, its halves folded (every input bit reaches every output
 * bit, in three instructions where the 128-bit product is one).
 */
static inline uint64_t shape_round(uint64_t h, uint64_t w)
{
#if defined(__SIZEOF_INT128__)
    __extension__ unsigned __int128 p = (unsigned __int128)(h ^ w) * 0x9e3779b97f4a7c15ULL;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#else
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 31);
#endif
}

#define zero_digits ltk_fuse_zero_digits

/* The bytes' eight-byte word at s with every digit '0'. */
static inline uint64_t shape_word(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return zero_digits(w);
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
    lane[0] = shape_round(lane[0], (uint64_t)_mm_cvtsi128_si64(zb));
    lane[1] = shape_round(lane[1], (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(zb, zb)));
    lane[2] = shape_round(lane[2], (uint64_t)_mm_cvtsi128_si64(zc));
    lane[3] = shape_round(lane[3], (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(zc, zc)));
#else
    for (int k = 0; k < 4; k++)
        lane[k] = shape_round(lane[k], shape_word(s + 8 * k));
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
uint64_t ltk_fuse_line_shape(const char *s, size_t n)
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
        h = shape_round(lane[0] ^ ((lane[1] << 16) | (lane[1] >> 48)),
                        ((lane[2] << 32) | (lane[2] >> 32)) ^ ((lane[3] << 48) | (lane[3] >> 16)));
    } else if (n >= 8) {
        /* words at 0, 8 and 16 where the line has them, and its last eight
           bytes: whatever the length, all of it */
        size_t last = n - 8, second = last < 8 ? last : 8, third = last < 16 ? last : 16;
        h = shape_round(h, shape_word(s));
        h = shape_round(h, shape_word(s + second));
        h = shape_round(h, shape_word(s + third));
        h = shape_round(h, shape_word(s + last));
    } else {
        w = 0;
        memcpy(&w, s, n);
        h = shape_round(h, zero_digits(w));
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

/*
 * Lines that kept a digit: a fixed table, two slots per shape (two lines of
 * one shape that kept different digits, "eth0" and "eth1", both stay).
 */
#define FUSE_DIGIT_SLOTS 512
_Static_assert(FUSE_DIGIT_SLOTS <= 8 * sizeof ((ltk_fuse_shape_cache *)0)->digits_filled,
               "digits_filled holds a bit per digit slot");

/* Hash of the bytes of the tokens k names (below ntokens). */
static uint64_t kept_hash(const logtk_slice *tokens, const uint16_t *at, size_t n)
{
    uint64_t h = 0x6a09e667f3bcc908ULL ^ n;
    for (size_t k = 0; k < n; k++) {
        const logtk_slice *t = &tokens[at[k]];
        size_t i = 0;
        uint64_t w;
        h = shape_round(h, t->len);
        for (; i + 8 <= t->len; i += 8) {
            memcpy(&w, t->ptr + i, 8);
            h = shape_round(h, w);
        }
        if (i < t->len) {
            w = 0;
            memcpy(&w, t->ptr + i, t->len - i);
            h = shape_round(h, w);
        }
    }
    return ltk_mix64(h);
}

ltk_fuse_shape_slot *ltk_fuse_shape_find_digits(ltk_fuse_shape_cache *c, uint64_t shape,
                                                const logtk_slice *tokens, size_t ntokens)
{
    if (c->digits == NULL)
        return NULL;
    size_t at = shape & (FUSE_DIGIT_SLOTS - 2);
    ltk_fuse_digit_slot *pair = &c->digits[at];
    for (int w = 0; w < 2; w++) {
        ltk_fuse_digit_slot *s = &pair[w];
        if (!ltk_fuse_bit(c->digits_filled, at + (size_t)w) || s->line.shape != shape)
            continue;
        int fits = 1;
        for (uint32_t k = 0; k < s->nkept; k++)
            fits &= s->kept_at[k] < ntokens;
        if (fits && kept_hash(tokens, s->kept_at, s->nkept) == s->kept_hash)
            return &s->line;
    }
    return NULL;
}

void ltk_fuse_shape_keep_digits(ltk_fuse_shape_cache *c, uint64_t shape, const logtk_slice *tokens,
                                const ltk_fuse_kept *k, uint64_t seq)
{
    if (k->n == 0 || k->n > FUSE_SHAPE_KEPT)
        return;
    if (c->digits == NULL) {
        /* empty by digits_filled: its slots are written only when used (see shape_grow) */
        c->digits = malloc(FUSE_DIGIT_SLOTS * sizeof *c->digits);
        if (c->digits == NULL)
            return;
        memset(c->digits_filled, 0, sizeof c->digits_filled);
    }
    uint64_t h = kept_hash(tokens, k->at, k->n);
    size_t at = (shape & (FUSE_DIGIT_SLOTS - 2)) | (h & 1);
    ltk_fuse_digit_slot *s = &c->digits[at];
    c->digits_filled[at >> 6] |= 1ULL << (at & 63);
    s->line.shape = shape;
    s->line.seq = seq;
    s->line.id = UINT32_MAX;
    s->kept_hash = h;
    memcpy(s->kept_at, k->at, sizeof s->kept_at);
    s->nkept = (uint32_t)k->n;
}

/*
 * The slots and, after them, their bit set `filled`, in one block.  Only the
 * bit set is cleared: a slot is written when a shape is kept there, so a
 * fresh parser touches the slots its lines use, not all of the table
 * (4096 slots, 96 KB, where a log of few shapes uses a few hundred).
 */
static void shape_grow(ltk_fuse_shape_cache *c)
{
    size_t nslots = c->slots ? 2 * c->nslots : FUSE_SHAPE_MIN;
    size_t words = (nslots + 63) / 64;
    ltk_fuse_shape_slot *s = malloc(nslots * sizeof *s + words * sizeof *c->filled);
    if (s == NULL)
        return;
    uint64_t *filled = (uint64_t *)(void *)(s + nslots);
    memset(filled, 0, words * sizeof *filled);
    free(c->slots);
    c->slots = s;
    c->filled = filled;
    c->nslots = nslots;
    c->evictions = 0;
    c->hits = 0;
}

void ltk_fuse_shape_keep(ltk_fuse_shape_cache *c, uint64_t shape, uint64_t seq)
{
    if (c->slots == NULL)
        shape_grow(c);
    if (c->slots == NULL)
        return;
    /*
     * Two slots per shape, the newest first: two shapes of one pair both
     * stay (a direct-mapped table lost one of them, and a log of many
     * shapes, Mac's, masked such lines again and again); a third replaces
     * the older.
     */
    size_t k = shape & (c->nslots - 2);
    if (ltk_fuse_bit(c->filled, k + 1) && ++c->evictions > c->nslots &&
        c->hits >= c->evictions / 4 && c->nslots < FUSE_SHAPE_MAX) {
        /* shapes keep replacing others that come back: more room */
        shape_grow(c);
        k = shape & (c->nslots - 2);
    }
    ltk_fuse_shape_slot *s = &c->slots[k];
    if (ltk_fuse_bit(c->filled, k)) {
        s[1] = s[0]; /* the older one moves over */
        c->filled[(k + 1) >> 6] |= 1ULL << ((k + 1) & 63);
    }
    c->filled[k >> 6] |= 1ULL << (k & 63);
    s->shape = shape;
    s->seq = seq;
    s->id = UINT32_MAX;
}

void ltk_fuse_shape_clear(ltk_fuse_shape_cache *c)
{
    if (c->slots)
        memset(c->filled, 0, (c->nslots + 63) / 64 * sizeof *c->filled);
    memset(c->digits_filled, 0, sizeof c->digits_filled);
    c->evictions = c->hits = 0;
}

void ltk_fuse_shape_free(ltk_fuse_shape_cache *c)
{
    free(c->slots);
    free(c->digits);
    memset(c, 0, sizeof *c);
}
