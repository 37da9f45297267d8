/*
 * parser_logmine.c - LogMine (Hamooni et al., CIKM 2016), following
 * logparser's LogMine.py.
 *
 * LogMine clusters in levels.  Level 0 is a one-pass "friends of friends"
 * clustering of the messages: a message joins every cluster whose first
 * message is within max_dist of it, where the distance is
 * 1 - sum over aligned positions of k/max(len) for equal tokens; a message
 * that joins none opens a cluster.  Each higher level multiplies max_dist by
 * alpha and clusters the previous level's patterns the same way (equal
 * "<*>" positions count k2, equal words k1), then merges the patterns of
 * each cluster pairwise, left to right: the two token sequences are aligned
 * with Smith-Waterman (match 10, mismatch 1, gap 0) and every aligned pair
 * that differs becomes "<*>".  The last level's patterns are the templates.
 *
 * Kept from the reference on purpose (they decide the grouping):
 *  - the distance is accumulated by repeated subtraction in double
 *    precision, and a distance of exactly 0 does not count as a match
 *    (Python's `if dis and dis < max_dist`), so whether two identical
 *    messages meet depends on rounding, as there;
 *  - a message (or pattern) joins every cluster within reach, not only the
 *    first; for the output the last cluster holding a message wins;
 *  - the alignment starts from the last cell with the highest score and
 *    stops at the table's edge, so a leading run of one sequence that the
 *    other lacks is dropped from the merged pattern;
 *  - preprocessing regexes delete their matches (this file removes the
 *    "<*>" the masks wrote).
 * Difference: pairs of patterns whose alignment table would exceed 2^24
 * cells are merged position by position instead (a guard against
 * quadratic memory on huge lines).
 *
 * Cost.  The reference measures every message against every cluster:
 * quadratic in lines (10^6 empty lines, or 10^5 distinct events, took
 * minutes).  Here, with the same outcome: a (position, token) index keeps
 * only the clusters that share enough aligned tokens to be within reach
 * (see candidates()), and a message or pattern met again is measured only
 * against the clusters made since its last copy (see logmine_copies).  What
 * is left is capped: at most LOGMINE_MAX_CANDIDATES clusters are measured
 * per message, the most recent, counted and reported (logtk_parser_capped).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "growarray.h"
#include "parser_impl.h"
#include "u64map.h"

#define LOGMINE_MAX_ALIGN_CELLS ((size_t)1 << 24)

/* Clusters whose distance one message or pattern is computed against, at
 * most, after the (position, token) index has ruled out those that cannot
 * be within reach: the most recent ones are kept, the older ones are not
 * compared (counted, and reported as a cap).  Loghub-2k's logs never come
 * near it (at most 2,000 messages); 10^5 distinct events that share no
 * token at some position never reach it either. */
#define LOGMINE_MAX_CANDIDATES 4096

/* The clusters of one level that hold token t at position i of their
   pattern (ascending: clusters are only appended). */
typedef struct logmine_posting {
    uint32_t *ids;
    size_t n, cap;
} logmine_posting;

typedef struct logmine_index {
    ltk_u64map where; /* (position << 32 | token) -> posting */
    int ready;
    logmine_posting *postings;
    size_t npostings, postings_cap;
    uint32_t *stamp; /* cluster -> the query that last took it as a candidate */
    size_t stamp_cap;
    uint32_t query;
    uint32_t *cand; /* scratch: candidates of one query */
    size_t cand_cap;
    uint64_t *order; /* scratch: (posting length << 32 | position) */
    size_t order_cap;
    uint64_t capped; /* queries that had more candidates than LOGMINE_MAX_CANDIDATES */
} logmine_index;

typedef struct logmine_state {
    double max_dist, k, k1, k2, alpha;
    long levels;
    uint32_t wildcard;
    uint32_t *tokens;
    size_t ntokens, tokens_cap;
    size_t *off;
    size_t nlines, off_cap;
} logmine_state;

/* A sequence of token ids owned by a cluster. */
typedef struct logmine_seq {
    uint32_t *tok;
    size_t n;
} logmine_seq;

typedef struct logmine_cluster {
    logmine_seq pattern;  /* patterns[0] */
    logmine_seq *patterns; /* patterns to merge at this level (views, not owned) */
    size_t npatterns, patterns_cap;
    uint32_t *logs;       /* line numbers, duplicates allowed */
    size_t nlogs, logs_cap;
} logmine_cluster;

static int logmine_nomem(logtk_parser *p)
{
    return ltk_parser_error(p, LOGTK_ERR_NOMEM, "logmine: out of memory");
}

static int logmine_init(logtk_parser *p, void *state)
{
    logmine_state *s = state;
    s->max_dist = 0.001;
    s->k = s->k1 = s->k2 = 1;
    s->alpha = 100;
    s->levels = 2;
    s->wildcard = ltk_parser_intern_token(p, LTK_WILDCARD, LTK_WILDCARD_LEN);
    return s->wildcard == UINT32_MAX ? logmine_nomem(p) : LOGTK_OK;
}

static void logmine_destroy(void *state)
{
    logmine_state *s = state;
    free(s->tokens);
    free(s->off);
}

static int logmine_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    logmine_state *s = state;
    if (strcmp(name, "max_dist") == 0)
        return ltk_param_double(p, name, value, 0.0, 1e9, &s->max_dist);
    if (strcmp(name, "k") == 0)
        return ltk_param_double(p, name, value, 0.0, 1e9, &s->k);
    if (strcmp(name, "k1") == 0)
        return ltk_param_double(p, name, value, 0.0, 1e9, &s->k1);
    if (strcmp(name, "k2") == 0)
        return ltk_param_double(p, name, value, 0.0, 1e9, &s->k2);
    if (strcmp(name, "alpha") == 0)
        return ltk_param_double(p, name, value, 0.0, 1e9, &s->alpha);
    if (strcmp(name, "levels") == 0)
        return ltk_param_int(p, name, value, 1, 16, &s->levels);
    return LOGTK_ERR_NOT_FOUND;
}

static int logmine_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                        uint32_t *template_id)
{
    logmine_state *s = state;
    *template_id = 0;
    if (ltk_array_reserve((void **)&s->off, &s->off_cap, s->nlines + 2, sizeof *s->off))
        return logmine_nomem(p);
    if (s->nlines == 0)
        s->off[0] = 0;
    char buf[256];
    for (size_t t = 0; t < line->ntokens; t++) {
        const char *ptr = line->tokens[t].ptr;
        size_t len = line->tokens[t].len, n = 0;
        char *tmp = len <= sizeof buf ? buf : malloc(len);
        if (tmp == NULL)
            return logmine_nomem(p);
        for (size_t i = 0; i < len;) {
            if (i + 3 <= len && ptr[i] == '<' && ptr[i + 1] == '*' && ptr[i + 2] == '>') {
                i += 3;
                continue;
            }
            tmp[n++] = ptr[i++];
        }
        uint32_t id = n ? ltk_parser_intern_token(p, tmp, n) : 0;
        if (tmp != buf)
            free(tmp);
        if (n == 0)
            continue;
        if (id == UINT32_MAX ||
            ltk_array_reserve((void **)&s->tokens, &s->tokens_cap, s->ntokens + 1, sizeof *s->tokens))
            return logmine_nomem(p);
        s->tokens[s->ntokens++] = id;
    }
    s->off[++s->nlines] = s->ntokens;
    return LOGTK_OK;
}

/* The reference's msgDist (level 0) and patternDist (higher levels). */
static double distance(const logmine_state *s, const logmine_seq *a, const logmine_seq *b,
                       int level)
{
    size_t maxlen = a->n > b->n ? a->n : b->n, minlen = a->n < b->n ? a->n : b->n;
    double dis = 1;
    for (size_t i = 0; i < minlen; i++) {
        if (a->tok[i] != b->tok[i])
            continue;
        double w = level == 0 ? s->k : a->tok[i] == s->wildcard ? s->k2 : s->k1;
        dis -= w / (double)maxlen;
    }
    return dis;
}

/*
 * Merges b into a (result in *out, malloc'd): Smith-Waterman alignment as in
 * the reference's alignment.water(), then "<*>" where the pair differs.
 */
static int pair_merge(const logmine_state *s, const logmine_seq *a, const logmine_seq *b,
                      logmine_seq *out, uint32_t **score_buf, uint8_t **ptr_buf, size_t *cap)
{
    size_t m = a->n, n = b->n;
    uint32_t *res = malloc((m + n + 1) * sizeof *res);
    if (res == NULL)
        return -1;
    size_t len = 0;
    if (m == 0 || n == 0 || (m + 1) > LOGMINE_MAX_ALIGN_CELLS / (n + 1)) {
        if (m && n) {
            size_t k = m < n ? m : n;
            for (size_t i = 0; i < k; i++)
                res[len++] = a->tok[i] == b->tok[i] ? a->tok[i] : s->wildcard;
        }
        out->tok = res;
        out->n = len;
        return 0;
    }
    size_t w = n + 1, cells = (m + 1) * w;
    if (cells > *cap) {
        uint32_t *sc = realloc(*score_buf, cells * sizeof *sc);
        if (sc == NULL) {
            free(res);
            return -1;
        }
        *score_buf = sc;
        uint8_t *pt = realloc(*ptr_buf, cells);
        if (pt == NULL) {
            free(res);
            return -1;
        }
        *ptr_buf = pt;
        *cap = cells;
    }
    uint32_t *score = *score_buf;
    uint8_t *pointer = *ptr_buf;
    memset(score, 0, w * sizeof *score);
    memset(pointer, 0, w);
    size_t max_i = 0, max_j = 0;
    uint32_t max_score = 0;
    for (size_t i = 1; i <= m; i++) {
        score[i * w] = 0;
        pointer[i * w] = 0;
        for (size_t j = 1; j <= n; j++) {
            uint32_t diag = score[(i - 1) * w + j - 1] + (a->tok[i - 1] == b->tok[j - 1] ? 10 : 1);
            uint32_t up = score[i * w + j - 1];
            uint32_t left = score[(i - 1) * w + j];
            uint32_t v = diag;
            if (up > v)
                v = up;
            if (left > v)
                v = left;
            uint8_t ptr = 0;
            if (v == left)
                ptr = 1;
            if (v == up)
                ptr = 2;
            if (v == diag)
                ptr = 3;
            score[i * w + j] = v;
            pointer[i * w + j] = ptr;
            if (v >= max_score) {
                max_i = i;
                max_j = j;
                max_score = v;
            }
        }
    }
    /* trace back (the result comes out reversed) */
    size_t i = max_i, j = max_j;
    while (pointer[i * w + j] != 0) {
        uint8_t ptr = pointer[i * w + j];
        if (ptr == 3) {
            res[len++] = a->tok[i - 1] == b->tok[j - 1] ? a->tok[i - 1] : s->wildcard;
            i--;
            j--;
        } else {
            res[len++] = s->wildcard; /* a token against a gap */
            if (ptr == 2)
                j--;
            else
                i--;
        }
    }
    for (size_t x = 0; x < len / 2; x++) {
        uint32_t t = res[x];
        res[x] = res[len - 1 - x];
        res[len - 1 - x] = t;
    }
    out->tok = res;
    out->n = len;
    return 0;
}

static void free_clusters(logmine_cluster *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].pattern.tok);
        free(c[i].patterns);
        free(c[i].logs);
    }
    free(c);
}

static int copy_seq(logmine_seq *dst, const uint32_t *tok, size_t n)
{
    dst->tok = malloc((n ? n : 1) * sizeof *tok);
    if (dst->tok == NULL)
        return -1;
    if (n)
        memcpy(dst->tok, tok, n * sizeof *tok);
    dst->n = n;
    return 0;
}

static int add_logs(logmine_cluster *c, const uint32_t *logs, size_t n)
{
    if (ltk_array_reserve((void **)&c->logs, &c->logs_cap, c->nlogs + n, sizeof *c->logs))
        return -1;
    if (n)
        memcpy(c->logs + c->nlogs, logs, n * sizeof *logs);
    c->nlogs += n;
    return 0;
}

static int add_pattern(logmine_cluster *c, logmine_seq view)
{
    if (ltk_array_reserve((void **)&c->patterns, &c->patterns_cap, c->npatterns + 1, sizeof *c->patterns))
        return -1;
    c->patterns[c->npatterns++] = view;
    return 0;
}

static void index_free(logmine_index *ix)
{
    if (ix->ready)
        ltk_u64map_free(&ix->where);
    for (size_t i = 0; i < ix->npostings; i++)
        free(ix->postings[i].ids);
    free(ix->postings);
    free(ix->stamp);
    free(ix->cand);
    free(ix->order);
    memset(ix, 0, sizeof *ix);
}

/* Empties the index for a new level (keeps the scratch). */
static int index_reset(logmine_index *ix)
{
    if (ix->ready)
        ltk_u64map_free(&ix->where);
    ix->ready = 0;
    for (size_t i = 0; i < ix->npostings; i++)
        free(ix->postings[i].ids);
    ix->npostings = 0;
    if (ltk_u64map_init(&ix->where, 1024) != 0)
        return -1;
    ix->ready = 1;
    return 0;
}

/* Cluster c's pattern goes into the index. */
static int index_add(logmine_index *ix, uint32_t c, const logmine_seq *pat)
{
    if (ltk_array_reserve((void **)&ix->stamp, &ix->stamp_cap, (size_t)c + 1, sizeof *ix->stamp))
        return -1;
    ix->stamp[c] = 0;
    for (size_t i = 0; i < pat->n; i++) {
        uint64_t key = (uint64_t)i << 32 | pat->tok[i];
        uint32_t *v = ltk_u64map_find(&ix->where, key);
        size_t at;
        if (v != NULL) {
            at = *v;
        } else {
            if (ltk_array_reserve((void **)&ix->postings, &ix->postings_cap, ix->npostings + 1,
                                    sizeof *ix->postings) ||
                ltk_u64map_put(&ix->where, key, (uint32_t)ix->npostings) != 0)
                return -1;
            at = ix->npostings++;
            memset(&ix->postings[at], 0, sizeof ix->postings[at]);
        }
        logmine_posting *post = &ix->postings[at];
        if (ltk_array_reserve((void **)&post->ids, &post->cap, post->n + 1, sizeof *post->ids))
            return -1;
        post->ids[post->n++] = c;
    }
    return 0;
}

/*
 * Copies.  A sequence met again at the same level (a repeated message, or
 * a pattern that several clusters share) is as far from the clusters it
 * met before as it was then, so it joins the ones it joined then, and only
 * the clusters made since are measured: a copy costs what is new, not the
 * whole level, and the outcome is the reference's (a copy that joins
 * nothing opens one more cluster, as there).
 */
typedef struct logmine_seen {
    uint32_t *joined; /* clusters the sequence joined, ascending */
    size_t n, cap;
    size_t since;     /* clusters before this one have been measured */
} logmine_seen;

typedef struct logmine_copies {
    ltk_hashtab keys; /* token sequence -> record */
    int ready;
    logmine_seen *seen;
    size_t nseen, seen_cap;
} logmine_copies;

static void copies_free(logmine_copies *cp)
{
    if (cp->ready)
        ltk_hashtab_free(&cp->keys);
    for (size_t i = 0; i < cp->nseen; i++)
        free(cp->seen[i].joined);
    free(cp->seen);
    memset(cp, 0, sizeof *cp);
}

static int copies_reset(logmine_copies *cp)
{
    copies_free(cp);
    if (ltk_hashtab_init(&cp->keys, 1024) != 0)
        return -1;
    cp->ready = 1;
    return 0;
}

/* The record of seq, new (nothing joined, nothing measured) the first time. */
static logmine_seen *copies_find(logmine_copies *cp, const logmine_seq *seq)
{
    static const uint32_t no_tokens[1] = {0};
    int inserted = 0;
    int64_t id = ltk_hashtab_intern(&cp->keys, seq->n ? seq->tok : no_tokens,
                                      seq->n * sizeof *seq->tok, &inserted);
    if (id < 0)
        return NULL;
    if (inserted) {
        if (ltk_array_reserve((void **)&cp->seen, &cp->seen_cap, (size_t)id + 1, sizeof *cp->seen))
            return NULL;
        memset(&cp->seen[id], 0, sizeof cp->seen[id]);
        cp->nseen = (size_t)id + 1;
    }
    return &cp->seen[id];
}

static int seen_join(logmine_seen *r, uint32_t c)
{
    if (ltk_array_reserve((void **)&r->joined, &r->cap, r->n + 1, sizeof *r->joined))
        return -1;
    r->joined[r->n++] = c;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * The clusters (of nclusters) that msg may be within max_dist of, ascending,
 * in ix->cand[0..*ncand).  A cluster within reach shares at least R aligned
 * tokens with msg: the distance is 1 - (sum of the weights, at most kmax
 * each, of equal aligned tokens) / maxlen with maxlen >= msg->n, so
 * dis < max_dist needs eq > (1 - max_dist) * n / kmax (less a margin for the
 * rounding of the repeated subtraction).  Then any n - R + 1 positions of
 * msg hold one of those equal tokens, and the candidates are the clusters
 * listed under the n - R + 1 (position, token) pairs with the fewest.  When
 * no such bound exists (kmax 0, max_dist above 1) every cluster is one.
 * Only clusters from `since` on are looked at.  Past LOGMINE_MAX_CANDIDATES
 * the most recent are kept.
 */
static int candidates(logmine_index *ix, const logmine_seq *msg, size_t since, size_t nclusters,
                      double max_dist, double kmax, size_t *ncand)
{
    double r0 = kmax > 0 ? (1.0 - max_dist - 1e-9) * (double)msg->n / kmax : -1.0;
    size_t n = 0;
    if (r0 < 0) { /* no bound: every cluster */
        if (ltk_array_reserve((void **)&ix->cand, &ix->cand_cap, nclusters + 1, sizeof *ix->cand))
            return -1;
        for (size_t c = since; c < nclusters; c++)
            ix->cand[n++] = (uint32_t)c;
    } else {
        double need = floor(r0) + 1; /* R: equal aligned tokens needed */
        if (need > (double)msg->n) {
            *ncand = 0; /* cannot be within reach of anything */
            return 0;
        }
        size_t npos = msg->n - (size_t)need + 1;
        if (ltk_array_reserve((void **)&ix->order, &ix->order_cap, msg->n + 1, sizeof *ix->order))
            return -1;
        for (size_t i = 0; i < msg->n; i++) {
            uint32_t *v = ltk_u64map_find(&ix->where, (uint64_t)i << 32 | msg->tok[i]);
            uint64_t len = v ? ix->postings[*v].n : 0;
            ix->order[i] = len << 32 | i;
        }
        if (npos < msg->n)
            qsort(ix->order, msg->n, sizeof *ix->order, cmp_u64);
        if (++ix->query == 0) { /* stamps wrapped: start them over */
            if (ix->stamp != NULL)
                memset(ix->stamp, 0, ix->stamp_cap * sizeof *ix->stamp);
            ix->query = 1;
        }
        for (size_t k = 0; k < npos; k++) {
            size_t i = (size_t)(ix->order[k] & UINT32_MAX);
            uint32_t *v = ltk_u64map_find(&ix->where, (uint64_t)i << 32 | msg->tok[i]);
            if (v == NULL)
                continue;
            const logmine_posting *post = &ix->postings[*v];
            size_t lo = 0, hi = post->n; /* the first cluster >= since */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (post->ids[mid] < since)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (ltk_array_reserve((void **)&ix->cand, &ix->cand_cap, n + post->n - lo + 1,
                                    sizeof *ix->cand))
                return -1;
            for (size_t j = lo; j < post->n; j++) {
                uint32_t c = post->ids[j];
                if (ix->stamp[c] == ix->query)
                    continue;
                ix->stamp[c] = ix->query;
                ix->cand[n++] = c;
            }
        }
        if (npos > 1 && n > 1) /* (qsort of no candidates: ix->cand may be NULL) */
            qsort(ix->cand, n, sizeof *ix->cand, cmp_u32);
    }
    if (n > LOGMINE_MAX_CANDIDATES) {
        memmove(ix->cand, ix->cand + (n - LOGMINE_MAX_CANDIDATES),
                LOGMINE_MAX_CANDIDATES * sizeof *ix->cand);
        n = LOGMINE_MAX_CANDIDATES;
        ix->capped++;
    }
    *ncand = n;
    return 0;
}

static int logmine_finish(logtk_parser *p, void *state)
{
    logmine_state *s = state;
    logmine_cluster *cur = NULL, *next = NULL;
    size_t ncur = 0, cur_cap = 0, nnext = 0, next_cap = 0;
    uint32_t *score = NULL, *keys_of_line = NULL;
    uint8_t *pointer = NULL;
    size_t align_cap = 0;
    int rc = LOGTK_OK;
    double max_dist = s->max_dist;
    logmine_index ix;
    memset(&ix, 0, sizeof ix);
    logmine_copies cp;
    memset(&cp, 0, sizeof cp);

    /* level 0: messages */
    if (index_reset(&ix) != 0 || copies_reset(&cp) != 0)
        goto oom;
    for (size_t line = 0; line < s->nlines; line++) {
        logmine_seq msg = {s->tokens + s->off[line], s->off[line + 1] - s->off[line]};
        uint32_t l32 = (uint32_t)line;
        logmine_seen *seen = copies_find(&cp, &msg);
        size_t ncand;
        if (seen == NULL ||
            candidates(&ix, &msg, seen->since, ncur, max_dist, s->k, &ncand) != 0)
            goto oom;
        for (size_t x = 0; x < ncand; x++) {
            uint32_t c = ix.cand[x];
            double dis = distance(s, &msg, &cur[c].pattern, 0);
            if (dis != 0 && dis < max_dist && seen_join(seen, c) != 0)
                goto oom;
        }
        seen->since = ncur;
        for (size_t x = 0; x < seen->n; x++)
            if (add_logs(&cur[seen->joined[x]], &l32, 1) != 0)
                goto oom;
        if (seen->n == 0) {
            if (ltk_array_reserve((void **)&cur, &cur_cap, ncur + 1, sizeof *cur))
                goto oom;
            memset(&cur[ncur], 0, sizeof cur[ncur]);
            if (copy_seq(&cur[ncur].pattern, msg.tok, msg.n) != 0) {
                ncur++;
                goto oom;
            }
            ncur++;
            if (add_logs(&cur[ncur - 1], &l32, 1) != 0 ||
                index_add(&ix, (uint32_t)(ncur - 1), &cur[ncur - 1].pattern) != 0)
                goto oom;
        }
    }

    /* higher levels: cluster the patterns, then merge each cluster's patterns */
    double kmax = s->k1 > s->k2 ? s->k1 : s->k2;
    for (long level = 1; level < s->levels; level++) {
        max_dist *= s->alpha;
        nnext = 0;
        if (index_reset(&ix) != 0 || copies_reset(&cp) != 0)
            goto oom;
        for (size_t o = 0; o < ncur; o++) {
            size_t ncand;
            logmine_seen *seen = copies_find(&cp, &cur[o].pattern);
            if (seen == NULL ||
                candidates(&ix, &cur[o].pattern, seen->since, nnext, max_dist, kmax, &ncand) != 0)
                goto oom;
            for (size_t x = 0; x < ncand; x++) {
                uint32_t c = ix.cand[x];
                double dis = distance(s, &cur[o].pattern, &next[c].pattern, 1);
                if (dis != 0 && dis < max_dist && seen_join(seen, c) != 0)
                    goto oom;
            }
            seen->since = nnext;
            for (size_t x = 0; x < seen->n; x++) {
                logmine_cluster *c = &next[seen->joined[x]];
                if (add_logs(c, cur[o].logs, cur[o].nlogs) != 0 ||
                    add_pattern(c, cur[o].pattern) != 0)
                    goto oom;
            }
            if (seen->n == 0) {
                if (ltk_array_reserve((void **)&next, &next_cap, nnext + 1, sizeof *next))
                    goto oom;
                logmine_cluster *c = &next[nnext++];
                memset(c, 0, sizeof *c);
                if (copy_seq(&c->pattern, cur[o].pattern.tok, cur[o].pattern.n) != 0 ||
                    add_logs(c, cur[o].logs, cur[o].nlogs) != 0 ||
                    add_pattern(c, cur[o].pattern) != 0 ||
                    index_add(&ix, (uint32_t)(nnext - 1), &c->pattern) != 0)
                    goto oom;
            }
        }
        for (size_t c = 0; c < nnext; c++) {
            logmine_cluster *cl = &next[c];
            logmine_seq merged = {NULL, 0};
            if (copy_seq(&merged, cl->patterns[0].tok, cl->patterns[0].n) != 0)
                goto oom;
            for (size_t k = 1; k < cl->npatterns; k++) {
                logmine_seq out;
                if (pair_merge(s, &merged, &cl->patterns[k], &out, &score, &pointer,
                               &align_cap) != 0) {
                    free(merged.tok);
                    goto oom;
                }
                free(merged.tok);
                merged = out;
            }
            free(cl->pattern.tok);
            cl->pattern = merged;
            cl->npatterns = 0;
        }
        /* patterns of `next` point into `cur` only until here */
        free_clusters(cur, ncur);
        cur = next;
        ncur = nnext;
        cur_cap = next_cap;
        next = NULL;
        nnext = next_cap = 0;
    }

    /* templates: the last level's patterns; the last cluster of a line wins */
    keys_of_line = calloc(s->nlines ? s->nlines : 1, sizeof *keys_of_line);
    if (keys_of_line == NULL)
        goto oom;
    if (ix.capped)
        ltk_parser_note_cap(p, ix.capped,
                              "logmine: %llu messages or patterns compared with only the %d most "
                              "recent of the clusters that could be within reach "
                              "(LOGMINE_MAX_CANDIDATES)",
                              (unsigned long long)ix.capped, LOGMINE_MAX_CANDIDATES);
    for (size_t c = 0; c < ncur; c++) {
        const logmine_seq *pat = &cur[c].pattern;
        uint32_t id = ltk_tmpl_from_token_ids(p, pat->tok, pat->n);
        if (id == 0) {
            rc = LOGTK_ERR_NOMEM;
            goto done;
        }
        for (size_t i = 0; i < cur[c].nlogs; i++)
            keys_of_line[cur[c].logs[i]] = id;
    }
    for (size_t line = 0; line < s->nlines; line++) {
        rc = ltk_parser_assign(p, line, keys_of_line[line]);
        if (rc != LOGTK_OK)
            goto done;
    }
    goto done;
oom:
    rc = logmine_nomem(p);
done:
    (void)cur_cap;
    free_clusters(cur, ncur);
    free_clusters(next, nnext);
    free(score);
    free(pointer);
    free(keys_of_line);
    copies_free(&cp);
    index_free(&ix);
    return rc;
}

const ltk_parser_algo ltk_algo_logmine = {
    .name = "logmine",
    .summary = "LogMine (CIKM'16): batch, multi-level distance clustering, aligned pattern merge",
    .online = 0,
    .state_size = sizeof(logmine_state),
    .init = logmine_init,
    .destroy = logmine_destroy,
    .set_param = logmine_set_param,
    .feed = logmine_feed,
    .finish = logmine_finish,
    .save = NULL,
    .load = NULL,
};
