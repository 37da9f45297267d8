/*
 * detect_ngram.c - next-event prediction over each session's sequence
 * (DeepLog's rule, CCS'17, with counted n-grams in place of its LSTM).
 *
 * A session is read as B e1 e2 ... en B, where B marks its start and its end.
 * At every position the last `history` tokens (fewer near the start; the
 * start mark included, so "how a session begins" is learned) predict the
 * next token, the end mark included (so a truncated session, whose last
 * events never end a normal one, is caught).  The prediction is judged
 * right when the token that comes is among the `top_k` most frequent
 * predictions of the context (DeepLog's g = 9 with h = 10): its followers in
 * training by count, then its suffixes' (see accepted()); and, when
 * min_prob > 0, has at least that share of the followers.  Score = number of
 * wrong predictions; a session with any is anomalous (threshold 0).
 *
 * Backoff: a context never seen in training is replaced by its longest
 * suffix that was; and when the context was seen fewer than `min_count`
 * times, the judgement is made on the longest suffix seen at least that
 * often, so that a rare long context does not condemn a normal session
 * for a follower it happened not to show.
 *
 * An event never seen in training is a token of its own that no context
 * predicts: one wrong prediction (evidence), then the context restarts.
 *
 * Storage: the contexts form a suffix trie (a node's parent is its context
 * without the oldest token), keyed (node, older token) -> node; the follower
 * counts are keyed (node, token) -> entry.  After training each entry also
 * stores the verdict and the next state (the node of the longest stored
 * suffix of context + token), so scoring is one hash probe per event: the
 * state is always the longest stored suffix of the real context, and a
 * token that followed it in training leads to exactly the node of the new
 * context (it occurred, so it was stored).  Only a token that never
 * followed the state (rare in normal sessions) walks the suffix chain.
 *
 * Training counts distinct sequences once with their multiplicity, so
 * 575,000 replicated sessions cost about what their distinct ones do.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NGRAM_MAX_HISTORY 32

static const ltk_detect_param_def ngram_params[] = {
    {"history", 10, 1, NGRAM_MAX_HISTORY, NULL, "events of context that predict the next (h)"},
    {"top_k", 9, 1, 1e6, NULL, "a next event outside the k most frequent followers is wrong (g)"},
    {"min_prob", 0, 0, 1, NULL, "also wrong: a follower with less than this share (0 = off)"},
    {"min_count", 1, 1, 1e9, NULL, "judge on the longest context seen at least this often"},
    {"backoff_to", 0, 0, NGRAM_MAX_HISTORY, NULL,
     "shortest context whose followers fill the top k (0: the empty context)"},
    {"end_context", 3, 0, NGRAM_MAX_HISTORY, NULL,
     "the end of a session must have followed this many last events in training"},
    {"tolerance", 0, 0, 1e6, NULL,
     "wrong predictions of seen events a session may have (an unseen event or a wrong end "
     "is never tolerated)"},
    {"trust_counts", 1, 0, 1, NULL,
     "a session with the event counts of a normal training session is normal, whatever "
     "its order (0/1)"},
    {NULL, 0, 0, 0, NULL, NULL},
};

#define P_HISTORY 0
#define P_TOP_K 1
#define P_MIN_PROB 2
#define P_MIN_COUNT 3
#define P_BACKOFF_TO 4
#define P_END_CONTEXT 5
#define P_TOLERANCE 6
#define P_TRUST_COUNTS 7

/* (node, token) -> index, open addressing; keys are unique. */
typedef struct pair_map {
    uint64_t *keys; /* node << 32 | token, UINT64_MAX empty */
    uint32_t *vals;
    size_t mask, count;
} pair_map;

typedef struct follow_entry {
    uint32_t node, token;
    double count;
    int32_t next;     /* node after token (-1: token is the end mark) */
    uint8_t ok;       /* right after this context (judged on its decision context) */
} follow_entry;

typedef struct ngram_state {
    uint32_t ntokens; /* learned events + the boundary mark */
    uint32_t boundary;
    /* nodes: 0 is the empty context */
    uint32_t *parent, *token;
    uint8_t *depth;
    double *total;      /* times the context was followed by a token */
    uint32_t *decision; /* the node whose followers judge this context */
    uint32_t *ranked;   /* entry indices by node, most frequent first */
    size_t *first;      /* node n's are ranked[first[n] .. first[n + 1]) */
    size_t nnodes, nodes_cap;
    pair_map child;
    follow_entry *follow;
    size_t nfollow, follow_cap;
    pair_map follow_index;
    uint32_t start; /* node of the context "B" */
    /* the event counts of the training sessions, as multiset hashes: open
       addressing, 0 = empty (a hash of 0 is stored as 1) */
    uint64_t *counts_set;
    size_t counts_mask, ncounts;
} ngram_state;

/* A session's event counts as one number: the sum of a 64-bit mix of each
   event's column, so that any order of the same events gives the same sum
   (two different count vectors share it with probability about 2^-64). */
static inline uint64_t event_mix(uint32_t col)
{
    uint64_t z = (uint64_t)col * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int counts_put(ngram_state *st, uint64_t h)
{
    h += h == 0;
    if ((st->ncounts + 1) * 2 > st->counts_mask + 1) {
        size_t size = st->counts_mask ? (st->counts_mask + 1) * 2 : 256;
        uint64_t *grown = calloc(size, sizeof *grown);
        if (!grown)
            return -1;
        for (size_t i = 0; st->counts_set && i <= st->counts_mask; i++)
            if (st->counts_set[i]) {
                size_t k = (size_t)(st->counts_set[i] >> 7) & (size - 1);
                while (grown[k])
                    k = (k + 1) & (size - 1);
                grown[k] = st->counts_set[i];
            }
        free(st->counts_set);
        st->counts_set = grown;
        st->counts_mask = size - 1;
    }
    size_t k = (size_t)(h >> 7) & st->counts_mask;
    for (; st->counts_set[k]; k = (k + 1) & st->counts_mask)
        if (st->counts_set[k] == h)
            return 0;
    st->counts_set[k] = h;
    st->ncounts++;
    return 0;
}

static inline int counts_seen(const ngram_state *st, uint64_t h)
{
    h += h == 0;
    if (!st->counts_set)
        return 0;
    for (size_t k = (size_t)(h >> 7) & st->counts_mask; st->counts_set[k];
         k = (k + 1) & st->counts_mask)
        if (st->counts_set[k] == h)
            return 1;
    return 0;
}

static uint64_t pair_key(uint32_t node, uint32_t token)
{
    return (uint64_t)node << 32 | token;
}

static size_t pair_hash(uint64_t k)
{
    k ^= k >> 31;
    k *= 0x9e3779b97f4a7c15ULL;
    k ^= k >> 29;
    return (size_t)k;
}

static int pair_map_init(pair_map *m, size_t expected)
{
    size_t size = 64;
    while (size < expected * 2)
        size *= 2;
    m->keys = malloc(size * sizeof *m->keys);
    m->vals = malloc(size * sizeof *m->vals);
    if (!m->keys || !m->vals)
        return -1;
    memset(m->keys, 0xff, size * sizeof *m->keys);
    m->mask = size - 1;
    m->count = 0;
    return 0;
}

static void pair_map_free(pair_map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static inline int64_t pair_map_find(const pair_map *m, uint32_t node, uint32_t token)
{
    uint64_t k = pair_key(node, token);
    for (size_t h = pair_hash(k) & m->mask;; h = (h + 1) & m->mask) {
        if (m->keys[h] == k)
            return m->vals[h];
        if (m->keys[h] == UINT64_MAX)
            return -1;
    }
}

/* Inserts a new key (the caller checked it is absent).  0 or -1. */
static int pair_map_put(pair_map *m, uint32_t node, uint32_t token, uint32_t val)
{
    if ((m->count + 1) * 2 > m->mask + 1) {
        pair_map grown;
        if (pair_map_init(&grown, (m->mask + 1)) != 0) {
            pair_map_free(&grown);
            return -1;
        }
        for (size_t i = 0; i <= m->mask; i++)
            if (m->keys[i] != UINT64_MAX) {
                size_t h = pair_hash(m->keys[i]) & grown.mask;
                while (grown.keys[h] != UINT64_MAX)
                    h = (h + 1) & grown.mask;
                grown.keys[h] = m->keys[i];
                grown.vals[h] = m->vals[i];
            }
        grown.count = m->count;
        pair_map_free(m);
        *m = grown;
    }
    uint64_t k = pair_key(node, token);
    size_t h = pair_hash(k) & m->mask;
    while (m->keys[h] != UINT64_MAX)
        h = (h + 1) & m->mask;
    m->keys[h] = k;
    m->vals[h] = val;
    m->count++;
    return 0;
}

static void ngram_free(void *p)
{
    ngram_state *st = p;
    if (!st)
        return;
    free(st->parent);
    free(st->token);
    free(st->depth);
    free(st->total);
    free(st->decision);
    free(st->ranked);
    free(st->first);
    free(st->follow);
    free(st->counts_set);
    pair_map_free(&st->child);
    pair_map_free(&st->follow_index);
    free(st);
}

static ngram_state *ngram_new(uint32_t nevents)
{
    ngram_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->ntokens = nevents + 1;
    st->boundary = nevents;
    if (pair_map_init(&st->child, 1024) != 0 || pair_map_init(&st->follow_index, 1024) != 0) {
        ngram_free(st);
        return NULL;
    }
    return st;
}

/* Appends a node; its index, or -1. */
static int64_t add_node(ngram_state *st, uint32_t parent, uint32_t token, uint8_t depth)
{
    if (st->nnodes == st->nodes_cap) {
        size_t cap = st->nodes_cap ? st->nodes_cap * 2 : 1024;
        uint32_t *pa = realloc(st->parent, cap * sizeof *pa);
        if (pa)
            st->parent = pa;
        uint32_t *to = realloc(st->token, cap * sizeof *to);
        if (to)
            st->token = to;
        uint8_t *de = realloc(st->depth, cap * sizeof *de);
        if (de)
            st->depth = de;
        if (!pa || !to || !de)
            return -1;
        st->nodes_cap = cap;
    }
    size_t n = st->nnodes++;
    st->parent[n] = parent;
    st->token[n] = token;
    st->depth[n] = depth;
    if (n > 0 && pair_map_put(&st->child, parent, token, (uint32_t)n) != 0)
        return -1;
    return (int64_t)n;
}

static int64_t child_of(ngram_state *st, uint32_t node, uint32_t token)
{
    int64_t c = pair_map_find(&st->child, node, token);
    if (c >= 0)
        return c;
    return add_node(st, node, token, (uint8_t)(st->depth[node] + 1));
}

static int add_follow(ngram_state *st, uint32_t node, uint32_t token, double count)
{
    int64_t e = pair_map_find(&st->follow_index, node, token);
    if (e >= 0) {
        st->follow[e].count += count;
        return 0;
    }
    if (st->nfollow == st->follow_cap) {
        size_t cap = st->follow_cap ? st->follow_cap * 2 : 1024;
        follow_entry *f = realloc(st->follow, cap * sizeof *f);
        if (!f)
            return -1;
        st->follow = f;
        st->follow_cap = cap;
    }
    follow_entry *f = &st->follow[st->nfollow];
    memset(f, 0, sizeof *f);
    f->node = node;
    f->token = token;
    f->count = count;
    f->next = -1;
    if (pair_map_put(&st->follow_index, node, token, (uint32_t)st->nfollow) != 0)
        return -1;
    st->nfollow++;
    return 0;
}

/* Orders one node's followers: most frequent first, then by token. */
static int by_node_count(const void *a, const void *b)
{
    const follow_entry *x = *(const follow_entry *const *)a, *y = *(const follow_entry *const *)b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->token < y->token ? -1 : x->token > y->token;
}

/*
 * Whether `token` is among the top_k predictions after context `judge`: its
 * own followers by count, then those of its suffixes (the backoff: a short
 * context's frequent followers fill the places a long, rarely seen context
 * leaves, as a network's softmax ranks every event), each token listed at
 * the deepest context that saw it.  With min_prob, a token must also have
 * that share of the followers of the context that lists it.
 */
static double probability(const ngram_state *st, uint32_t node, uint32_t token)
{
    uint32_t chain[NGRAM_MAX_HISTORY + 1];
    size_t depth = 0;
    for (uint32_t n = node;; n = st->parent[n]) {
        chain[depth++] = n;
        if (n == 0 || depth > NGRAM_MAX_HISTORY)
            break;
    }
    /* from the empty context (over a uniform base that keeps a share for
       events unseen in training) to the longest */
    double p = 1.0 / ((double)st->ntokens + 1);
    while (depth > 0) {
        uint32_t n = chain[--depth];
        int64_t e = pair_map_find(&st->follow_index, n, token);
        double count = e >= 0 ? st->follow[e].count : 0;
        double distinct = (double)(st->first[n + 1] - st->first[n]);
        if (st->total[n] + distinct > 0)
            p = (count + distinct * p) / (st->total[n] + distinct);
    }
    return p;
}

static int accepted(const logtk_detector *d, const ngram_state *st, uint32_t judge,
                    uint32_t token)
{
    double top_k = DETECT_PARAM(d, P_TOP_K), min_prob = DETECT_PARAM(d, P_MIN_PROB);
    double backoff_to = DETECT_PARAM(d, token == st->boundary ? P_END_CONTEXT : P_BACKOFF_TO);
    if (min_prob > 0 && probability(st, judge, token) < min_prob)
        return 0;
    double listed = 0;
    int64_t deeper = -1; /* the context listed before: its followers are listed */
    for (uint32_t node = judge;; node = st->parent[node]) {
        for (size_t r = st->first[node]; r < st->first[node + 1]; r++) {
            const follow_entry *f = &st->follow[st->ranked[r]];
            if (deeper >= 0 && pair_map_find(&st->follow_index, (uint32_t)deeper, f->token) >= 0)
                continue;
            if (listed >= top_k)
                return 0;
            if (f->token == token)
                return 1;
            listed += 1;
        }
        if (node == 0 || st->depth[st->parent[node]] < backoff_to)
            return 0;
        deeper = node;
    }
}

/* From the counts (training or a model file), derives totals, decision
   contexts, rankings, verdicts and next states.  LOGTK_OK, or
   LOGTK_ERR_NOMEM / LOGTK_ERR_STATE (counts that do not form a trie of
   contexts). */
static int ngram_finish(ngram_state *st, const logtk_detector *d)
{
    size_t history = (size_t)DETECT_PARAM(d, P_HISTORY);
    double min_count = DETECT_PARAM(d, P_MIN_COUNT);
    free(st->total);
    free(st->decision);
    free(st->ranked);
    free(st->first);
    size_t nn = st->nnodes ? st->nnodes : 1;
    st->total = calloc(nn, sizeof *st->total);
    st->decision = malloc(nn * sizeof *st->decision);
    st->first = calloc(nn + 1, sizeof *st->first);
    st->ranked = malloc((st->nfollow ? st->nfollow : 1) * sizeof *st->ranked);
    follow_entry **order = malloc((st->nfollow ? st->nfollow : 1) * sizeof *order);
    if (!st->total || !st->decision || !st->first || !st->ranked || !order) {
        free(order);
        return LOGTK_ERR_NOMEM;
    }
    for (size_t i = 0; i < st->nfollow; i++) {
        st->total[st->follow[i].node] += st->follow[i].count;
        st->first[st->follow[i].node + 1]++;
        order[i] = &st->follow[i];
    }
    for (size_t n = 0; n < st->nnodes; n++)
        st->first[n + 1] += st->first[n];
    /* parents come before their children (a context is stored after its
       suffix), so one pass in index order settles every decision node */
    for (size_t n = 0; n < st->nnodes; n++)
        st->decision[n] = n == 0 || st->total[n] >= min_count ? (uint32_t)n
                                                               : st->decision[st->parent[n]];
    qsort(order, st->nfollow, sizeof *order, by_node_count);
    for (size_t i = 0; i < st->nfollow; i++)
        st->ranked[i] = (uint32_t)(order[i] - st->follow);
    free(order);
    uint32_t tokens[NGRAM_MAX_HISTORY + 1];
    for (size_t i = 0; i < st->nfollow; i++) {
        follow_entry *f = &st->follow[i];
        f->ok = (uint8_t)accepted(d, st, st->decision[f->node], f->token);
        f->next = -1;
        if (f->token == st->boundary)
            continue; /* the end mark: the session is over */
        /* the node of (context + token), cut to `history` tokens: its newest
           token first, then the context's from newest to oldest */
        size_t nt = 0;
        for (uint32_t n = f->node; n != 0 && nt < NGRAM_MAX_HISTORY; n = st->parent[n])
            tokens[nt++] = st->token[n]; /* oldest first */
        int64_t node = pair_map_find(&st->child, 0, f->token);
        for (size_t k = nt; node >= 0 && k > 0 && (size_t)st->depth[node] < history; k--)
            node = pair_map_find(&st->child, (uint32_t)node, tokens[k - 1]);
        if (node < 0) /* it occurred, so its context was stored */
            return LOGTK_ERR_STATE;
        f->next = (int32_t)node;
    }
    int64_t start = pair_map_find(&st->child, 0, st->boundary);
    if (start < 0)
        return LOGTK_ERR_STATE;
    st->start = (uint32_t)start;
    return LOGTK_OK;
}

/* Distinct sequences of the training rows with their multiplicity. */
typedef struct distinct_seq {
    size_t row;
    double weight;
} distinct_seq;

static uint64_t seq_hash(const uint32_t *ev, size_t n, const int32_t *map)
{
    uint64_t h = 1469598103934665603ULL ^ n;
    for (size_t t = 0; t < n; t++)
        h = (h ^ (uint64_t)(uint32_t)map[ev[t]]) * 1099511628211ULL;
    return h ^ (h >> 32);
}

static int same_seq(const logtk_sessions *s, size_t a, size_t b, const int32_t *map)
{
    size_t na, nb;
    const uint32_t *ea = ltk_detect_session_events(s, a, &na), *eb = ltk_detect_session_events(s, b, &nb);
    if (na != nb)
        return 0;
    for (size_t t = 0; t < na; t++)
        if (map[ea[t]] != map[eb[t]])
            return 0;
    return 1;
}

static int ngram_train_sequences(logtk_detector *d, const logtk_sessions *s, const size_t *rows,
                                 size_t nrows, const int32_t *map)
{
    ngram_state *st = ngram_new((uint32_t)d->features.ncols);
    size_t size = 64;
    while (size < nrows * 2)
        size *= 2;
    /* open addressing over distinct sequences: slot -> index + 1 */
    uint32_t *slots = calloc(size, sizeof *slots);
    uint64_t *hashes = malloc((nrows ? nrows : 1) * sizeof *hashes);
    distinct_seq *uniq = malloc((nrows ? nrows : 1) * sizeof *uniq);
    uint32_t *tokens = NULL;
    size_t tokens_cap = 0, nuniq = 0;
    int rc = st && slots && hashes && uniq ? LOGTK_OK : LOGTK_ERR_NOMEM;
    for (size_t k = 0; k < nrows && rc == LOGTK_OK; k++) {
        size_t i = rows[k], n;
        const uint32_t *ev = ltk_detect_session_events(s, i, &n);
        uint64_t h = seq_hash(ev, n, map);
        size_t slot = (size_t)h & (size - 1);
        for (; slots[slot]; slot = (slot + 1) & (size - 1)) {
            size_t u = slots[slot] - 1;
            if (hashes[u] == h && same_seq(s, uniq[u].row, i, map))
                break;
        }
        if (slots[slot]) {
            uniq[slots[slot] - 1].weight += 1;
        } else {
            hashes[nuniq] = h;
            uniq[nuniq].row = i;
            uniq[nuniq].weight = 1;
            slots[slot] = (uint32_t)++nuniq;
        }
    }
    if (rc == LOGTK_OK && add_node(st, 0, 0, 0) != 0)
        rc = LOGTK_ERR_NOMEM;
    size_t history = (size_t)DETECT_PARAM(d, P_HISTORY);
    for (size_t u = 0; u < nuniq && rc == LOGTK_OK; u++) {
        size_t n;
        const uint32_t *ev = ltk_detect_session_events(s, uniq[u].row, &n);
        if (n + 2 > tokens_cap) {
            tokens_cap = (n + 2) * 2;
            uint32_t *grown = realloc(tokens, tokens_cap * sizeof *tokens);
            if (!grown) {
                rc = LOGTK_ERR_NOMEM;
                break;
            }
            tokens = grown;
        }
        /* B e1 .. en B; training rows' events are all in the vocabulary */
        tokens[0] = st->boundary;
        for (size_t t = 0; t < n; t++)
            tokens[t + 1] = (uint32_t)map[ev[t]];
        tokens[n + 1] = st->boundary;
        uint64_t counts_hash = 0;
        for (size_t t = 0; t < n; t++)
            counts_hash += event_mix(tokens[t + 1]);
        if (counts_put(st, counts_hash) != 0)
            rc = LOGTK_ERR_NOMEM;
        for (size_t t = 0; t <= n && rc == LOGTK_OK; t++) {
            uint32_t next = tokens[t + 1];
            /* the empty context predicts too: it is the last resort */
            int64_t node = 0;
            if (add_follow(st, 0, next, uniq[u].weight) != 0)
                rc = LOGTK_ERR_NOMEM;
            for (size_t len = 1; len <= history && len <= t + 1 && rc == LOGTK_OK; len++) {
                node = child_of(st, (uint32_t)node, tokens[t + 1 - len]);
                if (node < 0 || add_follow(st, (uint32_t)node, next, uniq[u].weight) != 0)
                    rc = LOGTK_ERR_NOMEM;
            }
        }
    }
    free(slots);
    free(hashes);
    free(uniq);
    free(tokens);
    if (rc == LOGTK_OK)
        rc = ngram_finish(st, d);
    if (rc != LOGTK_OK) {
        ngram_free(st);
        return rc;
    }
    d->state = st;
    d->threshold = DETECT_PARAM(d, P_TOLERANCE);
    return LOGTK_OK;
}

/* The verdict on `token` after context `state`, and the state that follows. */
static inline int step(const logtk_detector *d, const ngram_state *st, uint32_t state,
                       uint32_t token, uint32_t *next)
{
    int64_t e = pair_map_find(&st->follow_index, state, token);
    if (e >= 0) {
        const follow_entry *f = &st->follow[e];
        *next = f->next >= 0 ? (uint32_t)f->next : 0;
        return f->ok;
    }
    /* never followed this context: wrong unless a shorter context judges
       (min_count) and saw it; the new state is the longest suffix of the
       context that it followed, else the empty context */
    int ok = token < st->ntokens && accepted(d, st, st->decision[state], token);
    *next = 0;
    for (uint32_t n = st->parent[state]; state != 0; n = st->parent[n]) {
        int64_t f = pair_map_find(&st->follow_index, n, token);
        if (f >= 0) {
            *next = st->follow[f].next >= 0 ? (uint32_t)st->follow[f].next : 0;
            break;
        }
        if (n == 0)
            break;
    }
    return ok;
}

static double ngram_score_sequence(const logtk_detector *d, const uint32_t *events, size_t n,
                                   const int32_t *map)
{
    const ngram_state *st = d->state;
    uint32_t unseen = st->ntokens; /* a token no context was followed by */
    uint32_t state = st->start;
    double wrong = 0, hard = 0;
    uint64_t counts_hash = 0;
    for (size_t t = 0; t < n; t++) {
        int32_t col = map[events[t]];
        counts_hash += event_mix(col >= 0 ? (uint32_t)col : unseen);
        uint32_t next;
        int ok = step(d, st, state, col >= 0 ? (uint32_t)col : unseen, &next);
        wrong += !ok && col >= 0;
        hard += col < 0;
        state = next;
    }
    uint32_t ignored;
    hard += !step(d, st, state, st->boundary, &ignored);
    if ((wrong > 0 || hard > 0) && DETECT_PARAM(d, P_TRUST_COUNTS) != 0 &&
        counts_seen(st, counts_hash))
        return 0; /* an order never seen, of the events of a normal session */
    /* above the threshold (tolerance) with any hard evidence */
    return wrong + hard * (d->threshold + 1);
}

/* The counts only: nodes (parent, token) in creation order, then the
   follower counts; everything else is derived again on load. */
static int ngram_save(const logtk_detector *d, ltk_strbuf *b)
{
    const ngram_state *st = d->state;
    int bad = ltk_strbuf_put_varint(b, st->nnodes);
    for (size_t n = 1; n < st->nnodes; n++) {
        bad |= ltk_strbuf_put_varint(b, st->parent[n]);
        bad |= ltk_strbuf_put_varint(b, st->token[n]);
    }
    bad |= ltk_strbuf_put_varint(b, st->nfollow);
    for (size_t i = 0; i < st->nfollow; i++) {
        bad |= ltk_strbuf_put_varint(b, st->follow[i].node);
        bad |= ltk_strbuf_put_varint(b, st->follow[i].token);
        bad |= ltk_detect_put_f64(b, st->follow[i].count);
    }
    bad |= ltk_strbuf_put_varint(b, st->ncounts);
    for (size_t i = 0; st->counts_set && i <= st->counts_mask; i++)
        if (st->counts_set[i]) {
            bad |= ltk_detect_put_u32(b, (uint32_t)st->counts_set[i]);
            bad |= ltk_detect_put_u32(b, (uint32_t)(st->counts_set[i] >> 32));
        }
    return bad ? -1 : 0;
}

static int ngram_load(logtk_detector *d, ltk_detect_cursor *c)
{
    ngram_state *st = ngram_new((uint32_t)d->features.ncols);
    if (!st)
        return LOGTK_ERR_NOMEM;
    size_t history = (size_t)DETECT_PARAM(d, P_HISTORY);
    /* every node and entry takes at least 2 bytes */
    size_t nnodes = ltk_detect_get_count(c, (size_t)(c->end - c->p) / 2 + 1);
    int rc = c->bad || nnodes == 0 ? LOGTK_ERR_STATE : LOGTK_OK;
    if (rc == LOGTK_OK && add_node(st, 0, 0, 0) != 0)
        rc = LOGTK_ERR_NOMEM;
    for (size_t n = 1; n < nnodes && rc == LOGTK_OK; n++) {
        size_t parent = ltk_detect_get_count(c, n - 1);
        size_t token = ltk_detect_get_count(c, st->boundary);
        if (c->bad || st->depth[parent] >= history ||
            pair_map_find(&st->child, (uint32_t)parent, (uint32_t)token) >= 0)
            rc = LOGTK_ERR_STATE;
        else if (add_node(st, (uint32_t)parent, (uint32_t)token,
                          (uint8_t)(st->depth[parent] + 1)) < 0)
            rc = LOGTK_ERR_NOMEM;
    }
    size_t nfollow = rc == LOGTK_OK ? ltk_detect_get_count(c, (size_t)(c->end - c->p) / 10) : 0;
    for (size_t i = 0; i < nfollow && rc == LOGTK_OK; i++) {
        size_t node = ltk_detect_get_count(c, nnodes - 1);
        size_t token = ltk_detect_get_count(c, st->boundary);
        double count = ltk_detect_get_f64(c);
        if (c->bad || !(count > 0 && isfinite(count)) ||
            pair_map_find(&st->follow_index, (uint32_t)node, (uint32_t)token) >= 0)
            rc = LOGTK_ERR_STATE;
        else if (add_follow(st, (uint32_t)node, (uint32_t)token, count) != 0)
            rc = LOGTK_ERR_NOMEM;
    }
    size_t ncounts = rc == LOGTK_OK ? ltk_detect_get_count(c, (size_t)(c->end - c->p) / 8) : 0;
    for (size_t i = 0; i < ncounts && rc == LOGTK_OK; i++) {
        uint64_t lo = ltk_detect_get_u32(c), hi = ltk_detect_get_u32(c);
        uint64_t h = lo | hi << 32;
        if (c->bad || h == 0 || counts_seen(st, h))
            rc = LOGTK_ERR_STATE;
        else if (counts_put(st, h) != 0)
            rc = LOGTK_ERR_NOMEM;
    }
    if (rc == LOGTK_OK && c->bad)
        rc = LOGTK_ERR_STATE;
    if (rc == LOGTK_OK)
        rc = ngram_finish(st, d);
    if (rc != LOGTK_OK) {
        ngram_free(st);
        c->bad = 1;
        return rc;
    }
    d->state = st;
    return LOGTK_OK;
}

const ltk_detect_model_ops ltk_detect_ngram_ops = {
    .name = "ngram",
    .summary = "next-event prediction (DeepLog's rule) from counted n-grams with backoff",
    .supervised = 0,
    .default_tfidf = 0,
    .default_zero_mean = 0,
    .train_normal_only = 1,
    .params = ngram_params,
    .save = ngram_save,
    .load = ngram_load,
    .free_state = ngram_free,
    .sparse_input = 1,
    .train_sequences = ngram_train_sequences,
    .score_sequence = ngram_score_sequence,
};
