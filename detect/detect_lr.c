/*
 * detect_lr.c - L2-regularised logistic regression (loglizer's LR: C = 100).
 *
 * Minimises  |w|^2 / 2 + C * sum_i c_i n_i log(1 + exp(-y_i (w.x_i + b)))
 * over the distinct training vectors x_i with multiplicity n_i and class
 * weight c_i (1, or "balanced" n / (2 n_class)); the bias is penalised like
 * a weight, as liblinear does.  With up to LR_DENSE_MAX_COLS columns,
 * Newton's method with a Cholesky solve of the (m+1)^2 Hessian converges in
 * a handful of iterations, exactly, and the cost does not depend on how many
 * times a vector repeats; with more (10^5 events is 80 GB of Hessian) a
 * truncated Newton method works on the sparse rows (lr_train_sparse).
 * Score = P(anomaly); verdict when above 0.5.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const lr_weight_choices[] = {"none", "balanced", NULL};

static const ltk_detect_param_def lr_params[] = {
    {"C", 100, 1e-9, 1e12, NULL, "inverse regularisation strength"},
    {"max_iter", 100, 1, 10000, NULL, "Newton iterations at most"},
    {"tol", 0.01, 0, 1, NULL, "stop when the gradient norm falls below tol * initial"},
    {"class_weight", 0, 0, 1, lr_weight_choices, "none or balanced"},
    {NULL, 0, 0, 0, NULL, NULL},
};

typedef struct linear_state {
    size_t m;
    double *w; /* m weights then the bias */
} linear_state;

static void lr_free(void *p)
{
    linear_state *st = p;
    if (st) {
        free(st->w);
        free(st);
    }
}

static double sigmoid(double z)
{
    return z >= 0 ? 1.0 / (1.0 + exp(-z)) : exp(z) / (1.0 + exp(z));
}

static double margin(const ltk_detect_matrix *mx, const double *w, size_t r)
{
    const double *x = mx->x + r * mx->ncols;
    double z = w[mx->ncols];
    for (size_t j = 0; j < mx->ncols; j++)
        z += w[j] * x[j];
    return z;
}

static int lr_train_dense(logtk_detector *d, const ltk_detect_matrix *mx)
{
    size_t m = mx->ncols, n1 = m + 1;
    double C = DETECT_PARAM(d, 0), tol = DETECT_PARAM(d, 2);
    int max_iter = (int)DETECT_PARAM(d, 1);
    double tot_a = 0, tot_n = 0;
    for (size_t r = 0; r < mx->nrows; r++) {
        tot_a += mx->w_anomaly[r];
        tot_n += mx->w_normal[r];
    }
    double ca = 1, cn = 1;
    if (DETECT_PARAM(d, 3) == 1) {
        ca = (tot_a + tot_n) / (2 * tot_a);
        cn = (tot_a + tot_n) / (2 * tot_n);
    }
    linear_state *st = calloc(1, sizeof *st);
    double *w = calloc(n1, sizeof *w), *g = malloc(n1 * sizeof *g);
    double *h = malloc(n1 * n1 * sizeof *h), *wtry = malloc(n1 * sizeof *wtry);
    if (!st || !w || !g || !h || !wtry) {
        free(st);
        free(w);
        free(g);
        free(h);
        free(wtry);
        return LOGTK_ERR_NOMEM;
    }
    st->m = m;
    st->w = w;
    double g0 = -1;
    for (int it = 0; it < max_iter; it++) {
        memset(g, 0, n1 * sizeof *g);
        memset(h, 0, n1 * n1 * sizeof *h);
        for (size_t j = 0; j < n1; j++) {
            g[j] = w[j];
            h[j * n1 + j] = 1;
        }
        for (size_t r = 0; r < mx->nrows; r++) {
            const double *x = mx->x + r * m;
            double z = margin(mx, w, r);
            double p = sigmoid(z);
            /* gradient of n_a log(1+e^-z) + n_n log(1+e^z) */
            double wa = C * ca * mx->w_anomaly[r], wn = C * cn * mx->w_normal[r];
            double gr = wa * (p - 1) + wn * p;
            double hr = (wa + wn) * p * (1 - p);
            if (gr == 0 && hr == 0)
                continue;
            for (size_t i = 0; i < n1; i++) {
                double xi = i < m ? x[i] : 1.0;
                if (xi == 0)
                    continue;
                g[i] += gr * xi;
                for (size_t j = 0; j <= i; j++) {
                    double xj = j < m ? x[j] : 1.0;
                    h[i * n1 + j] += hr * xi * xj;
                }
            }
        }
        for (size_t i = 0; i < n1; i++)
            for (size_t j = 0; j < i; j++)
                h[j * n1 + i] = h[i * n1 + j];
        double gn = 0;
        for (size_t j = 0; j < n1; j++)
            gn += g[j] * g[j];
        gn = sqrt(gn);
        if (g0 < 0)
            g0 = gn;
        if (gn <= tol * g0 * 1e-3 || gn < 1e-10)
            break;
        if (ltk_detect_cholesky_solve(h, g, n1) != 0)
            break;
        /* backtracking on the objective keeps Newton monotone */
        double f0 = 0;
        for (size_t j = 0; j < n1; j++)
            f0 += 0.5 * w[j] * w[j];
        for (size_t r = 0; r < mx->nrows; r++) {
            double z = margin(mx, w, r);
            f0 += C * ca * mx->w_anomaly[r] * (z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z)));
            f0 += C * cn * mx->w_normal[r] * (z > 0 ? z + log1p(exp(-z)) : log1p(exp(z)));
        }
        double step = 1;
        for (int ls = 0; ls < 30; ls++, step *= 0.5) {
            for (size_t j = 0; j < n1; j++)
                wtry[j] = w[j] - step * g[j];
            double f = 0;
            for (size_t j = 0; j < n1; j++)
                f += 0.5 * wtry[j] * wtry[j];
            for (size_t r = 0; r < mx->nrows; r++) {
                double z = margin(mx, wtry, r);
                f += C * ca * mx->w_anomaly[r] * (z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z)));
                f += C * cn * mx->w_normal[r] * (z > 0 ? z + log1p(exp(-z)) : log1p(exp(z)));
            }
            if (f <= f0)
                break;
        }
        memcpy(w, wtry, n1 * sizeof *w);
    }
    free(g);
    free(h);
    free(wtry);
    d->state = st;
    d->threshold = 0.5;
    return LOGTK_OK;
}

/* ---------------------------------------------------------------- many events */

/*
 * Above LR_DENSE_MAX_COLS events (or when the dense rows would pass
 * DETECT_DENSE_MAX) the (m+1)^2 Hessian does not fit: truncated Newton, as
 * liblinear does, on the sparse rows.  Each Newton direction solves
 * H s = g by conjugate gradients with Hessian-vector products
 * H s = s + sum_r h_r (x_r . s) x_r, never forming H; the same backtracking
 * keeps the objective monotone.  x_r = v_r - mu (v = count * idf) is applied
 * implicitly, so a step costs the nonzeros plus O(m), not rows x m.
 */
#define LR_DENSE_MAX_COLS 1000
#define LR_CG_MAX_ITER 200

typedef struct lr_sparse {
    const ltk_detect_matrix *mx;
    const double *idf, *mu; /* NULL when not used */
} lr_sparse;

static double sp_value(const lr_sparse *sp, size_t at)
{
    return (double)sp->mx->nz_count[at] * (sp->idf ? sp->idf[sp->mx->nz_col[at]] : 1.0);
}

/* w . x_r + bias, given mu_w = mu . w[0..m) */
static double sp_margin(const lr_sparse *sp, const double *w, double mu_w, size_t r)
{
    const ltk_detect_matrix *mx = sp->mx;
    double z = w[mx->ncols] - mu_w;
    for (size_t at = mx->row_start[r]; at < mx->row_start[r + 1]; at++)
        z += w[mx->nz_col[at]] * sp_value(sp, at);
    return z;
}

static double sp_mu_dot(const lr_sparse *sp, const double *w)
{
    double s = 0;
    if (sp->mu)
        for (size_t j = 0; j < sp->mx->ncols; j++)
            s += sp->mu[j] * w[j];
    return s;
}

/* out += alpha x_r for every row (alpha[r]), bias included */
static void sp_add_rows(const lr_sparse *sp, const double *alpha, double *out)
{
    const ltk_detect_matrix *mx = sp->mx;
    double asum = 0;
    for (size_t r = 0; r < mx->nrows; r++) {
        if (alpha[r] == 0)
            continue;
        for (size_t at = mx->row_start[r]; at < mx->row_start[r + 1]; at++)
            out[mx->nz_col[at]] += alpha[r] * sp_value(sp, at);
        asum += alpha[r];
    }
    if (sp->mu)
        for (size_t j = 0; j < mx->ncols; j++)
            out[j] -= asum * sp->mu[j];
    out[mx->ncols] += asum;
}

static double sp_objective(const lr_sparse *sp, const double *w, double C, double ca, double cn)
{
    const ltk_detect_matrix *mx = sp->mx;
    double f = 0, mu_w = sp_mu_dot(sp, w);
    for (size_t j = 0; j <= mx->ncols; j++)
        f += 0.5 * w[j] * w[j];
    for (size_t r = 0; r < mx->nrows; r++) {
        double z = sp_margin(sp, w, mu_w, r);
        f += C * ca * mx->w_anomaly[r] * (z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z)));
        f += C * cn * mx->w_normal[r] * (z > 0 ? z + log1p(exp(-z)) : log1p(exp(z)));
    }
    return f;
}

static int lr_train_sparse(logtk_detector *d, const ltk_detect_matrix *mx, double ca, double cn)
{
    size_t m = mx->ncols, n1 = m + 1, n = mx->nrows;
    double C = DETECT_PARAM(d, 0), tol = DETECT_PARAM(d, 2);
    int max_iter = (int)DETECT_PARAM(d, 1);
    lr_sparse sp = {mx, mx->features->idf, mx->features->mean};
    linear_state *st = calloc(1, sizeof *st);
    double *w = calloc(n1, sizeof *w), *g = malloc(n1 * sizeof *g);
    double *step = malloc(n1 * sizeof *step), *res = malloc(n1 * sizeof *res);
    double *dir = malloc(n1 * sizeof *dir), *hd = malloc(n1 * sizeof *hd);
    double *wtry = malloc(n1 * sizeof *wtry);
    double *hr = malloc((n ? n : 1) * sizeof *hr), *alpha = malloc((n ? n : 1) * sizeof *alpha);
    if (!st || !w || !g || !step || !res || !dir || !hd || !wtry || !hr || !alpha) {
        free(st);
        free(w);
        free(g);
        free(step);
        free(res);
        free(dir);
        free(hd);
        free(wtry);
        free(hr);
        free(alpha);
        return LOGTK_ERR_NOMEM;
    }
    st->m = m;
    st->w = w;
    double g0 = -1;
    for (int it = 0; it < max_iter; it++) {
        double mu_w = sp_mu_dot(&sp, w);
        for (size_t r = 0; r < n; r++) {
            double p = sigmoid(sp_margin(&sp, w, mu_w, r));
            double wa = C * ca * mx->w_anomaly[r], wn = C * cn * mx->w_normal[r];
            alpha[r] = wa * (p - 1) + wn * p;
            hr[r] = (wa + wn) * p * (1 - p);
        }
        memcpy(g, w, n1 * sizeof *g);
        sp_add_rows(&sp, alpha, g);
        double gn = 0;
        for (size_t j = 0; j < n1; j++)
            gn += g[j] * g[j];
        gn = sqrt(gn);
        if (g0 < 0)
            g0 = gn;
        if (gn <= tol * g0 * 1e-3 || gn < 1e-10)
            break;
        /* conjugate gradients on H step = g, to a relative residual of 0.1 */
        memset(step, 0, n1 * sizeof *step);
        memcpy(res, g, n1 * sizeof *res);
        memcpy(dir, g, n1 * sizeof *dir);
        double rr = gn * gn;
        for (int cg = 0; cg < LR_CG_MAX_ITER && sqrt(rr) > 0.1 * gn; cg++) {
            double mu_d = sp_mu_dot(&sp, dir);
            for (size_t r = 0; r < n; r++)
                alpha[r] = hr[r] == 0 ? 0 : hr[r] * sp_margin(&sp, dir, mu_d, r);
            memcpy(hd, dir, n1 * sizeof *hd);
            sp_add_rows(&sp, alpha, hd);
            double dhd = 0;
            for (size_t j = 0; j < n1; j++)
                dhd += dir[j] * hd[j];
            if (!(dhd > 0))
                break;
            double a = rr / dhd, rr2 = 0;
            for (size_t j = 0; j < n1; j++) {
                step[j] += a * dir[j];
                res[j] -= a * hd[j];
                rr2 += res[j] * res[j];
            }
            double beta = rr2 / rr;
            rr = rr2;
            for (size_t j = 0; j < n1; j++)
                dir[j] = res[j] + beta * dir[j];
        }
        double f0 = sp_objective(&sp, w, C, ca, cn), t = 1;
        for (int ls = 0; ls < 30; ls++, t *= 0.5) {
            for (size_t j = 0; j < n1; j++)
                wtry[j] = w[j] - t * step[j];
            if (sp_objective(&sp, wtry, C, ca, cn) <= f0)
                break;
        }
        memcpy(w, wtry, n1 * sizeof *w);
    }
    free(g);
    free(step);
    free(res);
    free(dir);
    free(hd);
    free(wtry);
    free(hr);
    free(alpha);
    d->state = st;
    d->threshold = 0.5;
    return LOGTK_OK;
}

static int lr_train(logtk_detector *d, const ltk_detect_matrix *mx)
{
    if (mx->ncols > LR_DENSE_MAX_COLS || mx->nrows > DETECT_DENSE_MAX / mx->ncols) {
        double tot_a = 0, tot_n = 0;
        for (size_t r = 0; r < mx->nrows; r++) {
            tot_a += mx->w_anomaly[r];
            tot_n += mx->w_normal[r];
        }
        double ca = 1, cn = 1;
        if (DETECT_PARAM(d, 3) == 1) {
            ca = (tot_a + tot_n) / (2 * tot_a);
            cn = (tot_a + tot_n) / (2 * tot_n);
        }
        return lr_train_sparse(d, mx, ca, cn);
    }
    /* few events: exact Newton on the dense rows (the reference results) */
    ltk_detect_matrix dense = *mx;
    if (ltk_detect_matrix_densify(&dense) != 0)
        return LOGTK_ERR_NOMEM;
    int rc = lr_train_dense(d, &dense);
    free(dense.x);
    return rc;
}

static double lr_score(const logtk_detector *d, double *x)
{
    const linear_state *st = d->state;
    double z = st->w[st->m];
    for (size_t j = 0; j < st->m; j++)
        z += st->w[j] * x[j];
    return sigmoid(z);
}

static int lr_save(const logtk_detector *d, ltk_strbuf *b)
{
    const linear_state *st = d->state;
    return ltk_detect_put_f64s(b, st->w, st->m + 1);
}

static int lr_load(logtk_detector *d, ltk_detect_cursor *c)
{
    linear_state *st = calloc(1, sizeof *st);
    if (!st)
        return LOGTK_ERR_NOMEM;
    d->state = st;
    st->m = d->features.ncols;
    st->w = ltk_detect_get_f64s(c, st->m + 1);
    return st->w ? LOGTK_OK : LOGTK_ERR_STATE;
}

const ltk_detect_model_ops ltk_detect_lr_ops = {
    "lr", "logistic regression (L2, Newton), supervised",
    1, 1, 0, 0, lr_params, lr_train, lr_score, lr_save, lr_load, lr_free, 1, NULL, NULL,
};
