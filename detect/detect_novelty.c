/*
 * detect_novelty.c - novelty detection: flag a session whose behaviour was
 * never seen among the normal training sessions.
 *
 * Why: on HDFS most anomalous blocks either contain an event that normal
 * blocks never show (an exception, a failed replication) or lack one that
 * every normal block of that shape has.  Count-based models that fit a
 * boundary (PCA, LR, trees) smooth such sessions into their neighbours; a
 * lookup of "was exactly this pattern ever normal?" does not.  loglizer's
 * own demo sample caps every count-based detector near F1 .758 because many
 * truncated anomalous sessions have the counts of normal ones; this rule
 * reaches the separable rest.
 *
 * Training keeps the distinct patterns of the normal rows (all rows when no
 * labels are known): with key=set the set of events present (a bitset over
 * the learned events), with key=counts the full event-count vector.  A
 * scored session's pattern carries one extra bit for "has events never seen
 * in training at all" (the handle passes their count after the features).
 *
 * Score = distance from the nearest normal behaviour:
 *   key=set     0 when the event set was seen, else the smallest Hamming
 *               distance between its set and a normal set;
 *   key=counts  0 when the count vector was seen, else 1 + that Hamming
 *               distance (an unseen vector over a seen set scores 1).
 * The threshold is `distance` - 0.5, so distance=1 flags every novelty and
 * larger values ask for more events to differ.  Lookups are hash probes;
 * the Hamming scan over the distinct normal sets (a few hundred words at
 * most on log data) runs only for novel sessions.
 *
 * Works on raw counts: tfidf and zero_mean are refused, since centring would
 * erase which events are present.
 */
#include "config.h"
#include "detect_impl.h"

#include <stdlib.h>
#include <string.h>

static const char *const key_choices[] = {"set", "counts", NULL};

static const ltk_detect_param_def novelty_params[] = {
    {"key", 1, 0, 1, key_choices, "pattern compared: set of events or count vector"},
    {"distance", 1, 1, 1e6, NULL, "smallest distance from normal behaviour that is flagged"},
    {NULL, 0, 0, 0, NULL, NULL},
};

typedef struct novelty_state {
    int counts_key;     /* 0: set, 1: counts */
    size_t ncols;       /* learned events; bit ncols = "unseen event" */
    size_t words;       /* 64-bit words per set */
    size_t nsets;       /* distinct normal event sets */
    uint64_t *sets;     /* nsets * words */
    ltk_hashtab set_index;    /* bitset bytes -> set */
    ltk_hashtab vector_index; /* sparse count encoding -> vector (counts key only) */
    int indexes_ready;
    /* scoring scratch (one thread per handle) */
    uint64_t *scratch_set;
    ltk_strbuf scratch_key;
} novelty_state;

static void novelty_free(void *p)
{
    novelty_state *st = p;
    if (!st)
        return;
    free(st->sets);
    free(st->scratch_set);
    if (st->indexes_ready) {
        ltk_hashtab_free(&st->set_index);
        ltk_hashtab_free(&st->vector_index);
    }
    ltk_strbuf_free(&st->scratch_key);
    free(st);
}

static novelty_state *novelty_state_new(size_t ncols, int counts_key, size_t expected_sets)
{
    novelty_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->counts_key = counts_key;
    st->ncols = ncols;
    st->words = (ncols + 1 + 63) / 64;
    st->scratch_set = calloc(st->words, sizeof *st->scratch_set);
    if (!st->scratch_set || ltk_hashtab_init(&st->set_index, expected_sets + 16) != 0) {
        free(st->scratch_set);
        free(st);
        return NULL;
    }
    if (ltk_hashtab_init(&st->vector_index, counts_key ? expected_sets + 16 : 16) != 0) {
        ltk_hashtab_free(&st->set_index);
        free(st->scratch_set);
        free(st);
        return NULL;
    }
    st->indexes_ready = 1;
    return st;
}

/* Fills st->scratch_set with the events present in x (plus the unseen bit). */
static void pattern_set(novelty_state *st, const double *x, double unseen)
{
    memset(st->scratch_set, 0, st->words * sizeof *st->scratch_set);
    for (size_t j = 0; j < st->ncols; j++)
        if (x[j] != 0)
            st->scratch_set[j / 64] |= (uint64_t)1 << (j % 64);
    if (unseen > 0)
        st->scratch_set[st->ncols / 64] |= (uint64_t)1 << (st->ncols % 64);
}

/* Encodes the nonzero counts of x as (column, count) varints in scratch_key. */
static int pattern_vector(novelty_state *st, const double *x, double unseen)
{
    ltk_strbuf_clear(&st->scratch_key);
    int bad = 0;
    for (size_t j = 0; j < st->ncols; j++)
        if (x[j] != 0) {
            bad |= ltk_strbuf_put_varint(&st->scratch_key, j);
            /* counts, rounded; a loaded model's transform can make any double of
               them (fuzz_model: 4e304), and converting one out of range is
               undefined, so those saturate */
            double v = x[j] + 0.5;
            uint64_t count = v >= 0 && v < 18446744073709549568.0 ? (uint64_t)v
                             : v >= 0                              ? UINT64_MAX
                                                                   : 0;
            bad |= ltk_strbuf_put_varint(&st->scratch_key, count);
        }
    if (unseen > 0)
        bad |= ltk_strbuf_put_varint(&st->scratch_key, st->ncols);
    return bad;
}

static int add_set(novelty_state *st)
{
    int inserted = 0;
    int64_t id = ltk_hashtab_intern(&st->set_index, st->scratch_set,
                                      st->words * sizeof *st->scratch_set, &inserted);
    if (id < 0)
        return -1;
    if (inserted) {
        uint64_t *grown = realloc(st->sets, (st->nsets + 1) * st->words * sizeof *grown);
        if (!grown)
            return -1;
        st->sets = grown;
        memcpy(st->sets + st->nsets * st->words, st->scratch_set, st->words * sizeof *grown);
        st->nsets++;
    }
    return 0;
}

static int novelty_train(logtk_detector *d, const ltk_detect_matrix *mx)
{
    if (d->params[0] != 0 || d->params[1] != 0)
        return ltk_error_set(&d->err, LOGTK_ERR_INVALID,
                               "novelty works on raw counts: set tfidf=0 and zero_mean=0");
    novelty_state *st = novelty_state_new(mx->ncols, DETECT_PARAM(d, 0) != 0, mx->nrows);
    if (!st)
        return LOGTK_ERR_NOMEM;
    /* The handle passes normal rows only when labels are known; rows with
       anomalous multiplicity only (unlabeled training) count as normal. */
    for (size_t r = 0; r < mx->nrows; r++) {
        const double *x = mx->x + r * mx->ncols;
        if (mx->w_normal[r] + mx->w_unknown[r] <= 0)
            continue;
        pattern_set(st, x, 0);
        if (add_set(st) != 0) {
            novelty_free(st);
            return LOGTK_ERR_NOMEM;
        }
        if (st->counts_key) {
            if (pattern_vector(st, x, 0) != 0 ||
                ltk_hashtab_intern(&st->vector_index, st->scratch_key.data,
                                     st->scratch_key.len, NULL) < 0) {
                novelty_free(st);
                return LOGTK_ERR_NOMEM;
            }
        }
    }
    d->state = st;
    d->threshold = DETECT_PARAM(d, 1) - 0.5;
    return LOGTK_OK;
}

static unsigned popcount64(uint64_t v)
{
    return (unsigned)__builtin_popcountll(v);
}

static double nearest_set_distance(const novelty_state *st)
{
    if (ltk_hashtab_find(&st->set_index, st->scratch_set,
                           st->words * sizeof *st->scratch_set) >= 0)
        return 0;
    unsigned best = (unsigned)(st->ncols + 1);
    for (size_t k = 0; k < st->nsets && best > 1; k++) {
        const uint64_t *s = st->sets + k * st->words;
        unsigned dist = 0;
        for (size_t w = 0; w < st->words && dist < best; w++)
            dist += popcount64(s[w] ^ st->scratch_set[w]);
        if (dist < best)
            best = dist;
    }
    return best;
}

static double novelty_score(const logtk_detector *d, double *x)
{
    novelty_state *st = d->state;
    double unseen = x[st->ncols]; /* the handle's count of events unseen in training */
    pattern_set(st, x, unseen);
    double dist = nearest_set_distance(st);
    if (!st->counts_key)
        return dist;
    if (pattern_vector(st, x, unseen) != 0)
        return 1 + dist; /* out of memory: report as novel rather than hide it */
    if (ltk_hashtab_find(&st->vector_index, st->scratch_key.data, st->scratch_key.len) >= 0)
        return 0;
    return 1 + dist;
}

/* Payload: u32 key, varint nsets, the sets (words as two u32 each), varint
   nvectors, the count-vector encodings as strings. */
static int novelty_save(const logtk_detector *d, ltk_strbuf *b)
{
    const novelty_state *st = d->state;
    int bad = ltk_detect_put_u32(b, (uint32_t)st->counts_key);
    bad |= ltk_strbuf_put_varint(b, st->nsets);
    for (size_t k = 0; k < st->nsets * st->words; k++) {
        bad |= ltk_detect_put_u32(b, (uint32_t)st->sets[k]);
        bad |= ltk_detect_put_u32(b, (uint32_t)(st->sets[k] >> 32));
    }
    size_t nvec = st->counts_key ? st->vector_index.count : 0;
    bad |= ltk_strbuf_put_varint(b, nvec);
    for (size_t k = 0; k < nvec; k++) {
        size_t n;
        const char *key = ltk_hashtab_key(&st->vector_index, (uint32_t)k, &n);
        bad |= ltk_detect_put_str(b, key, n);
    }
    return bad ? LOGTK_ERR_NOMEM : LOGTK_OK;
}

static int novelty_load(logtk_detector *d, ltk_detect_cursor *c)
{
    uint32_t counts_key = ltk_detect_get_u32(c);
    if (counts_key > 1)
        return LOGTK_ERR_STATE;
    size_t ncols = d->features.ncols;
    size_t words = (ncols + 1 + 63) / 64;
    size_t nsets = ltk_detect_get_count(c, (size_t)(c->end - c->p) / (8 * words));
    if (c->bad)
        return LOGTK_ERR_STATE;
    novelty_state *st = novelty_state_new(ncols, (int)counts_key, nsets);
    if (!st)
        return LOGTK_ERR_NOMEM;
    d->state = st;
    for (size_t k = 0; k < nsets && !c->bad; k++) {
        for (size_t w = 0; w < words; w++) {
            uint64_t lo = ltk_detect_get_u32(c);
            uint64_t hi = ltk_detect_get_u32(c);
            st->scratch_set[w] = lo | hi << 32;
        }
        if (!c->bad && add_set(st) != 0)
            return LOGTK_ERR_NOMEM;
    }
    if (c->bad || st->nsets != nsets)
        return LOGTK_ERR_STATE; /* damaged or duplicate sets */
    size_t nvec = ltk_detect_get_count(c, (size_t)(c->end - c->p));
    if (!counts_key && nvec)
        return LOGTK_ERR_STATE;
    for (size_t k = 0; k < nvec && !c->bad; k++) {
        size_t n;
        const char *key = ltk_detect_get_str(c, &n);
        if (!c->bad && ltk_hashtab_intern(&st->vector_index, key, n, NULL) < 0)
            return LOGTK_ERR_NOMEM;
    }
    return c->bad ? LOGTK_ERR_STATE : LOGTK_OK;
}

const ltk_detect_model_ops ltk_detect_novelty_ops = {
    "novelty", "flags sessions whose event set (or count vector) no normal training session had",
    0, 0, 0, 1, novelty_params, novelty_train, novelty_score, novelty_save, novelty_load,
    novelty_free, 0, NULL, NULL,
};
