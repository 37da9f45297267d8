/*
 * cmd_bench_detect.c - `logtk bench detect`: every detector on the labeled
 * HDFS sessions of ../shared/anomaly/hdfs100k, loglizer's protocol.
 *
 * For each model and split (loglizer's "uniform" 50/50 per class, its
 * "sequential" first half, and chronological 80/20) it trains on the
 * training rows, scores the test rows and prints precision, recall and F1
 * with the training time and the scoring rate.  Then one "scale" row per
 * model: the uniform training rows replicated to --scale rows (575,000 by
 * default, the size of full HDFS) to time training, and the test rows
 * replicated to at least a million to time scoring.  Scoring rates include
 * turning each session's event sequence into its feature vector.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: logtk bench detect [--anomaly DIR] [--model NAME]... [--param M.K=V]...\n"
            "                          [--scale N] [--quiet]\n"
            "       logtk bench detect --deeplog DIR [--model NAME]... [--param M.K=V]...\n"
            "\n"
            "Runs every anomaly detector on DIR/hdfs100k/HDFS_100k_sessions.csv (DIR defaults\n"
            "to $LOGTK_ANOMALY) with loglizer's splits and prints TSV:\n"
            "  model split train_fraction precision recall f1 train_s predict_per_s\n"
            "Splits: uniform (each class 50/50 in order), sequential (first half),\n"
            "chronological (first 80 %%); split 'scale' trains on the uniform training rows\n"
            "replicated to N rows (default 575000) and scores >= 1,000,000 rows.\n"
            "\n"
            "  --anomaly DIR   the anomaly data folder (with hdfs100k/)\n"
            "  --deeplog DIR   DeepLog's protocol on DIR/hdfs_train and DIR/hdfs_test_abnormal:\n"
            "                  train on normal sessions only; false positives measured 5-fold\n"
            "                  on hdfs_train and scaled to 553,366 normal test sessions;\n"
            "                  the published rows follow ours.  TSV: model source precision\n"
            "                  recall f1 heldout_fp fp_scaled tp fn train_s predict_per_s\n"
            "  --model NAME    run only this model (repeatable); models: ");
    for (size_t i = 0; logtk_detector_model_name(i); i++)
        fprintf(out, "%s%s", i ? ", " : "", logtk_detector_model_name(i));
    fprintf(out,
            "\n"
            "  --param MODEL.NAME=VALUE  set a model parameter (repeatable)\n"
            "  --scale N       rows for the training-time row (0 = skip it)\n"
            "  --quiet         no progress on stderr\n"
            "\n"
            "Exit status: 0 success, 1 bad data, 2 usage error.\n");
}

typedef struct run_result {
    logtk_detect_metrics metrics;
    double train_s, predict_per_s;
} run_result;

/* Trains on train rows, scores test rows (repeating until the timing is
   long enough to trust), evaluates. */
/* --param MODEL.NAME=VALUE settings */
static const char *params[32];
static size_t nparams;

static int apply_params(logtk_detector *d, const char *model)
{
    for (size_t k = 0; k < nparams; k++) {
        const char *p = params[k], *dot = strchr(p, '.'), *eq = strchr(p, '=');
        if (!dot || !eq || dot > eq)
            return cli_usage_error("bench detect", "bad --param '%s' (MODEL.NAME=VALUE)", p);
        if ((size_t)(dot - p) != strlen(model) || strncmp(p, model, strlen(model)) != 0)
            continue;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - dot - 1), dot + 1);
        if (logtk_detector_set_option(d, name, eq + 1) != LOGTK_OK)
            return cli_usage_error("bench detect", "%s", logtk_detector_errmsg(d));
    }
    return EXIT_OK;
}

/* run_one's answer when the model refused the training set as over one of
   its size limits: the row is skipped with the reason on stderr (a bench of
   the other models and splits still means something). */
#define RUN_SKIPPED (-1)

static int run_one(const char *model, logtk_sessions *s, const size_t *train, size_t ntrain,
                   const size_t *test, size_t ntest, const char *path, const char *split,
                   run_result *out)
{
    logtk_detector *d;
    int rc = logtk_detector_new(&d, model);
    if (rc != LOGTK_OK) {
        cli_error("bench detect", "unknown model '%s'", model);
        return EXIT_USAGE;
    }
    if (apply_params(d, model) != EXIT_OK) {
        logtk_detector_free(d);
        return EXIT_USAGE;
    }
    double t0 = cli_now();
    rc = logtk_detector_train(d, s, train, ntrain);
    out->train_s = cli_now() - t0;
    if (rc == LOGTK_ERR_LIMIT) {
        cli_error("bench detect", "%s: %s split: skipped: %s", path, split,
                  logtk_detector_errmsg(d));
        logtk_detector_free(d);
        return RUN_SKIPPED;
    }
    if (rc != LOGTK_OK) {
        cli_error("bench detect", "%s: %s", model, logtk_detector_errmsg(d));
        logtk_detector_free(d);
        return EXIT_DATA;
    }
    uint8_t *verdict = malloc(ntest ? ntest : 1);
    double *score = malloc((ntest ? ntest : 1) * sizeof *score);
    if (!verdict || !score) {
        free(verdict);
        free(score);
        logtk_detector_free(d);
        cli_error("bench detect", "out of memory");
        return EXIT_DATA;
    }
    size_t scored = 0;
    t0 = cli_now();
    double elapsed = 0;
    do {
        rc = logtk_detector_score(d, s, test, ntest, score, verdict);
        scored += ntest;
        elapsed = cli_now() - t0;
    } while (rc == LOGTK_OK && elapsed < 0.2);
    out->predict_per_s = elapsed > 0 ? (double)scored / elapsed : 0;
    if (rc == LOGTK_OK)
        logtk_detect_evaluate(s, test, ntest, verdict, &out->metrics);
    else
        cli_error("bench detect", "%s: %s", model, logtk_detector_errmsg(d));
    free(verdict);
    free(score);
    logtk_detector_free(d);
    return rc == LOGTK_OK ? EXIT_OK : EXIT_DATA;
}

static void print_row(const char *model, const char *split, double fraction,
                      const run_result *r)
{
    printf("%s\t%s\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\n", model, split, fraction,
           r->metrics.precision, r->metrics.recall, r->metrics.f1, r->train_s, r->predict_per_s);
    fflush(stdout);
}

static size_t *replicate(const size_t *rows, size_t n, size_t want)
{
    size_t *out = malloc((want ? want : 1) * sizeof *out);
    if (!out || n == 0)
        return out;
    for (size_t i = 0; i < want; i++)
        out[i] = rows[i % n];
    return out;
}

int cmd_bench_detect(int argc, char **argv)
{
    const char *dir = getenv("LOGTK_ANOMALY"), *deeplog = NULL;
    const char *only[16];
    size_t nonly = 0;
    long scale = 575000;
    int quiet = 0;
    static const struct option long_options[] = {
        {"anomaly", required_argument, NULL, 'A'}, {"deeplog", required_argument, NULL, 'D'},
        {"model", required_argument, NULL, 'm'},   {"param", required_argument, NULL, 'P'},
        {"scale", required_argument, NULL, 'S'},   {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", long_options, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stdout); return EXIT_OK;
        case 'A': dir = optarg; break;
        case 'D': deeplog = optarg; break;
        case 'm':
            if (nonly == sizeof only / sizeof only[0])
                return cli_usage_error("bench detect", "too many --model options");
            only[nonly++] = optarg;
            break;
        case 'P':
            if (nparams == sizeof params / sizeof params[0])
                return cli_usage_error("bench detect", "too many --param options");
            params[nparams++] = optarg;
            break;
        case 'S': {
            char *end;
            errno = 0;
            scale = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || scale < 0)
                return cli_usage_error("bench detect", "bad --scale '%s'", optarg);
            break;
        }
        case 'q': quiet = 1; break;
        case ':':
            return cli_usage_error("bench detect", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_unknown_option("bench detect", argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("bench detect", "unknown option '%s'", argv[optind]);
    (void)quiet;
    for (size_t k = 0; deeplog && k < nonly; k++) {
        logtk_detector *d;
        if (logtk_detector_new(&d, only[k]) != LOGTK_OK)
            return cli_usage_error("bench detect", "unknown model '%s'", only[k]);
        logtk_detector_free(d);
    }
    if (deeplog)
        return cli_bench_deeplog(deeplog, only, nonly, apply_params);
    if (!dir)
        return cli_usage_error("bench detect", "no data: give --anomaly DIR or set LOGTK_ANOMALY");
    for (size_t k = 0; k < nonly; k++) {
        logtk_detector *d;
        if (logtk_detector_new(&d, only[k]) != LOGTK_OK)
            return cli_usage_error("bench detect", "unknown model '%s'", only[k]);
        logtk_detector_free(d);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/hdfs100k/HDFS_100k_sessions.csv", dir);
    logtk_sessions *s;
    if (logtk_sessions_new(&s) != LOGTK_OK) {
        cli_error("bench detect", "out of memory");
        return EXIT_DATA;
    }
    if (logtk_sessions_load(s, path) != LOGTK_OK) {
        cli_error("bench detect", "%s", logtk_sessions_errmsg(s));
        logtk_sessions_free(s);
        return EXIT_DATA;
    }
    static const struct {
        const char *kind, *name;
        double fraction;
    } splits[] = {{"uniform", "uniform", 0.5},
                  {"sequential", "sequential", 0.5},
                  {"sequential", "chronological", 0.8}};
    printf("model\tsplit\ttrain_fraction\tprecision\trecall\tf1\ttrain_s\tpredict_per_s\n");
    int status = EXIT_OK;
    for (size_t mi = 0; logtk_detector_model_name(mi) && status == EXIT_OK; mi++) {
        const char *model = logtk_detector_model_name(mi);
        int wanted = nonly == 0 || cli_name_listed(only, nonly, model);
        if (!wanted)
            continue;
        for (size_t si = 0; si < sizeof splits / sizeof splits[0] && status == EXIT_OK; si++) {
            size_t *train, *test, ntrain, ntest;
            if (logtk_sessions_split(s, splits[si].kind, splits[si].fraction, 42, &train, &ntrain,
                                     &test, &ntest) != LOGTK_OK) {
                cli_error("bench detect", "%s", logtk_sessions_errmsg(s));
                status = EXIT_DATA;
                break;
            }
            run_result r;
            memset(&r, 0, sizeof r);
            status = run_one(model, s, train, ntrain, test, ntest, path, splits[si].name, &r);
            if (status == EXIT_OK)
                print_row(model, splits[si].name, splits[si].fraction, &r);
            int skipped = status == RUN_SKIPPED;
            if (skipped)
                status = EXIT_OK;
            if (status == EXIT_OK && !skipped && si == 0 && scale > 0) {
                size_t *big_train = replicate(train, ntrain, (size_t)scale);
                size_t ntest_big = ntest * ((1000000 + ntest - 1) / (ntest ? ntest : 1));
                size_t *big_test = replicate(test, ntest, ntest_big);
                run_result big;
                memset(&big, 0, sizeof big);
                char name[64];
                snprintf(name, sizeof name, "scale%ld", scale);
                if (big_train && big_test)
                    status = run_one(model, s, big_train, (size_t)scale, big_test, ntest_big,
                                     path, name, &big);
                if (status == EXIT_OK && big_train && big_test)
                    print_row(model, name, 0.5, &big);
                if (status == RUN_SKIPPED)
                    status = EXIT_OK;
                free(big_train);
                free(big_test);
            }
            logtk_free(train);
            logtk_free(test);
        }
    }
    logtk_sessions_free(s);
    return status;
}
