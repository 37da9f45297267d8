/*
 * detect_svm.h - libsvm glue shared by the C-SVC and one-class SVM models
 * (internal).  No libsvm type appears here: the trained model is reduced to
 * plain arrays (see detect_svm.c).
 */
#ifndef LTK_DETECT_SVM_H
#define LTK_DETECT_SVM_H

#include "detect_impl.h"

#define DETECT_KERNEL_LINEAR 0
#define DETECT_KERNEL_RBF 1

typedef struct ltk_detect_svm_state {
    size_t m, nsv;
    int kernel;
    double gamma, rho; /* decision = sum coef_i K(sv_i, x) - rho, positive = anomalous */
    double *sv;        /* nsv x m; linear: the single weight vector */
    double *coef;      /* nsv */
} ltk_detect_svm_state;

/** Trains with libsvm on the rows of mx (one_class: all rows as one class); see detect_svm.c. */
int ltk_detect_svm_fit(ltk_detect_svm_state **out, const ltk_detect_matrix *mx, int one_class, int kernel,
                   double gamma, double C, double nu, double weight_anomaly,
                   double weight_normal, double max_rows);

/** The oriented decision value (positive = anomalous). */
double ltk_detect_svm_decision(const ltk_detect_svm_state *st, const double *x);

int ltk_detect_svm_save(const ltk_detect_svm_state *st, ltk_strbuf *b);
int ltk_detect_svm_load(ltk_detect_svm_state **out, size_t m, ltk_detect_cursor *c);
void ltk_detect_svm_free(void *p);

/* The model operations both libsvm models (svm, ocsvm) share: score is the
 * decision value, the state is libsvm's model. */
double ltk_detect_svm_score_op(const logtk_detector *d, double *x);
int ltk_detect_svm_save_op(const logtk_detector *d, ltk_strbuf *b);
int ltk_detect_svm_load_op(logtk_detector *d, ltk_detect_cursor *c);

#endif
