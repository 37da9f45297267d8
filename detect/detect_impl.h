/*
 * detect_impl.h - internals shared by the files of detect/ (internal).
 *
 * Layout:
 *   detect_sessions.c   session sets, CSV loading, labels, splits, metrics
 *   detect_features.c   vocabulary, event-count matrix with de-duplication,
 *                       tf-idf / zero-mean transform
 *   detect_model.c      the logtk_detector handle, model registry, parameters,
 *                       model file (save/load, checksum)
 *   detect_linalg.c     small dense linear algebra (symmetric eigen, Cholesky)
 *   detect_<model>.c    one file per model, each exporting a ltk_detect_model_ops
 */
#ifndef LTK_DETECT_IMPL_H
#define LTK_DETECT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "errmsg.h"
#include "hashtab.h"
#include "logtk.h"
#include "mix.h"
#include "strbuf.h"

/* ---------------------------------------------------------------- sessions */

struct logtk_sessions {
    ltk_hashtab ids;     /* session id -> session index */
    ltk_hashtab events;  /* event name -> event index (set-local) */
    /* per session: its events as a linked list of chunks while being built,
       flattened on demand into seq/offsets (see ltk_detect_sessions_flatten). */
    int8_t *labels;
    size_t count, cap;
    /* flat storage: events of session i are seq[offsets[i] .. offsets[i+1]) */
    uint32_t *seq;
    size_t seq_len, seq_cap;
    size_t *offsets; /* count + 1 entries, valid when flat */
    int flat;
    /* build storage for logtk_sessions_append: per-event next pointers */
    uint32_t *pending_event; /* event index of pending item k */
    uint32_t *pending_session;
    size_t npending, pending_cap;
    ltk_errbuf err;
};

/** Makes seq/offsets current (merges events appended one by one).  0 or -1 (no memory). */
int ltk_detect_sessions_flatten(logtk_sessions *s);

/** Events of session i (after flatten). */
static inline const uint32_t *ltk_detect_session_events(const logtk_sessions *s, size_t i, size_t *n)
{
    *n = s->offsets[i + 1] - s->offsets[i];
    return s->seq + s->offsets[i];
}

/** Parses "Normal"/"Anomaly"/"0"/"1"/"-"/... into a label; -2 when unknown text. */
int ltk_detect_parse_label(const char *p, size_t n);

/* ---------------------------------------------------------------- features */

/* The feature space learned in training: event names, idf weights, means. */
typedef struct ltk_detect_features {
    ltk_hashtab vocab; /* event name -> column */
    size_t ncols;
    int tfidf, zero_mean;
    double *idf;  /* ncols, or NULL when !tfidf */
    double *mean; /* ncols, or NULL when !zero_mean */
} ltk_detect_features;

/*
 * A training matrix: the distinct count vectors of the rows, each with its
 * number of normal, anomalous and unlabeled rows.
 * Every model here is either exactly invariant to duplicate rows given their
 * multiplicity (PCA, LR, decision tree, invariants) or handled below, so
 * 575,000 replicated sessions cost little more than their distinct vectors.
 * row_of[k] gives the distinct row of the k-th input row, for the models whose
 * result depends on input order (LogClustering's online pass, Isolation
 * Forest's sampling).
 *
 * The rows are always held sparse (raw counts of the events a row has, by
 * ascending column): a session uses a few of possibly 10^5 events, and the
 * dense transformed matrix x (nrows x ncols) is built only for the models
 * that read it (ops->sparse_input == 0), within DETECT_DENSE_MAX values.
 */
typedef struct ltk_detect_matrix {
    size_t nrows, ncols; /* distinct rows */
    double *x;           /* nrows * ncols, row-major, transformed; NULL until
                            ltk_detect_matrix_densify */
    size_t *row_start;   /* nrows + 1: row r's entries are [row_start[r], row_start[r+1]) */
    uint32_t *nz_col;    /* column of each entry, ascending within a row */
    uint32_t *nz_count;  /* raw count of each entry (> 0) */
    const ltk_detect_features *features; /* the transform (idf, mean) */
    double *w_normal, *w_anomaly, *w_unknown; /* multiplicities */
    size_t ninput;       /* input rows */
    uint32_t *row_of;    /* ninput */
} ltk_detect_matrix;

/* Most values (nrows x ncols) of a dense training matrix: 2^25 doubles,
   256 MiB; above it the models that need x refuse with LOGTK_ERR_LIMIT. */
#define DETECT_DENSE_MAX ((size_t)1 << 25)

void ltk_detect_features_init(ltk_detect_features *f);
void ltk_detect_features_free(ltk_detect_features *f);

/* Values of the tfidf parameter: 0 raw counts, 1 loglizer's idf log(N / df),
   2 the smoothed idf log((1 + N) / (1 + df)) + 1 (never 0). */
#define DETECT_TFIDF_LOGLIZER 1
#define DETECT_TFIDF_SMOOTH 2

/** Learns the vocabulary and the idf/mean vectors from rows of s (tfidf: 0, 1, 2 as above). */
int ltk_detect_features_fit(ltk_detect_features *f, logtk_sessions *s, const size_t *rows, size_t nrows,
                        int tfidf, int zero_mean);

/** Maps s's set-local event indices to columns (-1 when unseen).  Caller frees. */
int32_t *ltk_detect_features_column_map(const ltk_detect_features *f, const logtk_sessions *s);

/** Builds the de-duplicated sparse matrix of rows of s (x stays NULL).  0 or -1 (no memory). */
int ltk_detect_matrix_build(ltk_detect_matrix *m, const ltk_detect_features *f, logtk_sessions *s,
                        const size_t *rows, size_t nrows);
/** Builds m->x (the caller checked nrows * ncols against DETECT_DENSE_MAX).  0 or -1. */
int ltk_detect_matrix_densify(ltk_detect_matrix *m);
/** Sorts n values ascending in place, without allocating (heapsort; insertion when short). */
void ltk_detect_sort_u32(uint32_t *v, size_t n);

/** Writes distinct row r, transformed, densely into out (ncols values). */
void ltk_detect_matrix_row(const ltk_detect_matrix *m, size_t r, double *out);
void ltk_detect_matrix_free(ltk_detect_matrix *m);

/** Transforms raw counts in place (tf-idf, then centring). */
static inline void ltk_detect_features_transform(const ltk_detect_features *f, double *x)
{
    if (f->idf)
        for (size_t j = 0; j < f->ncols; j++)
            x[j] *= f->idf[j];
    if (f->mean)
        for (size_t j = 0; j < f->ncols; j++)
            x[j] -= f->mean[j];
}

/* ---------------------------------------------------------------- serialization */

/* Model file payload helpers: little-endian fixed-width numbers, varint-length strings. */
int ltk_detect_put_u32(ltk_strbuf *b, uint32_t v);
int ltk_detect_put_f64(ltk_strbuf *b, double v);
int ltk_detect_put_f64s(ltk_strbuf *b, const double *v, size_t n);
int ltk_detect_put_str(ltk_strbuf *b, const char *s, size_t n);

typedef struct ltk_detect_cursor {
    const uint8_t *p, *end;
    int bad; /* set on any read past the end or bad value */
} ltk_detect_cursor;

uint32_t ltk_detect_get_u32(ltk_detect_cursor *c);
double ltk_detect_get_f64(ltk_detect_cursor *c);
/** Reads n doubles into a fresh malloc'd array (NULL on error, c->bad set). */
double *ltk_detect_get_f64s(ltk_detect_cursor *c, size_t n);
/** Reads a string; returns a pointer into the buffer and its length. */
const char *ltk_detect_get_str(ltk_detect_cursor *c, size_t *n);
/** A count that must not exceed `limit` (guards allocations on damaged input). */
size_t ltk_detect_get_count(ltk_detect_cursor *c, size_t limit);

uint32_t ltk_detect_crc32(const void *data, size_t len);

/* ---------------------------------------------------------------- models */

#define DETECT_MAX_PARAMS 12
/* parameters every model has: tfidf, zero_mean, unseen */
#define DETECT_COMMON_PARAMS 3

typedef struct ltk_detect_param_def {
    const char *name;
    double def;
    double min, max;
    const char *const *choices; /* NULL, or names of the values 0, 1, ... */
    const char *help;
} ltk_detect_param_def;

typedef struct ltk_detect_model_ops ltk_detect_model_ops;

struct logtk_detector {
    const ltk_detect_model_ops *ops;
    double params[DETECT_MAX_PARAMS + DETECT_COMMON_PARAMS]; /* [0] tfidf, [1] zero_mean,
                                                               [2] unseen, then the model's */
    int trained;
    ltk_detect_features features;
    double threshold;
    void *state; /* model-specific */
    /* Set by a model's train or load where scoring a row from its raw
       counts, at a cost in proportion to the row's n events, beats the
       dense transform (PCA over thousands of events); NULL otherwise, and
       then the dense path's results are the reference.  Columns cols[0..n),
       counts x[cols[t]], every other x[j] 0; unseen as x[ncols] would be.
       Returns 0 with *score set, or nonzero to fall back to the dense path. */
    int (*score_sparse)(const logtk_detector *d, const double *x, const int32_t *cols, size_t n,
                        double unseen, double *score);
    /* scoring scratch, reused across calls */
    double *xbuf;
    size_t xbuf_cap;
    ltk_errbuf err;
};

/* A model's parameter k (0-based among the model's own). */
#define DETECT_PARAM(d, k) ((d)->params[DETECT_COMMON_PARAMS + (k)])

struct ltk_detect_model_ops {
    const char *name;
    const char *summary;
    int supervised;
    int default_tfidf, default_zero_mean;
    int train_normal_only; /* 1: train on normal rows when labels are known */
    const ltk_detect_param_def *params; /* terminated by a NULL name */
    /** Trains from m; sets d->threshold and d->state. */
    int (*train)(logtk_detector *d, const ltk_detect_matrix *m);
    /** Scores one transformed vector (d->features.ncols values, then the row's count of
        events unseen in training at x[ncols]; may scribble on x). */
    double (*score)(const logtk_detector *d, double *x);
    int (*save)(const logtk_detector *d, ltk_strbuf *b);
    int (*load)(logtk_detector *d, ltk_detect_cursor *c);
    void (*free_state)(void *state);
    /** 1: train reads the sparse rows only (m->x is NULL), and checks its own
        size limits; 0: the handle builds m->x within DETECT_DENSE_MAX. */
    int sparse_input;
    /** Sequence models (NULL for the count-vector ones, whose train and score
        are used instead): trains from the training rows' event sequences,
        map[e] giving set-local event e's column in d->features (every
        training event has one).  Sets d->threshold and d->state. */
    int (*train_sequences)(logtk_detector *d, const logtk_sessions *s, const size_t *rows,
                           size_t nrows, const int32_t *map);
    /** Scores one session's events (set-local indices); map[e] is the
        column, or -1 for an event unseen in training. */
    double (*score_sequence)(const logtk_detector *d, const uint32_t *events, size_t n,
                             const int32_t *map);
};

extern const ltk_detect_model_ops ltk_detect_pca_ops, ltk_detect_invariants_ops, ltk_detect_logclustering_ops,
    ltk_detect_iforest_ops, ltk_detect_ocsvm_ops, ltk_detect_novelty_ops, ltk_detect_lr_ops, ltk_detect_dtree_ops, ltk_detect_svm_ops,
    ltk_detect_ngram_ops;

/* ---------------------------------------------------------------- streaming */

/** Event states the stream's bucket closes have visited so far: the work of
    rate-change detection, which must grow with the events of each bucket,
    not with all events seen (tests hold it to that). */
uint64_t ltk_detect_stream_close_visits(const logtk_stream *s);

/* ---------------------------------------------------------------- linear algebra */

/**
 * Eigen-decomposition of a symmetric n x n matrix a (row-major, destroyed):
 * eigenvalues in descending order into w, eigenvectors as columns of v
 * (row-major n x n).  Cyclic Jacobi: exact to rounding, fine for the few
 * hundred events of log data.  Returns 0 or -1 (no memory).
 */
int ltk_detect_symmetric_eigen(double *a, size_t n, double *w, double *v);

/**
 * The same result for large n (a is only read): Householder tridiagonalisation
 * and implicit QL, O(n^3) with a small constant, n = 1,000 in about a second.
 * The models call it above DETECT_JACOBI_MAX so that small problems keep
 * Jacobi's results bit for bit.  Returns 0 or -1 (no memory, no convergence).
 */
int ltk_detect_symmetric_eigen_large(const double *a, size_t n, double *w, double *v);

/* Largest matrix the models hand to Jacobi (about 0.1 s); larger ones go to
   ltk_detect_symmetric_eigen_large. */
#define DETECT_JACOBI_MAX 128

/** Solves a x = b for symmetric positive definite a (destroyed); x overwrites b.  0 or -1. */
int ltk_detect_cholesky_solve(double *a, double *b, size_t n);

/** Deterministic PRNG: the library's splitmix64 (core/mix.h). */
static inline uint64_t ltk_detect_rand_next(uint64_t *state)
{
    return ltk_splitmix64(state);
}

/** Uniform integer in [0, n). */
static inline uint64_t ltk_detect_rand_below(uint64_t *state, uint64_t n)
{
    return n ? ltk_detect_rand_next(state) % n : 0;
}

/** Uniform double in [0, 1). */
static inline double ltk_detect_rand_unit(uint64_t *state)
{
    return (double)(ltk_detect_rand_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
