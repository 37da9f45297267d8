/*
 * detect_model.c - the detector handle: model registry, parameters, training
 * and scoring around the per-model files, and the model file.
 *
 * Training: fit the feature space on all training rows (vocabulary, idf,
 * mean: loglizer fits its FeatureExtractor on x_train), build the
 * de-duplicated matrix of the rows the model learns from (normal rows only
 * for models that want it), then hand it to the model.
 *
 * Scoring: each row's events are mapped to columns through a table built
 * once per call (set-local event index -> column), counted into a reused
 * dense buffer, transformed and scored.  No allocation per row.
 *
 * Model file (documented in logtk-model(5)), the saved frame of
 * core/saved_frame.h:
 *   "LOGTKDET"  8-byte magic
 *   u32         format version (4)
 *   u64         payload length L
 *   L bytes     payload: model name, parameters (name, value), threshold,
 *               feature space (event names, tf-idf / mean vectors), then
 *               the model's own state
 *   u32         ltk_checksum32() of everything before it
 * Numbers are little-endian; strings are a LEB128 length and bytes.  The
 * checksum catches damage, the magic foreign files, the version newer files
 * (versions 1 to 3, still read, had a u32 length and a CRC-32); every
 * count read is bounded by the bytes left, so a hostile file cannot make the
 * loader allocate more than the file's size allows.
 */
#include "config.h"
#include "detect_impl.h"
#include "mix.h"
#include "outfile.h"
#include "saved_frame.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODEL_MAGIC "LOGTKDET"
/* 2: the unseen parameter, the ngram model; 3: logclustering's radius;
   4: the saved frame (u64 length, ltk_checksum32) instead of a u32 length
   and a CRC-32 */
#define MODEL_VERSION 4u
#define MODEL_VERSION_FRAMED 4u

/* Parameters added in version 3, with the value that reproduces what a
   version-2 file's model did (a file names only the parameters it knew). */
static const struct {
    const ltk_detect_model_ops *ops;
    const char *param;
    double before;
} added_in_v3[] = {
    {&ltk_detect_logclustering_ops, "radius", 0},
};

static const ltk_detect_model_ops *const models[] = {
    &ltk_detect_pca_ops, &ltk_detect_invariants_ops, &ltk_detect_logclustering_ops, &ltk_detect_iforest_ops,
    &ltk_detect_ocsvm_ops, &ltk_detect_novelty_ops, &ltk_detect_lr_ops, &ltk_detect_dtree_ops, &ltk_detect_svm_ops,
    &ltk_detect_ngram_ops,
};
#define NMODELS (sizeof models / sizeof models[0])

const char *logtk_detector_model_name(size_t i)
{
    return i < NMODELS ? models[i]->name : NULL;
}

const char *logtk_detector_model_summary(size_t i)
{
    return i < NMODELS ? models[i]->summary : NULL;
}

static const ltk_detect_model_ops *find_model(const char *name, size_t len)
{
    for (size_t i = 0; i < NMODELS; i++)
        if (strlen(models[i]->name) == len && memcmp(models[i]->name, name, len) == 0)
            return models[i];
    return NULL;
}

static size_t model_param_count(const ltk_detect_model_ops *ops)
{
    size_t n = 0;
    while (ops->params[n].name)
        n++;
    return n;
}

static void reset_model(logtk_detector *d)
{
    if (d->state && d->ops)
        d->ops->free_state(d->state);
    d->state = NULL;
    d->score_sparse = NULL;
    d->trained = 0;
    d->threshold = 0;
    ltk_detect_features_free(&d->features);
}

static void set_defaults(logtk_detector *d, const ltk_detect_model_ops *ops)
{
    d->ops = ops;
    d->params[0] = ops->default_tfidf;
    d->params[1] = ops->default_zero_mean;
    d->params[2] = 1;
    for (size_t k = 0; ops->params[k].name; k++)
        DETECT_PARAM(d, k) = ops->params[k].def;
}

int logtk_detector_new(logtk_detector **out, const char *model)
{
    *out = NULL;
    const ltk_detect_model_ops *ops = find_model(model ? model : "pca", strlen(model ? model : "pca"));
    if (!ops)
        return LOGTK_ERR_NOT_FOUND;
    logtk_detector *d = calloc(1, sizeof *d);
    if (!d)
        return LOGTK_ERR_NOMEM;
    set_defaults(d, ops);
    ltk_detect_features_init(&d->features);
    *out = d;
    return LOGTK_OK;
}

void logtk_detector_free(logtk_detector *d)
{
    if (!d)
        return;
    reset_model(d);
    free(d->xbuf);
    free(d);
}

const char *logtk_detector_model(const logtk_detector *d)
{
    return d->ops->name;
}

int logtk_detector_supervised(const logtk_detector *d)
{
    return d->ops->supervised;
}

double logtk_detector_threshold(const logtk_detector *d)
{
    return d->threshold;
}

size_t logtk_detector_feature_count(const logtk_detector *d)
{
    return d->trained ? d->features.ncols : 0;
}

const char *logtk_detector_errmsg(const logtk_detector *d)
{
    return d ? ltk_error_text(&d->err) : "no detector";
}

static const ltk_detect_param_def common_params[DETECT_COMMON_PARAMS] = {
    {"tfidf", 0, 0, 2, NULL,
     "weight counts by inverse document frequency (0 off, 1 log(N/df), 2 smoothed)"},
    {"zero_mean", 0, 0, 1, NULL, "centre every column on its training mean (0/1)"},
    {"unseen", 1, 0, 1, NULL, "a session with an event never seen in training is anomalous (0/1)"},
};

const char *logtk_detector_param_name(const logtk_detector *d, size_t i, double *value)
{
    size_t n = model_param_count(d->ops);
    if (i >= n + DETECT_COMMON_PARAMS)
        return NULL;
    if (value)
        *value = d->params[i];
    return i < DETECT_COMMON_PARAMS ? common_params[i].name
                                    : d->ops->params[i - DETECT_COMMON_PARAMS].name;
}

int logtk_detector_set_option(logtk_detector *d, const char *name, const char *value)
{
    const ltk_detect_param_def *def = NULL;
    size_t slot = 0;
    for (size_t i = 0; i < DETECT_COMMON_PARAMS; i++)
        if (strcmp(name, common_params[i].name) == 0) {
            def = &common_params[i];
            slot = i;
        }
    for (size_t k = 0; !def && d->ops->params[k].name; k++)
        if (strcmp(name, d->ops->params[k].name) == 0) {
            def = &d->ops->params[k];
            slot = DETECT_COMMON_PARAMS + k;
        }
    if (!def)
        return ltk_error_set(&d->err, LOGTK_ERR_NOT_FOUND, "model %s has no parameter '%s'",
                               d->ops->name, name);
    double v;
    int found = 0;
    if (def->choices) {
        for (size_t c = 0; def->choices[c]; c++)
            if (strcmp(value, def->choices[c]) == 0) {
                v = (double)c;
                found = 1;
            }
    }
    if (!found) {
        char *end;
        errno = 0;
        v = strtod(value, &end);
        if (end == value || *end != '\0' || errno != 0 || !(v >= def->min && v <= def->max))
            return ltk_error_set(&d->err, LOGTK_ERR_INVALID,
                                   "%s: bad value '%s' for %s (%g .. %g)", d->ops->name, value,
                                   name, def->min, def->max);
    }
    d->params[slot] = v;
    return LOGTK_OK;
}

/* the old name, kept for programs built against it (logtk.h) */
int logtk_detector_set_param(logtk_detector *d, const char *name, const char *value)
{
    return logtk_detector_set_option(d, name, value);
}

int logtk_detector_train(logtk_detector *d, const logtk_sessions *cs, const size_t *rows,
                         size_t nrows)
{
    logtk_sessions *s = (logtk_sessions *)cs;
    ltk_error_clear(&d->err); /* a model's own message must not be masked by a stale one */
    if (!rows)
        nrows = s->count;
    if (nrows == 0)
        return ltk_error_set(&d->err, LOGTK_ERR_INVALID, "%s: no training rows", d->ops->name);
    if (ltk_detect_sessions_flatten(s) != 0)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    size_t nanom = 0, nnorm = 0;
    for (size_t k = 0; k < nrows; k++) {
        size_t i = rows ? rows[k] : k;
        if (i >= s->count)
            return ltk_error_set(&d->err, LOGTK_ERR_INVALID, "row %zu out of range", i);
        int label = s->labels[i];
        if (label == LOGTK_LABEL_UNKNOWN && d->ops->supervised)
            return ltk_error_set(&d->err, LOGTK_ERR_DATA,
                                   "%s needs labels; session '%s' has none (use --labels)",
                                   d->ops->name, ltk_hashtab_key(&s->ids, (uint32_t)i, NULL));
        nanom += label == LOGTK_LABEL_ANOMALY;
        nnorm += label == LOGTK_LABEL_NORMAL;
    }
    reset_model(d);
    int tfidf = d->params[0] >= DETECT_TFIDF_SMOOTH ? DETECT_TFIDF_SMOOTH : d->params[0] != 0;
    if (ltk_detect_features_fit(&d->features, s, rows, nrows, tfidf,
                            d->params[1] != 0) != 0)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    if (d->features.ncols == 0)
        return ltk_error_set(&d->err, LOGTK_ERR_INVALID,
                               "%s: the training rows have no events", d->ops->name);
    /* Rows the model learns from. */
    size_t *use = NULL, nuse = nrows;
    if (d->ops->train_normal_only && nnorm > 0) {
        use = malloc(nnorm * sizeof *use);
        if (!use)
            return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
        nuse = 0;
        for (size_t k = 0; k < nrows; k++) {
            size_t i = rows ? rows[k] : k;
            if (s->labels[i] == LOGTK_LABEL_NORMAL)
                use[nuse++] = i;
        }
    }
    if (d->ops->train_sequences) {
        size_t *all = NULL;
        if (!use && !rows) {
            all = malloc(nrows * sizeof *all);
            for (size_t k = 0; all && k < nrows; k++)
                all[k] = k;
        }
        int32_t *map = ltk_detect_features_column_map(&d->features, s);
        int rc = (!use && !rows && !all) || !map
                     ? LOGTK_ERR_NOMEM
                     : d->ops->train_sequences(d, s, use ? use : rows ? rows : all, nuse, map);
        free(map);
        free(all);
        free(use);
        if (rc != LOGTK_OK) {
            reset_model(d);
            return ltk_error_set(&d->err, rc, "%s: training failed: %s", d->ops->name,
                                   rc == LOGTK_ERR_NOMEM ? "out of memory" : logtk_strerror(rc));
        }
        d->trained = 1;
        return LOGTK_OK;
    }
    ltk_detect_matrix m;
    int rc = ltk_detect_matrix_build(&m, &d->features, s, use ? use : rows, nuse);
    free(use);
    if (rc != 0)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    if (d->ops->supervised && (nanom == 0 || nnorm == 0)) {
        ltk_detect_matrix_free(&m);
        return ltk_error_set(&d->err, LOGTK_ERR_DATA,
                               "%s needs both classes in training (%zu anomalous, %zu normal)",
                               d->ops->name, nanom, nnorm);
    }
    if (!d->ops->sparse_input) {
        /* nrows <= input rows and ncols <= their events, so the product
           cannot overflow before it passes the limit */
        if (m.nrows > DETECT_DENSE_MAX / m.ncols) {
            size_t nr = m.nrows, nc = m.ncols;
            ltk_detect_matrix_free(&m);
            return ltk_error_set(
                &d->err, LOGTK_ERR_LIMIT,
                "%s: %zu distinct training rows x %zu events exceed the %zu values "
                "(%zu MiB) of dense matrix this model is limited to; train on fewer "
                "sessions or fewer distinct events",
                d->ops->name, nr, nc, DETECT_DENSE_MAX,
                DETECT_DENSE_MAX * sizeof(double) >> 20);
        }
        if (ltk_detect_matrix_densify(&m) != 0) {
            ltk_detect_matrix_free(&m);
            return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
        }
    }
    rc = d->ops->train(d, &m);
    ltk_detect_matrix_free(&m);
    if (rc != LOGTK_OK) {
        reset_model(d);
        if (d->err.code == LOGTK_OK)
            ltk_error_set(&d->err, rc, "%s: training failed: %s", d->ops->name,
                            rc == LOGTK_ERR_NOMEM ? "out of memory" : logtk_strerror(rc));
        return rc;
    }
    d->trained = 1;
    return LOGTK_OK;
}

/*
 * Scores of distinct count vectors, kept for one logtk_detector_score()
 * call: a score is a function of the session's counts and of its number of
 * events unseen in training, and sessions repeat their counts (HDFS: 575k
 * sessions, a few thousand distinct vectors), so each distinct vector is
 * transformed and scored once (a one-class SVM's kernel sum over its
 * support vectors was 300k sessions/s).  The key is an order-independent
 * hash of the events' columns and the unseen count; an entry keeps its
 * (column, count) pairs and its unseen count, so a hit is checked, never
 * assumed.  Bounded: past SCORE_MEMO_ENTRIES entries or SCORE_MEMO_PAIRS
 * pairs, new vectors are scored without being kept.
 */
#define SCORE_MEMO_ENTRIES ((size_t)1 << 16)
#define SCORE_MEMO_PAIRS ((size_t)1 << 22)

typedef struct score_memo_pair {
    int32_t col;
    double count;
} score_memo_pair;

typedef struct score_memo {
    uint64_t *keys;     /* 0: empty slot */
    double *values;
    double *unseen;     /* the entry's count of events unseen in training */
    uint32_t *first;    /* the entry's pairs: pairs[first .. first + npairs) */
    uint32_t *npairs;
    size_t cap, used;   /* cap: a power of two, twice SCORE_MEMO_ENTRIES at most */
    score_memo_pair *pairs;
    size_t pairs_used, pairs_cap;
} score_memo;

static int score_memo_init(score_memo *mm, size_t rows)
{
    memset(mm, 0, sizeof *mm);
    size_t cap = 64;
    while (cap < 2 * rows && cap < 2 * SCORE_MEMO_ENTRIES)
        cap *= 2;
    mm->keys = calloc(cap, sizeof *mm->keys);
    mm->values = malloc(cap * sizeof *mm->values);
    mm->unseen = malloc(cap * sizeof *mm->unseen);
    mm->first = malloc(cap * sizeof *mm->first);
    mm->npairs = malloc(cap * sizeof *mm->npairs);
    mm->cap = cap;
    return mm->keys && mm->values && mm->unseen && mm->first && mm->npairs ? 0 : -1;
}

static void score_memo_free(score_memo *mm)
{
    free(mm->keys);
    free(mm->values);
    free(mm->unseen);
    free(mm->first);
    free(mm->npairs);
    free(mm->pairs);
}

/* The slot holding the vector x (nonzero columns cols[0..n), `unseen`
 * events unseen in training) under key h, or the empty slot where it would
 * go. */
static size_t score_memo_slot(const score_memo *mm, uint64_t h, const double *x,
                              size_t n, double unseen, int *found)
{
    size_t i = (size_t)h & (mm->cap - 1);
    *found = 0;
    while (mm->keys[i]) {
        if (mm->keys[i] == h && mm->npairs[i] == n && mm->unseen[i] == unseen) {
            const score_memo_pair *pr = mm->pairs + mm->first[i];
            size_t k = 0;
            while (k < n && x[pr[k].col] == pr[k].count)
                k++;
            if (k == n) {
                *found = 1;
                return i;
            }
        }
        i = (i + 1) & (mm->cap - 1);
    }
    return i;
}

/* Keeps x's counts (before the features' transform) and its score in slot i. */
static void score_memo_put(score_memo *mm, size_t i, uint64_t h, const double *x,
                           const int32_t *cols, size_t n, double unseen, double score)
{
    if (mm->used >= SCORE_MEMO_ENTRIES || mm->used >= mm->cap / 2 ||
        mm->pairs_used + n > SCORE_MEMO_PAIRS)
        return;
    if (mm->pairs_used + n > mm->pairs_cap) {
        size_t cap = mm->pairs_cap ? mm->pairs_cap : 1024;
        while (cap < mm->pairs_used + n)
            cap *= 2;
        score_memo_pair *bigger = realloc(mm->pairs, cap * sizeof *bigger);
        if (!bigger)
            return; /* not kept: scored again when it recurs */
        mm->pairs = bigger;
        mm->pairs_cap = cap;
    }
    for (size_t k = 0; k < n; k++) {
        mm->pairs[mm->pairs_used + k].col = cols[k];
        mm->pairs[mm->pairs_used + k].count = x[cols[k]];
    }
    mm->keys[i] = h;
    mm->values[i] = score;
    mm->unseen[i] = unseen;
    mm->first[i] = (uint32_t)mm->pairs_used;
    mm->npairs[i] = (uint32_t)n;
    mm->pairs_used += n;
    mm->used++;
}

int logtk_detector_score(logtk_detector *d, const logtk_sessions *cs, const size_t *rows,
                         size_t nrows, double *scores, uint8_t *anomalous)
{
    logtk_sessions *s = (logtk_sessions *)cs;
    if (!d->trained)
        return ltk_error_set(&d->err, LOGTK_ERR_STATE, "%s: model not trained", d->ops->name);
    if (!rows)
        nrows = s->count;
    if (ltk_detect_sessions_flatten(s) != 0)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    size_t m = d->features.ncols;
    /* x[m], after the features, counts the row's events unseen in training
       (ignored by every model but novelty). */
    if (d->xbuf_cap < m + 1) {
        double *x = realloc(d->xbuf, (m + 1) * sizeof *x);
        if (!x)
            return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
        d->xbuf = x;
        d->xbuf_cap = m + 1;
    }
    int32_t *map = ltk_detect_features_column_map(&d->features, s);
    if (!map)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    double *x = d->xbuf;
    int unseen_is_anomaly = d->params[2] != 0;
    if (d->ops->score_sequence) {
        for (size_t k = 0; k < nrows; k++) {
            size_t i = rows ? rows[k] : k, n = 0;
            const uint32_t *ev = i < s->count ? ltk_detect_session_events(s, i, &n) : NULL;
            double score = d->ops->score_sequence(d, ev, n, map);
            if (scores)
                scores[k] = score;
            if (anomalous)
                anomalous[k] = score > d->threshold;
        }
        free(map);
        return LOGTK_OK;
    }
    score_memo memo;
    int32_t *cols = malloc((m + 1) * sizeof *cols);
    if (!cols || score_memo_init(&memo, nrows) != 0) {
        free(cols);
        score_memo_free(&memo);
        free(map);
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    }
    /* x is cleared whole only after a transform wrote all of it; a row
       answered from the memo or by the model's sparse scoring touched its
       own columns only, so those are reset, and a row costs its events
       rather than the m columns of the vocabulary (10^5 on hostile input). */
    memset(x, 0, (m + 1) * sizeof *x);
    for (size_t k = 0; k < nrows; k++) {
        size_t i = rows ? rows[k] : k, ncols = 0;
        double unseen = 0;
        uint64_t h = 0;
        if (i < s->count) {
            size_t n;
            const uint32_t *ev = ltk_detect_session_events(s, i, &n);
            for (size_t t = 0; t < n; t++) {
                int32_t j = map[ev[t]];
                if (j >= 0) {
                    if (x[j] == 0)
                        cols[ncols++] = j;
                    x[j] += 1;
                    h += ltk_mix64((uint64_t)j + 1); /* a sum: order does not count */
                } else {
                    unseen += 1;
                }
            }
        }
        h ^= ltk_mix64((uint64_t)unseen ^ (uint64_t)ncols << 32);
        h += h == 0;
        int found;
        size_t slot = score_memo_slot(&memo, h, x, ncols, unseen, &found);
        double score;
        int dense = 0;
        if (found && memo.values[slot] == memo.values[slot]) {
            score = memo.values[slot];
        } else {
            int keep = !found;
            if (keep)
                score_memo_put(&memo, slot, h, x, cols, ncols, unseen, 0);
            if (!d->score_sparse || d->score_sparse(d, x, cols, ncols, unseen, &score) != 0) {
                ltk_detect_features_transform(&d->features, x);
                x[m] = unseen;
                score = d->ops->score(d, x);
                dense = 1;
            }
            if (keep && memo.keys[slot] == h)
                memo.values[slot] = score;
        }
        if (dense)
            memset(x, 0, (m + 1) * sizeof *x);
        else
            for (size_t t = 0; t < ncols; t++)
                x[cols[t]] = 0;
        /* an event never seen in training is evidence of its own: the
           session scores above the threshold by its count of them */
        if (unseen > 0 && unseen_is_anomaly && !(score > d->threshold))
            score = d->threshold + unseen;
        if (scores)
            scores[k] = score;
        if (anomalous)
            anomalous[k] = score > d->threshold;
    }
    score_memo_free(&memo);
    free(cols);
    free(map);
    return LOGTK_OK;
}

int logtk_detector_count_unseen(logtk_detector *d, const logtk_sessions *cs, const size_t *rows,
                                size_t nrows, uint64_t *sessions, uint64_t *events,
                                uint64_t *distinct)
{
    logtk_sessions *s = (logtk_sessions *)cs;
    *sessions = *events = *distinct = 0;
    if (!d->trained)
        return ltk_error_set(&d->err, LOGTK_ERR_STATE, "%s: model not trained", d->ops->name);
    if (!rows)
        nrows = s->count;
    if (ltk_detect_sessions_flatten(s) != 0)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    int32_t *map = ltk_detect_features_column_map(&d->features, s);
    uint8_t *counted = calloc(s->events.count ? s->events.count : 1, 1);
    if (!map || !counted) {
        free(map);
        free(counted);
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < nrows; k++) {
        size_t i = rows ? rows[k] : k, n = 0;
        const uint32_t *ev = i < s->count ? ltk_detect_session_events(s, i, &n) : NULL;
        int any = 0;
        for (size_t t = 0; t < n; t++)
            if (map[ev[t]] < 0) {
                any = 1;
                *events += 1;
                *distinct += !counted[ev[t]];
                counted[ev[t]] = 1;
            }
        *sessions += (uint64_t)any;
    }
    free(map);
    free(counted);
    return LOGTK_OK;
}

/* ---------------------------------------------------------------- model file */

int logtk_detector_save(logtk_detector *d, void **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    if (!d->trained)
        return ltk_error_set(&d->err, LOGTK_ERR_STATE, "%s: model not trained", d->ops->name);
    ltk_strbuf b = LTK_STRBUF_INIT;
    int bad = 0;
    bad |= ltk_frame_begin(&b, MODEL_MAGIC, MODEL_VERSION);
    bad |= ltk_detect_put_str(&b, d->ops->name, strlen(d->ops->name));
    size_t np = model_param_count(d->ops) + DETECT_COMMON_PARAMS;
    bad |= ltk_strbuf_put_varint(&b, np);
    for (size_t i = 0; i < np; i++) {
        double v;
        const char *name = logtk_detector_param_name(d, i, &v);
        bad |= ltk_detect_put_str(&b, name, strlen(name));
        bad |= ltk_detect_put_f64(&b, v);
    }
    bad |= ltk_detect_put_f64(&b, d->threshold);
    const ltk_detect_features *f = &d->features;
    bad |= ltk_strbuf_put_varint(&b, f->ncols);
    for (size_t j = 0; j < f->ncols; j++) {
        size_t n;
        const char *key = ltk_hashtab_key(&f->vocab, (uint32_t)j, &n);
        bad |= ltk_detect_put_str(&b, key, n);
    }
    bad |= ltk_detect_put_u32(&b, (f->idf ? 1u : 0u) | (f->mean ? 2u : 0u));
    if (f->idf)
        bad |= ltk_detect_put_f64s(&b, f->idf, f->ncols);
    if (f->mean)
        bad |= ltk_detect_put_f64s(&b, f->mean, f->ncols);
    bad |= d->ops->save(d, &b);
    bad |= ltk_frame_end(&b, 0);
    if (bad) {
        ltk_strbuf_free(&b);
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    }
    *buf = b.data;
    *len = b.len;
    return LOGTK_OK;
}

static int load_error(logtk_detector *d, const char *what)
{
    return ltk_error_set(&d->err, LOGTK_ERR_STATE, "model file %s", what);
}

int logtk_detector_load(logtk_detector *d, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    if (len < 20 || memcmp(p, MODEL_MAGIC, 8) != 0)
        return load_error(d, "is not a logtk model (bad magic)");
    ltk_detect_cursor c = {p + 8, p + len, 0};
    uint32_t version = ltk_detect_get_u32(&c);
    if (version >= MODEL_VERSION_FRAMED) {
        const uint8_t *payload;
        size_t plen;
        if (ltk_frame_open(buf, len, MODEL_MAGIC, MODEL_VERSION, "model file", &version,
                             &payload, &plen, &d->err) != LOGTK_OK)
            return d->err.code;
        c.p = payload;
        c.end = payload + plen;
    } else {
        /* versions 1 to 3: a u32 payload length and a CRC-32 */
        uint32_t plen = ltk_detect_get_u32(&c);
        if (version < 1)
            return ltk_error_set(&d->err, LOGTK_ERR_STATE,
                                   "model file version %u; this logtk reads versions 1 to %u",
                                   version, MODEL_VERSION);
        if ((size_t)plen != len - 20)
            return load_error(d, "is truncated or has trailing bytes");
        uint32_t crc = (uint32_t)p[len - 4] | (uint32_t)p[len - 3] << 8 |
                       (uint32_t)p[len - 2] << 16 | (uint32_t)p[len - 1] << 24;
        if (crc != ltk_detect_crc32(p, len - 4))
            return load_error(d, "is damaged (checksum mismatch)");
        c.end = p + len - 4;
    }

    size_t nlen;
    const char *name = ltk_detect_get_str(&c, &nlen);
    const ltk_detect_model_ops *ops = c.bad ? NULL : find_model(name, nlen);
    if (!ops)
        return load_error(d, "names an unknown model");
    logtk_detector tmp;
    memset(&tmp, 0, sizeof tmp);
    set_defaults(&tmp, ops);
    ltk_detect_features_init(&tmp.features);
    if (version == 1)
        tmp.params[2] = 0; /* version 1 ignored unseen events */
    for (size_t a = 0; version < 3 && a < sizeof added_in_v3 / sizeof added_in_v3[0]; a++)
        for (size_t k = 0; added_in_v3[a].ops == ops && ops->params[k].name; k++)
            if (strcmp(ops->params[k].name, added_in_v3[a].param) == 0)
                DETECT_PARAM(&tmp, k) = added_in_v3[a].before;
    size_t np = ltk_detect_get_count(&c, DETECT_MAX_PARAMS + DETECT_COMMON_PARAMS);
    for (size_t i = 0; i < np && !c.bad; i++) {
        size_t n;
        const char *pname = ltk_detect_get_str(&c, &n);
        double v = ltk_detect_get_f64(&c);
        if (c.bad)
            break;
        int matched = 0;
        for (size_t k = 0; k < model_param_count(ops) + DETECT_COMMON_PARAMS; k++) {
            const char *kn = k < DETECT_COMMON_PARAMS ? common_params[k].name
                                                      : ops->params[k - DETECT_COMMON_PARAMS].name;
            if (strlen(kn) == n && memcmp(kn, pname, n) == 0) {
                tmp.params[k] = v;
                matched = 1;
            }
        }
        if (!matched)
            c.bad = 1;
    }
    tmp.threshold = ltk_detect_get_f64(&c);
    size_t ncols = ltk_detect_get_count(&c, (size_t)(c.end - c.p));
    int rc = LOGTK_OK;
    if (!c.bad && ltk_hashtab_init(&tmp.features.vocab, ncols + 16) != 0)
        rc = LOGTK_ERR_NOMEM;
    for (size_t j = 0; j < ncols && !c.bad && rc == LOGTK_OK; j++) {
        size_t n;
        const char *key = ltk_detect_get_str(&c, &n);
        int inserted = 0;
        if (!c.bad && (ltk_hashtab_intern(&tmp.features.vocab, key, n, &inserted) < 0))
            rc = LOGTK_ERR_NOMEM;
        else if (!inserted)
            c.bad = 1; /* duplicate event name */
    }
    tmp.features.ncols = ncols;
    uint32_t flags = ltk_detect_get_u32(&c);
    if (flags > 3)
        c.bad = 1;
    if ((flags & 1) && !c.bad)
        tmp.features.idf = ltk_detect_get_f64s(&c, ncols);
    if ((flags & 2) && !c.bad)
        tmp.features.mean = ltk_detect_get_f64s(&c, ncols);
    tmp.features.tfidf = (flags & 1) != 0;
    tmp.features.zero_mean = (flags & 2) != 0;
    if (!c.bad && rc == LOGTK_OK && ncols == 0)
        c.bad = 1;
    if (!c.bad && rc == LOGTK_OK)
        rc = ops->load(&tmp, &c);
    if (rc == LOGTK_OK && (c.bad || c.p != c.end))
        rc = LOGTK_ERR_STATE;
    if (rc != LOGTK_OK) {
        if (tmp.state)
            ops->free_state(tmp.state);
        ltk_detect_features_free(&tmp.features);
        if (rc == LOGTK_ERR_NOMEM)
            return ltk_error_set(&d->err, rc, "out of memory");
        return load_error(d, "is damaged (inconsistent contents)");
    }
    reset_model(d);
    d->ops = ops;
    memcpy(d->params, tmp.params, sizeof d->params);
    d->threshold = tmp.threshold;
    d->features = tmp.features;
    d->state = tmp.state;
    d->score_sparse = tmp.score_sparse;
    d->trained = 1;
    ltk_error_clear(&d->err);
    return LOGTK_OK;
}

int logtk_detector_save_file(logtk_detector *d, const char *path)
{
    void *buf;
    size_t len;
    int rc = logtk_detector_save(d, &buf, &len);
    if (rc != LOGTK_OK)
        return rc;
    /* The outfile layer writes a temporary file and renames it into place, and
       writes a device or FIFO directly and follows a symlink instead of
       replacing them (renaming over /dev/null would destroy it). */
    ltk_outfile out = LTK_OUTFILE_INIT;
    rc = ltk_outfile_open(&out, path, &d->err);
    if (rc == LOGTK_OK) {
        rc = ltk_outfile_write(&out, buf, len, &d->err);
        if (rc == LOGTK_OK)
            rc = ltk_outfile_commit(&out, &d->err);
        else
            ltk_outfile_abort(&out);
    }
    free(buf);
    return rc;
}

int logtk_detector_load_file(logtk_detector *d, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ltk_error_set(&d->err, LOGTK_ERR_IO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                free(buf);
            buf = nb;
            cap *= 2;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (!buf)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "%s: out of memory", path);
    if (err) {
        free(buf);
        return ltk_error_set(&d->err, LOGTK_ERR_IO, "%s: read error", path);
    }
    int rc = logtk_detector_load(d, buf, n);
    free(buf);
    if (rc != LOGTK_OK) {
        char msg[LTK_ERRMSG_MAX];
        snprintf(msg, sizeof msg, "%s", ltk_error_text(&d->err));
        ltk_error_set(&d->err, rc, "%s: %s", path, msg);
    }
    return rc;
}
