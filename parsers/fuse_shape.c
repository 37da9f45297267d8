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
#include "line_shape.h"

#define FUSE_SHAPE_MIN 4096
#define FUSE_SHAPE_MAX (1u << 18)

/*
 * Lines that kept a digit: a fixed table, two slots per shape (two lines of
 * one shape that kept different digits, "eth0" and "eth1", both stay).
 */
#define FUSE_DIGIT_SLOTS 512
_Static_assert(FUSE_DIGIT_SLOTS <= 8 * sizeof ((ltk_fuse_shape_cache *)0)->digits_filled,
               "digits_filled holds a bit per digit slot");

/* The second level, by shape and kept words (see ltk_fuse_kept_slot): 128 KB. */
#define FUSE_KEPT_SLOTS 4096

/* The slot of kept for a shape and the hash of its kept words. */
static size_t kept_slot_of(uint64_t shape, uint64_t kept_hash)
{
    return (size_t)(ltk_mix64(shape ^ kept_hash) & (FUSE_KEPT_SLOTS - 1));
}

/* Hash of the bytes of the tokens k names (below ntokens). */
static uint64_t kept_hash(const logtk_slice *tokens, const uint16_t *at, size_t n)
{
    uint64_t h = 0x6a09e667f3bcc908ULL ^ n;
    for (size_t k = 0; k < n; k++) {
        const logtk_slice *t = &tokens[at[k]];
        size_t i = 0;
        uint64_t w;
        h = ltk_shape_round(h, t->len);
        for (; i + 8 <= t->len; i += 8) {
            memcpy(&w, t->ptr + i, 8);
            h = ltk_shape_round(h, w);
        }
        if (i < t->len) {
            w = 0;
            memcpy(&w, t->ptr + i, t->len - i);
            h = ltk_shape_round(h, w);
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
        if (!fits)
            continue;
        const uint64_t h = kept_hash(tokens, s->kept_at, s->nkept);
        if (h == s->kept_hash)
            return &s->line;
        /* the same tokens with other bytes: maybe a line of the second level */
        size_t o = kept_slot_of(shape, h);
        if (c->kept && ltk_fuse_bit(c->kept_filled, o) && c->kept[o].line.shape == shape &&
            c->kept[o].kept_hash == h)
            return &c->kept[o].line;
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
    const size_t base = shape & (FUSE_DIGIT_SLOTS - 2);
    int named = 0; /* a slot of the pair names these tokens for this shape already */
    for (size_t w = 0; w < 2; w++) {
        const ltk_fuse_digit_slot *d = &c->digits[base + w];
        named |= ltk_fuse_bit(c->digits_filled, base + w) && d->line.shape == shape &&
                 d->nkept == k->n && memcmp(d->kept_at, k->at, k->n * sizeof *k->at) == 0;
    }
    size_t at = base | (h & 1);
    ltk_fuse_digit_slot *s = &c->digits[at];
    if (named) {
        /*
         * The shape is there with other bytes in the same tokens: a kept
         * word that takes many values.  Its line goes to the second level,
         * the pair keeps naming the tokens (the slots are written only when
         * used: the bit set says which hold a line).
         */
        if (c->kept == NULL) {
            c->kept = malloc(FUSE_KEPT_SLOTS * sizeof *c->kept +
                             FUSE_KEPT_SLOTS / 64 * sizeof *c->kept_filled);
            if (c->kept == NULL)
                return;
            c->kept_filled = (uint64_t *)(void *)(c->kept + FUSE_KEPT_SLOTS);
            memset(c->kept_filled, 0, FUSE_KEPT_SLOTS / 64 * sizeof *c->kept_filled);
        }
        size_t o = kept_slot_of(shape, h);
        ltk_fuse_set_bit(c->kept_filled, o);
        c->kept[o].line.shape = shape;
        c->kept[o].line.seq = seq;
        c->kept[o].line.id = UINT32_MAX;
        c->kept[o].kept_hash = h;
        return;
    }
    ltk_fuse_set_bit(c->digits_filled, at);
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
        ltk_fuse_set_bit(c->filled, k + 1);
    }
    ltk_fuse_set_bit(c->filled, k);
    s->shape = shape;
    s->seq = seq;
    s->id = UINT32_MAX;
}

void ltk_fuse_shape_clear(ltk_fuse_shape_cache *c)
{
    if (c->slots)
        memset(c->filled, 0, (c->nslots + 63) / 64 * sizeof *c->filled);
    memset(c->digits_filled, 0, sizeof c->digits_filled);
    if (c->kept)
        memset(c->kept_filled, 0, FUSE_KEPT_SLOTS / 64 * sizeof *c->kept_filled);
    c->evictions = c->hits = 0;
}

void ltk_fuse_shape_free(ltk_fuse_shape_cache *c)
{
    free(c->slots);
    free(c->digits);
    free(c->kept);
    memset(c, 0, sizeof *c);
}
