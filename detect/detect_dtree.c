/*
 * detect_dtree.c - CART decision tree with Gini impurity (loglizer's
 * DecisionTree, sklearn defaults: grown until pure, best split per node).
 *
 * The tree is grown on the distinct training vectors, each carrying its
 * normal and anomalous multiplicities, which gives exactly the impurities
 * the expanded data would.  At every node each feature's values are sorted
 * and every midpoint between consecutive distinct values is tried; the split
 * with the lowest weighted child impurity wins (first feature on ties, so
 * training is deterministic).  A leaf's score is its anomalous fraction;
 * verdict when above 0.5 (a tie predicts normal, as sklearn's argmax does).
 */
#include "config.h"
#include "detect_impl.h"

#include <stdlib.h>
#include <string.h>

static const ltk_detect_param_def dtree_params[] = {
    {"max_depth", 0, 0, 10000, NULL, "deepest level (0 = unlimited)"},
    {"min_samples_split", 2, 2, 1e12, NULL, "rows a node needs to be split"},
    {NULL, 0, 0, 0, NULL, NULL},
};

typedef struct dtree_node {
    int32_t feature; /* -1 = leaf */
    uint32_t left, right;
    double threshold; /* go left when x[feature] <= threshold */
    double value;     /* leaf: anomalous fraction */
} dtree_node;

typedef struct dtree_state {
    dtree_node *nodes;
    size_t count, cap;
} dtree_state;

static void dtree_free(void *p)
{
    dtree_state *st = p;
    if (st) {
        free(st->nodes);
        free(st);
    }
}

static int64_t new_node(dtree_state *st)
{
    if (st->count == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        dtree_node *n = realloc(st->nodes, cap * sizeof *n);
        if (!n)
            return -1;
        st->nodes = n;
        st->cap = cap;
    }
    memset(&st->nodes[st->count], 0, sizeof st->nodes[0]);
    st->nodes[st->count].feature = -1;
    return (int64_t)st->count++;
}

typedef struct build_ctx {
    const ltk_detect_matrix *mx;
    dtree_state *st;
    size_t max_depth;
    double min_split;
} build_ctx;

static double gini(double a, double n)
{
    double t = a + n;
    if (t <= 0)
        return 0;
    double pa = a / t, pn = n / t;
    return 1 - pa * pa - pn * pn;
}

/* Insertion sort by one column: nodes are small (distinct vectors), and it
   keeps the code re-entrant. */
static void sort_by_col(const ltk_detect_matrix *mx, uint32_t *rows, size_t n, size_t col)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t r = rows[i];
        double v = mx->x[r * mx->ncols + col];
        size_t j = i;
        while (j > 0 && mx->x[rows[j - 1] * mx->ncols + col] > v) {
            rows[j] = rows[j - 1];
            j--;
        }
        rows[j] = r;
    }
}

static int build(build_ctx *c, uint32_t *rows, size_t n, size_t depth, int64_t *out)
{
    const ltk_detect_matrix *mx = c->mx;
    int64_t id = new_node(c->st);
    if (id < 0)
        return -1;
    *out = id;
    double a = 0, nn = 0;
    for (size_t i = 0; i < n; i++) {
        a += mx->w_anomaly[rows[i]];
        nn += mx->w_normal[rows[i]];
    }
    c->st->nodes[id].value = a + nn > 0 ? a / (a + nn) : 0;
    if (a == 0 || nn == 0 || n < 2 || (c->max_depth && depth >= c->max_depth) ||
        a + nn < c->min_split)
        return 0;
    double parent = gini(a, nn) * (a + nn);
    double best = parent;
    int32_t best_f = -1;
    double best_t = 0;
    for (size_t f = 0; f < mx->ncols; f++) {
        sort_by_col(mx, rows, n, f);
        double la = 0, ln = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            la += mx->w_anomaly[rows[i]];
            ln += mx->w_normal[rows[i]];
            double v0 = mx->x[rows[i] * mx->ncols + f], v1 = mx->x[rows[i + 1] * mx->ncols + f];
            if (v0 == v1)
                continue;
            double imp = gini(la, ln) * (la + ln) + gini(a - la, nn - ln) * (a + nn - la - ln);
            if (imp < best - 1e-12) {
                best = imp;
                best_f = (int32_t)f;
                best_t = v0 + (v1 - v0) / 2;
            }
        }
    }
    if (best_f < 0) {
        /* no split lowers the impurity; sklearn would still split on any
           separable feature: take the first feature with two values */
        for (size_t f = 0; f < mx->ncols && best_f < 0; f++) {
            sort_by_col(mx, rows, n, f);
            double lo = mx->x[rows[0] * mx->ncols + f], hi = mx->x[rows[n - 1] * mx->ncols + f];
            if (lo != hi) {
                best_f = (int32_t)f;
                for (size_t i = 0; i + 1 < n; i++) {
                    double v0 = mx->x[rows[i] * mx->ncols + f];
                    double v1 = mx->x[rows[i + 1] * mx->ncols + f];
                    if (v0 != v1) {
                        best_t = v0 + (v1 - v0) / 2;
                        break;
                    }
                }
            }
        }
        if (best_f < 0)
            return 0; /* identical vectors with both labels: a mixed leaf */
    }
    /* partition rows */
    size_t nl = 0;
    for (size_t i = 0; i < n; i++)
        if (mx->x[rows[i] * mx->ncols + best_f] <= best_t) {
            uint32_t t = rows[nl];
            rows[nl++] = rows[i];
            rows[i] = t;
        }
    int64_t l, r;
    if (build(c, rows, nl, depth + 1, &l) != 0 || build(c, rows + nl, n - nl, depth + 1, &r) != 0)
        return -1;
    dtree_node *node = &c->st->nodes[id];
    node->feature = best_f;
    node->threshold = best_t;
    node->left = (uint32_t)l;
    node->right = (uint32_t)r;
    return 0;
}

static int dtree_train(logtk_detector *d, const ltk_detect_matrix *mx)
{
    dtree_state *st = calloc(1, sizeof *st);
    uint32_t *rows = malloc((mx->nrows ? mx->nrows : 1) * sizeof *rows);
    if (!st || !rows) {
        free(st);
        free(rows);
        return LOGTK_ERR_NOMEM;
    }
    size_t n = 0;
    for (size_t r = 0; r < mx->nrows; r++)
        if (mx->w_anomaly[r] + mx->w_normal[r] > 0)
            rows[n++] = (uint32_t)r;
    build_ctx c = {mx, st, (size_t)DETECT_PARAM(d, 0), DETECT_PARAM(d, 1)};
    int64_t root;
    int rc = build(&c, rows, n, 0, &root);
    free(rows);
    if (rc != 0) {
        dtree_free(st);
        return LOGTK_ERR_NOMEM;
    }
    d->state = st;
    d->threshold = 0.5;
    return LOGTK_OK;
}

static double dtree_score(const logtk_detector *d, double *x)
{
    const dtree_state *st = d->state;
    const dtree_node *node = &st->nodes[0];
    while (node->feature >= 0)
        node = &st->nodes[x[node->feature] <= node->threshold ? node->left : node->right];
    return node->value;
}

static int dtree_save(const logtk_detector *d, ltk_strbuf *b)
{
    const dtree_state *st = d->state;
    int bad = ltk_strbuf_put_varint(b, st->count);
    for (size_t i = 0; i < st->count; i++) {
        const dtree_node *n = &st->nodes[i];
        bad |= ltk_detect_put_u32(b, (uint32_t)(n->feature + 1));
        bad |= ltk_detect_put_u32(b, n->left);
        bad |= ltk_detect_put_u32(b, n->right);
        bad |= ltk_detect_put_f64(b, n->threshold);
        bad |= ltk_detect_put_f64(b, n->value);
    }
    return bad ? -1 : 0;
}

static int dtree_load(logtk_detector *d, ltk_detect_cursor *c)
{
    size_t count = ltk_detect_get_count(c, (size_t)(c->end - c->p) / 28);
    if (c->bad || count == 0)
        return LOGTK_ERR_STATE;
    dtree_state *st = calloc(1, sizeof *st);
    if (!st)
        return LOGTK_ERR_NOMEM;
    d->state = st;
    st->nodes = malloc(count * sizeof *st->nodes);
    if (!st->nodes)
        return LOGTK_ERR_NOMEM;
    st->count = st->cap = count;
    for (size_t i = 0; i < count; i++) {
        dtree_node *n = &st->nodes[i];
        uint32_t f = ltk_detect_get_u32(c);
        /* checked before it becomes an index: a damaged 0x80000000 must not
           overflow int on the way (f - 1 as int32_t) */
        n->feature = f != 0 && f <= d->features.ncols ? (int32_t)(f - 1) : -1;
        n->left = ltk_detect_get_u32(c);
        n->right = ltk_detect_get_u32(c);
        n->threshold = ltk_detect_get_f64(c);
        n->value = ltk_detect_get_f64(c);
        /* children must come later, so a damaged file cannot make a cycle */
        if (f > d->features.ncols ||
            (n->feature >= 0 && (n->left <= i || n->right <= i || n->left >= count ||
                                 n->right >= count)))
            c->bad = 1;
    }
    return c->bad ? LOGTK_ERR_STATE : LOGTK_OK;
}

const ltk_detect_model_ops ltk_detect_dtree_ops = {
    "dtree", "decision tree (CART, Gini), supervised",
    1, 1, 0, 0, dtree_params, dtree_train, dtree_score, dtree_save, dtree_load, dtree_free, 0, NULL, NULL,
};
