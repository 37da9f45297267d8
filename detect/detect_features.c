/*
 * detect_features.c - event-count vectors, de-duplication, tf-idf, centring,
 * and the little-endian serialization helpers of the model file.
 *
 * Feature space (loglizer's FeatureExtractor): one column per distinct event
 * seen in the training rows, in order of first appearance; a row's vector
 * counts its events; events not seen in training are dropped.  Options:
 *   tf-idf     x_j *= log(N / df_j), N = training rows, df_j = rows with j
 *              (tfidf=1, loglizer's), or the smoothed log((1 + N) / (1 + df_j)) + 1
 *              (tfidf=2), which gives an event that every row has weight 1, not 0;
 *   zero-mean  x_j -= mean_j over the training rows (after tf-idf).
 *
 * Training matrices are de-duplicated: log sessions repeat a handful of
 * shapes (the 7,940 HDFS sessions of the sample have 17 distinct count
 * vectors), and replicating a sample to 575,000 rows must not multiply the
 * cost of models that only need each vector's multiplicity.  Rows are keyed
 * by their sparse count vector ((column, count) pairs) in a hash table, so a
 * row costs its own events, not the width of the vocabulary.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ltk_detect_features_init(ltk_detect_features *f)
{
    memset(f, 0, sizeof *f);
}

void ltk_detect_features_free(ltk_detect_features *f)
{
    if (f->vocab.slots || f->vocab.keys)
        ltk_hashtab_free(&f->vocab);
    free(f->idf);
    free(f->mean);
    memset(f, 0, sizeof *f);
}

int32_t *ltk_detect_features_column_map(const ltk_detect_features *f, const logtk_sessions *s)
{
    size_t ne = s->events.count;
    int32_t *map = malloc((ne ? ne : 1) * sizeof *map);
    if (!map)
        return NULL;
    for (size_t e = 0; e < ne; e++) {
        size_t len;
        const char *key = ltk_hashtab_key(&s->events, (uint32_t)e, &len);
        int64_t col = ltk_hashtab_find(&f->vocab, key, len);
        map[e] = col < 0 ? -1 : (int32_t)col;
    }
    return map;
}

int ltk_detect_features_fit(ltk_detect_features *f, logtk_sessions *s, const size_t *rows, size_t nrows,
                        int tfidf, int zero_mean)
{
    ltk_detect_features_free(f);
    if (ltk_detect_sessions_flatten(s) != 0 || ltk_hashtab_init(&f->vocab, 256) != 0)
        return -1;
    f->tfidf = tfidf;
    f->zero_mean = zero_mean;
    /* vocabulary in order of first appearance */
    for (size_t k = 0; k < nrows; k++) {
        size_t n;
        const uint32_t *ev = ltk_detect_session_events(s, rows ? rows[k] : k, &n);
        for (size_t t = 0; t < n; t++) {
            size_t len;
            const char *key = ltk_hashtab_key(&s->events, ev[t], &len);
            if (ltk_hashtab_intern(&f->vocab, key, len, NULL) < 0)
                return -1;
        }
    }
    f->ncols = f->vocab.count;
    if (!tfidf && !zero_mean)
        return 0;
    size_t m = f->ncols ? f->ncols : 1;
    int32_t *map = ltk_detect_features_column_map(f, s);
    double *df = calloc(m, sizeof *df), *sum = calloc(m, sizeof *sum);
    double *x = calloc(m, sizeof *x);
    if (!map || !df || !sum || !x) {
        free(map);
        free(df);
        free(sum);
        free(x);
        return -1;
    }
    /* df: rows containing the event */
    for (size_t k = 0; k < nrows; k++) {
        size_t n;
        const uint32_t *ev = ltk_detect_session_events(s, rows ? rows[k] : k, &n);
        for (size_t t = 0; t < n; t++)
            x[map[ev[t]]] += 1;
        for (size_t t = 0; t < n; t++) {
            int32_t j = map[ev[t]];
            if (x[j] != 0) {
                df[j] += 1;
                sum[j] += x[j]; /* raw count total, weighted below */
                x[j] = 0;
            }
        }
    }
    int rc = 0;
    if (tfidf) {
        f->idf = malloc(m * sizeof *f->idf);
        if (!f->idf)
            rc = -1;
        else if (tfidf == DETECT_TFIDF_SMOOTH)
            /* never 0: an event that every training row has keeps weight 1,
               so a row of such events is not the zero vector */
            for (size_t j = 0; j < f->ncols; j++)
                f->idf[j] = log((1.0 + (double)nrows) / (1.0 + df[j])) + 1.0;
        else
            for (size_t j = 0; j < f->ncols; j++)
                f->idf[j] = log((double)nrows / (df[j] + 1e-8));
    }
    if (rc == 0 && zero_mean) {
        f->mean = malloc(m * sizeof *f->mean);
        if (!f->mean)
            rc = -1;
        else
            for (size_t j = 0; j < f->ncols; j++)
                f->mean[j] = (f->idf ? f->idf[j] : 1.0) * sum[j] / (double)(nrows ? nrows : 1);
    }
    free(map);
    free(df);
    free(sum);
    free(x);
    return rc;
}

void ltk_detect_matrix_free(ltk_detect_matrix *m)
{
    free(m->x);
    free(m->row_start);
    free(m->nz_col);
    free(m->nz_count);
    free(m->w_normal);
    free(m->w_anomaly);
    free(m->w_unknown);
    free(m->row_of);
    memset(m, 0, sizeof *m);
}

void ltk_detect_matrix_row(const ltk_detect_matrix *m, size_t r, double *out)
{
    memset(out, 0, m->ncols * sizeof *out);
    for (size_t k = m->row_start[r]; k < m->row_start[r + 1]; k++)
        out[m->nz_col[k]] = (double)m->nz_count[k];
    ltk_detect_features_transform(m->features, out);
}

int ltk_detect_matrix_densify(ltk_detect_matrix *m)
{
    size_t cells = m->nrows * m->ncols;
    m->x = malloc((cells > 0 ? cells : 1) * sizeof *m->x);
    if (!m->x)
        return -1;
    for (size_t r = 0; r < m->nrows; r++)
        ltk_detect_matrix_row(m, r, m->x + r * m->ncols);
    return 0;
}

static void sift_down(uint32_t *v, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && v[child + 1] > v[child])
            child++;
        if (v[root] >= v[child])
            return;
        uint32_t t = v[root];
        v[root] = v[child];
        v[child] = t;
        root = child;
    }
}

void ltk_detect_sort_u32(uint32_t *v, size_t n)
{
    if (n <= 16) { /* the usual session: a few events */
        for (size_t i = 1; i < n; i++) {
            uint32_t t = v[i];
            size_t k = i;
            for (; k > 0 && v[k - 1] > t; k--)
                v[k] = v[k - 1];
            v[k] = t;
        }
        return;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (size_t end = n - 1; end > 0; end--) {
        uint32_t t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift_down(v, 0, end);
    }
}

int ltk_detect_matrix_build(ltk_detect_matrix *m, const ltk_detect_features *f, logtk_sessions *s,
                        const size_t *rows, size_t nrows)
{
    memset(m, 0, sizeof *m);
    if (ltk_detect_sessions_flatten(s) != 0)
        return -1;
    size_t ncols = f->ncols;
    m->ncols = ncols;
    m->ninput = nrows;
    m->features = f;
    int32_t *map = ltk_detect_features_column_map(f, s);
    uint32_t *counts = calloc(ncols ? ncols : 1, sizeof *counts);
    uint32_t *touched = malloc((ncols ? ncols : 1) * sizeof *touched);
    /* a row's key: (column, count) pairs by ascending column, so that equal
       count vectors have equal keys whatever the number of columns */
    uint32_t *key = malloc((ncols ? ncols : 1) * 2 * sizeof *key);
    m->row_of = malloc((nrows ? nrows : 1) * sizeof *m->row_of);
    ltk_hashtab seen;
    int ok = map && counts && touched && key && m->row_of && ltk_hashtab_init(&seen, 1024) == 0;
    if (!ok) {
        free(map);
        free(counts);
        free(touched);
        free(key);
        ltk_detect_matrix_free(m);
        return -1;
    }
    /* Pass 1: key every row by its raw count vector; distinct rows get ids
       in order of first appearance. */
    size_t cap = 0, nnz = 0;
    for (size_t k = 0; k < nrows && ok; k++) {
        size_t i = rows ? rows[k] : k, n, ntouched = 0;
        const uint32_t *ev = ltk_detect_session_events(s, i, &n);
        for (size_t t = 0; t < n; t++) {
            int32_t j = map[ev[t]];
            if (j >= 0 && counts[j]++ == 0)
                touched[ntouched++] = (uint32_t)j;
        }
        ltk_detect_sort_u32(touched, ntouched);
        for (size_t t = 0; t < ntouched; t++) {
            key[2 * t] = touched[t];
            key[2 * t + 1] = counts[touched[t]];
            counts[touched[t]] = 0;
        }
        int inserted = 0;
        int64_t id = ltk_hashtab_intern(&seen, key, ntouched * 2 * sizeof *key, &inserted);
        if (id < 0) {
            ok = 0;
            break;
        }
        if (inserted) {
            nnz += ntouched;
            if ((size_t)id >= cap) {
                size_t ncap = cap ? cap * 2 : 256;
                double *wn = realloc(m->w_normal, ncap * sizeof *wn);
                if (wn)
                    m->w_normal = wn;
                double *wa = realloc(m->w_anomaly, ncap * sizeof *wa);
                if (wa)
                    m->w_anomaly = wa;
                double *wu = realloc(m->w_unknown, ncap * sizeof *wu);
                if (wu)
                    m->w_unknown = wu;
                if (!wn || !wa || !wu) {
                    ok = 0;
                    break;
                }
                cap = ncap;
            }
            m->w_normal[id] = m->w_anomaly[id] = m->w_unknown[id] = 0;
        }
        int label = s->labels[i];
        if (label == LOGTK_LABEL_ANOMALY)
            m->w_anomaly[id] += 1;
        else if (label == LOGTK_LABEL_NORMAL)
            m->w_normal[id] += 1;
        else
            m->w_unknown[id] += 1;
        m->row_of[k] = (uint32_t)id;
    }
    m->nrows = seen.count;
    if (ok) {
        m->row_start = malloc((m->nrows + 1) * sizeof *m->row_start);
        m->nz_col = malloc((nnz ? nnz : 1) * sizeof *m->nz_col);
        m->nz_count = malloc((nnz ? nnz : 1) * sizeof *m->nz_count);
        ok = m->row_start && m->nz_col && m->nz_count;
    }
    if (ok) {
        size_t at = 0;
        for (size_t r = 0; r < m->nrows; r++) {
            size_t len;
            const char *c = ltk_hashtab_key(&seen, (uint32_t)r, &len);
            size_t pairs = len / (2 * sizeof(uint32_t));
            m->row_start[r] = at;
            for (size_t t = 0; t < pairs; t++, at++) {
                memcpy(&m->nz_col[at], c + 2 * t * sizeof(uint32_t), sizeof(uint32_t));
                memcpy(&m->nz_count[at], c + (2 * t + 1) * sizeof(uint32_t), sizeof(uint32_t));
            }
        }
        m->row_start[m->nrows] = at;
    }
    ltk_hashtab_free(&seen);
    free(map);
    free(counts);
    free(touched);
    free(key);
    if (!ok) {
        ltk_detect_matrix_free(m);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- serialization */

int ltk_detect_put_u32(ltk_strbuf *b, uint32_t v)
{
    unsigned char t[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    return ltk_strbuf_append(b, t, 4);
}

int ltk_detect_put_f64(ltk_strbuf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    unsigned char t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (unsigned char)(u >> (8 * i));
    return ltk_strbuf_append(b, t, 8);
}

int ltk_detect_put_f64s(ltk_strbuf *b, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ltk_detect_put_f64(b, v[i]) != 0)
            return -1;
    return 0;
}

int ltk_detect_put_str(ltk_strbuf *b, const char *s, size_t n)
{
    if (ltk_strbuf_put_varint(b, n) != 0)
        return -1;
    return ltk_strbuf_append(b, s, n);
}

uint32_t ltk_detect_get_u32(ltk_detect_cursor *c)
{
    if (c->bad || c->end - c->p < 4) {
        c->bad = 1;
        return 0;
    }
    uint32_t v = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
                 (uint32_t)c->p[3] << 24;
    c->p += 4;
    return v;
}

double ltk_detect_get_f64(ltk_detect_cursor *c)
{
    if (c->bad || c->end - c->p < 8) {
        c->bad = 1;
        return 0;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)c->p[i] << (8 * i);
    c->p += 8;
    double v;
    memcpy(&v, &u, 8);
    if (isnan(v)) /* no model stores NaN; a NaN means damage */
        c->bad = 1;
    return v;
}

size_t ltk_detect_get_count(ltk_detect_cursor *c, size_t limit)
{
    uint64_t v = 0;
    if (c->bad || ltk_varint_get(&c->p, c->end, &v) != 0 || v > limit) {
        c->bad = 1;
        return 0;
    }
    return (size_t)v;
}

double *ltk_detect_get_f64s(ltk_detect_cursor *c, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) / 8 < n) {
        c->bad = 1;
        return NULL;
    }
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        c->bad = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = ltk_detect_get_f64(c);
    if (c->bad) {
        free(v);
        return NULL;
    }
    return v;
}

const char *ltk_detect_get_str(ltk_detect_cursor *c, size_t *n)
{
    /* the limit is what remains after the length's own varint, so it is
       checked once that is read (fuzz_model: a length counted from before
       the varint read up to 10 bytes past the buffer) */
    size_t len = ltk_detect_get_count(c, SIZE_MAX);
    if (!c->bad && len > (size_t)(c->end - c->p))
        c->bad = 1;
    if (c->bad) {
        *n = 0;
        return NULL;
    }
    const char *s = (const char *)c->p;
    c->p += len;
    *n = len;
    return s;
}

uint32_t ltk_detect_crc32(const void *data, size_t len)
{
    /* Bitwise CRC-32 (IEEE): model files are kilobytes, and a table built on
       first use would be shared mutable state across threads. */
    const unsigned char *p = data;
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}
