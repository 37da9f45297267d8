/*
 * test_detect_scale.c - detection whose cost must follow the data at hand,
 * not everything seen so far (issue 14): the streaming detectors' bucket
 * closes over many distinct events, and PCA scoring over many events.
 *
 * The bucket closes are checked two ways: their work counter must stay in
 * proportion to the events of each bucket (it grew with every event seen,
 * quadratic over 10^5 distinct lines), and their alerts must equal, to the
 * last bit, those of a plain scan of every event at every close, written
 * out here as the reference.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_impl.h"
#include "test_harness.h"

/* ---------------------------------------------------------------- reference */

#define REF_EVENTS 64

/* The rate-change detector as a scan of every event at every close. */
typedef struct ref_stream {
    double bucket, rate_factor;
    uint64_t warmup, seen;
    int learn;
    uint64_t count[REF_EVENTS];
    uint32_t in_bucket[REF_EVENTS], buckets_seen[REF_EVENTS];
    double mean[REF_EVENTS];
    double bucket_start;
    int have_bucket;
    logtk_stream_alert alerts[4 * REF_EVENTS];
    size_t nalerts;
} ref_stream;

static void ref_close(ref_stream *r, int alerting)
{
    for (uint32_t e = 0; e < REF_EVENTS; e++) {
        if (!r->count[e])
            continue;
        double c = r->in_bucket[e], m = r->mean[e];
        if (alerting && r->buckets_seen[e] >= 3 &&
            (c > r->rate_factor * (m > 1 ? m : 1) || (m >= r->rate_factor && c == 0))) {
            logtk_stream_alert *a = &r->alerts[r->nalerts++];
            a->kind = LOGTK_ALERT_RATE_CHANGE;
            a->event = e;
            a->value = c;
            a->expected = m;
            a->time = r->bucket_start;
        }
        r->mean[e] = r->buckets_seen[e] ? (1 - 0.3) * m + 0.3 * c : c;
        r->buckets_seen[e]++;
        r->in_bucket[e] = 0;
    }
}

static void ref_observe(ref_stream *r, uint32_t e, double t)
{
    r->nalerts = 0;
    int alerting = r->seen >= r->warmup;
    if (!r->have_bucket) {
        r->bucket_start = t;
        r->have_bucket = 1;
    }
    while (t >= r->bucket_start + r->bucket) {
        ref_close(r, alerting);
        r->bucket_start += r->bucket;
        if (t >= r->bucket_start + r->bucket) {
            ref_close(r, alerting);
            r->bucket_start += floor((t - r->bucket_start) / r->bucket) * r->bucket;
        }
    }
    r->in_bucket[e]++;
    if (!alerting || r->learn)
        r->count[e]++;
    r->seen++;
}

static int same_alerts(const logtk_stream_alert *a, size_t na, const logtk_stream_alert *b,
                       size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (a[i].kind != b[i].kind || a[i].event != b[i].event || a[i].value != b[i].value ||
            a[i].expected != b[i].expected || a[i].time != b[i].time)
            return 0;
    return 1;
}

static logtk_stream *rate_stream(const char *bucket, const char *rate_factor, const char *warmup,
                                 const char *learn)
{
    logtk_stream *s;
    CHECK_STATUS(logtk_stream_new(&s), LOGTK_OK);
    CHECK_STATUS(logtk_stream_set_option(s, "new_template", "0"), LOGTK_OK);
    CHECK_STATUS(logtk_stream_set_option(s, "bucket", bucket), LOGTK_OK);
    CHECK_STATUS(logtk_stream_set_option(s, "rate_factor", rate_factor), LOGTK_OK);
    CHECK_STATUS(logtk_stream_set_option(s, "warmup", warmup), LOGTK_OK);
    CHECK_STATUS(logtk_stream_set_option(s, "learn", learn), LOGTK_OK);
    return s;
}

/* Bursts, silences, gaps of many buckets and events that come back after
   their mean decayed: every alert of the bucket closes, in order, as the
   full scan gives it. */
static void compare_with_reference(int learn)
{
    logtk_stream *s = rate_stream("10", "3", "200", learn ? "1" : "0");
    ref_stream *r = calloc(1, sizeof *r);
    r->bucket = 10;
    r->rate_factor = 3;
    r->warmup = 200;
    r->learn = learn;
    uint64_t rng = 12345;
    double t = 0;
    size_t total_alerts = 0, mismatches = 0;
    for (int i = 0; i < 40000; i++) {
        uint64_t u = ltk_detect_rand_next(&rng);
        /* time: mostly small steps, sometimes a gap of many buckets */
        if (u % 997 == 0)
            t += 10.0 * (double)(u % 3000);
        else
            t += (double)(u >> 20 & 7) * 0.25;
        /* events: a few frequent, many rare, bursts of one event */
        uint32_t e;
        if ((i / 500) % 7 == 3)
            e = (uint32_t)(i / 3500) % REF_EVENTS; /* a burst */
        else if (u >> 40 & 1)
            e = (uint32_t)(u >> 41) % 4;
        else
            e = (uint32_t)(u >> 41) % REF_EVENTS;
        const logtk_stream_alert *alerts;
        size_t nalerts;
        CHECK_STATUS(logtk_stream_observe(s, e, t, &alerts, &nalerts), LOGTK_OK);
        ref_observe(r, e, t);
        total_alerts += nalerts;
        if (!same_alerts(alerts, nalerts, r->alerts, r->nalerts) && mismatches++ == 0)
            fprintf(stderr, "first mismatch at observation %d (%zu alerts, reference %zu)\n",
                    i, nalerts, r->nalerts);
    }
    const logtk_stream_alert *alerts;
    size_t nalerts;
    CHECK_STATUS(logtk_stream_finish(s, &alerts, &nalerts), LOGTK_OK);
    r->nalerts = 0;
    ref_close(r, 1);
    CHECK(same_alerts(alerts, nalerts, r->alerts, r->nalerts));
    CHECK(mismatches == 0);
    CHECK(total_alerts > 50); /* the stream did exercise rises and drops */
    free(r);
    logtk_stream_free(s);
}

TEST(stream_bucket_closes_match_full_scan)
{
    compare_with_reference(1);
}

TEST(stream_bucket_closes_match_full_scan_without_learning)
{
    compare_with_reference(0);
}

/* 20,000 distinct events, one per bucket: each close visits its own event
   (and the few whose mean is above 1), where a scan of every event seen
   visited 2 * 10^8. */
TEST(stream_bucket_close_work_follows_bucket_events)
{
    logtk_stream *s = rate_stream("1", "10", "0", "1");
    const uint32_t n = 20000;
    for (uint32_t e = 1; e <= n; e++) {
        const logtk_stream_alert *alerts;
        size_t nalerts;
        CHECK_STATUS(logtk_stream_observe(s, e, (double)e, &alerts, &nalerts), LOGTK_OK);
    }
    const logtk_stream_alert *alerts;
    size_t nalerts;
    CHECK_STATUS(logtk_stream_finish(s, &alerts, &nalerts), LOGTK_OK);
    uint64_t visits = ltk_detect_stream_close_visits(s);
    CHECK(visits >= n);
    CHECK(visits <= 2 * (uint64_t)n);
    if (visits > 2 * (uint64_t)n)
        fprintf(stderr, "bucket closes visited %llu event states for %u events\n",
                (unsigned long long)visits, n);
    logtk_stream_free(s);
}

/* ---------------------------------------------------------------- PCA */

/* Sessions over `events` distinct events, each session a few events of a
   shared pool plus its own. */
static logtk_sessions *many_event_sessions(int nsessions, int events_per_session, int pool)
{
    logtk_sessions *s;
    CHECK_STATUS(logtk_sessions_new(&s), LOGTK_OK);
    char id[32], ev[32];
    int own = 0;
    uint64_t rng = 7;
    for (int i = 0; i < nsessions; i++) {
        int n = snprintf(id, sizeof id, "s%d", i);
        for (int k = 0; k < events_per_session; k++) {
            int m;
            if (k < 4)
                m = snprintf(ev, sizeof ev, "P%u", (unsigned)ltk_detect_rand_below(&rng, (uint64_t)pool));
            else
                m = snprintf(ev, sizeof ev, "E%d", own++);
            logtk_sessions_append(s, id, (size_t)n, ev, (size_t)m);
        }
        logtk_sessions_set_label(s, id, (size_t)n, LOGTK_LABEL_NORMAL);
    }
    return s;
}

/* A PCA model over more events than DETECT_JACOBI_MAX scores a session
   from its own events (k per event, where the dense product cost 2 k m:
   7 sessions/s over 10^5 events), and the score agrees with the dense path
   to rounding, on sessions of training events, unseen events and both. */
TEST(pca_many_events_sparse_scores_match_dense)
{
    logtk_sessions *train = many_event_sessions(300, 12, 40);
    logtk_detector *d;
    CHECK_STATUS(logtk_detector_new(&d, "pca"), LOGTK_OK);
    CHECK_STATUS(logtk_detector_set_option(d, "n_components", "20"), LOGTK_OK);
    CHECK_STATUS(logtk_detector_train(d, train, NULL, 0), LOGTK_OK);
    CHECK(d->features.ncols > DETECT_JACOBI_MAX);
    CHECK(d->score_sparse != NULL);
    /* the test set: training sessions, then sessions with unseen events */
    logtk_sessions *test = many_event_sessions(300, 12, 40);
    for (int i = 0; i < 50; i++) {
        char id[32], ev[32];
        int n = snprintf(id, sizeof id, "u%d", i);
        for (int k = 0; k <= i % 5; k++) {
            int m = snprintf(ev, sizeof ev, "NEW%d", k);
            logtk_sessions_append(test, id, (size_t)n, ev, (size_t)m);
        }
        int m = snprintf(ev, sizeof ev, "P%d", i % 40);
        logtk_sessions_append(test, id, (size_t)n, ev, (size_t)m);
    }
    size_t rows = logtk_sessions_count(test);
    double *sparse = malloc(rows * sizeof *sparse), *dense = malloc(rows * sizeof *dense);
    CHECK_STATUS(logtk_detector_score(d, test, NULL, 0, sparse, NULL), LOGTK_OK);
    d->score_sparse = NULL; /* the dense product, the reference */
    CHECK_STATUS(logtk_detector_score(d, test, NULL, 0, dense, NULL), LOGTK_OK);
    size_t off = 0;
    double scale = 0;
    for (size_t i = 0; i < rows; i++)
        scale = fmax(scale, fabs(dense[i]));
    for (size_t i = 0; i < rows; i++)
        if (!(fabs(sparse[i] - dense[i]) <= 1e-9 * (scale > 1 ? scale : 1)) && off++ == 0)
            fprintf(stderr, "row %zu: sparse %.17g, dense %.17g\n", i, sparse[i], dense[i]);
    CHECK(off == 0);
    CHECK(scale > 0);
    /* a saved and loaded model scores sparse as well, the same */
    void *buf = NULL;
    size_t len = 0;
    CHECK_STATUS(logtk_detector_save(d, &buf, &len), LOGTK_OK);
    logtk_detector *loaded;
    CHECK_STATUS(logtk_detector_new(&loaded, "pca"), LOGTK_OK);
    CHECK_STATUS(logtk_detector_load(loaded, buf, len), LOGTK_OK);
    CHECK(loaded->score_sparse != NULL);
    double *again = malloc(rows * sizeof *again);
    CHECK_STATUS(logtk_detector_score(loaded, test, NULL, 0, again, NULL), LOGTK_OK);
    CHECK(memcmp(again, sparse, rows * sizeof *again) == 0);
    free(again);
    logtk_free(buf);
    logtk_detector_free(loaded);
    free(sparse);
    free(dense);
    logtk_detector_free(d);
    logtk_sessions_free(train);
    logtk_sessions_free(test);
}
