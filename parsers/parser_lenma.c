/*
 * parser_lenma.c - LenMa: "Length Matters" clustering (Shima, 2016),
 * following logparser's LenMa (lenma_template.py, similarity "case 6").
 *
 * LenMa's observation: messages of one event have the same number of words,
 * and the lengths of the words at each position move together (a fixed word
 * has a fixed length, a number has a few digits).  So a message is compared
 * with the templates of its word count by the cosine similarity of the two
 * word-length vectors, and joins the most similar one when that reaches
 * `threshold`.  Two guards stop unrelated messages with similar shapes from
 * merging: the first word must be equal, and at least three positions must
 * hold the same word.  A message that equals a template (its "<*>" positions
 * matching anything) scores 1.
 *
 * On joining, the template's differing words become variables and its
 * length vector becomes the new message's (the reference replaces, it does
 * not average).  Ties keep the older template (the reference's stable sort).
 *
 * Differences from the reference:
 *  - word lengths are counted in bytes (Python counts code points);
 *  - variables print as "<*>" (the reference prints empty words);
 *  - a message without words joins the template of empty messages (the
 *    reference fails on it).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "growarray.h"
#include "parser_impl.h"

#define LENMA_VARIABLE UINT32_MAX

typedef struct lenma_template {
    uint32_t *words; /* token ids; LENMA_VARIABLE for a variable position */
    uint32_t *lens;  /* word lengths of the last message that joined */
    uint32_t template_id;
} lenma_template;

typedef struct lenma_bucket {
    uint32_t *items; /* template indices with this word count, oldest first */
    size_t n, cap;
} lenma_bucket;

typedef struct lenma_state {
    double threshold;
    lenma_template *templates;
    size_t ntemplates, templates_cap;
    lenma_bucket *buckets; /* by word count */
    size_t nbuckets;
    uint32_t *ids; /* per line: token ids */
    size_t ids_cap;
} lenma_state;

static int lenma_nomem(logtk_parser *p)
{
    return ltk_parser_error(p, LOGTK_ERR_NOMEM, "lenma: out of memory");
}

static int lenma_init(logtk_parser *p, void *state)
{
    (void)p;
    lenma_state *s = state;
    s->threshold = 0.9;
    return LOGTK_OK;
}

static void lenma_destroy(void *state)
{
    lenma_state *s = state;
    for (size_t i = 0; i < s->ntemplates; i++) {
        free(s->templates[i].words);
        free(s->templates[i].lens);
    }
    free(s->templates);
    for (size_t i = 0; i < s->nbuckets; i++)
        free(s->buckets[i].items);
    free(s->buckets);
    free(s->ids);
}

static int lenma_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    lenma_state *s = state;
    if (strcmp(name, "threshold") == 0)
        return ltk_param_double(p, name, value, 0.0, 1.0, &s->threshold);
    return LOGTK_ERR_NOT_FOUND;
}

/* The reference's similarity score of a message against a template. */
static double similarity(const lenma_template *t, const uint32_t *ids, const logtk_slice *tok,
                         size_t n)
{
    if (n == 0)
        return 1.0;
    if (t->words[0] != ids[0])
        return 0.0;
    size_t same = 0;
    int exact = 1;
    for (size_t i = 0; i < n; i++) {
        if (t->words[i] == ids[i])
            same++;
        else if (t->words[i] != LENMA_VARIABLE)
            exact = 0;
    }
    if (exact)
        return 1.0;
    if (same < 3)
        return 0.0;
    double dot = 0, na = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        double a = t->lens[i], b = (double)tok[i].len;
        dot += a * b;
        na += a * a;
        nb += b * b;
    }
    return dot / (sqrt(na) * sqrt(nb));
}

/* The most similar template of length n at or above the threshold (the
 * first of equals), as an index into s->templates, or -1; s->ids holds the
 * line's word ids. */
static long lenma_best(const lenma_state *s, const ltk_parse_line *line, size_t n)
{
    if (n >= s->nbuckets)
        return -1;
    const lenma_bucket *b = &s->buckets[n];
    long best = -1;
    double best_score = 0;
    for (size_t k = 0; k < b->n; k++) {
        double score = similarity(&s->templates[b->items[k]], s->ids, line->tokens, n);
        if (score >= s->threshold && (best < 0 || score > best_score)) {
            best = b->items[k];
            best_score = score;
        }
    }
    return best;
}

/*
 * logtk_parser_match(): the template lenma_feed would pick, without
 * changing it.  A word the dictionary does not hold equals no template
 * word, so it gets an id no word has (the variable mark's is taken:
 * UINT32_MAX - 1, never reached by interning) instead of being interned.
 */
static int lenma_match(logtk_parser *p, void *state, const ltk_parse_line *line,
                       uint32_t *template_id)
{
    lenma_state *s = state;
    size_t n = line->ntokens;
    *template_id = 0;
    if (ltk_array_reserve((void **)&s->ids, &s->ids_cap, n + 1, sizeof *s->ids))
        return lenma_nomem(p);
    for (size_t i = 0; i < n; i++) {
        s->ids[i] = ltk_parser_find_token(p, line->tokens[i].ptr, line->tokens[i].len);
        if (s->ids[i] == UINT32_MAX)
            s->ids[i] = UINT32_MAX - 1;
    }
    long best = lenma_best(s, line, n);
    if (best >= 0)
        *template_id = s->templates[best].template_id;
    return LOGTK_OK;
}

static int lenma_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                      uint32_t *template_id)
{
    lenma_state *s = state;
    size_t n = line->ntokens;
    if (ltk_array_reserve((void **)&s->ids, &s->ids_cap, n + 1, sizeof *s->ids))
        return lenma_nomem(p);
    for (size_t i = 0; i < n; i++) {
        s->ids[i] = ltk_parser_intern_token(p, line->tokens[i].ptr, line->tokens[i].len);
        if (s->ids[i] == UINT32_MAX)
            return lenma_nomem(p);
    }
    if (n >= s->nbuckets) {
        size_t cap = s->nbuckets;
        if (ltk_array_reserve((void **)&s->buckets, &cap, n + 1, sizeof *s->buckets))
            return lenma_nomem(p);
        memset(s->buckets + s->nbuckets, 0, (cap - s->nbuckets) * sizeof *s->buckets);
        s->nbuckets = cap;
    }
    lenma_bucket *b = &s->buckets[n];
    long best = lenma_best(s, line, n);
    if (best >= 0) {
        lenma_template *t = &s->templates[best];
        for (size_t i = 0; i < n; i++) {
            t->lens[i] = (uint32_t)line->tokens[i].len;
            if (t->words[i] != s->ids[i] && t->words[i] != LENMA_VARIABLE) {
                t->words[i] = LENMA_VARIABLE;
                int rc = ltk_tmpl_set_wildcard(p, t->template_id, i);
                if (rc != LOGTK_OK)
                    return rc;
            }
        }
        *template_id = t->template_id;
        return LOGTK_OK;
    }
    /* a new template: the message itself */
    if (ltk_array_reserve((void **)&s->templates, &s->templates_cap, s->ntemplates + 1,
             sizeof *s->templates) ||
        ltk_array_reserve((void **)&b->items, &b->cap, b->n + 1, sizeof *b->items))
        return lenma_nomem(p);
    lenma_template *t = &s->templates[s->ntemplates];
    t->words = malloc((n ? n : 1) * sizeof *t->words);
    t->lens = malloc((n ? n : 1) * sizeof *t->lens);
    if (t->words == NULL || t->lens == NULL) {
        free(t->words);
        free(t->lens);
        return lenma_nomem(p);
    }
    for (size_t i = 0; i < n; i++) {
        t->words[i] = s->ids[i];
        t->lens[i] = (uint32_t)line->tokens[i].len;
    }
    t->template_id = ltk_tmpl_create(p, line->tokens, n);
    if (t->template_id == 0) {
        free(t->words);
        free(t->lens);
        return LOGTK_ERR_NOMEM;
    }
    b->items[b->n++] = (uint32_t)s->ntemplates++;
    *template_id = t->template_id;
    return LOGTK_OK;
}

const ltk_parser_algo ltk_algo_lenma = {
    .name = "lenma",
    .summary = "LenMa (2016): streaming, cosine similarity of word-length vectors",
    .online = 1,
    .state_size = sizeof(lenma_state),
    .init = lenma_init,
    .destroy = lenma_destroy,
    .set_param = lenma_set_param,
    .feed = lenma_feed,
    .finish = NULL,
    .save = NULL,
    .load = NULL,
    .match = lenma_match,
};
