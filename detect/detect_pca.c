/*
 * detect_pca.c - PCA anomaly detection (Xu et al., SOSP 2009; loglizer's PCA).
 *
 * Normal sessions span a low-dimensional "normal subspace" of the event-count
 * space.  We eigen-decompose the covariance X^T X / n of the (tf-idf,
 * zero-mean) training vectors, keep the top k components that explain
 * n_components of the variance (or k = n_components when >= 1), and score a
 * vector by its squared prediction error SPE = |x - P P^T x|^2, the energy
 * left in the residual subspace.  The threshold is the Q-statistic of
 * Jackson & Mudholkar at confidence c_alpha (3.2905 = 99.9 %), computed from
 * the residual eigenvalues, as loglizer does; a fixed "threshold" overrides.
 *
 * Defaults: the smoothed idf (tfidf=2) and 99 % of the variance, not
 * loglizer's idf and 95 %: trained on normal sessions only, loglizer's idf
 * weighs the events of every session 0, so a session that lost them has a
 * normal vector (DeepLog's split: F1 .642 -> .954; hdfs100k unchanged).
 *
 * Scoring costs 2 k m multiply-adds on the dense vector.  Above
 * DETECT_JACOBI_MAX events it costs k per event of the row instead (see
 * pca_score_sparse): 10^5 events and a few hundred components made the
 * dense product 7 sessions/s.
 *
 * Up to DETECT_JACOBI_MAX events the covariance is built from dense rows and
 * decomposed by Jacobi, as first written (the reference results).  Beyond,
 * the rows stay sparse and the smaller of the covariance and the Gram matrix
 * is decomposed (see pca_train_large), within PCA_MAX_DIM; a larger problem
 * is refused with LOGTK_ERR_LIMIT rather than left to run for hours.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest eigenproblem (min(distinct rows, events)) trained: a 1,500 x 1,500
   decomposition takes a few seconds; one twice as large eight times that. */
#define PCA_MAX_DIM 1500

typedef struct pca_state {
    size_t m, k;
    double *components; /* k x m, row-major: component c is components[c*m ..] */
    double *z;          /* k scratch */
    /* sparse scoring (above DETECT_JACOBI_MAX events): the components times
       the training mean, and the mean's squared norm */
    double *pmu;        /* k, or NULL */
    double mumu;
} pca_state;

static const ltk_detect_param_def pca_params[] = {
    {"n_components", 0.99, 1e-9, 1e6, NULL,
     "variance to explain (< 1) or number of components (>= 1)"},
    {"c_alpha", 3.2905, 0, 100, NULL, "Q-statistic confidence (3.2905 = 99.9 %)"},
    {"threshold", 0, 0, 1e300, NULL, "fixed SPE threshold (0 = Q-statistic)"},
    {NULL, 0, 0, 0, NULL, NULL},
};

static void pca_free(void *p)
{
    pca_state *st = p;
    if (!st)
        return;
    free(st->components);
    free(st->z);
    free(st->pmu);
    free(st);
}

static pca_state *pca_alloc(size_t m, size_t k)
{
    pca_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->m = m;
    st->k = k;
    st->components = malloc((k * m > 0 ? k * m : 1) * sizeof *st->components);
    st->z = malloc((k ? k : 1) * sizeof *st->z);
    if (!st->components || !st->z) {
        pca_free(st);
        return NULL;
    }
    return st;
}

/* Number of components: loglizer's rule (the first k whose eigenvalues explain
   n_components of the variance, plus one) or a fixed count, at most `avail`. */
static size_t pca_choose_k(double nc, const double *w, size_t dim, size_t avail)
{
    size_t k;
    if (nc < 1) {
        double sum = 0, acc = 0;
        for (size_t i = 0; i < dim; i++)
            sum += w[i];
        for (k = 0; k < dim; k++) {
            acc += w[k];
            if (sum <= 0 || acc / sum >= nc)
                break;
        }
        k = k + 1 > avail ? avail : k + 1;
    } else {
        k = (size_t)nc > avail ? avail : (size_t)nc;
    }
    return k;
}

/* Q-statistic threshold (Jackson & Mudholkar) over the residual eigenvalues. */
static double pca_q_threshold(const logtk_detector *d, const double *w, size_t dim, size_t k)
{
    double phi[3] = {0, 0, 0};
    for (size_t j = k; j < dim; j++) {
        phi[0] += w[j];
        phi[1] += w[j] * w[j];
        phi[2] += w[j] * w[j] * w[j];
    }
    double threshold = DETECT_PARAM(d, 2);
    if (threshold <= 0) {
        if (phi[0] <= 1e-12 || phi[1] <= 0) {
            threshold = 1e-9; /* the components explain everything seen */
        } else {
            double c_alpha = DETECT_PARAM(d, 1);
            double h0 = 1.0 - 2.0 * phi[0] * phi[2] / (3.0 * phi[1] * phi[1]);
            threshold = phi[0] * pow(c_alpha * sqrt(2.0 * phi[1] * h0 * h0) / phi[0] + 1.0 +
                                         phi[1] * h0 * (h0 - 1.0) / (phi[0] * phi[0]),
                                     1.0 / h0);
            if (!isfinite(threshold))
                threshold = phi[0];
        }
    }
    return threshold;
}

/*
 * Sparse scoring.  With t the row's tf-idf values (nonzero on its own n
 * events) and x = t - mu, the components' rows are orthonormal, so
 *   SPE = |x - P^T P x|^2 = |x|^2 - |P x|^2,
 *   P x = P t - P mu        (k n multiply-adds, P mu kept from training),
 *   |x|^2 = |mu|^2 + sum over the row's events of (t_j - mu_j)^2 - mu_j^2.
 * The dense product is exact to rounding where this differs from it by the
 * components' departure from orthonormality, so it stays the path (and the
 * reference) up to DETECT_JACOBI_MAX events.
 */
static int pca_score_sparse(const logtk_detector *d, const double *x, const int32_t *cols,
                            size_t n, double unseen, double *score)
{
    const pca_state *st = d->state;
    const double *idf = d->features.idf, *mu = d->features.mean;
    size_t m = st->m, k = st->k;
    double xx = st->mumu;
    for (size_t t = 0; t < n; t++) {
        size_t j = (size_t)cols[t];
        double v = x[j] * (idf ? idf[j] : 1.0), mj = mu ? mu[j] : 0.0;
        xx += (v - mj) * (v - mj) - mj * mj;
    }
    double zz = 0;
    for (size_t c = 0; c < k; c++) {
        const double *pc = st->components + c * m;
        double z = -st->pmu[c];
        for (size_t t = 0; t < n; t++) {
            size_t j = (size_t)cols[t];
            z += pc[j] * x[j] * (idf ? idf[j] : 1.0);
        }
        zz += z * z;
    }
    (void)unseen;
    *score = xx > zz ? xx - zz : 0.0;
    return 0;
}

/* Above DETECT_JACOBI_MAX events: keeps P mu and |mu|^2 and turns on sparse
   scoring.  0 or LOGTK_ERR_NOMEM. */
static int pca_prepare_sparse(logtk_detector *d, pca_state *st)
{
    if (st->m <= DETECT_JACOBI_MAX)
        return LOGTK_OK;
    st->pmu = calloc(st->k ? st->k : 1, sizeof *st->pmu);
    if (!st->pmu)
        return LOGTK_ERR_NOMEM;
    const double *mu = d->features.mean;
    st->mumu = 0;
    if (mu) {
        for (size_t j = 0; j < st->m; j++)
            st->mumu += mu[j] * mu[j];
        for (size_t c = 0; c < st->k; c++) {
            const double *pc = st->components + c * st->m;
            double s = 0;
            for (size_t j = 0; j < st->m; j++)
                s += pc[j] * mu[j];
            st->pmu[c] = s;
        }
    }
    d->score_sparse = pca_score_sparse;
    return LOGTK_OK;
}

/* Up to DETECT_JACOBI_MAX events: the covariance from dense rows and Jacobi,
   exactly as the model was first written (its results are the reference). */
static int pca_train_small(logtk_detector *d, const ltk_detect_matrix *mx)
{
    size_t m = mx->ncols;
    double *cov = calloc(m * m, sizeof *cov), *w = malloc(m * sizeof *w);
    double *v = malloc(m * m * sizeof *v), *x = malloc(m * sizeof *x);
    if (!cov || !w || !v || !x) {
        free(cov);
        free(w);
        free(v);
        free(x);
        return LOGTK_ERR_NOMEM;
    }
    double total = 0;
    for (size_t r = 0; r < mx->nrows; r++) {
        double wt = mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r];
        ltk_detect_matrix_row(mx, r, x);
        total += wt;
        for (size_t i = 0; i < m; i++) {
            if (x[i] == 0)
                continue;
            for (size_t j = i; j < m; j++)
                cov[i * m + j] += wt * x[i] * x[j];
        }
    }
    free(x);
    for (size_t i = 0; i < m; i++)
        for (size_t j = i; j < m; j++) {
            cov[i * m + j] /= total;
            cov[j * m + i] = cov[i * m + j];
        }
    ltk_detect_symmetric_eigen(cov, m, w, v);
    for (size_t i = 0; i < m; i++)
        if (w[i] < 0)
            w[i] = 0; /* rounding */
    size_t k = pca_choose_k(DETECT_PARAM(d, 0), w, m, m);
    pca_state *st = pca_alloc(m, k);
    if (!st) {
        free(cov);
        free(w);
        free(v);
        return LOGTK_ERR_NOMEM;
    }
    for (size_t c = 0; c < k; c++)
        for (size_t j = 0; j < m; j++)
            st->components[c * m + j] = v[j * m + c];
    d->threshold = pca_q_threshold(d, w, m, k);
    d->state = st;
    free(cov);
    free(w);
    free(v);
    return LOGTK_OK;
}

/*
 * Above DETECT_JACOBI_MAX events the dense n x m matrix is never formed: rows
 * stay sparse (value = count * idf) and centring is applied implicitly,
 * (v - mu).(u - mu) = v.u - v.mu - u.mu + mu.mu.  The eigenproblem is solved
 * on the smaller side: the m x m covariance when there are at least as many
 * distinct rows as events, else the n x n weighted Gram matrix
 * K = W^1/2 X X^T W^1/2 / T, which has the same nonzero eigenvalues (the
 * covariance's others are 0 and add nothing to the Q-statistic); component
 * c is then X^T W^1/2 u_c / sqrt(T lambda_c).  Only components with a
 * nonzero eigenvalue exist on that side, so k is capped at the rank.
 */
static double sparse_value(const ltk_detect_matrix *mx, size_t at)
{
    const double *idf = mx->features->idf;
    return (double)mx->nz_count[at] * (idf ? idf[mx->nz_col[at]] : 1.0);
}

static int pca_train_large(logtk_detector *d, const ltk_detect_matrix *mx)
{
    size_t m = mx->ncols, n = mx->nrows;
    size_t dim = n < m ? n : m;
    if (dim > PCA_MAX_DIM)
        return ltk_error_set(
            &d->err, LOGTK_ERR_LIMIT,
            "pca: %zu distinct training rows over %zu events: the eigen-decomposition "
            "is limited to min(rows, events) <= %d; train on fewer sessions or fewer "
            "distinct events",
            n, m, PCA_MAX_DIM);
    const double *mu = mx->features->mean;
    double total = 0;
    for (size_t r = 0; r < n; r++)
        total += mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r];
    double *a = calloc(dim * dim, sizeof *a), *w = malloc(dim * sizeof *w);
    double *v = malloc(dim * dim * sizeof *v);
    double *vmu = calloc(n, sizeof *vmu);             /* v_r . mu */
    double *colsum = calloc(m, sizeof *colsum);       /* sum_r w_r v_r / T */
    double *dense = calloc(m, sizeof *dense);         /* one row scattered */
    int rc = LOGTK_OK;
    pca_state *st = NULL;
    if (!a || !w || !v || !vmu || !colsum || !dense) {
        rc = LOGTK_ERR_NOMEM;
        goto done;
    }
    double mumu = 0;
    if (mu)
        for (size_t j = 0; j < m; j++)
            mumu += mu[j] * mu[j];
    for (size_t r = 0; r < n; r++) {
        double wt = mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r];
        for (size_t at = mx->row_start[r]; at < mx->row_start[r + 1]; at++) {
            double val = sparse_value(mx, at);
            colsum[mx->nz_col[at]] += wt * val / total;
            if (mu)
                vmu[r] += val * mu[mx->nz_col[at]];
        }
    }
    if (m <= n) {
        /* covariance: sum w v v^T / T - a mu^T - mu a^T + mu mu^T (lower triangle) */
        for (size_t r = 0; r < n; r++) {
            double wt = (mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r]) / total;
            for (size_t p = mx->row_start[r]; p < mx->row_start[r + 1]; p++) {
                double vp = wt * sparse_value(mx, p);
                size_t i = mx->nz_col[p];
                for (size_t q = mx->row_start[r]; q <= p; q++) /* columns ascend: j <= i */
                    a[i * m + mx->nz_col[q]] += vp * sparse_value(mx, q);
            }
        }
        if (mu)
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j <= i; j++)
                    a[i * m + j] += mu[i] * mu[j] - colsum[i] * mu[j] - mu[i] * colsum[j];
    } else {
        /* weighted Gram matrix over the distinct rows (lower triangle) */
        for (size_t r = 0; r < n; r++) {
            double wr = mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r];
            for (size_t at = mx->row_start[r]; at < mx->row_start[r + 1]; at++)
                dense[mx->nz_col[at]] = sparse_value(mx, at);
            for (size_t t = 0; t <= r; t++) {
                double wt = mx->w_normal[t] + mx->w_anomaly[t] + mx->w_unknown[t];
                double dot = 0;
                for (size_t at = mx->row_start[t]; at < mx->row_start[t + 1]; at++)
                    dot += dense[mx->nz_col[at]] * sparse_value(mx, at);
                dot += mumu - vmu[r] - vmu[t];
                a[r * n + t] = sqrt(wr * wt) / total * dot;
            }
            for (size_t at = mx->row_start[r]; at < mx->row_start[r + 1]; at++)
                dense[mx->nz_col[at]] = 0;
        }
    }
    if (ltk_detect_symmetric_eigen_large(a, dim, w, v) != 0) {
        rc = ltk_error_set(&d->err, LOGTK_ERR_NOMEM,
                             "pca: out of memory in the %zu x %zu eigen-decomposition", dim, dim);
        goto done;
    }
    size_t rank = 0;
    for (size_t i = 0; i < dim; i++) {
        if (w[i] < 0)
            w[i] = 0; /* rounding */
        if (w[i] > 1e-12 * w[0])
            rank++;
    }
    size_t k = pca_choose_k(DETECT_PARAM(d, 0), w, dim, m <= n ? m : rank);
    if (k > 0 && m > DETECT_DENSE_MAX / k) {
        rc = ltk_error_set(&d->err, LOGTK_ERR_LIMIT,
                             "pca: %zu components x %zu events exceed the %zu values "
                             "(%zu MiB) a model's components are limited to; set "
                             "n_components to fewer components",
                             k, m, DETECT_DENSE_MAX, DETECT_DENSE_MAX * sizeof(double) >> 20);
        goto done;
    }
    st = pca_alloc(m, k);
    if (!st) {
        rc = LOGTK_ERR_NOMEM;
        goto done;
    }
    for (size_t c = 0; c < k; c++) {
        double *pc = st->components + c * m;
        if (m <= n) {
            for (size_t j = 0; j < m; j++)
                pc[j] = v[j * m + c];
            continue;
        }
        /* X^T y with y_r = sqrt(w_r) u_rc / sqrt(T lambda_c) */
        double scale = 1.0 / sqrt(total * w[c]), ysum = 0;
        memset(pc, 0, m * sizeof *pc);
        for (size_t r = 0; r < n; r++) {
            double y = sqrt(mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r]) *
                       v[r * n + c] * scale;
            ysum += y;
            for (size_t at = mx->row_start[r]; at < mx->row_start[r + 1]; at++)
                pc[mx->nz_col[at]] += y * sparse_value(mx, at);
        }
        if (mu)
            for (size_t j = 0; j < m; j++)
                pc[j] -= ysum * mu[j];
    }
    d->threshold = pca_q_threshold(d, w, dim, k);
    if ((rc = pca_prepare_sparse(d, st)) != LOGTK_OK)
        goto done;
    d->state = st;
    st = NULL;
done:
    pca_free(st);
    free(a);
    free(w);
    free(v);
    free(vmu);
    free(colsum);
    free(dense);
    return rc;
}

static int pca_train(logtk_detector *d, const ltk_detect_matrix *mx)
{
    if (mx->ncols <= DETECT_JACOBI_MAX)
        return pca_train_small(d, mx);
    return pca_train_large(d, mx);
}

static double pca_score(const logtk_detector *d, double *x)
{
    const pca_state *st = d->state;
    size_t m = st->m, k = st->k;
    double *z = st->z;
    for (size_t c = 0; c < k; c++) {
        const double *pc = st->components + c * m;
        double s = 0;
        for (size_t j = 0; j < m; j++)
            s += pc[j] * x[j];
        z[c] = s;
    }
    for (size_t c = 0; c < k; c++) {
        const double *pc = st->components + c * m;
        double zc = z[c];
        for (size_t j = 0; j < m; j++)
            x[j] -= zc * pc[j];
    }
    double spe = 0;
    for (size_t j = 0; j < m; j++)
        spe += x[j] * x[j];
    return spe;
}

static int pca_save(const logtk_detector *d, ltk_strbuf *b)
{
    const pca_state *st = d->state;
    int bad = ltk_strbuf_put_varint(b, st->k);
    bad |= ltk_detect_put_f64s(b, st->components, st->k * st->m);
    return bad ? -1 : 0;
}

static int pca_load(logtk_detector *d, ltk_detect_cursor *c)
{
    size_t m = d->features.ncols;
    size_t k = ltk_detect_get_count(c, m);
    if (c->bad)
        return LOGTK_ERR_STATE;
    pca_state *st = pca_alloc(m, k);
    if (!st)
        return LOGTK_ERR_NOMEM;
    d->state = st;
    double *comp = ltk_detect_get_f64s(c, k * m);
    if (!comp)
        return LOGTK_ERR_STATE;
    memcpy(st->components, comp, k * m * sizeof *comp);
    free(comp);
    return pca_prepare_sparse(d, st);
}

const ltk_detect_model_ops ltk_detect_pca_ops = {
    "pca", "PCA: squared prediction error off the normal subspace, Q-statistic threshold",
    0, DETECT_TFIDF_SMOOTH, 1, 0, pca_params, pca_train, pca_score, pca_save, pca_load, pca_free, 1, NULL, NULL,
};
