/*
 * fuse_shape.h - the fuse parser's line cache: a line's shape (its bytes
 * with every ASCII digit read as '0') names the hash of its masked token
 * sequence, so that a line shaped like one seen before skips the per-token
 * masking and hashing (fuse_shape.c; internal to parser_fuse.c).
 */
#ifndef LTK_FUSE_SHAPE_H
#define LTK_FUSE_SHAPE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "logtk.h"
#include "byteword.h"
#include "line_shape.h" /* the shapes the cache is keyed by */
#include "mix.h"

typedef struct ltk_fuse_shape_slot {
    uint64_t shape; /* ltk_line_shape() of the line (valid when its bit says so) */
    uint64_t seq;   /* the sequence hash its tokens give */
    uint32_t id;    /* the exact table's template for seq once known, else UINT32_MAX
                       (an entry of that table never changes once made) */
} ltk_fuse_shape_slot;

/*
 * A line whose masked form kept a digit ("eth0", "IRQ9") stands for the
 * lines of its shape whose tokens that kept one have the same bytes: every
 * other token is masked the same way in all lines of the shape, and these
 * are the same bytes.  Up to FUSE_SHAPE_KEPT such tokens are named by their
 * index in the line's tokens (the same tokens in every line of one shape:
 * a digit is never a space), with the hash of their bytes.
 */
#define FUSE_SHAPE_KEPT 4
typedef struct ltk_fuse_digit_slot {
    ltk_fuse_shape_slot line; /* shape, sequence hash, template */
    uint64_t kept_hash;       /* hash of the bytes of the tokens kept_at names */
    uint16_t kept_at[FUSE_SHAPE_KEPT];
    uint32_t nkept;
} ltk_fuse_digit_slot;

/*
 * The other lines of a shape that kept a digit: by the shape and the hash of
 * their kept tokens' bytes.  Two slots per shape hold two sets of kept
 * words ("eth0", "eth1"); a shape whose kept word takes many values ("eth0"
 * to "eth7", "IRQ0" to "IRQ15") would replace one with another line after
 * line, so its other values go here, where each has a slot of its own.
 */
typedef struct ltk_fuse_kept_slot {
    ltk_fuse_shape_slot line; /* shape, sequence hash, template */
    uint64_t kept_hash;       /* as in ltk_fuse_digit_slot; its kept_at are the pair's */
} ltk_fuse_kept_slot;

/* The tokens of one line whose masked form kept a digit (feed_tokens). */
typedef struct ltk_fuse_kept {
    uint16_t at[FUSE_SHAPE_KEPT];
    size_t n; /* above FUSE_SHAPE_KEPT: too many to keep the line */
} ltk_fuse_kept;

/** Adds token index i of the line to k. */
static inline void ltk_fuse_kept_add(ltk_fuse_kept *k, size_t i)
{
    if (k->n < FUSE_SHAPE_KEPT && i <= UINT16_MAX)
        k->at[k->n++] = (uint16_t)i;
    else
        k->n = FUSE_SHAPE_KEPT + 1;
}

/*
 * Direct-mapped: a shape simply replaces the one in its slot.  Made on first
 * use, it grows (emptied) while shapes keep replacing others and a fair
 * share of lines are found, up to a bound, so memory stays bounded.
 */
typedef struct ltk_fuse_shape_cache {
    ltk_fuse_shape_slot *slots; /* NULL until the first line is kept */
    uint64_t *filled;       /* one bit per slot, set when it holds a shape (see shape_grow) */
    size_t nslots;          /* a power of two */
    size_t evictions;       /* shapes that replaced another since the cache last grew */
    size_t hits;            /* lines found since it last grew */
    ltk_fuse_digit_slot *digits; /* lines that kept a digit: NULL until one is kept */
    uint64_t digits_filled[8];   /* one bit per slot of digits (FUSE_DIGIT_SLOTS) */
    ltk_fuse_kept_slot *kept;    /* more of them, by shape and kept words (FUSE_KEPT_SLOTS) */
    uint64_t *kept_filled;       /* one bit per slot of kept, after its slots */
} ltk_fuse_shape_cache;

/** Nonzero when bit k of the bit set `bits` is set. */
static inline int ltk_fuse_bit(const uint64_t *bits, size_t k)
{
    return (int)((bits[k >> 6] >> (k & 63)) & 1);
}

/** Sets bit k of the bit set `bits`. */
static inline void ltk_fuse_set_bit(uint64_t *bits, size_t k)
{
    bits[k >> 6] |= 1ULL << (k & 63);
}

/*
 * Which of '<' (LTK_FUSE_HAS_OPEN), '.' (LTK_FUSE_HAS_DOT) and ':'
 * (LTK_FUSE_HAS_COLON) the word s[0..n) holds, s being readable 8 bytes
 * past its end (a word of fuse's masked line): one look per 8 bytes, none
 * per byte.  A word of a new line without '<' has no "<*>", one without '.'
 * no inner dot, one without ':' no "Class::method", so most words skip the
 * per-byte scans that look for those (parser_fuse.c).
 */
enum { LTK_FUSE_HAS_OPEN = 1, LTK_FUSE_HAS_DOT = 2, LTK_FUSE_HAS_COLON = 4 };
#if defined(__GNUC__)
__attribute__((always_inline)) /* (learning asks it of every word: no call) */
#endif
static inline unsigned ltk_fuse_word_marks(const char *s, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t open = 0, dot = 0, colon = 0, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        open |= ltk_bytes_equal(w, '<');
        dot |= ltk_bytes_equal(w, '.');
        colon |= ltk_bytes_equal(w, ':');
    }
    if (i < n) {
        uint64_t keep = 0x8080808080808080ULL >> (8 * (8 - (n - i))); /* the word's own bytes */
        memcpy(&w, s + i, 8);
        open |= ltk_bytes_equal(w, '<') & keep;
        dot |= ltk_bytes_equal(w, '.') & keep;
        colon |= ltk_bytes_equal(w, ':') & keep;
    }
    return (open != 0 ? LTK_FUSE_HAS_OPEN : 0u) | (dot != 0 ? LTK_FUSE_HAS_DOT : 0u) |
           (colon != 0 ? LTK_FUSE_HAS_COLON : 0u);
#else
    return (memchr(s, '<', n) ? LTK_FUSE_HAS_OPEN : 0u) | (memchr(s, '.', n) ? LTK_FUSE_HAS_DOT : 0u) |
           (memchr(s, ':', n) ? LTK_FUSE_HAS_COLON : 0u);
#endif
}

/**
 * The slot that holds shape, NULL when the cache does not hold it.  A shape
 * goes to one of two neighbouring slots (see ltk_fuse_shape_keep).
 */
static inline ltk_fuse_shape_slot *ltk_fuse_shape_find(ltk_fuse_shape_cache *c, uint64_t shape)
{
    if (c->slots == NULL)
        return NULL;
    size_t k = shape & (c->nslots - 2); /* the first of the pair */
    unsigned filled = (unsigned)(c->filled[k >> 6] >> (k & 63)) & 3;
    ltk_fuse_shape_slot *s = &c->slots[k];
    if ((filled & 1) && s[0].shape == shape) {
        c->hits++;
        return &s[0];
    }
    if ((filled & 2) && s[1].shape == shape) {
        c->hits++;
        return &s[1];
    }
    return NULL;
}

/**
 * The slot of a line that kept a digit with this shape and the same bytes in
 * those tokens (tokens[0..ntokens): the line's), NULL when none.
 */
ltk_fuse_shape_slot *ltk_fuse_shape_find_digits(ltk_fuse_shape_cache *c, uint64_t shape,
                                                const logtk_slice *tokens, size_t ntokens);

/**
 * Keeps shape and the bytes of the tokens k names (of tokens, the line's) ->
 * seq; nothing when k names too many.
 */
void ltk_fuse_shape_keep_digits(ltk_fuse_shape_cache *c, uint64_t shape, const logtk_slice *tokens,
                                const ltk_fuse_kept *k, uint64_t seq);

/** Keeps shape -> seq (out of memory only leaves the cache as it was). */
void ltk_fuse_shape_keep(ltk_fuse_shape_cache *c, uint64_t shape, uint64_t seq);

/** Forgets every shape (the line -> sequence function changed: a parameter). */
void ltk_fuse_shape_clear(ltk_fuse_shape_cache *c);

/** Frees the cache; it is then empty. */
void ltk_fuse_shape_free(ltk_fuse_shape_cache *c);

#endif
