/*
 * cmd_bench_deeplog.c - `logtk bench detect --deeplog DIR`: every unsupervised
 * detector under DeepLog's protocol on its HDFS split (DIR/hdfs_train,
 * DIR/hdfs_test_abnormal; see ../shared/anomaly/deeplog/README.md).
 *
 * The protocol trains on hdfs_train's 4,855 normal sessions alone and tests
 * on 553,366 normal and 16,838 abnormal sessions.  The normal test file is
 * not at hand, so the false-positive rate is measured on normal sessions
 * held back from hdfs_train: 5-fold, session i in fold i mod 5, each fold
 * scored by a model trained on the other four, so every normal session is
 * scored once by a model that never saw it.  That rate is scaled to the
 * 553,366 normal test sessions; recall comes from the model trained on all of
 * hdfs_train, scoring every abnormal session.  Supervised models need
 * anomalies in training and do not apply.  The published rows (from the
 * data folder's README) are printed beside ours.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DEEPLOG_NORMAL_TEST 553366.0
#define DEEPLOG_FOLDS 5

static const struct {
    const char *name;
    double precision, recall, f1;
} published[] = {
    {"DeepLog(CCS'17)", 0.951, 0.964, 0.960}, {"DeepLog(logdeep)", 0.958, 0.933, 0.945},
    {"LogAnomaly(logdeep)", 0.969, 0.983, 0.976}, {"RobustLog(logdeep)", 0.922, 0.959, 0.940},
    {"STIDE(window 2)", 0.953, 0.950, 0.951},
};

typedef struct deeplog_row {
    uint64_t heldout_fp, tp;
    double fp_scaled, precision, recall, f1, train_s, predict_per_s;
} deeplog_row;

/* A detector of `model` with the --param settings; NULL after an error. */
static logtk_detector *new_detector(const char *model, int (*apply)(logtk_detector *, const char *))
{
    logtk_detector *d;
    if (logtk_detector_new(&d, model) != LOGTK_OK) {
        cli_error("bench detect", "unknown model '%s'", model);
        return NULL;
    }
    if (apply(d, model) != EXIT_OK) {
        logtk_detector_free(d);
        return NULL;
    }
    return d;
}

static int run_model(const char *model, logtk_sessions *s, size_t ntrain, size_t nabnormal,
                     int (*apply)(logtk_detector *, const char *), deeplog_row *out)
{
    size_t *train = malloc(ntrain * sizeof *train), *test = malloc(ntrain * sizeof *test);
    size_t *abnormal = malloc(nabnormal * sizeof *abnormal);
    uint8_t *verdict = malloc(ntrain > nabnormal ? ntrain : nabnormal);
    int rc = train && test && abnormal && verdict ? EXIT_OK : EXIT_DATA;
    if (rc != EXIT_OK)
        cli_error("bench detect", "out of memory");
    memset(out, 0, sizeof *out);
    for (int fold = 0; fold < DEEPLOG_FOLDS && rc == EXIT_OK; fold++) {
        size_t ntr = 0, nte = 0;
        for (size_t i = 0; i < ntrain; i++) {
            if ((int)(i % DEEPLOG_FOLDS) == fold)
                test[nte++] = i;
            else
                train[ntr++] = i;
        }
        logtk_detector *d = new_detector(model, apply);
        if (!d)
            return EXIT_USAGE;
        if (logtk_detector_train(d, s, train, ntr) != LOGTK_OK ||
            logtk_detector_score(d, s, test, nte, NULL, verdict) != LOGTK_OK) {
            cli_error("bench detect", "%s: %s", model, logtk_detector_errmsg(d));
            rc = EXIT_DATA;
        }
        for (size_t k = 0; rc == EXIT_OK && k < nte; k++)
            out->heldout_fp += verdict[k];
        logtk_detector_free(d);
    }
    logtk_detector *d = rc == EXIT_OK ? new_detector(model, apply) : NULL;
    if (rc == EXIT_OK && !d)
        rc = EXIT_USAGE;
    if (rc == EXIT_OK) {
        for (size_t i = 0; i < ntrain; i++)
            train[i] = i;
        for (size_t i = 0; i < nabnormal; i++)
            abnormal[i] = ntrain + i;
        double t0 = cli_now();
        if (logtk_detector_train(d, s, train, ntrain) != LOGTK_OK) {
            cli_error("bench detect", "%s: %s", model, logtk_detector_errmsg(d));
            rc = EXIT_DATA;
        }
        out->train_s = cli_now() - t0;
        size_t scored = 0;
        t0 = cli_now();
        double elapsed = 0;
        while (rc == EXIT_OK && elapsed < 0.2) {
            if (logtk_detector_score(d, s, abnormal, nabnormal, NULL, verdict) != LOGTK_OK) {
                cli_error("bench detect", "%s: %s", model, logtk_detector_errmsg(d));
                rc = EXIT_DATA;
            }
            scored += nabnormal;
            elapsed = cli_now() - t0;
        }
        out->predict_per_s = elapsed > 0 ? (double)scored / elapsed : 0;
        for (size_t k = 0; rc == EXIT_OK && k < nabnormal; k++)
            out->tp += verdict[k];
    }
    logtk_detector_free(d);
    if (rc == EXIT_OK) {
        out->fp_scaled = (double)out->heldout_fp / (double)ntrain * DEEPLOG_NORMAL_TEST;
        out->recall = nabnormal ? (double)out->tp / (double)nabnormal : 0;
        out->precision = out->tp ? (double)out->tp / ((double)out->tp + out->fp_scaled) : 0;
        out->f1 = out->precision + out->recall > 0
                      ? 2 * out->precision * out->recall / (out->precision + out->recall)
                      : 0;
    }
    free(train);
    free(test);
    free(abnormal);
    free(verdict);
    return rc;
}

int cli_bench_deeplog(const char *dir, const char *const *only, size_t nonly,
                      int (*apply)(logtk_detector *, const char *))
{
    char train_path[4096], abnormal_path[4096];
    snprintf(train_path, sizeof train_path, "%s/hdfs_train", dir);
    snprintf(abnormal_path, sizeof abnormal_path, "%s/hdfs_test_abnormal", dir);
    logtk_sessions *s;
    if (logtk_sessions_new(&s) != LOGTK_OK) {
        cli_error("bench detect", "out of memory");
        return EXIT_DATA;
    }
    if (logtk_sessions_load_layout(s, train_path, "lines", LOGTK_LABEL_NORMAL) != LOGTK_OK) {
        cli_error("bench detect", "%s", logtk_sessions_errmsg(s));
        logtk_sessions_free(s);
        return EXIT_DATA;
    }
    size_t ntrain = logtk_sessions_count(s);
    if (logtk_sessions_load_layout(s, abnormal_path, "lines", LOGTK_LABEL_ANOMALY) != LOGTK_OK) {
        cli_error("bench detect", "%s", logtk_sessions_errmsg(s));
        logtk_sessions_free(s);
        return EXIT_DATA;
    }
    size_t nabnormal = logtk_sessions_count(s) - ntrain;
    if (ntrain < DEEPLOG_FOLDS || nabnormal == 0) {
        cli_error("bench detect", "%s: too few sessions for the DeepLog protocol", dir);
        logtk_sessions_free(s);
        return EXIT_DATA;
    }
    printf("model\tsource\tprecision\trecall\tf1\theldout_fp\tfp_scaled\ttp\tfn\ttrain_s\t"
           "predict_per_s\n");
    int status = EXIT_OK;
    for (size_t mi = 0; logtk_detector_model_name(mi) && status == EXIT_OK; mi++) {
        const char *model = logtk_detector_model_name(mi);
        int wanted = nonly == 0 || cli_name_listed(only, nonly, model);
        logtk_detector *probe;
        if (!wanted || logtk_detector_new(&probe, model) != LOGTK_OK)
            continue;
        int supervised = logtk_detector_supervised(probe);
        logtk_detector_free(probe);
        if (supervised)
            continue; /* they need anomalies in training */
        deeplog_row r;
        status = run_model(model, s, ntrain, nabnormal, apply, &r);
        if (status == EXIT_OK) {
            printf("%s\tlogtk\t%.3f\t%.3f\t%.3f\t%llu\t%.0f\t%llu\t%llu\t%.3f\t%.0f\n", model,
                   r.precision, r.recall, r.f1, (unsigned long long)r.heldout_fp, r.fp_scaled,
                   (unsigned long long)r.tp, (unsigned long long)(nabnormal - r.tp), r.train_s,
                   r.predict_per_s);
            fflush(stdout);
        }
    }
    for (size_t k = 0; status == EXIT_OK && k < sizeof published / sizeof published[0]; k++)
        printf("%s\tpublished\t%.3f\t%.3f\t%.3f\t-\t-\t-\t-\t-\t-\n", published[k].name,
               published[k].precision, published[k].recall, published[k].f1);
    logtk_sessions_free(s);
    return status;
}
