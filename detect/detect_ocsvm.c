/*
 * detect_ocsvm.c - one-class SVM (Schoelkopf et al. 2001) through libsvm.
 *
 * Learns a boundary around the training vectors (normal rows when labels
 * are known) in RBF feature space; nu bounds the share of training rows left
 * outside.  Score = minus libsvm's decision value, so rows outside the
 * boundary score above the threshold 0.   Trained on the vectors
 * with their multiplicities (see detect_svm.c).
 */
#include "config.h"
#include "detect_impl.h"
#include "detect_svm.h"

static const char *const kernel_choices[] = {"linear", "rbf", NULL};

static const detect_param_def ocsvm_params[] = {
    {"nu", 0.01, 1e-6, 1, NULL, "upper bound on the share of training rows outside"},
    {"kernel", 1, 0, 1, kernel_choices, "linear or rbf"},
    {"gamma", 0, 0, 1e9, NULL, "RBF width (0 = 1 / features)"},
    {"max_rows", 20000, 10, 1e9, NULL, "rows given to libsvm at most"},
    {NULL, 0, 0, 0, NULL, NULL},
};

static int ocsvm_train(logtk_detector *d, const detect_matrix *mx)
{
    detect_svm_state *st;
    int rc = detect_svm_fit(&st, mx, 1, (int)DETECT_PARAM(d, 1), DETECT_PARAM(d, 2), 1,
                            DETECT_PARAM(d, 0), 1, 1, DETECT_PARAM(d, 3));
    if (rc != LOGTK_OK)
        return rc;
    d->state = st;
    d->threshold = 0;
    return LOGTK_OK;
}

const detect_model_ops detect_ocsvm_ops = {
    "ocsvm", "one-class SVM (libsvm, RBF): outside the boundary of normal sessions",
    0, 1, 0, 1, ocsvm_params, ocsvm_train, detect_svm_score_op, detect_svm_save_op, detect_svm_load_op,
    detect_svm_free, 0, NULL, NULL,
};
