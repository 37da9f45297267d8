/*
 * detect_svm.c - support vector machines through libsvm: C-SVC ("svm",
 * supervised, linear or RBF kernel, optional balanced class weights) and the
 * libsvm glue shared with the one-class SVM in detect_ocsvm.c.
 *
 * libsvm trains; logtk keeps only what prediction needs: the support
 * vectors, their coefficients, rho and the kernel.  The decision value is
 * then sum_i coef_i K(sv_i, x) - rho, exactly libsvm's; a linear kernel is
 * collapsed into one weight vector (w = sum coef_i sv_i), so scoring costs one
 * dot product.  Keeping our own copy means the model file holds plain
 * numbers we validate, and libsvm's text loader never sees a damaged file.
 *
 * libsvm has no per-row weights, and multiplicity matters to a soft margin
 * (a vector seen 3,000 times as normal and once as anomalous must stay
 * normal).  So each distinct (vector, label) pair is given to libsvm as many
 * times as it occurs, scaled down proportionally (at least once) when the
 * total would exceed max_rows: exact for samples up to max_rows rows, and
 * for replicated data the proportions, which is what the margin sees.
 */
#include "config.h"
#include "detect_impl.h"
#include "detect_svm.h"

#include <libsvm/svm.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void svm_quiet(const char *s)
{
    (void)s;
}

void ltk_detect_svm_free(void *p)
{
    ltk_detect_svm_state *st = p;
    if (st) {
        free(st->sv);
        free(st->coef);
        free(st);
    }
}

/* copies of a pair given its multiplicity */
static size_t copies(double w, double scale)
{
    if (w <= 0)
        return 0;
    double c = w * scale;
    return c < 1 ? 1 : (size_t)(c + 0.5);
}

int ltk_detect_svm_fit(ltk_detect_svm_state **out, const ltk_detect_matrix *mx, int one_class, int kernel,
                   double gamma, double C, double nu, double weight_anomaly,
                   double weight_normal, double max_rows)
{
    *out = NULL;
    size_t m = mx->ncols;
    double total = 0;
    for (size_t r = 0; r < mx->nrows; r++)
        total += mx->w_anomaly[r] + mx->w_normal[r] + (one_class ? mx->w_unknown[r] : 0);
    double scale = total > max_rows ? max_rows / total : 1.0;
    size_t l = 0;
    for (size_t r = 0; r < mx->nrows; r++) {
        if (one_class)
            l += copies(mx->w_anomaly[r] + mx->w_normal[r] + mx->w_unknown[r], scale);
        else
            l += copies(mx->w_anomaly[r], scale) + copies(mx->w_normal[r], scale);
    }
    size_t nnz = 0;
    for (size_t r = 0; r < mx->nrows; r++)
        for (size_t j = 0; j < m; j++)
            nnz += mx->x[r * m + j] != 0;
    struct svm_problem prob;
    prob.l = (int)l;
    prob.y = malloc((l ? l : 1) * sizeof *prob.y);
    prob.x = malloc((l ? l : 1) * sizeof *prob.x);
    struct svm_node *nodes = malloc((2 * (nnz + mx->nrows) + 1) * sizeof *nodes);
    if (!prob.y || !prob.x || !nodes) {
        free(prob.y);
        free(prob.x);
        free(nodes);
        return LOGTK_ERR_NOMEM;
    }
    size_t at = 0, k = 0;
    for (size_t r = 0; r < mx->nrows; r++) {
        for (int cls = 0; cls < 2; cls++) {
            if (one_class ? cls == 1 : (cls == 0 ? mx->w_normal[r] == 0 : mx->w_anomaly[r] == 0))
                continue;
            size_t n = copies(one_class ? mx->w_anomaly[r] + mx->w_normal[r] + mx->w_unknown[r]
                                        : cls == 1 ? mx->w_anomaly[r] : mx->w_normal[r],
                              scale);
            struct svm_node *first = nodes + at;
            for (size_t c = 0; c < n; c++) { /* copies share one node row */
                prob.y[k] = one_class ? 1 : (cls == 1 ? 1 : -1);
                prob.x[k] = first;
                k++;
            }
            for (size_t j = 0; j < m; j++)
                if (mx->x[r * m + j] != 0) {
                    nodes[at].index = (int)j + 1;
                    nodes[at].value = mx->x[r * m + j];
                    at++;
                }
            nodes[at].index = -1;
            nodes[at].value = 0;
            at++;
        }
    }
    struct svm_parameter param;
    memset(&param, 0, sizeof param);
    param.svm_type = one_class ? ONE_CLASS : C_SVC;
    param.kernel_type = kernel == DETECT_KERNEL_RBF ? RBF : LINEAR;
    param.gamma = gamma > 0 ? gamma : 1.0 / (double)m;
    param.C = C;
    param.nu = nu;
    param.cache_size = 100;
    param.eps = 1e-3;
    param.shrinking = 1;
    int weight_label[2] = {1, -1};
    double weight[2] = {weight_anomaly, weight_normal};
    if (!one_class) {
        param.nr_weight = 2;
        param.weight_label = weight_label;
        param.weight = weight;
    }
    int rc = LOGTK_OK;
    const char *perr = svm_check_parameter(&prob, &param);
    struct svm_model *model = NULL;
    if (perr) {
        rc = LOGTK_ERR_INVALID;
    } else {
        svm_set_print_string_function(svm_quiet);
        model = svm_train(&prob, &param);
        if (!model)
            rc = LOGTK_ERR_NOMEM;
    }
    ltk_detect_svm_state *st = NULL;
    if (rc == LOGTK_OK) {
        st = calloc(1, sizeof *st);
        if (!st)
            rc = LOGTK_ERR_NOMEM;
    }
    if (rc == LOGTK_OK) {
        st->m = m;
        st->kernel = kernel;
        st->gamma = param.gamma;
        /* orient: positive = anomalous */
        double sign = one_class ? -1.0 : (model->label[0] == 1 ? 1.0 : -1.0);
        st->rho = sign * model->rho[0];
        size_t nsv = (size_t)model->l;
        st->nsv = kernel == DETECT_KERNEL_LINEAR ? 1 : nsv;
        st->sv = calloc(st->nsv * m > 0 ? st->nsv * m : 1, sizeof *st->sv);
        st->coef = malloc((st->nsv ? st->nsv : 1) * sizeof *st->coef);
        if (!st->sv || !st->coef) {
            rc = LOGTK_ERR_NOMEM;
        } else {
            for (size_t i = 0; i < nsv; i++) {
                double coef = sign * model->sv_coef[0][i];
                double *dst = st->sv + (kernel == DETECT_KERNEL_LINEAR ? 0 : i * m);
                for (const struct svm_node *p = model->SV[i]; p->index != -1; p++)
                    if (p->index >= 1 && (size_t)p->index <= m)
                        dst[p->index - 1] += kernel == DETECT_KERNEL_LINEAR ? coef * p->value
                                                                            : p->value;
                if (kernel != DETECT_KERNEL_LINEAR)
                    st->coef[i] = coef;
            }
            if (kernel == DETECT_KERNEL_LINEAR)
                st->coef[0] = 1;
        }
    }
    if (model)
        svm_free_and_destroy_model(&model);
    free(prob.y);
    free(prob.x);
    free(nodes);
    if (rc != LOGTK_OK) {
        ltk_detect_svm_free(st);
        return rc;
    }
    *out = st;
    return LOGTK_OK;
}

double ltk_detect_svm_decision(const ltk_detect_svm_state *st, const double *x)
{
    size_t m = st->m;
    double sum = 0;
    if (st->kernel == DETECT_KERNEL_LINEAR) {
        for (size_t j = 0; j < m; j++)
            sum += st->sv[j] * x[j];
    } else {
        for (size_t i = 0; i < st->nsv; i++) {
            const double *sv = st->sv + i * m;
            double d2 = 0;
            for (size_t j = 0; j < m; j++) {
                double t = sv[j] - x[j];
                d2 += t * t;
            }
            sum += st->coef[i] * exp(-st->gamma * d2);
        }
    }
    return sum - st->rho;
}

int ltk_detect_svm_save(const ltk_detect_svm_state *st, ltk_strbuf *b)
{
    int bad = ltk_detect_put_u32(b, (uint32_t)st->kernel);
    bad |= ltk_detect_put_f64(b, st->gamma);
    bad |= ltk_detect_put_f64(b, st->rho);
    bad |= ltk_strbuf_put_varint(b, st->nsv);
    bad |= ltk_detect_put_f64s(b, st->coef, st->nsv);
    bad |= ltk_detect_put_f64s(b, st->sv, st->nsv * st->m);
    return bad ? -1 : 0;
}

int ltk_detect_svm_load(ltk_detect_svm_state **out, size_t m, ltk_detect_cursor *c)
{
    *out = NULL;
    uint32_t kernel = ltk_detect_get_u32(c);
    double gamma = ltk_detect_get_f64(c), rho = ltk_detect_get_f64(c);
    size_t nsv = ltk_detect_get_count(c, (size_t)(c->end - c->p) / (8 * (m + 1)));
    if (c->bad || kernel > DETECT_KERNEL_RBF || nsv == 0 ||
        (kernel == DETECT_KERNEL_LINEAR && nsv != 1))
        return LOGTK_ERR_STATE;
    ltk_detect_svm_state *st = calloc(1, sizeof *st);
    if (!st)
        return LOGTK_ERR_NOMEM;
    st->m = m;
    st->kernel = (int)kernel;
    st->gamma = gamma;
    st->rho = rho;
    st->nsv = nsv;
    st->coef = ltk_detect_get_f64s(c, nsv);
    st->sv = ltk_detect_get_f64s(c, nsv * m);
    if (!st->coef || !st->sv) {
        ltk_detect_svm_free(st);
        return LOGTK_ERR_STATE;
    }
    *out = st;
    return LOGTK_OK;
}

/* ---------------------------------------------------------------- C-SVC */

static const char *const kernel_choices[] = {"linear", "rbf", NULL};
static const char *const weight_choices[] = {"none", "balanced", NULL};

static const ltk_detect_param_def svm_params[] = {
    {"C", 1, 1e-9, 1e12, NULL, "penalty of margin violations"},
    {"kernel", 0, 0, 1, kernel_choices, "linear or rbf"},
    {"gamma", 0, 0, 1e9, NULL, "RBF width (0 = 1 / features)"},
    {"class_weight", 1, 0, 1, weight_choices, "none or balanced (n / (2 n_class))"},
    {"max_rows", 20000, 10, 1e9, NULL, "rows given to libsvm at most (see the file comment)"},
    {NULL, 0, 0, 0, NULL, NULL},
};

static int svm_train_model(logtk_detector *d, const ltk_detect_matrix *mx)
{
    double na = 0, nn = 0;
    for (size_t r = 0; r < mx->nrows; r++) {
        na += mx->w_anomaly[r];
        nn += mx->w_normal[r];
    }
    double wa = 1, wn = 1;
    if (DETECT_PARAM(d, 3) == 1) {
        wa = (na + nn) / (2 * na);
        wn = (na + nn) / (2 * nn);
    }
    ltk_detect_svm_state *st;
    int rc = ltk_detect_svm_fit(&st, mx, 0, (int)DETECT_PARAM(d, 1), DETECT_PARAM(d, 2),
                            DETECT_PARAM(d, 0), 0.5, wa, wn, DETECT_PARAM(d, 4));
    if (rc != LOGTK_OK)
        return rc;
    d->state = st;
    d->threshold = 0;
    return LOGTK_OK;
}

double ltk_detect_svm_score_op(const logtk_detector *d, double *x)
{
    return ltk_detect_svm_decision(d->state, x);
}

int ltk_detect_svm_save_op(const logtk_detector *d, ltk_strbuf *b)
{
    return ltk_detect_svm_save(d->state, b);
}

int ltk_detect_svm_load_op(logtk_detector *d, ltk_detect_cursor *c)
{
    ltk_detect_svm_state *st;
    int rc = ltk_detect_svm_load(&st, d->features.ncols, c);
    d->state = st;
    return rc;
}

const ltk_detect_model_ops ltk_detect_svm_ops = {
    "svm", "support vector machine (libsvm C-SVC, linear or RBF), supervised",
    1, 1, 0, 0, svm_params, svm_train_model, ltk_detect_svm_score_op, ltk_detect_svm_save_op,
    ltk_detect_svm_load_op, ltk_detect_svm_free, 0, NULL, NULL,
};
