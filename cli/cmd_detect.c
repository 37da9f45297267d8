/*
 * cmd_detect.c - `logtk detect train | predict | eval`: anomaly detectors
 * over session files (BlockId,Label,EventSequence, as
 * ../shared/anomaly/hdfs100k), through the public detector API only.
 *
 *   train    fits one model on every input session and writes a model file
 *            (atomically: a failed run never replaces a good model);
 *   predict  scores the sessions of the inputs with a model file: one row per
 *            session, id, score, verdict, as TSV or JSON Lines;
 *   eval     trains on a split's training rows and reports precision,
 *            recall and F1 on its test rows, with the split stated.
 * Exit status: 0 success, 1 bad data, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: logtk detect train --model NAME [--param K=V]... [--labels FILE] -o MODEL INPUT...\n"
            "       logtk detect predict [--format tsv|jsonl] [--labels FILE] MODEL INPUT...\n"
            "       logtk detect eval --model NAME [--param K=V]... [--labels FILE]\n"
            "                         [--split uniform|sequential|chronological]\n"
            "                         [--train-fraction F] INPUT...\n"
            "\n"
            "Anomaly detection over sessions.  INPUT is a session CSV with a header naming\n"
            "an id column (first), EventSequence (space-separated event ids) and optionally\n"
            "Label (Normal/Anomaly); --labels adds labels from an Id,Label CSV.\n"
            "\n"
            "  --model NAME        one of:");
    for (size_t i = 0; logtk_detector_model_name(i); i++)
        fprintf(out, " %s", logtk_detector_model_name(i));
    fprintf(out,
            "\n"
            "  --param K=V         model parameter (see logtk-detect(1)); tfidf=0/1, zero_mean=0/1\n"
            "  --labels FILE       Id,Label CSV; ids not among the sessions are counted and skipped\n"
            "  -o, --output MODEL  model file to write (train)\n"
            "  --format FMT        tsv (default) or jsonl (predict)\n"
            "  --split KIND        uniform (default), sequential or chronological (eval)\n"
            "  --train-fraction F  training share (default 0.5; chronological 0.8)\n"
            "  --quiet             no notes on stderr\n"
            "\n"
            "Exit status: 0 success, 1 bad data, 2 usage error.  See logtk-detect(1).\n");
}

typedef struct detect_opts {
    const char *model, *labels, *output, *format, *split;
    double fraction;
    const char *params[32];
    size_t nparams;
    const char *inputs[256];
    size_t ninputs;
    int quiet;
} detect_opts;

static int parse_opts(const char *sub, int argc, char **argv, detect_opts *o)
{
    memset(o, 0, sizeof *o);
    o->format = "tsv";
    o->split = "uniform";
    o->fraction = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(a, "--model") == 0 && has) {
            o->model = argv[++i];
        } else if (strcmp(a, "--labels") == 0 && has) {
            o->labels = argv[++i];
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && has) {
            o->output = argv[++i];
        } else if (strcmp(a, "--format") == 0 && has) {
            o->format = argv[++i];
            if (strcmp(o->format, "tsv") != 0 && strcmp(o->format, "jsonl") != 0)
                return cli_usage_error(sub, "unknown format '%s' (tsv, jsonl)", o->format);
        } else if (strcmp(a, "--split") == 0 && has) {
            o->split = argv[++i];
        } else if (strcmp(a, "--train-fraction") == 0 && has) {
            char *end;
            o->fraction = strtod(argv[++i], &end);
            if (*end || !(o->fraction > 0 && o->fraction < 1))
                return cli_usage_error(sub, "bad --train-fraction '%s'", argv[i]);
        } else if (strcmp(a, "--param") == 0 && has) {
            if (o->nparams == sizeof o->params / sizeof o->params[0])
                return cli_usage_error(sub, "too many --param options");
            o->params[o->nparams++] = argv[++i];
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error(sub, "unknown option '%s'", a);
        } else {
            if (o->ninputs == sizeof o->inputs / sizeof o->inputs[0])
                return cli_usage_error(sub, "too many inputs");
            o->inputs[o->ninputs++] = a;
        }
    }
    return 0;
}

static int load_inputs(const char *sub, const detect_opts *o, size_t first, logtk_sessions **out)
{
    logtk_sessions *s;
    if (logtk_sessions_new(&s) != LOGTK_OK) {
        cli_error(sub, "out of memory");
        return EXIT_DATA;
    }
    for (size_t k = first; k < o->ninputs; k++)
        if (logtk_sessions_load(s, o->inputs[k]) != LOGTK_OK) {
            cli_error(sub, "%s", logtk_sessions_errmsg(s));
            logtk_sessions_free(s);
            return EXIT_DATA;
        }
    if (o->labels) {
        uint64_t unknown = 0;
        if (logtk_sessions_load_labels(s, o->labels, &unknown) != LOGTK_OK) {
            cli_error(sub, "%s", logtk_sessions_errmsg(s));
            logtk_sessions_free(s);
            return EXIT_DATA;
        }
        if (unknown && !o->quiet)
            fprintf(stderr, "logtk %s: %s: skipped %llu label rows naming unknown ids\n", sub,
                    o->labels, (unsigned long long)unknown);
    }
    *out = s;
    return EXIT_OK;
}

static int make_detector(const char *sub, const detect_opts *o, logtk_detector **out)
{
    if (!o->model)
        return cli_usage_error(sub, "no --model given");
    logtk_detector *d;
    if (logtk_detector_new(&d, o->model) != LOGTK_OK)
        return cli_usage_error(sub, "unknown model '%s'", o->model);
    for (size_t k = 0; k < o->nparams; k++) {
        const char *eq = strchr(o->params[k], '=');
        if (!eq) {
            logtk_detector_free(d);
            return cli_usage_error(sub, "bad --param '%s' (K=V)", o->params[k]);
        }
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - o->params[k]), o->params[k]);
        if (logtk_detector_set_param(d, name, eq + 1) != LOGTK_OK) {
            int rc = cli_usage_error(sub, "%s", logtk_detector_errmsg(d));
            logtk_detector_free(d);
            return rc;
        }
    }
    *out = d;
    return EXIT_OK;
}

static int cmd_train(int argc, char **argv)
{
    const char *sub = "detect train";
    detect_opts o;
    int rc = parse_opts(sub, argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    if (!o.output)
        return cli_usage_error(sub, "no output model file (-o MODEL)");
    if (o.ninputs == 0)
        return cli_usage_error(sub, "no input session file");
    logtk_detector *d;
    if ((rc = make_detector(sub, &o, &d)) != EXIT_OK)
        return rc;
    logtk_sessions *s;
    if ((rc = load_inputs(sub, &o, 0, &s)) != EXIT_OK) {
        logtk_detector_free(d);
        return rc;
    }
    if (logtk_detector_train(d, s, NULL, 0) != LOGTK_OK ||
        logtk_detector_save_file(d, o.output) != LOGTK_OK) {
        cli_error(sub, "%s", logtk_detector_errmsg(d));
        rc = EXIT_DATA;
    } else if (!o.quiet) {
        fprintf(stderr, "logtk %s: %s trained on %zu sessions, %zu events, threshold %g -> %s\n",
                sub, o.model, logtk_sessions_count(s), logtk_detector_feature_count(d),
                logtk_detector_threshold(d), o.output);
    }
    logtk_sessions_free(s);
    logtk_detector_free(d);
    return rc;
}

static void print_json_string(const char *p, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static int cmd_predict(int argc, char **argv)
{
    const char *sub = "detect predict";
    detect_opts o;
    int rc = parse_opts(sub, argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    if (o.ninputs < 2)
        return cli_usage_error(sub, "need a model file and at least one input");
    logtk_detector *d;
    logtk_detector_new(&d, NULL);
    if (!d || logtk_detector_load_file(d, o.inputs[0]) != LOGTK_OK) {
        cli_error(sub, "%s", d ? logtk_detector_errmsg(d) : "out of memory");
        logtk_detector_free(d);
        return EXIT_DATA;
    }
    logtk_sessions *s;
    if ((rc = load_inputs(sub, &o, 1, &s)) != EXIT_OK) {
        logtk_detector_free(d);
        return rc;
    }
    size_t n = logtk_sessions_count(s);
    double *score = malloc((n ? n : 1) * sizeof *score);
    uint8_t *verdict = malloc(n ? n : 1);
    if (!score || !verdict || logtk_detector_score(d, s, NULL, 0, score, verdict) != LOGTK_OK) {
        cli_error(sub, "%s", score && verdict ? logtk_detector_errmsg(d) : "out of memory");
        rc = EXIT_DATA;
    } else {
        int json = strcmp(o.format, "jsonl") == 0;
        if (!json)
            printf("id\tscore\tverdict\n");
        for (size_t i = 0; i < n; i++) {
            logtk_slice id = logtk_sessions_id(s, i);
            if (json) {
                printf("{\"id\":");
                print_json_string(id.ptr, id.len);
                printf(",\"score\":%.17g,\"verdict\":\"%s\"}\n", score[i],
                       verdict[i] ? "anomaly" : "normal");
            } else {
                printf("%.*s\t%.17g\t%s\n", (int)id.len, id.ptr, score[i],
                       verdict[i] ? "anomaly" : "normal");
            }
        }
        if (fflush(stdout) != 0) {
            cli_error(sub, "write error on standard output");
            rc = EXIT_DATA;
        }
    }
    free(score);
    free(verdict);
    logtk_sessions_free(s);
    logtk_detector_free(d);
    return rc;
}

static int cmd_eval(int argc, char **argv)
{
    const char *sub = "detect eval";
    detect_opts o;
    int rc = parse_opts(sub, argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    if (o.ninputs == 0)
        return cli_usage_error(sub, "no input session file");
    if (o.fraction < 0)
        o.fraction = strcmp(o.split, "chronological") == 0 ? 0.8 : 0.5;
    logtk_detector *d;
    if ((rc = make_detector(sub, &o, &d)) != EXIT_OK)
        return rc;
    logtk_sessions *s;
    if ((rc = load_inputs(sub, &o, 0, &s)) != EXIT_OK) {
        logtk_detector_free(d);
        return rc;
    }
    size_t *train = NULL, *test = NULL, ntrain = 0, ntest = 0;
    int st = logtk_sessions_split(s, o.split, o.fraction, 42, &train, &ntrain, &test, &ntest);
    if (st != LOGTK_OK) {
        rc = st == LOGTK_ERR_NOT_FOUND ? cli_usage_error(sub, "%s", logtk_sessions_errmsg(s))
                                       : EXIT_DATA;
        if (st != LOGTK_ERR_NOT_FOUND)
            cli_error(sub, "%s", logtk_sessions_errmsg(s));
    } else {
        uint8_t *verdict = malloc(ntest ? ntest : 1);
        logtk_detect_metrics m;
        if (!verdict || logtk_detector_train(d, s, train, ntrain) != LOGTK_OK ||
            logtk_detector_score(d, s, test, ntest, NULL, verdict) != LOGTK_OK) {
            cli_error(sub, "%s", verdict ? logtk_detector_errmsg(d) : "out of memory");
            rc = EXIT_DATA;
        } else {
            logtk_detect_evaluate(s, test, ntest, verdict, &m);
            printf("model\tsplit\ttrain_fraction\ttrain_rows\ttest_rows\tprecision\trecall\tf1\t"
                   "tp\tfp\tfn\ttn\n");
            printf("%s\t%s\t%.2f\t%zu\t%zu\t%.3f\t%.3f\t%.3f\t%llu\t%llu\t%llu\t%llu\n", o.model,
                   o.split, o.fraction, ntrain, ntest, m.precision, m.recall, m.f1,
                   (unsigned long long)m.tp, (unsigned long long)m.fp,
                   (unsigned long long)m.fn, (unsigned long long)m.tn);
            if (m.unlabeled && !o.quiet)
                fprintf(stderr, "logtk %s: %llu test rows without a label were not counted\n",
                        sub, (unsigned long long)m.unlabeled);
        }
        free(verdict);
    }
    logtk_free(train);
    logtk_free(test);
    logtk_sessions_free(s);
    logtk_detector_free(d);
    return rc;
}

int cmd_detect(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *verb = argv[1];
    if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(verb, "train") == 0)
        return cmd_train(argc - 1, argv + 1);
    if (strcmp(verb, "predict") == 0)
        return cmd_predict(argc - 1, argv + 1);
    if (strcmp(verb, "eval") == 0)
        return cmd_eval(argc - 1, argv + 1);
    if (strcmp(verb, "watch") == 0)
        return cli_usage_error("detect", "'watch' (streaming from raw logs) is not available yet");
    return cli_usage_error("detect", "unknown action '%s' (train, predict, eval)", verb);
}
