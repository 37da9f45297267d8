/*
 * detect_linalg.c - the little dense linear algebra the models need.
 *
 * Log feature spaces mostly have tens to a few hundred columns (one per
 * template), so O(n^3) methods on n x n matrices are instantaneous and
 * exact; a cyclic Jacobi eigen-solver is short, unconditionally stable for
 * symmetric matrices, and needs no LAPACK.  A badly parsed log can have
 * thousands of templates, where Jacobi's many strided sweeps take minutes:
 * ltk_detect_symmetric_eigen_large (tridiagonal QL) covers those.  Cholesky
 * solves the Newton steps of logistic regression.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ltk_detect_symmetric_eigen(double *a, size_t n, double *w, double *v)
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

int ltk_detect_cholesky_solve(double *a, double *b, size_t n)
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

/*
 * Householder reduction to tridiagonal form, then the implicit QL method
 * with Wilkinson-style shifts on the tridiagonal matrix, accumulating every
 * transformation.  About 9 n^3 flops against Jacobi's ~30 n^3 over many
 * strided sweeps: the difference between seconds and minutes at n = 1,000.
 * The transform is kept column-major in q (q[j*n + k] = row k of column j)
 * so the inner loops of both phases walk memory contiguously; only the
 * lower triangle of a is read.
 */
static int tridiagonal_eigen(const double *a, size_t n, double *d, double *q)
{
    double *e = malloc(n * sizeof *e);
    if (!e)
        return -1;
#define Q(row, col) q[(size_t)(col) * n + (row)]
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            Q(i, j) = Q(j, i) = a[i * n + j];
    for (size_t j = 0; j < n; j++)
        d[j] = Q(n - 1, j);
    /* Householder: column by column from the last, each reflection zeroes
       row i left of the subdiagonal; d holds the working row. */
    for (size_t i = n - 1; i > 0; i--) {
        double scale = 0, h = 0;
        for (size_t k = 0; k < i; k++)
            scale += fabs(d[k]);
        if (scale == 0) {
            e[i] = d[i - 1];
            for (size_t j = 0; j < i; j++) {
                d[j] = Q(i - 1, j);
                Q(i, j) = 0;
                Q(j, i) = 0;
            }
        } else {
            for (size_t k = 0; k < i; k++) {
                d[k] /= scale;
                h += d[k] * d[k];
            }
            double f = d[i - 1], g = sqrt(h);
            if (f > 0)
                g = -g;
            e[i] = scale * g;
            h -= f * g;
            d[i - 1] = f - g;
            for (size_t j = 0; j < i; j++)
                e[j] = 0;
            for (size_t j = 0; j < i; j++) {
                f = d[j];
                Q(j, i) = f;
                g = e[j] + Q(j, j) * f;
                for (size_t k = j + 1; k < i; k++) {
                    g += Q(k, j) * d[k];
                    e[k] += Q(k, j) * f;
                }
                e[j] = g;
            }
            f = 0;
            for (size_t j = 0; j < i; j++) {
                e[j] /= h;
                f += e[j] * d[j];
            }
            double hh = f / (h + h);
            for (size_t j = 0; j < i; j++)
                e[j] -= hh * d[j];
            for (size_t j = 0; j < i; j++) {
                f = d[j];
                g = e[j];
                for (size_t k = j; k < i; k++)
                    Q(k, j) -= f * e[k] + g * d[k];
                d[j] = Q(i - 1, j);
                Q(i, j) = 0;
            }
        }
        d[i] = h;
    }
    /* accumulate the reflections into q */
    for (size_t i = 0; i + 1 < n; i++) {
        Q(n - 1, i) = Q(i, i);
        Q(i, i) = 1;
        double h = d[i + 1];
        if (h != 0) {
            for (size_t k = 0; k <= i; k++)
                d[k] = Q(k, i + 1) / h;
            for (size_t j = 0; j <= i; j++) {
                double g = 0;
                for (size_t k = 0; k <= i; k++)
                    g += Q(k, i + 1) * Q(k, j);
                for (size_t k = 0; k <= i; k++)
                    Q(k, j) -= g * d[k];
            }
        }
        for (size_t k = 0; k <= i; k++)
            Q(k, i + 1) = 0;
    }
    for (size_t j = 0; j < n; j++) {
        d[j] = Q(n - 1, j);
        Q(n - 1, j) = 0;
    }
    Q(n - 1, n - 1) = 1;
    /* implicit QL on diagonal d, subdiagonal e */
    for (size_t i = 1; i < n; i++)
        e[i - 1] = e[i];
    e[n - 1] = 0;
    double shift_sum = 0, tst = 0, eps = 0x1p-52;
    int rc = 0;
    for (size_t l = 0; l < n && rc == 0; l++) {
        double t = fabs(d[l]) + fabs(e[l]);
        if (t > tst)
            tst = t;
        size_t m = l;
        while (m < n - 1 && fabs(e[m]) > eps * tst)
            m++;
        for (int iter = 0; m > l; iter++) {
            if (iter == 100) { /* never seen on a symmetric matrix; do not spin */
                rc = -1;
                break;
            }
            double g = d[l];
            double p = (d[l + 1] - g) / (2 * e[l]);
            double r = hypot(p, 1);
            if (p < 0)
                r = -r;
            d[l] = e[l] / (p + r);
            d[l + 1] = e[l] * (p + r);
            double dl1 = d[l + 1], h = g - d[l];
            for (size_t i = l + 2; i < n; i++)
                d[i] -= h;
            shift_sum += h;
            p = d[m];
            double c = 1, c2 = 1, c3 = 1, el1 = e[l + 1], s = 0, s2 = 0;
            for (size_t i = m; i-- > l;) {
                c3 = c2;
                c2 = c;
                s2 = s;
                g = c * e[i];
                h = c * p;
                r = hypot(p, e[i]);
                e[i + 1] = s * r;
                s = e[i] / r;
                c = p / r;
                p = c * d[i] - s * g;
                d[i + 1] = h + s * (c * g + s * d[i]);
                double *qi = &Q(0, i), *qi1 = &Q(0, i + 1);
                for (size_t k = 0; k < n; k++) {
                    double t1 = qi1[k];
                    qi1[k] = s * qi[k] + c * t1;
                    qi[k] = c * qi[k] - s * t1;
                }
            }
            p = -s * s2 * c3 * el1 * e[l] / dl1;
            e[l] = s * p;
            d[l] = c * p;
            if (!(fabs(e[l]) > eps * tst))
                break;
        }
        d[l] += shift_sum;
        e[l] = 0;
    }
#undef Q
    free(e);
    return rc;
}

int ltk_detect_symmetric_eigen_large(const double *a, size_t n, double *w, double *v)
{
    if (n == 0)
        return 0;
    double *q = malloc(n * n * sizeof *q);
    size_t *order = malloc(n * sizeof *order);
    double *d = malloc(n * sizeof *d);
    if (!q || !order || !d || tridiagonal_eigen(a, n, d, q) != 0) {
        free(q);
        free(order);
        free(d);
        return -1;
    }
    /* descending eigenvalues; columns of v follow (v[k*n + c] = row k of
       eigenvector c, as ltk_detect_symmetric_eigen lays them out) */
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = 1; i < n; i++) { /* insertion sort: QL leaves d nearly sorted */
        size_t t = order[i], k = i;
        while (k > 0 && d[order[k - 1]] < d[t]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = t;
    }
    for (size_t c = 0; c < n; c++) {
        const double *col = q + order[c] * n;
        w[c] = d[order[c]];
        for (size_t k = 0; k < n; k++)
            v[k * n + c] = col[k];
    }
    free(q);
    free(order);
    free(d);
    return 0;
}
