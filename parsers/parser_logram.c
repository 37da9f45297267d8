/*
 * parser_logram.c - Logram (Dai, Li, Chen, Shang and Chen, TSE 2020),
 * following logparser's Logram (src/DictionarySetUp.py, src/MatchToken.py).
 *
 * Logram's insight: the words of an event type recur together, so n-grams
 * made only of static words are frequent, and an n-gram that contains a
 * parameter is rare.  Two dictionaries over all messages:
 *   - 3-grams: (t[i], t[i+1], t[i+2]) for every window of a message;
 *   - 2-grams: (t[i], t[i+1]) for every neighbour pair, plus the pair that
 *     wraps around, (last token, first token).
 * Per message:
 *   1. every token covered by a 3-gram seen fewer than tri_threshold times
 *      is a candidate parameter (messages shorter than three tokens have no
 *      3-grams and so no parameters);
 *   2. a candidate stays static when a 2-gram it belongs to is frequent: for
 *      the first token, (t[0], t[1]) seen MORE than double_threshold times
 *      (strictly: the reference's comparison for position 0); for the last
 *      token, (t[n-2], t[n-1]) or the wrap-around pair (t[n-1], t[0]) seen
 *      at least double_threshold times; for a middle token, (t[i], t[i+1])
 *      or (t[i-1], t[i]) seen at least double_threshold times.  The others
 *      become "<*>".
 * The template is the result with every comma deleted (the reference runs
 * re.sub(",", "") over the template text); messages with the same template
 * text share it.
 *
 * Differences from the reference:
 *  - the reference keys n-grams by the words joined with "^", so "a^b"+"c"
 *    and "a"+"b^c" collide there; here n-grams are tuples of token ids;
 *  - a token that is only commas vanishes from the template here; there it
 *    leaves a doubled space in the template text (a different template
 *    from the one without it);
 *  - the reference's preprocessing applies each regex to the original
 *    message, so only the last regex of a dataset takes effect; here all of
 *    a preset's masks apply, in order (the shared masking layer).
 *
 * Cost: two hash lookups per token to build the dictionaries, at most five
 * per token to match; no allocation per line.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "growarray.h"
#include "parser_impl.h"

typedef struct logram_state {
    long double_threshold;
    long tri_threshold;
    uint32_t wildcard;
} logram_state;

static int logram_init(logtk_parser *p, void *state)
{
    logram_state *s = state;
    s->double_threshold = 15; /* the reference's defaults */
    s->tri_threshold = 10;
    s->wildcard = ltk_parser_intern_token(p, LTK_WILDCARD, LTK_WILDCARD_LEN);
    if (s->wildcard == UINT32_MAX)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "logram: out of memory");
    return LOGTK_OK;
}

static int logram_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    logram_state *s = state;
    if (strcmp(name, "double_threshold") == 0)
        return ltk_param_int(p, name, value, 0, 1000000000L, &s->double_threshold);
    if (strcmp(name, "tri_threshold") == 0)
        return ltk_param_int(p, name, value, 0, 1000000000L, &s->tri_threshold);
    return LOGTK_ERR_NOT_FOUND;
}

static int logram_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                       uint32_t *template_id)
{
    (void)state;
    *template_id = 0;
    return ltk_parser_store_line(p, line);
}

/* Counts of n-grams, keyed by token-id tuples. */
typedef struct gram_table {
    ltk_hashtab index;
    uint64_t *count;
    size_t cap;
} gram_table;

static int gram_add(gram_table *g, const uint32_t *key, size_t n)
{
    int inserted = 0;
    int64_t id = ltk_hashtab_intern(&g->index, key, n * sizeof *key, &inserted);
    if (id < 0 || ltk_array_reserve((void **)&g->count, &g->cap, (size_t)id + 1, sizeof *g->count))
        return -1;
    if (inserted)
        g->count[id] = 0;
    g->count[id]++;
    return 0;
}

static uint64_t gram_count(const gram_table *g, uint32_t a, uint32_t b)
{
    uint32_t key[2] = {a, b};
    int64_t id = ltk_hashtab_find(&g->index, key, sizeof key);
    return id < 0 ? 0 : g->count[id];
}

/* Appends the comma-free form of token id to the template; empty results vanish. */
static int put_comma_free(logtk_parser *p, uint32_t id, uint32_t *out, size_t *nout,
                          char **buf, size_t *buf_cap)
{
    size_t len;
    const char *text = ltk_parser_token_text(p, id, &len);
    if (memchr(text, ',', len) == NULL) {
        out[(*nout)++] = id;
        return 0;
    }
    if (ltk_array_reserve((void **)buf, buf_cap, len + 1, 1))
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] != ',')
            (*buf)[k++] = text[i];
    if (k == 0)
        return 0;
    uint32_t nid = ltk_parser_intern_token(p, *buf, k);
    if (nid == UINT32_MAX)
        return -1;
    out[(*nout)++] = nid;
    return 0;
}

static int logram_finish(logtk_parser *p, void *state)
{
    logram_state *s = state;
    uint64_t nlines = ltk_parser_stored_count(p);
    gram_table doubles = {0}, triples = {0};
    uint32_t *tmpl = NULL;
    unsigned char *dynamic = NULL;
    char *buf = NULL;
    size_t tmpl_cap = 0, dynamic_cap = 0, buf_cap = 0;
    int rc = LOGTK_OK;
    int ok_d = ltk_hashtab_init(&doubles.index, 4096) == 0;
    int ok_r = ltk_hashtab_init(&triples.index, 4096) == 0;
    if (!ok_d || !ok_r)
        goto oom;

    /* the two dictionaries */
    for (uint64_t k = 0; k < nlines; k++) {
        size_t n;
        const uint32_t *t = ltk_parser_stored_line(p, k, &n);
        for (size_t i = 0; i + 2 < n; i++)
            if (gram_add(&triples, t + i, 3))
                goto oom;
        for (size_t i = 0; i < n; i++) {
            uint32_t key[2] = {t[i], t[i + 1 < n ? i + 1 : 0]};
            if (gram_add(&doubles, key, 2))
                goto oom;
        }
    }

    uint64_t tri_min = (uint64_t)s->tri_threshold, dbl_min = (uint64_t)s->double_threshold;
    for (uint64_t k = 0; k < nlines; k++) {
        size_t n;
        const uint32_t *t = ltk_parser_stored_line(p, k, &n);
        if (ltk_array_reserve((void **)&dynamic, &dynamic_cap, n + 1, 1) ||
            ltk_array_reserve((void **)&tmpl, &tmpl_cap, n + 1, sizeof *tmpl))
            goto oom;
        memset(dynamic, 0, n + 1);
        /* 1: tokens of rare 3-grams are candidates */
        for (size_t i = 0; i + 2 < n; i++) {
            int64_t id = ltk_hashtab_find(&triples.index, t + i, 3 * sizeof *t);
            if (id < 0 || triples.count[id] < tri_min)
                dynamic[i] = dynamic[i + 1] = dynamic[i + 2] = 1;
        }
        /* 2: a candidate in a frequent 2-gram stays static */
        for (size_t i = 0; i < n; i++) {
            if (!dynamic[i])
                continue;
            int is_static;
            if (i == 0)
                is_static = gram_count(&doubles, t[0], t[1]) > dbl_min;
            else if (i == n - 1)
                is_static = gram_count(&doubles, t[i - 1], t[i]) >= dbl_min ||
                            gram_count(&doubles, t[i], t[0]) >= dbl_min;
            else
                is_static = gram_count(&doubles, t[i], t[i + 1]) >= dbl_min ||
                            gram_count(&doubles, t[i - 1], t[i]) >= dbl_min;
            dynamic[i] = !is_static;
        }
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (dynamic[i])
                tmpl[m++] = s->wildcard;
            else if (put_comma_free(p, t[i], tmpl, &m, &buf, &buf_cap))
                goto oom;
        }
        rc = ltk_parser_assign_token_ids(p, k, tmpl, m);
        if (rc != LOGTK_OK)
            goto done;
    }
    goto done;
oom:
    rc = ltk_parser_error(p, LOGTK_ERR_NOMEM, "logram: out of memory");
done:
    if (ok_d)
        ltk_hashtab_free(&doubles.index);
    if (ok_r)
        ltk_hashtab_free(&triples.index);
    free(doubles.count);
    free(triples.count);
    free(tmpl);
    free(dynamic);
    free(buf);
    return rc;
}

const ltk_parser_algo ltk_algo_logram = {
    .name = "logram",
    .summary = "Logram (TSE'20): batch, tokens of rare 3-grams and 2-grams are variables; "
               "params double_threshold, tri_threshold",
    .online = 0,
    .state_size = sizeof(logram_state),
    .init = logram_init,
    .destroy = NULL,
    .set_param = logram_set_param,
    .feed = logram_feed,
    .finish = logram_finish,
    .save = NULL,
    .load = NULL,
};
