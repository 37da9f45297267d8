/*
 * detect_stream.c - streaming detectors: new template, rare template, rate
 * change per time bucket, and next-event prediction from n-grams.
 *
 * The offline models score whole windows; a live pipeline also wants to
 * hear at once about an event that breaks the usual flow.  These detectors
 * keep only per-event and per-context counters, so each event costs a few
 * array updates and one hash probe:
 *   - counts per event id (dense ids, as online parsers give) answer "new"
 *     and "rare";
 *   - the current bucket's counts and an exponentially weighted mean per
 *     event (alpha 0.3: a few buckets of memory, adapts to slow drift) give
 *     rate changes when a bucket closes; an event needs 3 buckets of history
 *     before it can be flagged, so a template born mid-bucket is not;
 *     closing a bucket visits the events counted in it and those whose
 *     mean is above 1 (only they can alert); every other event's mean
 *     only decays, and that is applied when it is next visited (see
 *     close_bucket), so a bucket costs its own events, not every event
 *     seen so far;
 *   - the n-gram detector is DeepLog's "is the next key among the top g
 *     predicted" rule with counting instead of an LSTM: the context (the
 *     last n-1 events) is interned in a hash table, each context keeps its
 *     followers with counts, and an event ranks by how many followers were
 *     seen more often.  A context seen for the first time predicts nothing
 *     and flags nothing (it is then learned), as is any event seen during
 *     warmup.
 * Everything learns online: an alert does not stop the event from being
 * counted, so a recurring new behaviour stops alerting.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_MAX_NGRAM 16
#define STREAM_NGRAM_TEXT "16" /* STREAM_MAX_NGRAM, for messages */
#define STREAM_EWMA_ALPHA 0.3
#define STREAM_MIN_BUCKETS 3

typedef struct stream_context {
    uint32_t *events;
    uint32_t *counts;
    uint32_t n, cap;
    uint64_t total;
} stream_context;

struct logtk_stream {
    int new_template;
    uint64_t rare_count;
    double bucket;
    double rate_factor;
    unsigned ngram;
    unsigned top_k;
    uint64_t warmup;
    int learn; /* 0: after warmup, counts and n-grams stay as learned */
    uint64_t seen_events;
    /* per event */
    uint64_t *count;
    uint32_t *in_bucket;
    double *mean;
    uint32_t *buckets_seen;
    uint64_t *synced; /* closes applied to mean and buckets_seen */
    size_t nevents_cap;
    uint32_t max_event;
    /* the events close_bucket visits: counted in the current bucket, and
       with a mean above 1 at their last close (sorted by id) */
    uint32_t *touched, *high, *visit;
    size_t ntouched, nhigh;
    uint64_t closes;       /* buckets closed */
    uint64_t close_visits; /* event states visited by those closes (work) */
    /* buckets */
    double bucket_start;
    int have_bucket;
    /* n-grams */
    uint32_t history[STREAM_MAX_NGRAM];
    unsigned history_len;
    ltk_hashtab contexts;
    stream_context *ctx;
    size_t nctx, ctx_cap;
    /* alerts of the last call */
    logtk_stream_alert *alerts;
    size_t nalerts, alerts_cap;
    ltk_errbuf err;
};

int logtk_stream_new(logtk_stream **out)
{
    *out = NULL;
    logtk_stream *s = calloc(1, sizeof *s);
    if (!s)
        return LOGTK_ERR_NOMEM;
    s->new_template = 1;
    s->rate_factor = 10;
    s->top_k = 9;
    s->warmup = 1000;
    s->learn = 1;
    if (ltk_hashtab_init(&s->contexts, 1024) != 0) {
        free(s);
        return LOGTK_ERR_NOMEM;
    }
    *out = s;
    return LOGTK_OK;
}

void logtk_stream_free(logtk_stream *s)
{
    if (!s)
        return;
    free(s->count);
    free(s->in_bucket);
    free(s->mean);
    free(s->buckets_seen);
    free(s->synced);
    free(s->touched);
    free(s->high);
    free(s->visit);
    for (size_t i = 0; i < s->nctx; i++) {
        free(s->ctx[i].events);
        free(s->ctx[i].counts);
    }
    free(s->ctx);
    ltk_hashtab_free(&s->contexts);
    free(s->alerts);
    free(s);
}

const char *logtk_stream_errmsg(const logtk_stream *s)
{
    return s ? ltk_error_text(&s->err) : "no stream";
}

const char *logtk_stream_alert_name(int kind)
{
    switch (kind) {
    case LOGTK_ALERT_NEW_TEMPLATE:
        return "new-template";
    case LOGTK_ALERT_RARE_TEMPLATE:
        return "rare-template";
    case LOGTK_ALERT_RATE_CHANGE:
        return "rate-change";
    case LOGTK_ALERT_UNEXPECTED:
        return "unexpected-event";
    default:
        return "unknown";
    }
}

/* Counts (lines, events) are whole numbers a double holds exactly: a larger
   value would not survive the conversion (1e20 became 0). */
#define STREAM_MAX_COUNT 9007199254740992.0 /* 2^53 */

int logtk_stream_set_option(logtk_stream *s, const char *name, const char *value)
{
    char *end;
    double v = strtod(value, &end);
    if (*value == '\0' || *end != '\0' || !(v >= 0) || !isfinite(v))
        return ltk_error_set(&s->err, LOGTK_ERR_INVALID, "bad value '%s' for %s", value, name);
    int integer = v == floor(v) && v <= STREAM_MAX_COUNT;
    if (strcmp(name, "new_template") == 0 && (v == 0 || v == 1)) {
        s->new_template = (int)v;
    } else if (strcmp(name, "rare_count") == 0 && integer) {
        s->rare_count = (uint64_t)v;
    } else if (strcmp(name, "bucket") == 0 && v <= 1e15) {
        s->bucket = v;
    } else if (strcmp(name, "rate_factor") == 0 && v > 1) {
        s->rate_factor = v;
    } else if (strcmp(name, "ngram") == 0 && integer && (v == 0 || (v >= 2 && v <= STREAM_MAX_NGRAM))) {
        s->ngram = (unsigned)v;
    } else if (strcmp(name, "top_k") == 0 && integer && v >= 1 && v <= 1e6) {
        s->top_k = (unsigned)v;
    } else if (strcmp(name, "warmup") == 0 && integer) {
        s->warmup = (uint64_t)v;
    } else if (strcmp(name, "learn") == 0 && (v == 0 || v == 1)) {
        s->learn = (int)v;
    } else if (strcmp(name, "new_template") == 0 || strcmp(name, "rare_count") == 0 ||
               strcmp(name, "rate_factor") == 0 || strcmp(name, "ngram") == 0 ||
               strcmp(name, "top_k") == 0 || strcmp(name, "warmup") == 0 ||
               strcmp(name, "bucket") == 0 || strcmp(name, "learn") == 0) {
        const char *range = strcmp(name, "new_template") == 0 || strcmp(name, "learn") == 0
                                ? "0 or 1"
                            : strcmp(name, "rate_factor") == 0 ? "a number above 1"
                            : strcmp(name, "ngram") == 0       ? "0 (off) or 2.." STREAM_NGRAM_TEXT
                            : strcmp(name, "top_k") == 0       ? "1..1000000"
                            : strcmp(name, "bucket") == 0      ? "seconds, 0..1e15"
                                                               : "a whole number, 0..2^53";
        return ltk_error_set(&s->err, LOGTK_ERR_INVALID, "bad value '%s' for %s (%s)", value,
                               name, range);
    } else {
        return ltk_error_set(&s->err, LOGTK_ERR_NOT_FOUND,
                               "unknown stream option '%s' (new_template, rare_count, bucket, "
                               "rate_factor, ngram, top_k, warmup, learn)",
                               name);
    }
    return LOGTK_OK;
}

static int add_alert(logtk_stream *s, int kind, uint32_t event, double value, double expected,
                     double t)
{
    if (s->nalerts == s->alerts_cap) {
        size_t cap = s->alerts_cap ? s->alerts_cap * 2 : 16;
        logtk_stream_alert *a = realloc(s->alerts, cap * sizeof *a);
        if (!a)
            return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
        s->alerts = a;
        s->alerts_cap = cap;
    }
    logtk_stream_alert *a = &s->alerts[s->nalerts++];
    a->kind = kind;
    a->event = event;
    a->value = value;
    a->expected = expected;
    a->time = t;
    return LOGTK_OK;
}

static int grow_events(logtk_stream *s, uint32_t event)
{
    if (event < s->nevents_cap)
        return LOGTK_OK;
    size_t cap = s->nevents_cap ? s->nevents_cap : 256;
    while (cap <= event)
        cap *= 2;
    uint64_t *c = realloc(s->count, cap * sizeof *c);
    if (c)
        s->count = c;
    uint32_t *b = realloc(s->in_bucket, cap * sizeof *b);
    if (b)
        s->in_bucket = b;
    double *m = realloc(s->mean, cap * sizeof *m);
    if (m)
        s->mean = m;
    uint32_t *n = realloc(s->buckets_seen, cap * sizeof *n);
    if (n)
        s->buckets_seen = n;
    uint64_t *y = realloc(s->synced, cap * sizeof *y);
    if (y)
        s->synced = y;
    /* an event is in touched or high at most once each: visit holds both */
    uint32_t *tv = realloc(s->touched, cap * sizeof *tv);
    if (tv)
        s->touched = tv;
    uint32_t *hv = realloc(s->high, cap * sizeof *hv);
    if (hv)
        s->high = hv;
    uint32_t *vv = realloc(s->visit, 2 * cap * sizeof *vv);
    if (vv)
        s->visit = vv;
    if (!c || !b || !m || !n || !y || !tv || !hv || !vv)
        return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
    size_t old = s->nevents_cap;
    memset(s->count + old, 0, (cap - old) * sizeof *c);
    memset(s->in_bucket + old, 0, (cap - old) * sizeof *b);
    memset(s->mean + old, 0, (cap - old) * sizeof *m);
    memset(s->buckets_seen + old, 0, (cap - old) * sizeof *n);
    memset(s->synced + old, 0, (cap - old) * sizeof *y);
    s->nevents_cap = cap;
    return LOGTK_OK;
}

/* One bucket's update of an event's moving average (c: its count in the
   bucket); the same arithmetic whether the bucket is closed now or, for an
   absent event, applied later. */
static inline double ewma_step(double m, double c, uint32_t buckets_seen)
{
    return buckets_seen ? (1 - STREAM_EWMA_ALPHA) * m + STREAM_EWMA_ALPHA * c : c;
}

/* Applies the closes event e was absent from since it was last visited:
   each decays its mean (until it reaches 0, which then stays) and counts a
   bucket seen, exactly as closing them one by one did. */
static void catch_up(logtk_stream *s, uint32_t e)
{
    uint64_t missed = s->closes - s->synced[e];
    double m = s->mean[e];
    uint32_t seen = s->buckets_seen[e];
    for (; missed > 0 && !(m == 0 && seen != 0); missed--) {
        m = ewma_step(m, 0.0, seen);
        seen++;
    }
    s->buckets_seen[e] = seen + (uint32_t)missed;
    s->mean[e] = m;
    s->synced[e] = s->closes;
}

/* Closes the current bucket: compares counts with the moving averages.
   Only the events counted in the bucket and those whose mean is above 1
   can alert (a drop needs mean >= rate_factor > 1); they are visited in
   id order, as a scan of every event did, and every other event's decay
   waits in catch_up. */
static int close_bucket(logtk_stream *s, int alerting)
{
    size_t nvisit = 0;
    for (size_t i = 0; i < s->ntouched; i++)
        s->visit[nvisit++] = s->touched[i];
    for (size_t i = 0; i < s->nhigh; i++)
        s->visit[nvisit++] = s->high[i];
    ltk_detect_sort_u32(s->visit, nvisit);
    s->ntouched = 0;
    s->nhigh = 0;
    int rc = LOGTK_OK;
    for (size_t i = 0; i < nvisit; i++) {
        uint32_t e = s->visit[i];
        if (i > 0 && e == s->visit[i - 1])
            continue;
        if (!s->count[e])
            continue; /* never counted (--no-learn after warmup): no history */
        s->close_visits++;
        catch_up(s, e);
        double c = s->in_bucket[e], m = s->mean[e];
        if (rc == LOGTK_OK && alerting && s->buckets_seen[e] >= STREAM_MIN_BUCKETS &&
            (c > s->rate_factor * (m > 1 ? m : 1) || (m >= s->rate_factor && c == 0)))
            rc = add_alert(s, LOGTK_ALERT_RATE_CHANGE, e, c, m, s->bucket_start);
        s->mean[e] = ewma_step(m, c, s->buckets_seen[e]);
        s->buckets_seen[e]++;
        s->in_bucket[e] = 0;
        s->synced[e] = s->closes + 1;
        if (s->mean[e] > 1)
            s->high[s->nhigh++] = e;
    }
    s->closes++;
    return rc;
}

/* n-gram step: checks the event against its context's followers, learns. */
static int ngram_step(logtk_stream *s, uint32_t event, double t, int alerting)
{
    unsigned need = s->ngram - 1;
    if (s->history_len >= need) {
        const uint32_t *context = s->history + (s->history_len - need);
        int inserted = 0;
        int64_t k = ltk_hashtab_intern(&s->contexts, context, need * sizeof *context, &inserted);
        if (k < 0)
            return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
        if (inserted) {
            if (s->nctx == s->ctx_cap) {
                size_t cap = s->ctx_cap ? s->ctx_cap * 2 : 1024;
                stream_context *c = realloc(s->ctx, cap * sizeof *c);
                if (!c)
                    return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
                s->ctx = c;
                s->ctx_cap = cap;
            }
            memset(&s->ctx[s->nctx++], 0, sizeof *s->ctx);
        }
        stream_context *c = &s->ctx[k];
        uint32_t count = 0, rank = 0, slot = c->n;
        for (uint32_t i = 0; i < c->n; i++)
            if (c->events[i] == event) {
                count = c->counts[i];
                slot = i;
            }
        for (uint32_t i = 0; i < c->n; i++)
            rank += c->counts[i] > count;
        if (alerting && c->total > 0 && (count == 0 || rank >= s->top_k)) {
            int rc = add_alert(s, LOGTK_ALERT_UNEXPECTED, event, count == 0 ? c->n : rank,
                               s->top_k, t);
            if (rc != LOGTK_OK)
                return rc;
        }
        if (alerting && !s->learn)
            goto shift; /* frozen: what warmup learned is the model of normal */
        if (slot == c->n) {
            if (c->n == c->cap) {
                uint32_t cap = c->cap ? c->cap * 2 : 4;
                uint32_t *ev = realloc(c->events, cap * sizeof *ev);
                if (ev)
                    c->events = ev;
                uint32_t *cn = realloc(c->counts, cap * sizeof *cn);
                if (cn)
                    c->counts = cn;
                if (!ev || !cn)
                    return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
                c->cap = cap;
            }
            c->events[c->n] = event;
            c->counts[c->n] = 0;
            c->n++;
        }
        c->counts[slot]++;
        c->total++;
    }
shift:
    if (s->history_len == STREAM_MAX_NGRAM) {
        memmove(s->history, s->history + 1, (STREAM_MAX_NGRAM - 1) * sizeof *s->history);
        s->history_len--;
    }
    s->history[s->history_len++] = event;
    return LOGTK_OK;
}

int logtk_stream_observe(logtk_stream *s, uint32_t event, double t,
                         const logtk_stream_alert **alerts, size_t *nalerts)
{
    s->nalerts = 0;
    *alerts = s->alerts;
    *nalerts = 0;
    int rc = grow_events(s, event);
    if (rc != LOGTK_OK)
        return rc;
    if (event > s->max_event)
        s->max_event = event;
    int alerting = s->seen_events >= s->warmup;
    if (s->bucket > 0) {
        if (!s->have_bucket) {
            s->bucket_start = t;
            s->have_bucket = 1;
        }
        while (t >= s->bucket_start + s->bucket) {
            double previous_start = s->bucket_start;
            rc = close_bucket(s, alerting);
            if (rc != LOGTK_OK)
                return rc;
            s->bucket_start += s->bucket;
            if (t >= s->bucket_start + s->bucket) {
                /* a gap: the buckets in between were empty; one more
                   close records that, the rest are skipped at once */
                rc = close_bucket(s, alerting);
                if (rc != LOGTK_OK)
                    return rc;
                double skip = floor((t - s->bucket_start) / s->bucket);
                s->bucket_start += skip * s->bucket;
            }
            if (!(s->bucket_start > previous_start)) {
                /* times so large (or infinite) that adding the bucket width
                   changes nothing: the bucket starts at t, and the loop
                   must end rather than close empty buckets forever */
                s->bucket_start = t;
                break;
            }
        }
        if (s->in_bucket[event]++ == 0)
            s->touched[s->ntouched++] = event;
    }
    uint64_t before = s->count[event];
    if (alerting && before == 0 && s->new_template)
        rc = add_alert(s, LOGTK_ALERT_NEW_TEMPLATE, event, 0, 0, t);
    else if (alerting && before > 0 && before < s->rare_count)
        rc = add_alert(s, LOGTK_ALERT_RARE_TEMPLATE, event, (double)before, (double)s->rare_count,
                       t);
    if (rc != LOGTK_OK)
        return rc;
    if (!alerting || s->learn) {
        if (s->count[event]++ == 0)
            s->synced[event] = s->closes; /* its history starts now */
    }
    if (s->ngram >= 2 && (rc = ngram_step(s, event, t, alerting)) != LOGTK_OK)
        return rc;
    s->seen_events++;
    *alerts = s->alerts;
    *nalerts = s->nalerts;
    return LOGTK_OK;
}

uint64_t ltk_detect_stream_close_visits(const logtk_stream *s)
{
    return s->close_visits;
}

int logtk_stream_finish(logtk_stream *s, const logtk_stream_alert **alerts, size_t *nalerts)
{
    s->nalerts = 0;
    int rc = LOGTK_OK;
    if (s->bucket > 0 && s->have_bucket)
        rc = close_bucket(s, s->seen_events >= s->warmup);
    s->have_bucket = 0;
    *alerts = s->alerts;
    *nalerts = s->nalerts;
    return rc;
}
