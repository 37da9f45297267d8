/*
 * detect_ocsvm.c - one-class SVM (Schoelkopf et al. 2001) through libsvm.
 *
 * Learns a boundary around the training vectors (normal rows when labels
 * are known) in RBF feature space; nu bounds the share of training rows left
 * outside.  Score = minus libsvm's decision value, so rows outside the
 * boundary score above 0.  Trained on the vectors with their
 * multiplicities (see detect_svm.c).
 *
 * Threshold: most training rows lie on the boundary, scoring about 0 either
 * side, so a threshold of exactly 0 flagged half of the model's own training
 * sessions.  The threshold is instead the score that a share nu of the
 * training rows exceed (nu is what libsvm is told may lie outside), and at
 * least 0.
 */
#include "config.h"
#include "detect_impl.h"
#include "detect_svm.h"

#include <stdlib.h>
#include <string.h>

typedef struct scored_row {
    double score, weight;
} scored_row;

static int by_score(const void *a, const void *b)
{
    double x = ((const scored_row *)a)->score, y = ((const scored_row *)b)->score;
    return x < y ? -1 : x > y;
}

static const char *const kernel_choices[] = {"linear", "rbf", NULL};

static const ltk_detect_param_def ocsvm_params[] = {
    {"nu", 0.01, 1e-6, 1, NULL, "upper bound on the share of training rows outside"},
    {"kernel", 1, 0, 1, kernel_choices, "linear or rbf"},
    {"gamma", 0, 0, 1e9, NULL, "RBF width (0 = 1 / features)"},
    {"max_rows", 20000, 10, 1e9, NULL, "rows given to libsvm at most"},
    {NULL, 0, 0, 0, NULL, NULL},
};

static int ocsvm_train(logtk_detector *d, const ltk_detect_matrix *mx)
{
    ltk_detect_svm_state *st;
    int rc = ltk_detect_svm_fit(&st, mx, 1, (int)DETECT_PARAM(d, 1), DETECT_PARAM(d, 2), 1,
                            DETECT_PARAM(d, 0), 1, 1, DETECT_PARAM(d, 3));
    if (rc != LOGTK_OK)
        return rc;
    d->state = st;
    d->threshold = 0;
    size_t m = mx->ncols;
    scored_row *rows = malloc((mx->nrows ? mx->nrows : 1) * sizeof *rows);
    double *x = malloc((m + 1) * sizeof *x);
    if (!rows || !x) {
        free(rows);
        free(x);
        return LOGTK_ERR_NOMEM;
    }
    double total = 0;
    for (size_t r = 0; r < mx->nrows; r++) {
        memcpy(x, mx->x + r * m, m * sizeof *x);
        x[m] = 0;
        rows[r].score = ltk_detect_svm_score_op(d, x);
        rows[r].weight = mx->w_normal[r] + mx->w_anomaly[r] + mx->w_unknown[r];
        total += rows[r].weight;
    }
    qsort(rows, mx->nrows, sizeof *rows, by_score);
    double outside = 0, allowed = DETECT_PARAM(d, 0) * total;
    for (size_t r = mx->nrows; r-- > 0;) {
        outside += rows[r].weight;
        if (outside > allowed) {
            if (rows[r].score > d->threshold)
                d->threshold = rows[r].score;
            break;
        }
    }
    free(rows);
    free(x);
    return LOGTK_OK;
}

const ltk_detect_model_ops ltk_detect_ocsvm_ops = {
    "ocsvm", "one-class SVM (libsvm, RBF): outside the boundary of normal sessions",
    0, 1, 0, 1, ocsvm_params, ocsvm_train, ltk_detect_svm_score_op, ltk_detect_svm_save_op, ltk_detect_svm_load_op,
    ltk_detect_svm_free, 0, NULL, NULL,
};
