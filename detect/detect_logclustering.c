/*
 * detect_logclustering.c - LogClustering (Lin et al., ICSE 2016), after
 * loglizer: tf-idf vectors, cosine distance, max_dist 0.3, "online" mode
 * with 1,000 bootstrap rows; loglizer's anomaly threshold 0.3 with radius=0.
 *
 * The defaults differ from loglizer's so that the model works when trained
 * on normal sessions only (DeepLog's protocol): the smoothed idf (tfidf=2),
 * since loglizer's gives the events of every training session weight 0 and
 * a session of only those events the zero vector, and per-cluster radii
 * (radius=1): a row is anomalous when it lies more than `margin` beyond the
 * radius of every cluster, a radius being the farthest training row whose
 * nearest cluster it is.  A single fixed threshold either flags normal rows
 * that the online pass left 0.14 from their moved cluster mean (DeepLog) or
 * passes truncated sessions 0.11 from a one-session cluster (hdfs100k).
 *
 * Training (on normal rows when labels are known): complete-linkage
 * agglomerative clustering of the first `bootstrap` rows, cut at max_dist;
 * each cluster is represented by its mean.  The remaining rows are then
 * assigned online, in input order: join the nearest representative when
 * within max_dist (moving its mean), else found a new cluster.  With
 * radius=0 a row is anomalous when its distance to the nearest
 * representative exceeds the anomaly threshold.  Distance = 1 - cos(x, y)
 * (0 below 1e-8).
 *
 * Identical vectors are at distance 0 and complete linkage merges them
 * first without changing any other distance, so the bootstrap clustering
 * runs over distinct vectors with counts; the online pass walks the rows in
 * order (its cost is rows x clusters x the row's nonzero columns, plus
 * the columns once per row; no per-row allocation).
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ltk_detect_param_def lc_params[] = {
    {"max_dist", 0.3, 0, 2, NULL, "largest distance inside a cluster"},
    {"anomaly_threshold", 0.3, 0, 2, NULL, "distance to the nearest cluster above which a row is anomalous"},
    {"bootstrap", 1000, 1, 1e9, NULL, "rows clustered offline before the online pass"},
    {"radius", 1, 0, 1, NULL,
     "1: a row is anomalous beyond its nearest cluster's training radius plus margin; "
     "0: beyond anomaly_threshold (loglizer)"},
    {"margin", 0.01, 0, 2, NULL, "distance beyond a cluster's radius still normal (radius=1)"},
    {NULL, 0, 0, 0, NULL, NULL},
};

typedef struct lc_state {
    size_t m, count, cap;
    double *reps;  /* count x m */
    double *norms; /* count */
    double *sizes; /* count */
    double *radii; /* count: the farthest training row whose nearest cluster it is
                      (radius=1), else NULL */
    uint32_t *nz;  /* m: scratch, the nonzero columns of the vector being placed */
} lc_state;

static void lc_free(void *p)
{
    lc_state *st = p;
    if (st) {
        free(st->reps);
        free(st->norms);
        free(st->sizes);
        free(st->radii);
        free(st->nz);
        free(st);
    }
}

static double norm2(const double *x, size_t m)
{
    double s = 0;
    for (size_t j = 0; j < m; j++)
        s += x[j] * x[j];
    return sqrt(s);
}

/* Columns where x is nonzero, ascending.  A session has a few of the events,
   so distances summed over these cost its events, not the vocabulary; the
   terms left out are +-0 and the sum (from +0) is the same bit for bit. */
static size_t nonzeros(const double *x, size_t m, uint32_t *nz)
{
    size_t n = 0;
    for (size_t j = 0; j < m; j++)
        if (x[j] != 0)
            nz[n++] = (uint32_t)j;
    return n;
}

/* Cosine distance of a (nonzero at nz[0..nnz)) and b. */
static double cos_dist(const double *a, const uint32_t *nz, size_t nnz, double na,
                       const double *b, double nb)
{
    /* a vector of zero weights (tf-idf of events that every training session
       has) is the same point as another such vector, and as far as can be
       from every other: without this, 1 - 0 / 1e-8 put it at distance 1 from
       everything, itself included, so such sessions founded a cluster each
       (training ~100x slower) and were all anomalous */
    if (na == 0 || nb == 0)
        return na == 0 && nb == 0 ? 0 : 1;
    double dot = 0;
    for (size_t k = 0; k < nnz; k++)
        dot += a[nz[k]] * b[nz[k]];
    double dist = 1 - dot / (na * nb + 1e-8);
    return dist < 1e-8 ? 0 : dist;
}

static int lc_add(lc_state *st, const double *x, double size)
{
    if (st->count == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        double *r = realloc(st->reps, cap * st->m * sizeof *r);
        if (r)
            st->reps = r;
        double *n = realloc(st->norms, cap * sizeof *n);
        if (n)
            st->norms = n;
        double *s = realloc(st->sizes, cap * sizeof *s);
        if (s)
            st->sizes = s;
        if (!r || !n || !s)
            return -1;
        st->cap = cap;
    }
    memcpy(st->reps + st->count * st->m, x, st->m * sizeof *x);
    st->norms[st->count] = norm2(x, st->m);
    st->sizes[st->count] = size;
    st->count++;
    return 0;
}

static size_t nearest(const lc_state *st, const double *x, double nx, double *dist)
{
    size_t best = 0;
    double bd = INFINITY;
    size_t nnz = nonzeros(x, st->m, st->nz);
    for (size_t c = 0; c < st->count; c++) {
        /* x's zeros are the terms left out: the same sum as over reps' order */
        double dd = cos_dist(x, st->nz, nnz, nx, st->reps + c * st->m, st->norms[c]);
        if (dd < bd) {
            bd = dd;
            best = c;
        }
    }
    *dist = bd;
    return best;
}

/* The smallest distance of x beyond a cluster's radius (radius=1's score). */
static double beyond_radius(const lc_state *st, const double *x, double nx)
{
    double best = INFINITY;
    size_t nnz = nonzeros(x, st->m, st->nz);
    for (size_t c = 0; c < st->count; c++) {
        double dd = cos_dist(x, st->nz, nnz, nx, st->reps + c * st->m, st->norms[c]) -
                    st->radii[c];
        if (dd < best)
            best = dd;
    }
    return best;
}

/* Each cluster's radius: the farthest of the training rows whose nearest
   representative it is, measured against the final representatives (the
   online pass moved them after the rows joined), so no training row lies
   beyond its cluster's radius. */
static int lc_radii(lc_state *st, const ltk_detect_matrix *mx, const double *norms)
{
    st->radii = calloc(st->count ? st->count : 1, sizeof *st->radii);
    if (!st->radii)
        return -1;
    for (size_t r = 0; r < mx->nrows; r++) {
        double dist;
        size_t c = nearest(st, mx->x + r * st->m, norms[r], &dist);
        if (dist > st->radii[c])
            st->radii[c] = dist;
    }
    return 0;
}

static int lc_train(logtk_detector *d, const ltk_detect_matrix *mx)
{
    size_t m = mx->ncols, N = mx->ninput;
    double max_dist = DETECT_PARAM(d, 0);
    size_t boot = (size_t)DETECT_PARAM(d, 2);
    if (boot > N)
        boot = N;
    lc_state *st = calloc(1, sizeof *st);
    double *cnt = calloc(mx->nrows, sizeof *cnt);
    uint32_t *ids = malloc(mx->nrows * sizeof *ids);
    double *norms = malloc(mx->nrows * sizeof *norms);
    int rc = LOGTK_ERR_NOMEM;
    double *dm = NULL, *sizes = NULL, *sums = NULL;
    int32_t *cluster = NULL;
    if (!st || !cnt || !ids || !norms || !(st->nz = malloc((m ? m : 1) * sizeof *st->nz)))
        goto done;
    st->m = m;
    for (size_t r = 0; r < mx->nrows; r++)
        norms[r] = norm2(mx->x + r * m, m);
    /* distinct vectors of the bootstrap rows, in first-appearance order */
    size_t n = 0;
    for (size_t k = 0; k < boot; k++) {
        uint32_t r = mx->row_of[k];
        if (cnt[r]++ == 0)
            ids[n++] = r;
    }
    dm = malloc((n * n > 0 ? n * n : 1) * sizeof *dm);
    sizes = malloc((n ? n : 1) * sizeof *sizes);
    cluster = malloc((n ? n : 1) * sizeof *cluster);
    sums = calloc((n ? n : 1) * m, sizeof *sums);
    if (!dm || !sizes || !cluster || !sums)
        goto done;
    for (size_t i = 0; i < n; i++) {
        cluster[i] = (int32_t)i;
        sizes[i] = cnt[ids[i]];
        const double *xi = mx->x + ids[i] * m;
        size_t nnz = nonzeros(xi, m, st->nz);
        for (size_t j = 0; j < n; j++)
            dm[i * n + j] = cos_dist(xi, st->nz, nnz, norms[ids[i]], mx->x + ids[j] * m,
                                     norms[ids[j]]);
    }
    /* complete linkage: repeatedly merge the closest active pair while
       its distance is within max_dist; the merged distance is the max */
    uint8_t *active = malloc(n ? n : 1);
    if (!active)
        goto done;
    memset(active, 1, n);
    for (;;) {
        double bd = INFINITY;
        size_t bi = 0, bj = 0;
        for (size_t i = 0; i < n; i++) {
            if (!active[i])
                continue;
            for (size_t j = i + 1; j < n; j++)
                if (active[j] && dm[i * n + j] < bd) {
                    bd = dm[i * n + j];
                    bi = i;
                    bj = j;
                }
        }
        if (!(bd <= max_dist))
            break;
        active[bj] = 0;
        for (size_t k = 0; k < n; k++) {
            double v = dm[bi * n + k] > dm[bj * n + k] ? dm[bi * n + k] : dm[bj * n + k];
            dm[bi * n + k] = dm[k * n + bi] = v;
        }
        for (size_t k = 0; k < n; k++)
            if (cluster[k] == (int32_t)bj)
                cluster[k] = (int32_t)bi;
    }
    free(active);
    /* representatives: means over the clusters' rows, clusters in order of
       their first member */
    for (size_t i = 0; i < n; i++) {
        size_t c = (size_t)cluster[i];
        const double *x = mx->x + ids[i] * m;
        for (size_t j = 0; j < m; j++)
            sums[c * m + j] += cnt[ids[i]] * x[j];
    }
    for (size_t i = 0; i < n; i++) {
        if (cluster[i] != (int32_t)i)
            continue;
        double total = 0;
        for (size_t k = 0; k < n; k++)
            if (cluster[k] == (int32_t)i)
                total += cnt[ids[k]];
        for (size_t j = 0; j < m; j++)
            sums[i * m + j] /= total;
        if (lc_add(st, sums + i * m, total) != 0)
            goto done;
    }
    /* online pass over the rest, in input order */
    double *tmp = malloc(m * sizeof *tmp);
    if (!tmp)
        goto done;
    for (size_t k = boot; k < N; k++) {
        uint32_t r = mx->row_of[k];
        const double *x = mx->x + r * m;
        double dist = INFINITY;
        size_t c = st->count ? nearest(st, x, norms[r], &dist) : 0;
        if (st->count && dist <= max_dist) {
            double *rep = st->reps + c * m;
            st->sizes[c] += 1;
            for (size_t j = 0; j < m; j++)
                rep[j] += (x[j] - rep[j]) / st->sizes[c];
            st->norms[c] = norm2(rep, m);
        } else if (lc_add(st, x, 1) != 0) {
            free(tmp);
            goto done;
        }
    }
    free(tmp);
    if (DETECT_PARAM(d, 3) != 0 && lc_radii(st, mx, norms) != 0)
        goto done;
    d->state = st;
    d->threshold = DETECT_PARAM(d, 3) != 0 ? DETECT_PARAM(d, 4) : DETECT_PARAM(d, 1);
    st = NULL;
    rc = LOGTK_OK;
done:
    lc_free(st);
    free(cnt);
    free(ids);
    free(norms);
    free(dm);
    free(sizes);
    free(cluster);
    free(sums);
    return rc;
}

static double lc_score(const logtk_detector *d, double *x)
{
    const lc_state *st = d->state;
    if (st->radii)
        return beyond_radius(st, x, norm2(x, st->m));
    double dist;
    nearest(st, x, norm2(x, st->m), &dist);
    return dist;
}

static int lc_save(const logtk_detector *d, ltk_strbuf *b)
{
    const lc_state *st = d->state;
    int bad = ltk_strbuf_put_varint(b, st->count);
    for (size_t c = 0; c < st->count; c++) {
        bad |= ltk_detect_put_f64(b, st->sizes[c]);
        bad |= ltk_detect_put_f64s(b, st->reps + c * st->m, st->m);
    }
    if (st->radii)
        bad |= ltk_detect_put_f64s(b, st->radii, st->count);
    return bad ? -1 : 0;
}

static int lc_load(logtk_detector *d, ltk_detect_cursor *c)
{
    size_t m = d->features.ncols;
    size_t count = ltk_detect_get_count(c, (size_t)(c->end - c->p) / (8 * (m + 1)));
    if (c->bad || count == 0)
        return LOGTK_ERR_STATE;
    lc_state *st = calloc(1, sizeof *st);
    if (!st)
        return LOGTK_ERR_NOMEM;
    d->state = st;
    st->m = m;
    st->nz = malloc((m ? m : 1) * sizeof *st->nz);
    if (!st->nz)
        return LOGTK_ERR_NOMEM;
    for (size_t k = 0; k < count && !c->bad; k++) {
        double size = ltk_detect_get_f64(c);
        double *rep = ltk_detect_get_f64s(c, m);
        if (!rep)
            return LOGTK_ERR_STATE;
        int bad = lc_add(st, rep, size);
        free(rep);
        if (bad)
            return LOGTK_ERR_NOMEM;
    }
    if (!c->bad && DETECT_PARAM(d, 3) != 0) {
        st->radii = ltk_detect_get_f64s(c, count);
        if (!st->radii)
            return LOGTK_ERR_STATE;
    }
    return c->bad ? LOGTK_ERR_STATE : LOGTK_OK;
}

const ltk_detect_model_ops ltk_detect_logclustering_ops = {
    "logclustering", "LogClustering: cosine distance to clusters of normal sessions",
    0, DETECT_TFIDF_SMOOTH, 0, 1, lc_params, lc_train, lc_score, lc_save, lc_load, lc_free, 0, NULL, NULL,
};
