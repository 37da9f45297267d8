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
 * Scoring costs 2 k m multiply-adds on the dense vector.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pca_state {
    size_t m, k;
    double *components; /* k x m, row-major: component c is components[c*m ..] */
    double *z;          /* k scratch */
} pca_state;

static const detect_param_def pca_params[] = {
    {"n_components", 0.95, 1e-9, 1e6, NULL,
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

static int pca_train(logtk_detector *d, const detect_matrix *mx)
{
    size_t m = mx->ncols;
    double *cov = calloc(m * m, sizeof *cov), *w = malloc(m * sizeof *w);
    double *v = malloc(m * m * sizeof *v);
    if (!cov || !w || !v) {
        free(cov);
        free(w);
        free(v);
        return LOGTK_ERR_NOMEM;
    }
    double total = 0;
    for (size_t r = 0; r < mx->nrows; r++) {
        double wt = mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r];
        const double *x = mx->x + r * m;
        total += wt;
        for (size_t i = 0; i < m; i++) {
            if (x[i] == 0)
                continue;
            for (size_t j = i; j < m; j++)
                cov[i * m + j] += wt * x[i] * x[j];
        }
    }
    for (size_t i = 0; i < m; i++)
        for (size_t j = i; j < m; j++) {
            cov[i * m + j] /= total;
            cov[j * m + i] = cov[i * m + j];
        }
    detect_symmetric_eigen(cov, m, w, v);
    for (size_t i = 0; i < m; i++)
        if (w[i] < 0)
            w[i] = 0; /* rounding */
    double nc = DETECT_PARAM(d, 0);
    size_t k;
    if (nc < 1) {
        double sum = 0, acc = 0;
        for (size_t i = 0; i < m; i++)
            sum += w[i];
        for (k = 0; k < m; k++) {
            acc += w[k];
            if (sum <= 0 || acc / sum >= nc)
                break;
        }
        k = k + 1 > m ? m : k + 1;
    } else {
        k = (size_t)nc > m ? m : (size_t)nc;
    }
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
    /* Q-statistic over the residual eigenvalues */
    double phi[3] = {0, 0, 0};
    for (size_t j = k; j < m; j++) {
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
    d->threshold = threshold;
    d->state = st;
    free(cov);
    free(w);
    free(v);
    return LOGTK_OK;
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

static int pca_save(const logtk_detector *d, logtk_strbuf *b)
{
    const pca_state *st = d->state;
    int bad = logtk_strbuf_put_varint(b, st->k);
    bad |= detect_put_f64s(b, st->components, st->k * st->m);
    return bad ? -1 : 0;
}

static int pca_load(logtk_detector *d, detect_cursor *c)
{
    size_t m = d->features.ncols;
    size_t k = detect_get_count(c, m);
    if (c->bad)
        return LOGTK_ERR_STATE;
    pca_state *st = pca_alloc(m, k);
    if (!st)
        return LOGTK_ERR_NOMEM;
    d->state = st;
    double *comp = detect_get_f64s(c, k * m);
    if (!comp)
        return LOGTK_ERR_STATE;
    memcpy(st->components, comp, k * m * sizeof *comp);
    free(comp);
    return LOGTK_OK;
}

const detect_model_ops detect_pca_ops = {
    "pca", "PCA: squared prediction error off the normal subspace, Q-statistic threshold",
    0, 1, 1, 0, pca_params, pca_train, pca_score, pca_save, pca_load, pca_free,
};
