/*
 * detect_linalg.c - the little dense linear algebra the models need.
 *
 * Log feature spaces have tens to a few hundred columns (one per template),
 * so O(n^3) methods on n x n matrices are instantaneous and exact; a
 * cyclic Jacobi eigen-solver is short, unconditionally stable for symmetric
 * matrices, and needs no LAPACK.  Cholesky solves the Newton steps of
 * logistic regression.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int detect_symmetric_eigen(double *a, size_t n, double *w, double *v)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            v[i * n + j] = i == j;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, diag = 0;
        for (size_t i = 0; i < n; i++) {
            diag += a[i * n + i] * a[i * n + i];
            for (size_t j = i + 1; j < n; j++)
                off += a[i * n + j] * a[i * n + j];
        }
        if (off <= 1e-30 * (diag > 0 ? diag : 1) || off == 0)
            break;
        for (size_t p = 0; p < n; p++) {
            for (size_t q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (fabs(apq) < 1e-300)
                    continue;
                double app = a[p * n + p], aqq = a[q * n + q];
                double theta = (aqq - app) / (2 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (size_t k = 0; k < n; k++) { /* rotate columns p, q */
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (size_t k = 0; k < n; k++) { /* rotate rows p, q */
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for (size_t k = 0; k < n; k++) {
                    double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    /* sort descending (selection sort on n <= a few hundred) */
    for (size_t i = 0; i < n; i++)
        w[i] = a[i * n + i];
    for (size_t i = 0; i < n; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < n; j++)
            if (w[j] > w[best])
                best = j;
        if (best != i) {
            double t = w[i];
            w[i] = w[best];
            w[best] = t;
            for (size_t k = 0; k < n; k++) {
                t = v[k * n + i];
                v[k * n + i] = v[k * n + best];
                v[k * n + best] = t;
            }
        }
    }
    return 0;
}

int detect_cholesky_solve(double *a, double *b, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        double d = a[j * n + j];
        for (size_t k = 0; k < j; k++)
            d -= a[j * n + k] * a[j * n + k];
        if (d <= 0)
            return -1;
        d = sqrt(d);
        a[j * n + j] = d;
        for (size_t i = j + 1; i < n; i++) {
            double s = a[i * n + j];
            for (size_t k = 0; k < j; k++)
                s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / d;
        }
    }
    for (size_t i = 0; i < n; i++) { /* L y = b */
        double s = b[i];
        for (size_t k = 0; k < i; k++)
            s -= a[i * n + k] * b[k];
        b[i] = s / a[i * n + i];
    }
    for (size_t i = n; i-- > 0;) { /* L^T x = y */
        double s = b[i];
        for (size_t k = i + 1; k < n; k++)
            s -= a[k * n + i] * b[k];
        b[i] = s / a[i * n + i];
    }
    return 0;
}
