/*
 * test_detect.c - anomaly detection: sessions, splits, every model on a
 * synthetic workflow, model files (round trip, damage), metrics, and the
 * loglizer figures on ../shared/anomaly/hdfs100k when LOGTK_ANOMALY is set.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logtk.h"
#include "test_harness.h"

static const char *write_tmp(const char *name, const char *text)
{
    static char path[4][256];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 256, "/tmp/test_detect_%ld_%s", (long)getpid(), name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
    return p;
}

/*
 * A synthetic workflow: normal sessions open, write n times, close
 * (count(open) = count(close)); anomalies raise an error, and every other
 * one also loses its close.  1,024 sessions, 16 anomalous (1.6 %, so an
 * invariant holds on more than loglizer's 98 % of the rows).
 */
static logtk_sessions *synthetic(void)
{
    logtk_sessions *s;
    logtk_sessions_new(&s);
    char id[32];
    for (int i = 0; i < 1024; i++) {
        snprintf(id, sizeof id, "s%d", i);
        int anomalous = i % 128 == 7 || i % 128 == 72;
        int writes = 1 + i % 4;
        logtk_sessions_append(s, id, strlen(id), "open", 4);
        for (int w = 0; w < writes; w++)
            logtk_sessions_append(s, id, strlen(id), "write", 5);
        if (anomalous)
            logtk_sessions_append(s, id, strlen(id), "error", 5);
        if (!anomalous || i % 2)
            logtk_sessions_append(s, id, strlen(id), "close", 5);
        logtk_sessions_set_label(s, id, strlen(id), anomalous ? LOGTK_LABEL_ANOMALY
                                                              : LOGTK_LABEL_NORMAL);
    }
    return s;
}

static void test_sessions(void)
{
    const char *csv = write_tmp("s.csv", "BlockId,Label,EventSequence\n"
                                         "b1,Normal,E1 E2 E2\n"
                                         "b2,Anomaly,E1 E3\n"
                                         "\"b3\",Normal,\"E2\"\n");
    logtk_sessions *s;
    CHECK_STATUS(logtk_sessions_new(&s), LOGTK_OK);
    CHECK_STATUS(logtk_sessions_load(s, csv), LOGTK_OK);
    CHECK(logtk_sessions_count(s) == 3);
    logtk_slice id = logtk_sessions_id(s, 2);
    CHECK_BYTES(id.ptr, id.len, "b3");
    CHECK(logtk_sessions_label(s, 1) == LOGTK_LABEL_ANOMALY);
    CHECK(logtk_sessions_length(s, 0) == 3);
    CHECK(logtk_sessions_length(s, 2) == 1);

    /* appending interleaved events keeps each session's order and count */
    CHECK_STATUS(logtk_sessions_append(s, "b9", 2, "E1", 2), LOGTK_OK);
    CHECK_STATUS(logtk_sessions_append(s, "b1", 2, "E4", 2), LOGTK_OK);
    CHECK_STATUS(logtk_sessions_append(s, "b9", 2, "E2", 2), LOGTK_OK);
    CHECK(logtk_sessions_count(s) == 4);
    CHECK(logtk_sessions_length(s, 0) == 4);
    CHECK(logtk_sessions_length(s, 3) == 2);
    CHECK(logtk_sessions_label(s, 3) == LOGTK_LABEL_UNKNOWN);

    /* labels: unknown ids are counted, not fatal */
    const char *labels = write_tmp("l.csv", "BlockId,Label\nb9,Anomaly\nnope,Normal\nb2,Normal\n");
    uint64_t unknown = 99;
    CHECK_STATUS(logtk_sessions_load_labels(s, labels, &unknown), LOGTK_OK);
    CHECK(unknown == 1);
    CHECK(logtk_sessions_label(s, 3) == LOGTK_LABEL_ANOMALY);
    CHECK(logtk_sessions_label(s, 1) == LOGTK_LABEL_NORMAL);

    /* a bad label value names file and line and changes nothing */
    const char *bad = write_tmp("bad.csv", "BlockId,Label\nb1,Anomaly\nb2,Weird\n");
    CHECK_STATUS(logtk_sessions_load_labels(s, bad, NULL), LOGTK_ERR_DATA);
    CHECK(strstr(logtk_sessions_errmsg(s), ":3:") != NULL);
    CHECK(logtk_sessions_label(s, 0) == LOGTK_LABEL_NORMAL);

    /* a bad session file leaves the set unchanged */
    const char *badcsv = write_tmp("bad2.csv", "BlockId,Label,EventSequence\nc1,Normal,E1\n"
                                               "c2,Normal\n");
    CHECK_STATUS(logtk_sessions_load(s, badcsv), LOGTK_ERR_DATA);
    CHECK(strstr(logtk_sessions_errmsg(s), ":3:") != NULL);
    CHECK(logtk_sessions_count(s) == 4);
    CHECK_STATUS(logtk_sessions_load(s, "/nonexistent/x.csv"), LOGTK_ERR_IO);
    logtk_sessions_free(s);
    logtk_sessions_free(NULL);
    unlink(csv);
    unlink(labels);
    unlink(bad);
    unlink(badcsv);
}

static void test_splits(void)
{
    logtk_sessions *s = synthetic();
    size_t *tr, *te, ntr, nte;
    CHECK_STATUS(logtk_sessions_split(s, "uniform", 0.5, 1, &tr, &ntr, &te, &nte), LOGTK_OK);
    CHECK(ntr == 504 + 8 && nte == 512);
    size_t anom = 0;
    for (size_t i = 0; i < ntr; i++)
        anom += logtk_sessions_label(s, tr[i]) == LOGTK_LABEL_ANOMALY;
    CHECK(anom == 8);
    /* the test rows keep order: anomalies first, then normal sessions */
    CHECK(logtk_sessions_label(s, te[0]) == LOGTK_LABEL_ANOMALY);
    CHECK(te[0] < te[1]);
    logtk_free(tr);
    logtk_free(te);
    CHECK_STATUS(logtk_sessions_split(s, "sequential", 0.8, 1, &tr, &ntr, &te, &nte), LOGTK_OK);
    CHECK(ntr == 819 && nte == 205 && te[0] == 819);
    logtk_free(tr);
    logtk_free(te);
    CHECK_STATUS(logtk_sessions_split(s, "random", 0.8, 1, &tr, &ntr, &te, &nte),
                 LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_sessions_split(s, "uniform", 1.5, 1, &tr, &ntr, &te, &nte),
                 LOGTK_ERR_INVALID);
    logtk_sessions_free(s);
}

/* Every model trains, scores, round-trips through its model file with
   identical scores, and rejects damage. */
static void test_models(void)
{
    logtk_sessions *s = synthetic();
    size_t *tr, *te, ntr, nte;
    logtk_sessions_split(s, "uniform", 0.5, 7, &tr, &ntr, &te, &nte);
    for (size_t mi = 0; logtk_detector_model_name(mi); mi++) {
        const char *name = logtk_detector_model_name(mi);
        CHECK(logtk_detector_model_summary(mi) != NULL);
        logtk_detector *d;
        CHECK_STATUS(logtk_detector_new(&d, name), LOGTK_OK);
        CHECK(strcmp(logtk_detector_model(d), name) == 0);
        double *score = malloc(nte * sizeof *score), *score2 = malloc(nte * sizeof *score2);
        uint8_t *v = malloc(nte), *v2 = malloc(nte);
        CHECK_STATUS(logtk_detector_score(d, s, te, nte, score, v), LOGTK_ERR_STATE);
        int rc = logtk_detector_train(d, s, tr, ntr);
        CHECK_STATUS(rc, LOGTK_OK);
        if (rc != LOGTK_OK) {
            fprintf(stderr, "%s: %s\n", name, logtk_detector_errmsg(d));
            logtk_detector_free(d);
            continue;
        }
        CHECK(logtk_detector_feature_count(d) == 4);
        CHECK_STATUS(logtk_detector_score(d, s, te, nte, score, v), LOGTK_OK);
        logtk_detect_metrics m;
        logtk_detect_evaluate(s, te, nte, v, &m);
        CHECK(m.tp + m.fp + m.fn + m.tn == nte);
        /* the workflow violations are easy: supervised models and the
           workflow-aware unsupervised ones find them */
        if (strcmp(name, "invariants") == 0) {
            /* open = close is mined; the sessions that lost their close
               break it, the others only add a rare event */
            CHECK(m.fp == 0 && m.tp * 2 >= m.tp + m.fn);
        } else if (strcmp(name, "ocsvm") != 0 && strcmp(name, "iforest") != 0) {
            if (m.f1 < 0.9)
                fprintf(stderr, "%s: F1 %.3f\n", name, m.f1);
            CHECK(m.f1 >= 0.9);
        }
        void *buf;
        size_t len;
        CHECK_STATUS(logtk_detector_save(d, &buf, &len), LOGTK_OK);
        logtk_detector *d2;
        logtk_detector_new(&d2, "lr"); /* load replaces the kind */
        CHECK_STATUS(logtk_detector_load(d2, buf, len), LOGTK_OK);
        CHECK(strcmp(logtk_detector_model(d2), name) == 0);
        CHECK(logtk_detector_threshold(d2) == logtk_detector_threshold(d));
        CHECK_STATUS(logtk_detector_score(d2, s, te, nte, score2, v2), LOGTK_OK);
        CHECK(memcmp(score, score2, nte * sizeof *score) == 0);
        CHECK(memcmp(v, v2, nte) == 0);
        /* every single-bit flip and every truncation is refused */
        unsigned char *b = buf;
        int refused = 1;
        for (size_t i = 0; i < len; i += 1 + len / 200) {
            b[i] ^= 0x10;
            refused &= logtk_detector_load(d2, b, len) == LOGTK_ERR_STATE;
            b[i] ^= 0x10;
            refused &= logtk_detector_load(d2, b, i) == LOGTK_ERR_STATE;
        }
        CHECK(refused);
        /* the failed loads left d2 as it was */
        CHECK_STATUS(logtk_detector_score(d2, s, te, nte, score2, v2), LOGTK_OK);
        CHECK(memcmp(score, score2, nte * sizeof *score) == 0);
        logtk_free(buf);
        logtk_detector_free(d2);
        free(score);
        free(score2);
        free(v);
        free(v2);
        logtk_detector_free(d);
    }
    logtk_free(tr);
    logtk_free(te);
    logtk_sessions_free(s);
}

static void test_errors(void)
{
    logtk_detector *d = (logtk_detector *)1;
    CHECK_STATUS(logtk_detector_new(&d, "nosuch"), LOGTK_ERR_NOT_FOUND);
    CHECK(d == NULL);
    logtk_detector_free(NULL);
    CHECK_STATUS(logtk_detector_new(&d, "pca"), LOGTK_OK);
    CHECK_STATUS(logtk_detector_set_param(d, "nosuch", "1"), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_detector_set_param(d, "c_alpha", "abc"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_detector_set_param(d, "c_alpha", "2.5"), LOGTK_OK);
    double v = 0;
    int found = 0;
    for (size_t i = 0; logtk_detector_param_name(d, i, &v); i++)
        if (strcmp(logtk_detector_param_name(d, i, &v), "c_alpha") == 0)
            found = v == 2.5;
    CHECK(found);
    CHECK_STATUS(logtk_detector_load(d, "LOGTKDETxxxxxxxxxxxxxxxx", 24), LOGTK_ERR_STATE);
    CHECK_STATUS(logtk_detector_load(d, "hello world, not a model", 24), LOGTK_ERR_STATE);
    CHECK(strstr(logtk_detector_errmsg(d), "not a logtk model") != NULL);
    CHECK_STATUS(logtk_detector_load_file(d, "/nonexistent/model"), LOGTK_ERR_IO);
    CHECK(strstr(logtk_detector_errmsg(d), "/nonexistent/model") != NULL);
    /* supervised models need labels */
    logtk_detector *lr;
    logtk_detector_new(&lr, "lr");
    CHECK(logtk_detector_supervised(lr) == 1);
    logtk_sessions *s;
    logtk_sessions_new(&s);
    logtk_sessions_append(s, "a", 1, "E1", 2);
    CHECK_STATUS(logtk_detector_train(lr, s, NULL, 0), LOGTK_ERR_DATA);
    /* windows with no events */
    logtk_sessions *empty;
    logtk_sessions_new(&empty);
    CHECK_STATUS(logtk_detector_train(d, empty, NULL, 0), LOGTK_ERR_INVALID);
    logtk_sessions_free(empty);
    logtk_sessions_free(s);
    logtk_detector_free(lr);
    logtk_detector_free(d);
}

static void test_file_roundtrip(void)
{
    logtk_sessions *s = synthetic();
    logtk_detector *d;
    logtk_detector_new(&d, "pca");
    CHECK_STATUS(logtk_detector_train(d, s, NULL, 0), LOGTK_OK);
    char path[256];
    snprintf(path, sizeof path, "/tmp/test_detect_%ld.model", (long)getpid());
    CHECK_STATUS(logtk_detector_save_file(d, path), LOGTK_OK);
    logtk_detector *d2;
    logtk_detector_new(&d2, NULL);
    CHECK_STATUS(logtk_detector_load_file(d2, path), LOGTK_OK);
    CHECK(logtk_detector_threshold(d2) == logtk_detector_threshold(d));
    CHECK_STATUS(logtk_detector_save_file(d, "/nonexistent/dir/m"), LOGTK_ERR_IO);
    unlink(path);
    logtk_detector_free(d);
    logtk_detector_free(d2);
    logtk_sessions_free(s);
}

/* loglizer's figures on the HDFS sample (F1 at least loglizer's - 0.01) */
static void test_hdfs100k(void)
{
    const char *dir = getenv("LOGTK_ANOMALY");
    if (!dir) {
        printf("skipped: LOGTK_ANOMALY not set\n");
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/hdfs100k/HDFS_100k_sessions.csv", dir);
    logtk_sessions *s;
    logtk_sessions_new(&s);
    CHECK_STATUS(logtk_sessions_load(s, path), LOGTK_OK);
    CHECK(logtk_sessions_count(s) == 7940);
    static const struct {
        const char *model, *split;
        double want;
    } cases[] = {{"pca", "uniform", 0.528},          {"invariants", "sequential", 0.710},
                 {"logclustering", "uniform", 0.710}, {"iforest", "uniform", 0.596},
                 {"svm", "uniform", 0.602},           {"lr", "uniform", 0.602},
                 {"dtree", "uniform", 0.596},         {"novelty", "uniform", 0.75}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t *tr, *te, ntr, nte;
        logtk_sessions_split(s, cases[c].split, 0.5, 42, &tr, &ntr, &te, &nte);
        CHECK(ntr == (strcmp(cases[c].split, "uniform") == 0 ? 156u + 3813u : 3970u));
        logtk_detector *d;
        logtk_detector_new(&d, cases[c].model);
        CHECK_STATUS(logtk_detector_train(d, s, tr, ntr), LOGTK_OK);
        uint8_t *v = malloc(nte);
        CHECK_STATUS(logtk_detector_score(d, s, te, nte, NULL, v), LOGTK_OK);
        logtk_detect_metrics m;
        logtk_detect_evaluate(s, te, nte, v, &m);
        printf("%s %s F1 %.3f (reference %.3f)\n", cases[c].model, cases[c].split, m.f1,
               cases[c].want);
        CHECK(m.f1 >= cases[c].want - 0.01);
        if (strcmp(cases[c].model, "novelty") == 0)
            CHECK(m.f1 >= 0.75); /* the best model reaches .75 */
        free(v);
        logtk_free(tr);
        logtk_free(te);
        logtk_detector_free(d);
    }
    logtk_sessions_free(s);
}

/* novelty: distance to the nearest normal pattern, unseen events count */
static void test_novelty(void)
{
    logtk_sessions *s;
    logtk_sessions_new(&s);
    static const char *const rows[][3] = {
        {"n1", "0", "A B C"},   {"n2", "0", "A B B C"}, {"n3", "0", "A D"},
        {"t1", "", "A B C"},    {"t2", "", "A B B B C"}, {"t3", "", "A B"},
        {"t4", "", "A B C Z"},  {"t5", "", "B C D"},
    };
    size_t nrows = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < nrows; i++) {
        const char *ev = rows[i][2];
        while (*ev) {
            size_t n = strcspn(ev, " ");
            logtk_sessions_append(s, rows[i][0], 2, ev, n);
            ev += n + (ev[n] == ' ');
        }
        if (*rows[i][1])
            logtk_sessions_set_label(s, rows[i][0], 2, LOGTK_LABEL_NORMAL);
    }
    size_t train[] = {0, 1, 2}, test[] = {3, 4, 5, 6, 7};
    double score[5];
    uint8_t v[5];
    logtk_detector *d;
    CHECK_STATUS(logtk_detector_new(&d, "novelty"), LOGTK_OK);
    CHECK_STATUS(logtk_detector_set_param(d, "key", "set"), LOGTK_OK);
    CHECK_STATUS(logtk_detector_train(d, s, train, 3), LOGTK_OK);
    CHECK_STATUS(logtk_detector_score(d, s, test, 5, score, v), LOGTK_OK);
    /* set key: more B's is still a seen set; {A,B} is 1 from {A,B,C};
       Z was never seen (1 bit); {B,C,D} is 2 from {A,B,C} */
    CHECK(score[0] == 0 && score[1] == 0 && score[2] == 1 && score[3] == 1 && score[4] == 2);
    CHECK(!v[0] && !v[1] && v[2] && v[3] && v[4]);
    CHECK_STATUS(logtk_detector_set_param(d, "key", "counts"), LOGTK_OK);
    CHECK_STATUS(logtk_detector_set_param(d, "distance", "2"), LOGTK_OK);
    CHECK_STATUS(logtk_detector_train(d, s, train, 3), LOGTK_OK);
    CHECK_STATUS(logtk_detector_score(d, s, test, 5, score, v), LOGTK_OK);
    /* counts key: an unseen vector scores 1 + the set distance */
    CHECK(score[0] == 0 && score[1] == 1 && score[2] == 2 && score[3] == 2 && score[4] == 3);
    CHECK(!v[0] && !v[1] && v[2] && v[3] && v[4]);
    CHECK_STATUS(logtk_detector_set_param(d, "tfidf", "1"), LOGTK_OK);
    CHECK_STATUS(logtk_detector_train(d, s, train, 3), LOGTK_ERR_INVALID);
    CHECK(strstr(logtk_detector_errmsg(d), "tfidf") != NULL);
    logtk_detector_free(d);
    logtk_sessions_free(s);
}

int main(void)
{
    test_novelty();
    test_sessions();
    test_splits();
    test_models();
    test_errors();
    test_file_roundtrip();
    test_hdfs100k();
    return TEST_SUMMARY();
}
