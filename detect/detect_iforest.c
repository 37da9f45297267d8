/*
 * detect_iforest.c - Isolation Forest (Liu, Ting & Zhou, ICDM 2008), with
 * sklearn's conventions as loglizer uses them (100 trees, max_samples 0.9999
 * of the rows, contamination 0.03, one random feature per split).
 *
 * Anomalies are isolated by fewer random axis-parallel cuts.  Each tree
 * draws max_samples input rows without replacement, then splits on a random
 * feature that is not constant in the node, at a uniform threshold between
 * its minimum and maximum, down to depth ceil(log2(max_samples)).  A leaf
 * stores depth + c(size), c(n) being the average path length of an
 * unsuccessful BST search, which accounts for the unsplit rows.  Score =
 * 2^(-mean path / c(max_samples)); the threshold is the (1 - contamination)
 * quantile of the training scores (linear interpolation, as numpy's
 * percentile).
 *
 * Trees are grown over the distinct vectors with per-tree sample counts, so
 * replicated rows cost one counter each rather than a copy through every
 * level: the resulting tree is the one the expanded sample would give.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ltk_detect_param_def iforest_params[] = {
    {"trees", 100, 1, 10000, NULL, "number of trees"},
    {"max_samples", 0.9999, 1e-9, 1e12, NULL, "rows per tree: fraction (<= 1) or count"},
    {"contamination", 0.03, 0, 0.5, NULL, "expected anomalous share of the training rows"},
    {"seed", 2019, 0, 1e15, NULL, "random seed"},
    {NULL, 0, 0, 0, NULL, NULL},
};

typedef struct if_node {
    int32_t feature; /* -1 = leaf */
    uint32_t right;  /* left child is the next node */
    double value;    /* split threshold, or the leaf's path length */
} if_node;

typedef struct iforest_state {
    size_t ntrees;
    double norm;        /* c(max_samples) */
    uint32_t *roots;    /* ntrees + 1 offsets into nodes */
    if_node *nodes;
    size_t count, cap;
} iforest_state;

static void iforest_free(void *p)
{
    iforest_state *st = p;
    if (st) {
        free(st->roots);
        free(st->nodes);
        free(st);
    }
}

static double avg_path(double n)
{
    if (n <= 1)
        return 0;
    if (n <= 2)
        return 1;
    return 2.0 * (log(n - 1.0) + 0.5772156649015329) - 2.0 * (n - 1.0) / n;
}

typedef struct if_ctx {
    const ltk_detect_matrix *mx;
    iforest_state *st;
    const double *cnt; /* per distinct row: copies in this tree's sample */
    size_t max_depth;
    uint64_t rng;
    uint32_t *feats;   /* scratch: candidate features */
    /* scratch per column, zero between nodes: rows of the node having it,
       its first value, whether a later value differs; and the columns seen */
    uint32_t *occ, *seen;
    double *first;
    uint8_t *differs;
} if_ctx;

/*
 * The features not constant among the node's rows, ascending, into
 * c->feats.  A column no row of the node has is constant (every value is
 * the transform of 0), so only the columns of the rows' own events are
 * looked at: the cost is the node's nonzeros, not its rows x all events,
 * and the list is the one a scan of every column would give.
 */
static size_t varying_features(if_ctx *c, const uint32_t *rows, size_t n)
{
    const ltk_detect_matrix *mx = c->mx;
    const ltk_detect_features *fs = mx->features;
    size_t m = mx->ncols, nseen = 0, nf = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = rows[i];
        for (size_t at = mx->row_start[r]; at < mx->row_start[r + 1]; at++) {
            uint32_t f = mx->nz_col[at];
            double v = mx->x[r * m + f];
            if (c->occ[f]++ == 0) {
                c->seen[nseen++] = f;
                c->first[f] = v;
            } else if (v != c->first[f]) {
                c->differs[f] = 1;
            }
        }
    }
    ltk_detect_sort_u32(c->seen, nseen);
    for (size_t k = 0; k < nseen; k++) {
        uint32_t f = c->seen[k];
        int varies = c->differs[f];
        if (!varies && c->occ[f] < n) { /* some rows lack the event */
            double zero = 0; /* as ltk_detect_features_transform maps a count of 0 */
            if (fs->idf)
                zero *= fs->idf[f];
            if (fs->mean)
                zero -= fs->mean[f];
            varies = zero != c->first[f];
        }
        if (varies)
            c->feats[nf++] = f;
        c->occ[f] = 0;
        c->differs[f] = 0;
    }
    return nf;
}

static int64_t push_node(iforest_state *st)
{
    if (st->count == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 1024;
        if_node *n = realloc(st->nodes, cap * sizeof *n);
        if (!n)
            return -1;
        st->nodes = n;
        st->cap = cap;
    }
    st->nodes[st->count].feature = -1;
    st->nodes[st->count].right = 0;
    st->nodes[st->count].value = 0;
    return (int64_t)st->count++;
}

static int grow(if_ctx *c, uint32_t *rows, size_t n, size_t depth)
{
    const ltk_detect_matrix *mx = c->mx;
    size_t m = mx->ncols;
    int64_t id = push_node(c->st);
    if (id < 0)
        return -1;
    double size = 0;
    for (size_t i = 0; i < n; i++)
        size += c->cnt[rows[i]];
    if (depth >= c->max_depth || size <= 1 || n <= 1) {
        c->st->nodes[id].value = (double)depth + avg_path(size);
        return 0;
    }
    size_t nf = varying_features(c, rows, n);
    if (nf == 0) {
        c->st->nodes[id].value = (double)depth + avg_path(size);
        return 0;
    }
    uint32_t f = c->feats[ltk_detect_rand_below(&c->rng, nf)];
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = mx->x[rows[i] * m + f];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    double t = lo + ltk_detect_rand_unit(&c->rng) * (hi - lo);
    if (t >= hi)
        t = lo;
    size_t nl = 0;
    for (size_t i = 0; i < n; i++)
        if (mx->x[rows[i] * m + f] <= t) {
            uint32_t tmp = rows[nl];
            rows[nl++] = rows[i];
            rows[i] = tmp;
        }
    c->st->nodes[id].feature = (int32_t)f;
    c->st->nodes[id].value = t;
    if (grow(c, rows, nl, depth + 1) != 0)
        return -1;
    c->st->nodes[id].right = (uint32_t)c->st->count;
    return grow(c, rows + nl, n - nl, depth + 1);
}

static double tree_path(const iforest_state *st, size_t t, const double *x)
{
    const if_node *base = st->nodes + st->roots[t];
    const if_node *node = base;
    while (node->feature >= 0)
        node = x[node->feature] <= node->value ? node + 1 : st->nodes + node->right;
    return node->value;
}

static double iforest_score(const logtk_detector *d, double *x)
{
    const iforest_state *st = d->state;
    double sum = 0;
    for (size_t t = 0; t < st->ntrees; t++)
        sum += tree_path(st, t, x);
    return pow(2.0, -(sum / (double)st->ntrees) / st->norm);
}

typedef struct scored {
    double score, weight;
} scored;

static int cmp_scored(const void *a, const void *b)
{
    double x = ((const scored *)a)->score, y = ((const scored *)b)->score;
    return x < y ? -1 : x > y;
}

static int iforest_train(logtk_detector *d, const ltk_detect_matrix *mx)
{
    size_t N = mx->ninput, D = mx->nrows;
    double ms = DETECT_PARAM(d, 1);
    size_t sample = ms <= 1 ? (size_t)(ms * (double)N) : (size_t)ms;
    if (sample > N)
        sample = N;
    if (sample < 1)
        sample = 1;
    iforest_state *st = calloc(1, sizeof *st);
    size_t ntrees = (size_t)DETECT_PARAM(d, 0);
    uint32_t *perm = malloc(N * sizeof *perm);
    double *cnt = calloc(D, sizeof *cnt);
    uint32_t *rows = malloc(D * sizeof *rows), *feats = malloc((mx->ncols + 1) * sizeof *feats);
    uint32_t *occ = calloc(mx->ncols + 1, sizeof *occ), *seen = malloc((mx->ncols + 1) * sizeof *seen);
    double *first = malloc((mx->ncols + 1) * sizeof *first);
    uint8_t *differs = calloc(mx->ncols + 1, 1);
    int rc = LOGTK_OK;
    if (!st || !perm || !cnt || !rows || !feats || !occ || !seen || !first || !differs ||
        !(st->roots = malloc((ntrees + 1) * sizeof *st->roots))) {
        rc = LOGTK_ERR_NOMEM;
        goto done;
    }
    st->ntrees = ntrees;
    st->norm = avg_path((double)sample);
    if (st->norm <= 0)
        st->norm = 1;
    for (size_t i = 0; i < N; i++)
        perm[i] = (uint32_t)i;
    if_ctx c = {mx, st, cnt, (size_t)ceil(log2((double)(sample > 2 ? sample : 2))),
                (uint64_t)DETECT_PARAM(d, 3), feats, occ, seen, first, differs};
    for (size_t t = 0; t < ntrees; t++) {
        memset(cnt, 0, D * sizeof *cnt);
        /* partial Fisher-Yates: the first `sample` entries are the draw */
        for (size_t i = 0; i < sample; i++) {
            size_t j = i + (size_t)ltk_detect_rand_below(&c.rng, N - i);
            uint32_t tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
            cnt[mx->row_of[perm[i]]] += 1;
        }
        size_t n = 0;
        for (size_t r = 0; r < D; r++)
            if (cnt[r] > 0)
                rows[n++] = (uint32_t)r;
        st->roots[t] = (uint32_t)st->count;
        if (grow(&c, rows, n, 0) != 0) {
            rc = LOGTK_ERR_NOMEM;
            goto done;
        }
    }
    st->roots[ntrees] = (uint32_t)st->count;
    d->state = st;
    /* threshold: (1 - contamination) quantile of the training scores */
    scored *sc = malloc(D * sizeof *sc);
    double *x = malloc(mx->ncols * sizeof *x);
    if (!sc || !x) {
        free(sc);
        free(x);
        d->state = NULL;
        rc = LOGTK_ERR_NOMEM;
        goto done;
    }
    for (size_t r = 0; r < D; r++) {
        memcpy(x, mx->x + r * mx->ncols, mx->ncols * sizeof *x);
        sc[r].score = iforest_score(d, x);
        sc[r].weight = mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r];
    }
    qsort(sc, D, sizeof *sc, cmp_scored);
    double pos = (1.0 - DETECT_PARAM(d, 2)) * (double)(N - 1);
    double below = 0;
    double lo = sc[D - 1].score, hi = sc[D - 1].score;
    size_t k;
    for (k = 0; k < D; k++) {
        if (below + sc[k].weight > pos) {
            lo = sc[k].score;
            /* the next expanded element after floor(pos) */
            if (below + sc[k].weight > floor(pos) + 1 || k + 1 == D)
                hi = sc[k].score;
            else
                hi = sc[k + 1].score;
            break;
        }
        below += sc[k].weight;
    }
    d->threshold = lo + (pos - floor(pos)) * (hi - lo);
    free(sc);
    free(x);
    st = NULL;
done:
    iforest_free(st);
    free(perm);
    free(cnt);
    free(rows);
    free(feats);
    free(occ);
    free(seen);
    free(first);
    free(differs);
    return rc;
}

static int iforest_save(const logtk_detector *d, ltk_strbuf *b)
{
    const iforest_state *st = d->state;
    int bad = ltk_strbuf_put_varint(b, st->ntrees);
    bad |= ltk_detect_put_f64(b, st->norm);
    bad |= ltk_strbuf_put_varint(b, st->count);
    for (size_t t = 0; t <= st->ntrees; t++)
        bad |= ltk_detect_put_u32(b, st->roots[t]);
    for (size_t i = 0; i < st->count; i++) {
        bad |= ltk_detect_put_u32(b, (uint32_t)(st->nodes[i].feature + 1));
        bad |= ltk_detect_put_u32(b, st->nodes[i].right);
        bad |= ltk_detect_put_f64(b, st->nodes[i].value);
    }
    return bad ? -1 : 0;
}

static int iforest_load(logtk_detector *d, ltk_detect_cursor *c)
{
    size_t left = (size_t)(c->end - c->p);
    size_t ntrees = ltk_detect_get_count(c, left / 4);
    double norm = ltk_detect_get_f64(c);
    size_t count = ltk_detect_get_count(c, left / 16);
    if (c->bad || ntrees == 0 || count == 0 || !(norm > 0))
        return LOGTK_ERR_STATE;
    iforest_state *st = calloc(1, sizeof *st);
    if (!st)
        return LOGTK_ERR_NOMEM;
    d->state = st;
    st->roots = malloc((ntrees + 1) * sizeof *st->roots);
    st->nodes = malloc(count * sizeof *st->nodes);
    if (!st->roots || !st->nodes)
        return LOGTK_ERR_NOMEM;
    st->ntrees = ntrees;
    st->norm = norm;
    st->count = st->cap = count;
    for (size_t t = 0; t <= ntrees; t++) {
        st->roots[t] = ltk_detect_get_u32(c);
        if (st->roots[t] > count || (t > 0 && st->roots[t] <= st->roots[t - 1]))
            c->bad = 1;
    }
    if (!c->bad && (st->roots[0] != 0 || st->roots[ntrees] != count))
        c->bad = 1;
    for (size_t t = 0; t < ntrees && !c->bad; t++) {
        uint32_t end = st->roots[t + 1];
        for (uint32_t i = st->roots[t]; i < end && !c->bad; i++) {
            if_node *n = &st->nodes[i];
            uint32_t f = ltk_detect_get_u32(c);
            /* f is checked against ncols below; a huge f must not overflow here */
            n->feature = f <= d->features.ncols ? (int32_t)f - 1 : -1;
            n->right = ltk_detect_get_u32(c);
            n->value = ltk_detect_get_f64(c);
            /* an inner node's children lie after it, inside its tree */
            if (f > d->features.ncols ||
                (n->feature >= 0 && (i + 1 >= end || n->right <= i + 1 || n->right >= end)))
                c->bad = 1;
        }
    }
    return c->bad ? LOGTK_ERR_STATE : LOGTK_OK;
}

const ltk_detect_model_ops ltk_detect_iforest_ops = {
    "iforest", "Isolation Forest: short random isolation paths are anomalous",
    0, 0, 0, 0, iforest_params, iforest_train, iforest_score, iforest_save, iforest_load,
    iforest_free, 0, NULL, NULL,
};
