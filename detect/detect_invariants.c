/*
 * detect_invariants.c - Invariants Mining (Lou et al., USENIX ATC 2010), as
 * loglizer's InvariantsMiner: raw event counts, percentage 0.98, epsilon 0.5.
 *
 * A program workflow makes linear relations hold between event counts
 * ("open" count = "close" count).  Mining:
 *  1. Estimate how many invariants to look for: eigenvectors of X^T X from
 *     the smallest eigenvalue up, counting those u with |X u| < epsilon on at
 *     least `percentage` of the rows.
 *  2. Apriori search over column sets of growing size: candidates of size L
 *     are unions of two size L-1 survivors whose every L-1 subset is still in
 *     the search space.  For a candidate S, theta = the eigenvector of the
 *     smallest eigenvalue of X_S^T X_S (the least-squares null direction),
 *     scaled so its smallest entry is 1, 2 or 3 and rounded to integers; S is
 *     an invariant when X_S theta = 0 on `percentage` of the rows.  Found
 *     invariants remove the sets that would merely re-derive them.
 *  3. A row violating any invariant is anomalous: score = sum |X_S theta|.
 * All-zero columns are invariants of their own (the event never happens).
 * Rows carry multiplicities, so replicated data costs nothing extra.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Most events mined: the eigen-decomposition of the m x m X^T X and the
   pairwise joins grow as m^3 and m^2 (1,000 events: a few seconds). */
#define IM_MAX_EVENTS 1000

static const ltk_detect_param_def im_params[] = {
    {"percentage", 0.98, 0, 1, NULL, "share of rows an invariant must hold on"},
    {"epsilon", 0.5, 0, 1e9, NULL, "|X u| below this counts as zero when sizing the space"},
    {"max_length", 0, 0, 64, NULL, "longest invariant in columns (0 = unlimited)"},
    {"max_candidates", 200000, 1, 1e9, NULL, "stop the search beyond this many candidates"},
    {NULL, 0, 0, 0, NULL, NULL},
};

typedef struct invariant {
    uint32_t offset, len; /* into cols/theta */
} invariant;

typedef struct im_state {
    size_t count;
    invariant *inv;
    uint32_t *cols;
    double *theta;
    size_t ncoef, coef_cap;
} im_state;

static void im_free(void *p)
{
    im_state *st = p;
    if (st) {
        free(st->inv);
        free(st->cols);
        free(st->theta);
        free(st);
    }
}

static int im_add(im_state *st, const uint32_t *cols, const double *theta, size_t len)
{
    invariant *inv = realloc(st->inv, (st->count + 1) * sizeof *inv);
    if (!inv)
        return -1;
    st->inv = inv;
    if (st->ncoef + len > st->coef_cap) {
        size_t cap = (st->coef_cap + len) * 2;
        uint32_t *c = realloc(st->cols, cap * sizeof *c);
        if (c)
            st->cols = c;
        double *t = realloc(st->theta, cap * sizeof *t);
        if (t)
            st->theta = t;
        if (!c || !t)
            return -1;
        st->coef_cap = cap;
    }
    memcpy(st->cols + st->ncoef, cols, len * sizeof *cols);
    memcpy(st->theta + st->ncoef, theta, len * sizeof *theta);
    st->inv[st->count].offset = (uint32_t)st->ncoef;
    st->inv[st->count].len = (uint32_t)len;
    st->ncoef += len;
    st->count++;
    return 0;
}

typedef struct im_ctx {
    const ltk_detect_matrix *mx;
    double total; /* rows with multiplicity */
    double percentage;
    ltk_hashtab sets; /* every candidate ever made: key = sorted uint32 cols */
    uint8_t *in_space;  /* per set id */
    uint8_t *is_inv;
    size_t space_cap;
} im_ctx;

static double row_weight(const ltk_detect_matrix *mx, size_t r)
{
    return mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r];
}

/* Does theta over cols hold (|x.theta| < 1e-8) on >= percentage of rows? */
static int holds(const im_ctx *c, const uint32_t *cols, const double *theta, size_t len)
{
    const ltk_detect_matrix *mx = c->mx;
    double zero = 0;
    for (size_t r = 0; r < mx->nrows; r++) {
        double s = 0;
        for (size_t k = 0; k < len; k++)
            s += mx->x[r * mx->ncols + cols[k]] * theta[k];
        if (fabs(s) < 1e-8)
            zero += row_weight(mx, r);
    }
    return zero >= c->percentage * c->total;
}

/* loglizer's _check_invar_validity: smallest right singular vector, scaled. */
static int check_validity(const im_ctx *c, const uint32_t *cols, size_t len, double *theta)
{
    const ltk_detect_matrix *mx = c->mx;
    double a[64 * 64], w[64], v[64 * 64], min_theta[64];
    memset(a, 0, len * len * sizeof *a);
    for (size_t r = 0; r < mx->nrows; r++) {
        double wt = row_weight(mx, r);
        const double *x = mx->x + r * mx->ncols;
        for (size_t i = 0; i < len; i++)
            for (size_t j = 0; j < len; j++)
                a[i * len + j] += wt * x[cols[i]] * x[cols[j]];
    }
    ltk_detect_symmetric_eigen(a, len, w, v);
    size_t min_index = 0;
    for (size_t i = 0; i < len; i++) {
        min_theta[i] = v[i * len + (len - 1)]; /* smallest eigenvalue's vector */
        if (fabs(min_theta[i]) < 1e-12)
            return 0;
        if (fabs(min_theta[i]) < fabs(min_theta[min_index]))
            min_index = i;
    }
    for (int scale_i = 1; scale_i <= 3; scale_i++) {
        double scale = (double)scale_i / min_theta[min_index];
        int has_zero = 0;
        for (size_t i = 0; i < len; i++) {
            theta[i] = nearbyint(min_theta[i] * scale);
            if (theta[i] == 0)
                has_zero = 1;
        }
        theta[min_index] = scale_i;
        if (has_zero)
            continue;
        if (holds(c, cols, theta, len))
            return 1;
    }
    return 0;
}

static int64_t set_id(im_ctx *c, const uint32_t *cols, size_t len, int create)
{
    if (!create)
        return ltk_hashtab_find(&c->sets, cols, len * sizeof *cols);
    int inserted = 0;
    int64_t id = ltk_hashtab_intern(&c->sets, cols, len * sizeof *cols, &inserted);
    if (id < 0)
        return -1;
    if ((size_t)id >= c->space_cap) {
        size_t cap = c->space_cap ? c->space_cap * 2 : 1024;
        uint8_t *s = realloc(c->in_space, cap);
        if (s)
            c->in_space = s;
        uint8_t *iv = realloc(c->is_inv, cap);
        if (iv)
            c->is_inv = iv;
        if (!s || !iv)
            return -1;
        memset(c->in_space + c->space_cap, 0, cap - c->space_cap);
        memset(c->is_inv + c->space_cap, 0, cap - c->space_cap);
        c->space_cap = cap;
    }
    return id;
}

static int in_space(const im_ctx *c, const uint32_t *cols, size_t len)
{
    int64_t id = ltk_hashtab_find(&c->sets, cols, len * sizeof *cols);
    return id >= 0 && c->in_space[id];
}

/* every (len-1)-subset of cols in the search space */
static int subsets_in_space(const im_ctx *c, const uint32_t *cols, size_t len)
{
    uint32_t sub[64];
    for (size_t skip = 0; skip < len; skip++) {
        size_t k = 0;
        for (size_t i = 0; i < len; i++)
            if (i != skip)
                sub[k++] = cols[i];
        if (!in_space(c, sub, len - 1))
            return 0;
    }
    return 1;
}

static int lex_less(const uint32_t *a, const uint32_t *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

static int im_train(logtk_detector *d, const ltk_detect_matrix *mx)
{
    size_t m = mx->ncols;
    im_ctx c;
    memset(&c, 0, sizeof c);
    c.mx = mx;
    c.percentage = DETECT_PARAM(d, 0);
    double epsilon = DETECT_PARAM(d, 1);
    size_t max_len = (size_t)DETECT_PARAM(d, 2);
    size_t max_cand = (size_t)DETECT_PARAM(d, 3);
    if (max_len == 0 || max_len > 64)
        max_len = m < 64 ? m : 64;
    if (m > IM_MAX_EVENTS)
        return ltk_error_set(&d->err, LOGTK_ERR_LIMIT,
                               "invariants: %zu events exceed the %d that the search over "
                               "event combinations is limited to; train on fewer distinct "
                               "events (coarser templates, or sessions of one workflow)",
                               m, IM_MAX_EVENTS);
    for (size_t r = 0; r < mx->nrows; r++)
        c.total += row_weight(mx, r);
    im_state *st = calloc(1, sizeof *st);
    double *a = calloc(m * m, sizeof *a), *w = malloc(m * sizeof *w);
    double *v = malloc(m * m * sizeof *v);
    uint32_t *items = NULL, *joined = NULL;
    size_t nitems = 0, njoined = 0, joined_cap = 0;
    int rc = LOGTK_OK;
    if (!st || !a || !w || !v || ltk_hashtab_init(&c.sets, 4096) != 0) {
        rc = LOGTK_ERR_NOMEM;
        goto done;
    }
    /* 1. size of the invariant space */
    /* zero x[i] add nothing (a starts at +0, and +0 + -0 = +0), so skipping
       them keeps the sums bit for bit */
    for (size_t r = 0; r < mx->nrows; r++) {
        double wt = row_weight(mx, r);
        const double *x = mx->x + r * m;
        for (size_t i = 0; i < m; i++) {
            if (x[i] == 0)
                continue;
            for (size_t j = 0; j < m; j++)
                a[i * m + j] += wt * x[i] * x[j];
        }
    }
    if (m <= DETECT_JACOBI_MAX)
        ltk_detect_symmetric_eigen(a, m, w, v);
    else if (ltk_detect_symmetric_eigen_large(a, m, w, v) != 0) {
        rc = ltk_error_set(&d->err, LOGTK_ERR_NOMEM,
                             "invariants: out of memory in the %zu x %zu eigen-decomposition",
                             m, m);
        goto done;
    }
    /* Without centring a row's zeros stay zero, so X u sums over the row's
       own events (in column order, as the dense sum: the skipped terms are
       +-0 and change nothing). */
    const double *idf = mx->features->idf;
    int sparse = mx->features->mean == NULL;
    size_t target = 0;
    for (size_t e = m; e-- > 0;) {
        double zero = 0;
        for (size_t r = 0; r < mx->nrows; r++) {
            double s = 0;
            if (sparse)
                for (size_t at = mx->row_start[r]; at < mx->row_start[r + 1]; at++)
                    s += (double)mx->nz_count[at] * (idf ? idf[mx->nz_col[at]] : 1.0) *
                         v[mx->nz_col[at] * m + e];
            else
                for (size_t j = 0; j < m; j++)
                    s += mx->x[r * m + j] * v[j * m + e];
            if (fabs(s) < epsilon)
                zero += row_weight(mx, r);
        }
        if (zero / c.total < c.percentage)
            break;
        target++;
    }
    /* 2. single columns; all-zero columns are invariants */
    items = malloc(m * sizeof *items);
    if (!items) {
        rc = LOGTK_ERR_NOMEM;
        goto done;
    }
    for (uint32_t j = 0; j < m; j++) {
        int64_t id = set_id(&c, &j, 1, 1);
        if (id < 0) {
            rc = LOGTK_ERR_NOMEM;
            goto done;
        }
        int nonzero = 0;
        for (size_t r = 0; r < mx->nrows && !nonzero; r++)
            nonzero = mx->x[r * m + j] != 0;
        if (!nonzero) {
            double one = 1;
            if (im_add(st, &j, &one, 1) != 0) {
                rc = LOGTK_ERR_NOMEM;
                goto done;
            }
            c.is_inv[id] = 1;
        } else {
            c.in_space[id] = 1;
            items[nitems++] = j;
        }
    }
    size_t len = 2, candidates = 0;
    while (nitems > 0 && st->count < target && len <= max_len && candidates < max_cand) {
        /* join: unions of two (len-1)-sets that have len columns */
        size_t L = len - 1;
        njoined = 0;
        free(joined); /* rows are len wide now */
        joined = NULL;
        joined_cap = 0;
        for (size_t i = 0; i < nitems && candidates < max_cand; i++)
            for (size_t k = i + 1; k < nitems && candidates < max_cand; k++) {
                const uint32_t *p = items + i * L, *q = items + k * L;
                uint32_t u[64];
                size_t a_i = 0, b_i = 0, n = 0;
                while ((a_i < L || b_i < L) && n <= len) {
                    if (b_i >= L || (a_i < L && p[a_i] < q[b_i]))
                        u[n++] = p[a_i++];
                    else if (a_i >= L || q[b_i] < p[a_i])
                        u[n++] = q[b_i++];
                    else {
                        u[n++] = p[a_i++];
                        b_i++;
                    }
                }
                if (n != len)
                    continue;
                int64_t existing = set_id(&c, u, len, 0);
                if (existing >= 0 && (size_t)existing < c.space_cap && c.in_space[existing] == 2)
                    continue; /* already joined this round */
                int64_t id = set_id(&c, u, len, 1);
                if (id < 0) {
                    rc = LOGTK_ERR_NOMEM;
                    goto done;
                }
                if (c.in_space[id] == 2 || c.is_inv[id])
                    continue;
                if (njoined == joined_cap) {
                    joined_cap = joined_cap ? joined_cap * 2 : 256;
                    uint32_t *nj = realloc(joined, joined_cap * len * sizeof *nj);
                    if (!nj) {
                        rc = LOGTK_ERR_NOMEM;
                        goto done;
                    }
                    joined = nj;
                }
                memcpy(joined + njoined * len, u, len * sizeof *u);
                njoined++;
                candidates++;
                c.in_space[id] = 2; /* marker: joined, decided below */
            }
        /* sort joined lexicographically (insertion sort on blocks) */
        for (size_t i = 1; i < njoined; i++) {
            uint32_t tmp[64];
            memcpy(tmp, joined + i * len, len * sizeof *tmp);
            size_t k = i;
            while (k > 0 && lex_less(tmp, joined + (k - 1) * len, len)) {
                memcpy(joined + k * len, joined + (k - 1) * len, len * sizeof *tmp);
                k--;
            }
            memcpy(joined + k * len, tmp, len * sizeof *tmp);
        }
        /* candidates whose subsets are all in the space enter it */
        for (size_t i = 0; i < njoined; i++) {
            const uint32_t *u = joined + i * len;
            int64_t id = set_id(&c, u, len, 0);
            c.in_space[id] = subsets_in_space(&c, u, len) ? 1 : 0;
        }
        size_t nnext = 0;
        uint32_t *next = malloc((njoined ? njoined : 1) * len * sizeof *next);
        if (!next) {
            rc = LOGTK_ERR_NOMEM;
            goto done;
        }
        for (size_t i = 0; i < njoined && st->count < target; i++) {
            const uint32_t *u = joined + i * len;
            int64_t id = set_id(&c, u, len, 0);
            if (c.is_inv[id] || !c.in_space[id])
                continue;
            double theta[64];
            if (check_validity(&c, u, len, theta)) {
                /* prune: for an earlier invariant sharing columns, the sets
                   that the union minus one shared column would form */
                for (size_t q = 0; q < st->count; q++) {
                    const invariant *iv = &st->inv[q];
                    const uint32_t *ic = st->cols + iv->offset;
                    uint32_t uni[128];
                    size_t nu = 0;
                    for (size_t x = 0; x < iv->len; x++)
                        uni[nu++] = ic[x];
                    int shared = 0;
                    for (size_t x = 0; x < len; x++) {
                        int dup = 0;
                        for (size_t y = 0; y < iv->len; y++)
                            dup |= ic[y] == u[x];
                        if (dup)
                            shared = 1;
                        else if (nu < 128)
                            uni[nu++] = u[x];
                    }
                    if (!shared || nu > 64)
                        continue;
                    /* sort the union */
                    for (size_t x = 1; x < nu; x++)
                        for (size_t y = x; y > 0 && uni[y - 1] > uni[y]; y--) {
                            uint32_t t = uni[y];
                            uni[y] = uni[y - 1];
                            uni[y - 1] = t;
                        }
                    for (size_t x = 0; x < len; x++) {
                        int isshared = 0;
                        for (size_t y = 0; y < iv->len; y++)
                            isshared |= ic[y] == u[x];
                        if (!isshared)
                            continue;
                        uint32_t diff[64];
                        size_t nd = 0;
                        for (size_t y = 0; y < nu; y++)
                            if (uni[y] != u[x])
                                diff[nd++] = uni[y];
                        int64_t did = set_id(&c, diff, nd, 0);
                        if (did >= 0 && (size_t)did < c.space_cap)
                            c.in_space[did] = 0;
                    }
                }
                if (im_add(st, u, theta, len) != 0) {
                    free(next);
                    rc = LOGTK_ERR_NOMEM;
                    goto done;
                }
                c.is_inv[id] = 1;
                c.in_space[id] = 0;
            } else {
                memcpy(next + nnext * len, u, len * sizeof *u);
                nnext++;
            }
        }
        free(items);
        items = next;
        nitems = nnext;
        len++;
    }
    d->state = st;
    d->threshold = 1e-6;
    st = NULL;
done:
    im_free(st);
    free(a);
    free(w);
    free(v);
    free(items);
    free(joined);
    if (c.sets.slots)
        ltk_hashtab_free(&c.sets);
    free(c.in_space);
    free(c.is_inv);
    return rc;
}

static double im_score(const logtk_detector *d, double *x)
{
    const im_state *st = d->state;
    double sum = 0;
    for (size_t q = 0; q < st->count; q++) {
        const invariant *iv = &st->inv[q];
        double s = 0;
        for (uint32_t k = 0; k < iv->len; k++)
            s += x[st->cols[iv->offset + k]] * st->theta[iv->offset + k];
        sum += fabs(s);
    }
    return sum;
}

static int im_save(const logtk_detector *d, ltk_strbuf *b)
{
    const im_state *st = d->state;
    int bad = ltk_strbuf_put_varint(b, st->count);
    for (size_t q = 0; q < st->count; q++) {
        const invariant *iv = &st->inv[q];
        bad |= ltk_strbuf_put_varint(b, iv->len);
        for (uint32_t k = 0; k < iv->len; k++) {
            bad |= ltk_strbuf_put_varint(b, st->cols[iv->offset + k]);
            bad |= ltk_detect_put_f64(b, st->theta[iv->offset + k]);
        }
    }
    return bad ? -1 : 0;
}

static int im_load(logtk_detector *d, ltk_detect_cursor *c)
{
    im_state *st = calloc(1, sizeof *st);
    if (!st)
        return LOGTK_ERR_NOMEM;
    d->state = st;
    size_t count = ltk_detect_get_count(c, (size_t)(c->end - c->p));
    for (size_t q = 0; q < count && !c->bad; q++) {
        size_t len = ltk_detect_get_count(c, 64);
        uint32_t cols[64];
        double theta[64];
        for (size_t k = 0; k < len && !c->bad; k++) {
            cols[k] = (uint32_t)ltk_detect_get_count(c, d->features.ncols - 1);
            theta[k] = ltk_detect_get_f64(c);
        }
        if (c->bad || len == 0)
            return LOGTK_ERR_STATE;
        if (im_add(st, cols, theta, len) != 0)
            return LOGTK_ERR_NOMEM;
    }
    return c->bad ? LOGTK_ERR_STATE : LOGTK_OK;
}

const ltk_detect_model_ops ltk_detect_invariants_ops = {
    "invariants", "Invariants Mining: linear relations between event counts that must hold",
    0, 0, 0, 0, im_params, im_train, im_score, im_save, im_load, im_free, 0, NULL, NULL,
};
