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
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: logtk detect train --model NAME [--param K=V]... [INPUT OPTIONS] -o MODEL INPUT...\n"
            "       logtk detect predict [--output tsv|jsonl] [INPUT OPTIONS] MODEL INPUT...\n"
            "       logtk detect eval --model NAME [--param K=V]... [INPUT OPTIONS]\n"
            "                         [--split uniform|sequential|chronological]\n"
            "                         [--train-fraction F] INPUT...\n"
            "       logtk detect eval --model NAME [--param K=V]... [INPUT OPTIONS]\n"
            "                         --train INPUT [--train INPUT]... --test INPUT...\n"
            "       logtk detect sessions [INPUT OPTIONS] [-o FILE] INPUT...\n"
            "       logtk detect watch [INPUT OPTIONS] [WATCH OPTIONS] MODEL [LOG...]\n"
            "\n"
            "Anomaly detection over sessions and windows.  An INPUT is a session CSV\n"
            "(id column first, EventSequence, optional Label), id,events lines without a\n"
            "header, lines of event numbers (DeepLog's hdfs_train; ids FILE:LINE), a\n"
            "structured CSV/TSV with an EventId column (Loghub's *_structured.csv, logtk\n"
            "parse output) or a raw log, parsed on the fly; the kind is recognised from the\n"
            "first line.  INPUT:normal or INPUT:anomaly labels every session of a session\n"
            "file (DeepLog's hdfs_test_abnormal:anomaly).\n"
            "\n"
            "  --model NAME        one of:");
    for (size_t i = 0; logtk_detector_model_name(i); i++)
        fprintf(out, " %s", logtk_detector_model_name(i));
    fprintf(out,
            "\n"
            "  --param K=V         model parameter (see logtk-detect(1)); tfidf=0/1/2, zero_mean=0/1\n"
            "  --labels FILE       Id,Label CSV; ids not among the sessions are counted and skipped;\n"
            "                      predict then prints precision, recall, F1 on stderr\n"
            "  --train INPUT       eval: train on this input (repeatable) ...\n"
            "  --test INPUT        ... and test on this one (repeatable)\n"
            "  -o FILE             model file (train) or session CSV (sessions)\n"
            "  --output KIND       tsv (default) or jsonl (predict, watch)\n"
            "  --split KIND        uniform (default), sequential or chronological (eval)\n"
            "  --train-fraction F  training share (default 0.5; chronological 0.8)\n"
            "  --quiet             no notes on stderr\n"
            "\n"
            "Input options (structured and raw logs):\n"
            "  --input KIND        sessions (layout recognised), csv, id-events, lines,\n"
            "                      structured or raw (default: recognised)\n"
            "  --dataset NAME      Loghub preset: log format, masks, parser parameters and\n"
            "                      window defaults (HDFS: sessions by block; BGL: Label field)\n"
            "  --format FMT        log format, e.g. '<Date> <Time> <Level>: <Content>'\n"
            "  --parser NAME       parsing algorithm for raw logs (default fuse)\n"
            "  --window KIND       session (by --id-regex), time or count\n"
            "  --id-regex RE       session id regex (default blk_-?\\d+)\n"
            "  --size N --step N   window size and step: seconds (time) or lines (count)\n"
            "  --idle N            complete a session after N lines without its id (watch)\n"
            "  --time-fields F     header fields forming the timestamp, e.g. 'Date Time'\n"
            "  --time-format F     strptime-like: %%Y %%y %%m %%d %%H %%M %%S %%f %%b %%s\n"
            "  Lines are labeled by a Label field or column when there is one ('-' = normal).\n"
            "\n"
            "Watch options (streaming detectors; MODEL is optional when one is on):\n"
            "  --alert-new         alert on a template never seen before\n"
            "  --rare-count N      alert on a template seen fewer than N times before\n"
            "  --bucket S          rate change per template in buckets of S seconds (lines\n"
            "                      when the log has no timestamps); --rate-factor F (10)\n"
            "  --ngram N           next-event prediction from the last N-1 events; an event\n"
            "                      outside the --top-k K (9) most frequent followers alerts\n"
            "  --warmup N          learn without alerting for N lines (default 1000)\n"
            "  --no-learn          after warmup, stop learning (the warmup is the normal\n"
            "                      model); a MODEL never learns (--model ngram: per session)\n"
            "  --keep N            lines kept to show with window anomalies (10000)\n"
            "  --flush WHEN        line: alerts flushed as they come; block: when the\n"
            "                      buffer fills; auto (default): line unless stdout is a file\n"
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
    const char *train_inputs[64], *test_inputs[64]; /* eval --train, --test */
    size_t ntrain_inputs, ntest_inputs;
    int quiet;
    /* input options */
    const char *input_kind, *dataset, *log_format, *parser, *window;
    const char *id_regex, *size, *step, *idle, *time_fields, *time_format;
    const char *idle_default; /* watch: idle for session windows when --idle is not given */
    /* watch options */
    int alert_new, no_learn;
    const char *rare_count, *bucket, *rate_factor, *ngram, *top_k, *warmup, *keep;
    const char *flush; /* --flush line|block|auto (watch) */
} detect_opts;

/* A training error names what was trained on: the input file, or the first
 * and how many more (the library's message says why and the limit). */
static void training_error(const char *sub, const detect_opts *o, const char *why)
{
    const char *first = o->ninputs ? o->inputs[0] : "-";
    if (strcmp(first, "-") == 0)
        first = "(standard input)";
    if (o->ninputs > 1)
        cli_error(sub, "%s (and %zu more inputs): %s", first, o->ninputs - 1, why);
    else
        cli_error(sub, "%s: %s", first, why);
}

enum {
    DOPT_MODEL = 256, DOPT_LABELS, DOPT_INPUT, DOPT_DATASET, DOPT_FORMAT, DOPT_PARSER,
    DOPT_WINDOW, DOPT_ID_REGEX, DOPT_SIZE, DOPT_STEP, DOPT_IDLE, DOPT_TIME_FIELDS,
    DOPT_TIME_FORMAT, DOPT_RARE_COUNT, DOPT_BUCKET, DOPT_RATE_FACTOR, DOPT_NGRAM, DOPT_TOP_K,
    DOPT_WARMUP, DOPT_KEEP, DOPT_OUTPUT, DOPT_SPLIT, DOPT_TRAIN_FRACTION, DOPT_ALERT_NEW,
    DOPT_PARAM, DOPT_TRAIN, DOPT_TEST, DOPT_NO_LEARN, DOPT_FLUSH
};

static const struct option detect_long_options[] = {
    {"model", required_argument, NULL, DOPT_MODEL},
    {"labels", required_argument, NULL, DOPT_LABELS},
    {"input", required_argument, NULL, DOPT_INPUT},
    {"dataset", required_argument, NULL, DOPT_DATASET},
    /* --format is the log format, as in parse, compress and bench */
    {"format", required_argument, NULL, DOPT_FORMAT},
    {"log-format", required_argument, NULL, DOPT_FORMAT},
    {"parser", required_argument, NULL, DOPT_PARSER},
    {"window", required_argument, NULL, DOPT_WINDOW},
    {"id-regex", required_argument, NULL, DOPT_ID_REGEX},
    {"size", required_argument, NULL, DOPT_SIZE},
    {"step", required_argument, NULL, DOPT_STEP},
    {"idle", required_argument, NULL, DOPT_IDLE},
    {"time-fields", required_argument, NULL, DOPT_TIME_FIELDS},
    {"time-format", required_argument, NULL, DOPT_TIME_FORMAT},
    {"rare-count", required_argument, NULL, DOPT_RARE_COUNT},
    {"bucket", required_argument, NULL, DOPT_BUCKET},
    {"rate-factor", required_argument, NULL, DOPT_RATE_FACTOR},
    {"ngram", required_argument, NULL, DOPT_NGRAM},
    {"top-k", required_argument, NULL, DOPT_TOP_K},
    {"warmup", required_argument, NULL, DOPT_WARMUP},
    {"keep", required_argument, NULL, DOPT_KEEP},
    {"flush", required_argument, NULL, DOPT_FLUSH},
    /* the output layout, as `logtk parse --output` */
    {"output", required_argument, NULL, DOPT_OUTPUT},
    {"split", required_argument, NULL, DOPT_SPLIT},
    {"train-fraction", required_argument, NULL, DOPT_TRAIN_FRACTION},
    {"alert-new", no_argument, NULL, DOPT_ALERT_NEW},
    {"param", required_argument, NULL, DOPT_PARAM},
    {"train", required_argument, NULL, DOPT_TRAIN},
    {"no-learn", no_argument, NULL, DOPT_NO_LEARN},
    {"test", required_argument, NULL, DOPT_TEST},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_opts(const char *sub, int argc, char **argv, detect_opts *o)
{
    memset(o, 0, sizeof *o);
    o->format = "tsv";
    o->split = "uniform";
    o->fraction = -1;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", detect_long_options, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stdout); return -1;
        case DOPT_MODEL: o->model = optarg; break;
        case DOPT_LABELS: o->labels = optarg; break;
        case 'o': o->output = optarg; break;
        case DOPT_INPUT: o->input_kind = optarg; break;
        case DOPT_DATASET: o->dataset = optarg; break;
        case DOPT_FORMAT: o->log_format = optarg; break;
        case DOPT_PARSER: o->parser = optarg; break;
        case DOPT_WINDOW: o->window = optarg; break;
        case DOPT_ID_REGEX: o->id_regex = optarg; break;
        case DOPT_SIZE: o->size = optarg; break;
        case DOPT_STEP: o->step = optarg; break;
        case DOPT_IDLE: o->idle = optarg; break;
        case DOPT_TIME_FIELDS: o->time_fields = optarg; break;
        case DOPT_TIME_FORMAT: o->time_format = optarg; break;
        case DOPT_RARE_COUNT: o->rare_count = optarg; break;
        case DOPT_BUCKET: o->bucket = optarg; break;
        case DOPT_RATE_FACTOR: o->rate_factor = optarg; break;
        case DOPT_NGRAM: o->ngram = optarg; break;
        case DOPT_TOP_K: o->top_k = optarg; break;
        case DOPT_WARMUP: o->warmup = optarg; break;
        case DOPT_KEEP: o->keep = optarg; break;
        case DOPT_FLUSH: o->flush = optarg; break;
        case DOPT_OUTPUT:
            o->format = optarg;
            if (strcmp(o->format, "tsv") != 0 && strcmp(o->format, "jsonl") != 0)
                return cli_usage_error(sub, "unknown output layout '%s' (tsv, jsonl)", o->format);
            break;
        case DOPT_SPLIT: o->split = optarg; break;
        case DOPT_TRAIN_FRACTION: {
            char *end;
            o->fraction = strtod(optarg, &end);
            if (*end || optarg[0] == '\0' || !(o->fraction > 0 && o->fraction < 1))
                return cli_usage_error(sub, "bad --train-fraction '%s'", optarg);
            break;
        }
        case DOPT_ALERT_NEW: o->alert_new = 1; break;
        case DOPT_NO_LEARN: o->no_learn = 1; break;
        case DOPT_PARAM:
            if (o->nparams == sizeof o->params / sizeof o->params[0])
                return cli_usage_error(sub, "too many --param options");
            o->params[o->nparams++] = optarg;
            break;
        case DOPT_TRAIN:
        case DOPT_TEST: {
            const char **list = c == DOPT_TRAIN ? o->train_inputs : o->test_inputs;
            size_t *n = c == DOPT_TRAIN ? &o->ntrain_inputs : &o->ntest_inputs;
            if (*n == 64)
                return cli_usage_error(sub, "too many --train or --test inputs");
            list[(*n)++] = optarg;
            break;
        }
        case 'q': o->quiet = 1; break;
        case ':':
            return cli_usage_error(sub, "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                return cli_usage_error(sub, "unknown option '-%c'", optopt);
            return cli_usage_error(sub, "unknown option '%s'", argv[optind - 1]);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (o->ninputs == sizeof o->inputs / sizeof o->inputs[0])
            return cli_usage_error(sub, "too many inputs");
        o->inputs[o->ninputs++] = argv[i];
    }
    static const char *const kinds[] = {"sessions", "csv", "id-events", "lines",
                                        "structured", "raw"};
    int known = !o->input_kind;
    for (size_t k = 0; !known && k < sizeof kinds / sizeof kinds[0]; k++)
        known = strcmp(o->input_kind, kinds[k]) == 0;
    if (!known)
        return cli_usage_error(sub, "unknown --input '%s' (sessions, csv, id-events, lines, "
                                    "structured, raw)",
                               o->input_kind);
    if (o->window && strcmp(o->window, "session") != 0 && strcmp(o->window, "time") != 0 &&
        strcmp(o->window, "count") != 0)
        return cli_usage_error(sub, "unknown --window '%s' (session, time, count)", o->window);
    if (o->dataset && !logtk_dataset_find(o->dataset))
        return cli_usage_error(sub, "unknown dataset '%s'", o->dataset);
    return 0;
}

/* ---------------------------------------------------------------- inputs */

/* What a header line says its file is: the whole line counts, however long.
   *layout gets the session layout (csv, id-events, lines) of a sessions file. */
static const char *kind_of_header(const char *head, size_t n, const char **layout)
{
    *layout = NULL;
    if (memmem(head, n, "EventSequence", 13)) {
        *layout = "csv";
        return "sessions";
    }
    if (memmem(head, n, "EventId", 7) && (memmem(head, n, "LineId", 6) || memmem(head, n, "Content", 7)))
        return "structured";
    if ((*layout = logtk_sessions_sniff(head, n)) != NULL)
        return "sessions";
    return "raw";
}

/* What the first line of a file says it is.  Standard input is peeked at
   without consuming it.  NULL after printing an error. */
static const char *sniff_input(const char *sub, const char *path, const char **layout)
{
    *layout = NULL;
    if (strcmp(path, "-") == 0) {
        char *head;
        size_t n;
        if (cli_peek_stdin(sub, &head, &n) != EXIT_OK)
            return NULL;
        const char *kind = kind_of_header(head, n, layout);
        free(head);
        return kind;
    }
    logtk_reader *r;
    if (logtk_reader_new(&r) != LOGTK_OK)
        return "raw";
    logtk_line line;
    const char *kind = "raw"; /* a file that cannot be read: the loader says why */
    if (logtk_reader_open_path(r, path) == LOGTK_OK && logtk_reader_next(r, &line) == LOGTK_OK)
        kind = kind_of_header(line.data, line.len, layout);
    logtk_reader_free(r);
    return kind;
}

/* An input may end in ":normal" or ":anomaly" (":abnormal"), labeling
   every session of that file (DeepLog's files are labeled by which file
   they are), unless a file of that whole name exists.  *path is
   malloc'd. */
static int split_label_suffix(const char *arg, char **path, int *label)
{
    static const struct {
        const char *suffix;
        int label;
    } suffixes[] = {{":normal", LOGTK_LABEL_NORMAL},
                    {":anomaly", LOGTK_LABEL_ANOMALY},
                    {":abnormal", LOGTK_LABEL_ANOMALY}};
    size_t n = strlen(arg);
    *label = LOGTK_LABEL_UNKNOWN;
    for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
        size_t sl = strlen(suffixes[k].suffix);
        if (n > sl && strcmp(arg + n - sl, suffixes[k].suffix) == 0 && access(arg, F_OK) != 0) {
            *label = suffixes[k].label;
            n -= sl;
            break;
        }
    }
    *path = strndup(arg, n);
    return *path ? 0 : -1;
}

static const char *layout_words(const char *layout)
{
    return strcmp(layout, "lines") == 0       ? "one sequence of event numbers per line, as DeepLog's"
           : strcmp(layout, "id-events") == 0 ? "id,events lines"
                                              : "a session CSV";
}

/* Window and parsing set-up shared by raw and structured inputs. */
typedef struct window_input {
    const char *sub;
    const detect_opts *o;
    logtk_windows *win;
    int label_field;   /* field index of "Label", -1 none */
    int content_field; /* structured: column of the text searched for ids */
    uint64_t line_no;  /* global line number */
    /* raw */
    logtk_parser *parser;
    logtk_format *format;
    int event_is_line; /* events are parser line indices, resolved after finish */
    char first_bad_time[512]; /* "FILE:LINE" of the first timestamp that did not parse */
} window_input;

static const char *dataset_name(const detect_opts *o)
{
    return o->dataset ? logtk_dataset_name(logtk_dataset_find(o->dataset)) : "";
}

/* Creates the windower from the options and the dataset's defaults. */
static int make_windows(const char *sub, const detect_opts *o, logtk_windows **out)
{
    const char *kind = o->window;
    const char *ds = dataset_name(o);
    const char *time_fields = o->time_fields, *time_format = o->time_format;
    if (strcmp(ds, "HDFS") == 0) {
        time_fields = time_fields ? time_fields : "Date Time";
        time_format = time_format ? time_format : "%y%m%d %H%M%S";
    } else if (strcmp(ds, "BGL") == 0 || strcmp(ds, "Thunderbird") == 0) {
        time_fields = time_fields ? time_fields : "Timestamp";
        time_format = time_format ? time_format : "%s";
    }
    if (!kind)
        kind = o->id_regex || strcmp(ds, "HDFS") == 0 ? "session"
               : o->time_fields || o->time_format    ? "time"
                                                     : "count";
    /* an option the chosen windows do not use would be ignored silently */
    int session = strcmp(kind, "session") == 0;
    if (session && (o->size || o->step))
        return cli_usage_error(sub, "%s applies to time and count windows, not to session "
                                    "windows (add --window time or --window count)",
                               o->size ? "--size" : "--step");
    if (!session && (o->idle || o->id_regex))
        return cli_usage_error(sub, "%s applies to session windows, not to %s windows",
                               o->idle ? "--idle" : "--id-regex", kind);
    logtk_windows *w;
    if (logtk_windows_new(&w, kind) != LOGTK_OK) {
        cli_error(sub, "out of memory");
        return EXIT_DATA;
    }
    const char *names[] = {"id_regex", "size", "step", "idle", "time_fields", "time_format"};
    const char *idle = o->idle ? o->idle : session ? o->idle_default : NULL;
    const char *values[] = {o->id_regex, o->size, o->step, idle, time_fields, time_format};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        if (!values[k])
            continue;
        if (strcmp(kind, "time") != 0 && names[k][0] == 't' && !o->time_fields && !o->time_format)
            continue; /* dataset time defaults only matter to time windows */
        int rc = logtk_windows_set_option(w, names[k], values[k]);
        if (rc != LOGTK_OK) {
            rc = cli_usage_error(sub, "%s", logtk_windows_errmsg(w));
            logtk_windows_free(w);
            return rc;
        }
    }
    *out = w;
    return EXIT_OK;
}

static int label_of(logtk_slice v)
{
    if (v.len == 0)
        return LOGTK_LABEL_UNKNOWN;
    return v.len == 1 && v.ptr[0] == '-' ? LOGTK_LABEL_NORMAL : LOGTK_LABEL_ANOMALY;
}

static int on_raw_line(void *user, const logtk_line *line, const logtk_record *rec,
                       const logtk_event *ev)
{
    window_input *in = user;
    in->line_no++;
    int label = LOGTK_LABEL_UNKNOWN;
    if (in->label_field >= 0 && rec->matched)
        label = label_of(rec->fields[in->label_field]);
    uint32_t event = in->event_is_line ? (uint32_t)(logtk_parser_line_count(in->parser) - 1)
                                       : ev->template_id;
    int rc = logtk_windows_add(in->win, line->data, line->len, rec->fields, rec->nfields,
                               in->line_no, event, label);
    if (!in->first_bad_time[0]) {
        logtk_window_stats st;
        logtk_windows_stats(in->win, &st);
        if (st.bad_time)
            snprintf(in->first_bad_time, sizeof in->first_bad_time, "%s:%llu", line->source,
                     (unsigned long long)line->number);
    }
    if (rc == LOGTK_ERR_LIMIT)
        return 0; /* counted as a line naming no id */
    if (rc != LOGTK_OK) {
        cli_error(in->sub, "%s:%llu: %s", line->source, (unsigned long long)line->number,
                  logtk_windows_errmsg(in->win));
        return EXIT_DATA;
    }
    return 0;
}

/* Sets up format and parser for raw logs. */
static int open_raw(window_input *in)
{
    const detect_opts *o = in->o;
    const logtk_dataset *ds = o->dataset ? logtk_dataset_find(o->dataset) : NULL;
    const char *fmt = o->log_format ? o->log_format : ds ? logtk_dataset_format(ds) : NULL;
    if (logtk_format_new(&in->format) != LOGTK_OK) {
        cli_error(in->sub, "out of memory");
        return EXIT_DATA;
    }
    if (fmt && logtk_format_compile(in->format, fmt) != LOGTK_OK)
        return cli_usage_error(in->sub, "%s", logtk_format_errmsg(in->format));
    int rc = logtk_parser_new(&in->parser, o->parser); /* NULL: the default, fuse */
    if (rc == LOGTK_ERR_NOT_FOUND)
        return cli_usage_error(in->sub, "unknown parser '%s'", o->parser);
    if (rc != LOGTK_OK) {
        cli_error(in->sub, "out of memory");
        return EXIT_DATA;
    }
    if (ds && logtk_dataset_configure(ds, in->parser) != LOGTK_OK) {
        cli_error(in->sub, "%s", logtk_parser_errmsg(in->parser));
        return EXIT_DATA;
    }
    in->label_field = -1;
    for (size_t i = 0; i < logtk_format_field_count(in->format); i++)
        if (strcmp(logtk_format_field_name(in->format, i), "Label") == 0)
            in->label_field = (int)i;
    if (logtk_windows_set_format(in->win, in->format) != LOGTK_OK) {
        /* only time windows need fields; the error says which is missing */
        if (o->window && strcmp(o->window, "time") == 0)
            return cli_usage_error(in->sub, "%s", logtk_windows_errmsg(in->win));
    }
    return EXIT_OK;
}

/* Prints the window statistics (skips with counts) on stderr; where names
   the first line whose timestamp did not parse (NULL: its global number). */
static void report_window_stats(const char *sub, const detect_opts *o, logtk_windows *w,
                                const char *where)
{
    logtk_window_stats st;
    logtk_windows_stats(w, &st);
    if (o->quiet)
        return;
    if (st.no_id)
        fprintf(stderr, "logtk %s: skipped %llu lines naming no session id\n", sub,
                (unsigned long long)st.no_id);
    if (st.bad_time && where && *where)
        fprintf(stderr, "logtk %s: skipped %llu lines whose timestamp did not parse (first: %s)\n",
                sub, (unsigned long long)st.bad_time, where);
    else if (st.bad_time)
        fprintf(stderr,
                "logtk %s: skipped %llu lines whose timestamp did not parse (first: line %llu)\n",
                sub, (unsigned long long)st.bad_time, (unsigned long long)st.first_bad_time_line);
    if (st.empty_windows)
        fprintf(stderr, "logtk %s: skipped %llu time windows with no lines\n", sub,
                (unsigned long long)st.empty_windows);
    if (st.late)
        fprintf(stderr, "logtk %s: %llu lines were older than their window (kept in it)\n", sub,
                (unsigned long long)st.late);
}

/* Moves every completed window into s, naming events through names[]. */
static int drain_windows(const char *sub, window_input *in, logtk_sessions *s,
                         const logtk_slice *names, size_t nnames)
{
    logtk_window win;
    uint32_t *ids = NULL;
    size_t cap = 0;
    int rc = EXIT_OK;
    while (rc == EXIT_OK && logtk_windows_next(in->win, &win) == LOGTK_OK) {
        if (in->event_is_line) { /* line index -> final template id */
            if (win.nevents > cap) {
                cap = win.nevents * 2;
                uint32_t *grown = realloc(ids, cap * sizeof *ids);
                if (!grown) {
                    cli_error(sub, "out of memory");
                    rc = EXIT_DATA;
                    break;
                }
                ids = grown;
            }
            for (size_t i = 0; i < win.nevents; i++)
                if (logtk_parser_assignment(in->parser, win.events[i], &ids[i]) != LOGTK_OK)
                    ids[i] = 0;
            win.events = ids;
        }
        if (logtk_sessions_add_window(s, &win, names, nnames) != LOGTK_OK) {
            cli_error(sub, "%s", logtk_sessions_errmsg(s));
            rc = EXIT_DATA;
        }
    }
    free(ids);
    return rc;
}

/* Template names of a parser after finish: names[id] for ids 1..count. */
static int template_names(logtk_parser *p, logtk_slice **names, size_t *n, char **store)
{
    uint32_t count = logtk_parser_template_count(p);
    *names = calloc((size_t)count + 1, sizeof **names);
    *store = malloc(((size_t)count + 1) * 9);
    if (!*names || !*store)
        return -1;
    for (uint32_t id = 1; id <= count; id++) {
        logtk_slice text;
        uint64_t occurrences;
        if (logtk_parser_template(p, id, &text, &occurrences) != LOGTK_OK)
            text.ptr = "", text.len = 0;
        logtk_loghub_event_id(text.ptr, text.len, *store + (size_t)id * 9);
        (*names)[id].ptr = *store + (size_t)id * 9;
        (*names)[id].len = 8;
    }
    *n = (size_t)count + 1;
    return 0;
}

static int load_raw(const char *sub, const detect_opts *o, size_t first, logtk_sessions *s)
{
    window_input in;
    memset(&in, 0, sizeof in);
    in.sub = sub;
    in.o = o;
    int rc = make_windows(sub, o, &in.win);
    if (rc != EXIT_OK)
        return rc;
    if ((rc = open_raw(&in)) == EXIT_OK) {
        in.event_is_line = 1;
        cli_progress progress;
        cli_progress_init(&progress, "detect", o->quiet);
        cli_feed f;
        memset(&f, 0, sizeof f);
        f.subcommand = sub;
        f.format = in.format;
        f.parser = in.parser;
        f.on_line = on_raw_line;
        f.user = &in;
        f.progress = &progress;
        f.quiet = o->quiet;
        rc = cli_feed_run(&f, (char *const *)(o->inputs + first), o->ninputs - first);
        cli_progress_end(&progress);
        if (rc == EXIT_OK && (logtk_parser_finish(in.parser) != LOGTK_OK ||
                              logtk_windows_finish(in.win) != LOGTK_OK)) {
            cli_error(sub, "%s", logtk_windows_errmsg(in.win));
            rc = EXIT_DATA;
        }
        logtk_slice *names = NULL;
        char *store = NULL;
        size_t nnames = 0;
        if (rc == EXIT_OK && template_names(in.parser, &names, &nnames, &store) != 0) {
            cli_error(sub, "out of memory");
            rc = EXIT_DATA;
        }
        if (rc == EXIT_OK)
            rc = drain_windows(sub, &in, s, names, nnames);
        if (rc == EXIT_OK) {
            report_window_stats(sub, o, in.win, in.first_bad_time);
            if (!o->quiet)
                fprintf(stderr, "logtk %s: %llu lines, %u templates, %zu windows\n", sub,
                        (unsigned long long)f.lines, logtk_parser_template_count(in.parser),
                        logtk_sessions_count(s));
        }
        free(names);
        free(store);
    }
    logtk_windows_free(in.win);
    logtk_parser_free(in.parser);
    logtk_format_free(in.format);
    return rc;
}

static size_t name_hash(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    return (size_t)(h ^ (h >> 29));
}

/* Structured rows: Loghub's *_structured.csv or logtk parse's CSV output
   (header row with an EventId column). */
static int load_structured(const char *sub, const detect_opts *o, size_t first, logtk_sessions *s)
{
    window_input in;
    memset(&in, 0, sizeof in);
    in.sub = sub;
    in.o = o;
    int rc = make_windows(sub, o, &in.win);
    if (rc != EXIT_OK)
        return rc;
    /* event names interned here: names[k] for event k */
    char **names = NULL;
    size_t nnames = 0, names_cap = 0;
    uint32_t *table = NULL;
    size_t table_size = 0;
    char **header_store = NULL; /* every column name of the header, however many */
    size_t nheader = 0;
    for (size_t k = first; k < o->ninputs && rc == EXIT_OK; k++) {
        const char *path = o->inputs[k];
        logtk_csv *c = NULL;
        if (logtk_csv_new(&c) != LOGTK_OK || logtk_csv_open_path(c, path) != LOGTK_OK) {
            cli_error(sub, "%s", c ? logtk_csv_errmsg(c) : "out of memory");
            logtk_csv_free(c);
            rc = EXIT_DATA;
            break;
        }
        const logtk_slice *fields;
        size_t nfields;
        int st = logtk_csv_next(c, &fields, &nfields);
        int col_event = -1;
        in.label_field = -1;
        in.content_field = -1;
        if (st == LOGTK_OK) {
            for (size_t i = 0; i < nheader; i++)
                free(header_store[i]);
            nheader = 0;
            free(header_store);
            header_store = calloc(nfields ? nfields : 1, sizeof *header_store);
            if (!header_store) {
                cli_error(sub, "out of memory");
                logtk_csv_free(c);
                rc = EXIT_DATA;
                break;
            }
            for (size_t i = 0; i < nfields; i++) {
                header_store[nheader] = strndup(fields[i].ptr, fields[i].len);
                if (!header_store[nheader]) {
                    st = LOGTK_ERR_NOMEM;
                    break;
                }
                nheader++;
                if (fields[i].len == 7 && memcmp(fields[i].ptr, "EventId", 7) == 0)
                    col_event = (int)i;
                else if (fields[i].len == 5 && memcmp(fields[i].ptr, "Label", 5) == 0)
                    in.label_field = (int)i;
                else if (fields[i].len == 7 && memcmp(fields[i].ptr, "Content", 7) == 0)
                    in.content_field = (int)i;
            }
        }
        if (st != LOGTK_OK || col_event < 0) {
            cli_error(sub, "%s", st == LOGTK_ERR_NOMEM ? "out of memory" : st < 0 ? logtk_csv_errmsg(c)
                                        : "structured input needs a header with EventId");
            if (st >= 0)
                fprintf(stderr, "  (in %s)\n", path);
            logtk_csv_free(c);
            rc = EXIT_DATA;
            break;
        }
        if (k == first && logtk_windows_set_columns(in.win, (const char *const *)header_store,
                                                    nheader) != LOGTK_OK &&
            o->window && strcmp(o->window, "time") == 0) {
            rc = cli_usage_error(sub, "%s", logtk_windows_errmsg(in.win));
            logtk_csv_free(c);
            break;
        }
        while ((st = logtk_csv_next(c, &fields, &nfields)) == LOGTK_OK) {
            if (nfields == 1 && fields[0].len == 0)
                continue;
            if (nfields <= (size_t)col_event) {
                cli_error(sub, "%s:%llu: missing EventId field", path,
                          (unsigned long long)logtk_csv_line(c));
                rc = EXIT_DATA;
                break;
            }
            logtk_slice ev = fields[col_event];
            /* event name -> index through an open-addressing table of
               index + 1 (0 empty), doubled when half full */
            if (nnames * 2 >= table_size) {
                size_t size = table_size ? table_size * 2 : 1024;
                uint32_t *grown = calloc(size, sizeof *grown);
                if (!grown) {
                    rc = EXIT_DATA;
                    break;
                }
                for (size_t i = 0; i < nnames; i++) {
                    size_t h = name_hash(names[i], strlen(names[i])) & (size - 1);
                    while (grown[h])
                        h = (h + 1) & (size - 1);
                    grown[h] = (uint32_t)i + 1;
                }
                free(table);
                table = grown;
                table_size = size;
            }
            size_t h = name_hash(ev.ptr, ev.len) & (table_size - 1);
            size_t e = nnames;
            for (; table[h]; h = (h + 1) & (table_size - 1)) {
                const char *cand = names[table[h] - 1];
                if (strlen(cand) == ev.len && memcmp(cand, ev.ptr, ev.len) == 0) {
                    e = table[h] - 1;
                    break;
                }
            }
            if (e == nnames) {
                table[h] = (uint32_t)nnames + 1;
                if (nnames == names_cap) {
                    names_cap = names_cap ? names_cap * 2 : 256;
                    char **grown = realloc(names, names_cap * sizeof *names);
                    if (!grown) {
                        rc = EXIT_DATA;
                        break;
                    }
                    names = grown;
                }
                names[nnames] = strndup(ev.ptr, ev.len);
                if (!names[nnames]) {
                    rc = EXIT_DATA;
                    break;
                }
                nnames++;
            }
            int label = in.label_field >= 0 && (size_t)in.label_field < nfields
                            ? label_of(fields[in.label_field])
                            : LOGTK_LABEL_UNKNOWN;
            logtk_slice text = in.content_field >= 0 && (size_t)in.content_field < nfields
                                   ? fields[in.content_field]
                                   : fields[0];
            in.line_no++;
            int wr = logtk_windows_add(in.win, text.ptr, text.len, fields, nfields, in.line_no,
                                       (uint32_t)e, label);
            if (!in.first_bad_time[0]) {
                logtk_window_stats wst;
                logtk_windows_stats(in.win, &wst);
                if (wst.bad_time)
                    snprintf(in.first_bad_time, sizeof in.first_bad_time, "%s:%llu", path,
                             (unsigned long long)logtk_csv_line(c));
            }
            if (wr != LOGTK_OK && wr != LOGTK_ERR_LIMIT) {
                cli_error(sub, "%s:%llu: %s", path, (unsigned long long)logtk_csv_line(c),
                          logtk_windows_errmsg(in.win));
                rc = EXIT_DATA;
                break;
            }
        }
        if (st < 0 && rc == EXIT_OK) {
            cli_error(sub, "%s", logtk_csv_errmsg(c));
            rc = EXIT_DATA;
        }
        logtk_csv_free(c);
    }
    if (rc == EXIT_OK && logtk_windows_finish(in.win) != LOGTK_OK) {
        cli_error(sub, "%s", logtk_windows_errmsg(in.win));
        rc = EXIT_DATA;
    }
    logtk_slice *slices = nnames ? calloc(nnames, sizeof *slices) : NULL;
    if (rc == EXIT_OK && nnames && !slices) {
        cli_error(sub, "out of memory");
        rc = EXIT_DATA;
    }
    for (size_t i = 0; slices && i < nnames; i++) {
        slices[i].ptr = names[i];
        slices[i].len = strlen(names[i]);
    }
    if (rc == EXIT_OK)
        rc = drain_windows(sub, &in, s, slices, nnames);
    if (rc == EXIT_OK)
        report_window_stats(sub, o, in.win, in.first_bad_time);
    free(slices);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    free(table);
    for (size_t i = 0; i < nheader; i++)
        free(header_store[i]);
    free(header_store);
    logtk_windows_free(in.win);
    return rc;
}

static int load_inputs(const char *sub, const detect_opts *o, size_t first, logtk_sessions **out)
{
    logtk_sessions *s;
    if (logtk_sessions_new(&s) != LOGTK_OK) {
        cli_error(sub, "out of memory");
        return EXIT_DATA;
    }
    /* inputs without their label suffixes, and those labels */
    detect_opts *plain = malloc(sizeof *plain);
    int labels[256];
    int rc = plain ? EXIT_OK : EXIT_DATA, any_label = 0;
    if (plain) {
        *plain = *o;
        for (size_t k = first; k < o->ninputs; k++)
            plain->inputs[k] = NULL;
        for (size_t k = first; k < o->ninputs && rc == EXIT_OK; k++) {
            char *path;
            if (split_label_suffix(o->inputs[k], &path, &labels[k]) != 0)
                rc = EXIT_DATA;
            plain->inputs[k] = path;
            any_label |= labels[k] != LOGTK_LABEL_UNKNOWN;
        }
    }
    if (rc != EXIT_OK)
        cli_error(sub, "out of memory");
    /* what each file looks like (standard input is peeked at once) */
    const char *file_kinds[256], *file_layouts[256];
    for (size_t k = first; rc == EXIT_OK && k < o->ninputs; k++) {
        file_kinds[k] = NULL;
        for (size_t j = first; j < k && !file_kinds[k]; j++)
            if (strcmp(plain->inputs[k], "-") == 0 && strcmp(plain->inputs[j], "-") == 0) {
                file_kinds[k] = file_kinds[j];
                file_layouts[k] = file_layouts[j];
            }
        if (!file_kinds[k] && !(file_kinds[k] = sniff_input(sub, plain->inputs[k], &file_layouts[k])))
            rc = EXIT_DATA;
    }
    const char *kind = o->input_kind;
    if (rc == EXIT_OK && !kind)
        kind = first < o->ninputs ? file_kinds[first] : "raw";
    if (rc == EXIT_OK && o->window && strcmp(kind, "sessions") == 0 && !o->input_kind)
        kind = "raw"; /* --window asks for windows over lines */
    int session_kind = rc == EXIT_OK && strcmp(kind, "structured") != 0 && strcmp(kind, "raw") != 0;
    if (rc == EXIT_OK && any_label && !session_kind)
        rc = cli_usage_error(sub, "a :normal or :anomaly label after an input applies to "
                                  "session files, not to %s logs",
                             kind);
    /* a file read as the wrong kind would train a model on nonsense */
    for (size_t k = first; rc == EXIT_OK && k < o->ninputs; k++) {
        const char *path = plain->inputs[k], *file_layout = file_layouts[k];
        const char *file_kind = file_kinds[k];
        if (!session_kind && strcmp(file_kind, "sessions") == 0 && !o->window) {
            cli_error(sub, "%s looks like sessions (%s), not a %s log; leave out --input, or "
                           "give --input sessions",
                      path, layout_words(file_layout), kind);
            rc = EXIT_DATA;
        } else if (session_kind && strcmp(file_kind, "sessions") != 0) {
            cli_error(sub, "%s:1: does not look like sessions (a session CSV with EventSequence, "
                           "id,events lines or lines of event numbers) but like a %s log; leave "
                           "out --input, or give --input %s",
                      path, file_kind, file_kind);
            rc = EXIT_DATA;
        }
    }
    if (rc != EXIT_OK) {
    } else if (session_kind) {
        for (size_t k = first; k < o->ninputs && rc == EXIT_OK; k++) {
            const char *file_layout = strcmp(kind, "sessions") == 0 ? file_layouts[k] : kind;
            if (logtk_sessions_load_layout(s, plain->inputs[k],
                                                file_layout ? file_layout : "csv",
                                                labels[k]) != LOGTK_OK) {
                cli_error(sub, "%s", logtk_sessions_errmsg(s));
                rc = EXIT_DATA;
            }
        }
    } else if (strcmp(kind, "structured") == 0) {
        rc = load_structured(sub, plain, first, s);
    } else {
        rc = load_raw(sub, plain, first, s);
    }
    for (size_t k = first; plain && k < o->ninputs; k++)
        free((char *)plain->inputs[k]);
    free(plain);
    if (rc != EXIT_OK) {
        logtk_sessions_free(s);
        return rc;
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
        if (logtk_detector_set_option(d, name, eq + 1) != LOGTK_OK) {
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
    if (cli_refuse_output_is_input(sub, "-o", o.output, (char *const *)o.inputs, o.ninputs) !=
        EXIT_OK)
        return EXIT_USAGE;
    logtk_detector *d;
    if ((rc = make_detector(sub, &o, &d)) != EXIT_OK)
        return rc;
    logtk_sessions *s;
    if ((rc = load_inputs(sub, &o, 0, &s)) != EXIT_OK) {
        logtk_detector_free(d);
        return rc;
    }
    if (logtk_detector_train(d, s, NULL, 0) != LOGTK_OK) {
        training_error(sub, &o, logtk_detector_errmsg(d));
        rc = EXIT_DATA;
    } else if (logtk_detector_save_file(d, o.output) != LOGTK_OK) {
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

/* "NAME":"VALUE" as the jsonl sink writes it: valid UTF-8 JSON, with a
   NAME_base64 twin holding the exact bytes when they are not UTF-8.  A write
   error shows in stdout's error flag, checked at the end. */
static void print_json_member(const char *name, const char *p, size_t n)
{
    logtk_json_write_member(stdout, name, p, n);
}

/* How many test sessions hold events the model never saw: evidence every
   model counts, printed so that a user sees how much of the test is new. */
static void report_unseen(const char *sub, const detect_opts *o, logtk_detector *d,
                          const logtk_sessions *s, const size_t *rows, size_t nrows)
{
    uint64_t sessions, events, distinct;
    if (o->quiet || logtk_detector_count_unseen(d, s, rows, nrows, &sessions, &events,
                                                &distinct) != LOGTK_OK || events == 0)
        return;
    fprintf(stderr, "logtk %s: %llu of %zu test sessions hold %llu events never seen in "
                    "training (%llu distinct)\n",
            sub, (unsigned long long)sessions, rows ? nrows : logtk_sessions_count(s),
            (unsigned long long)events, (unsigned long long)distinct);
}

static void print_metrics(const char *sub, const logtk_detect_metrics *m)
{
    fprintf(stderr,
            "logtk %s: precision %.3f recall %.3f f1 %.3f (tp %llu fp %llu fn %llu tn %llu)\n",
            sub, m->precision, m->recall, m->f1, (unsigned long long)m->tp,
            (unsigned long long)m->fp, (unsigned long long)m->fn, (unsigned long long)m->tn);
    if (m->unlabeled)
        fprintf(stderr, "logtk %s: %llu sessions without a label were not counted\n", sub,
                (unsigned long long)m->unlabeled);
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
    /* the library reads a model whole before it checks it: refuse a foreign
       or endless file (/dev/zero) from its first bytes */
    if (!cli_check_magic(sub, o.inputs[0], LOGTK_MODEL_MAGIC, "logtk model"))
        return EXIT_DATA;
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
                putchar('{');
                print_json_member("id", id.ptr, id.len);
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
        report_unseen(sub, &o, d, s, NULL, 0);
        logtk_detect_metrics m;
        if (rc == EXIT_OK && !o.quiet &&
            logtk_detect_evaluate(s, NULL, 0, verdict, &m) == LOGTK_OK && m.unlabeled < n)
            print_metrics(sub, &m);
    }
    free(score);
    free(verdict);
    logtk_sessions_free(s);
    logtk_detector_free(d);
    return rc;
}

/* eval --train A --test B: train on one input, test on another. */
static int eval_files(const char *sub, detect_opts *o)
{
    if (!o->ntrain_inputs || !o->ntest_inputs)
        return cli_usage_error(sub, "give both --train and --test");
    if (o->ninputs)
        return cli_usage_error(sub, "with --train and --test, give no other input ('%s')",
                               o->inputs[0]);
    if (strcmp(o->split, "uniform") != 0 || o->fraction >= 0)
        return cli_usage_error(sub, "--split and --train-fraction do not apply to --train/--test");
    logtk_detector *d;
    int rc = make_detector(sub, o, &d);
    if (rc != EXIT_OK)
        return rc;
    detect_opts *part = malloc(sizeof *part);
    logtk_sessions *train = NULL, *test = NULL;
    if (!part) {
        cli_error(sub, "out of memory");
        rc = EXIT_DATA;
    }
    if (rc == EXIT_OK) {
        *part = *o;
        memcpy(part->inputs, o->train_inputs, o->ntrain_inputs * sizeof *o->inputs);
        part->ninputs = o->ntrain_inputs;
        rc = load_inputs(sub, part, 0, &train);
    }
    if (rc == EXIT_OK) {
        memcpy(part->inputs, o->test_inputs, o->ntest_inputs * sizeof *o->inputs);
        part->ninputs = o->ntest_inputs;
        rc = load_inputs(sub, part, 0, &test);
    }
    size_t ntrain = train ? logtk_sessions_count(train) : 0;
    size_t ntest = test ? logtk_sessions_count(test) : 0;
    uint8_t *verdict = rc == EXIT_OK ? malloc(ntest ? ntest : 1) : NULL;
    if (rc == EXIT_OK && !verdict) {
        cli_error(sub, "out of memory");
        rc = EXIT_DATA;
    }
    if (rc == EXIT_OK && logtk_detector_train(d, train, NULL, 0) != LOGTK_OK) {
        memcpy(part->inputs, o->train_inputs, o->ntrain_inputs * sizeof *o->inputs);
        part->ninputs = o->ntrain_inputs;
        training_error(sub, part, logtk_detector_errmsg(d));
        rc = EXIT_DATA;
    }
    if (rc == EXIT_OK && logtk_detector_score(d, test, NULL, 0, NULL, verdict) != LOGTK_OK) {
        cli_error(sub, "%s", logtk_detector_errmsg(d));
        rc = EXIT_DATA;
    }
    if (rc == EXIT_OK) {
        logtk_detect_metrics m;
        logtk_detect_evaluate(test, NULL, 0, verdict, &m);
        report_unseen(sub, o, d, test, NULL, 0);
        printf("model\tsplit\ttrain_fraction\ttrain_rows\ttest_rows\tprecision\trecall\tf1\t"
               "tp\tfp\tfn\ttn\n");
        printf("%s\tfiles\t%.2f\t%zu\t%zu\t%.3f\t%.3f\t%.3f\t%llu\t%llu\t%llu\t%llu\n", o->model,
               (double)ntrain / (double)(ntrain + ntest), ntrain, ntest, m.precision, m.recall,
               m.f1, (unsigned long long)m.tp, (unsigned long long)m.fp,
               (unsigned long long)m.fn, (unsigned long long)m.tn);
        if (m.unlabeled && !o->quiet)
            fprintf(stderr, "logtk %s: %llu test rows without a label were not counted\n", sub,
                    (unsigned long long)m.unlabeled);
        if (m.unlabeled == ntest && !o->quiet)
            fprintf(stderr, "logtk %s: the test sessions have no labels: give --labels, a "
                            "Label column, or INPUT:normal / INPUT:anomaly\n", sub);
    }
    free(verdict);
    free(part);
    logtk_sessions_free(train);
    logtk_sessions_free(test);
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
    if (o.ntrain_inputs || o.ntest_inputs)
        return eval_files(sub, &o);
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
        if (!verdict) {
            cli_error(sub, "out of memory");
            rc = EXIT_DATA;
        } else if (logtk_detector_train(d, s, train, ntrain) != LOGTK_OK) {
            training_error(sub, &o, logtk_detector_errmsg(d));
            rc = EXIT_DATA;
        } else if (logtk_detector_score(d, s, test, ntest, NULL, verdict) != LOGTK_OK) {
            cli_error(sub, "%s", logtk_detector_errmsg(d));
            rc = EXIT_DATA;
        } else {
            logtk_detect_evaluate(s, test, ntest, verdict, &m);
            report_unseen(sub, &o, d, s, test, ntest);
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

/* ---------------------------------------------------------------- watch */

/* The last lines seen, kept to show the lines behind an anomaly. */
typedef struct kept_line {
    char *text;
    size_t len, cap;
    uint64_t number;
} kept_line;

typedef struct watch_state {
    const char *sub;
    const detect_opts *o;
    int json;
    logtk_detector *detector; /* NULL: streaming detectors only */
    logtk_windows *win;
    logtk_stream *stream;
    logtk_parser *parser;
    logtk_format *format;
    int time_fields[8];
    size_t ntime_fields;
    const char *time_format;
    uint64_t line_no;
    uint64_t anomalies, alerts, windows;
    kept_line *kept;
    size_t nkept;
    int flush_alerts; /* --flush: fflush after each alert (else stdio's buffer) */
    /* window_names' buffers, kept across windows: local_of[template id] is
       the id's slot + 1 in the current window (0: not in it) */
    uint32_t *local_of;
    size_t local_of_cap;
    uint32_t *local_events;
    logtk_slice *local_names;
    char *local_store;
    size_t local_cap;
} watch_state;

static int keep_line(watch_state *w, const char *text, size_t len)
{
    kept_line *k = &w->kept[w->line_no % w->nkept];
    if (k->cap < len + 1) {
        char *grown = realloc(k->text, len + 1);
        if (!grown)
            return -1;
        k->text = grown;
        k->cap = len + 1;
    }
    memcpy(k->text, text, len);
    k->len = len;
    k->number = w->line_no;
    return 0;
}

static const kept_line *find_kept(const watch_state *w, uint64_t number)
{
    const kept_line *k = &w->kept[number % w->nkept];
    return k->number == number && k->text ? k : NULL;
}

static void print_json_member(const char *name, const char *p, size_t n);

/* One output row: kind, id, score, line number and its text (if kept). */
static void print_alert_line(watch_state *w, const char *kind, const char *id, size_t id_len,
                             double score, uint64_t number, int first, int last)
{
    const kept_line *k = find_kept(w, number);
    if (w->json) {
        if (first) {
            printf("{\"kind\":\"%s\",", kind);
            print_json_member("id", id, id_len);
            printf(",\"score\":%.17g,\"lines\":[", score);
        } else {
            putchar(',');
        }
        printf("{\"line\":%llu,", (unsigned long long)number);
        if (k)
            print_json_member("text", k->text, k->len);
        else
            printf("\"text\":null");
        putchar('}');
        if (last)
            printf("]}\n");
        return;
    }
    printf("%s\t", kind);
    logtk_tsv_write_field(stdout, id, id_len);
    printf("\t%.17g\t%llu\t", score, (unsigned long long)number);
    if (k)
        logtk_tsv_write_field(stdout, k->text, k->len);
    else
        fputs("(line no longer kept)", stdout);
    putchar('\n');
}

/*
 * The window's events renumbered 0.. by distinct template, with each
 * template's name as template_names gives it (the MD5 of its current text):
 * the cost is the window's events, where naming every template the parser
 * holds cost each window all templates seen so far (a watch over 10^5
 * distinct lines was quadratic).  *out is win with the new events.
 */
static int window_names(watch_state *w, const logtk_window *win, logtk_window *out)
{
    uint32_t count = logtk_parser_template_count(w->parser);
    if (w->local_of_cap < (size_t)count + 1) {
        size_t cap = w->local_of_cap ? w->local_of_cap : 1024;
        while (cap < (size_t)count + 1)
            cap *= 2;
        uint32_t *grown = realloc(w->local_of, cap * sizeof *grown);
        if (!grown)
            return -1;
        memset(grown + w->local_of_cap, 0, (cap - w->local_of_cap) * sizeof *grown);
        w->local_of = grown;
        w->local_of_cap = cap;
    }
    if (w->local_cap < win->nevents) {
        size_t cap = win->nevents * 2;
        uint32_t *ev = realloc(w->local_events, cap * sizeof *ev);
        if (ev)
            w->local_events = ev;
        logtk_slice *nm = realloc(w->local_names, cap * sizeof *nm);
        if (nm)
            w->local_names = nm;
        char *st = realloc(w->local_store, cap * 12);
        if (st)
            w->local_store = st;
        if (!ev || !nm || !st)
            return -1;
        w->local_cap = cap;
    }
    uint32_t nlocal = 0;
    for (size_t i = 0; i < win->nevents; i++) {
        uint32_t e = win->events[i];
        if (e >= 1 && e <= count && w->local_of[e]) {
            w->local_events[i] = w->local_of[e] - 1;
            continue;
        }
        char *name = w->local_store + (size_t)nlocal * 12;
        size_t len = 8;
        logtk_slice text;
        uint64_t occurrences;
        if (e >= 1 && e <= count) {
            if (logtk_parser_template(w->parser, e, &text, &occurrences) != LOGTK_OK)
                text.ptr = "", text.len = 0;
            logtk_loghub_event_id(text.ptr, text.len, name);
            w->local_of[e] = nlocal + 1;
        } else { /* as logtk_sessions_add_window names an id without a name */
            len = e ? (size_t)snprintf(name, 12, "%u", e) : 0;
        }
        w->local_names[nlocal].ptr = name;
        w->local_names[nlocal].len = len;
        w->local_events[i] = nlocal++;
    }
    for (size_t i = 0; i < win->nevents; i++) {
        uint32_t e = win->events[i];
        if (e >= 1 && e <= count)
            w->local_of[e] = 0;
    }
    *out = *win;
    out->events = w->local_events;
    return 0;
}

static int score_window(watch_state *w, const logtk_window *win)
{
    w->windows++;
    logtk_sessions *s;
    if (logtk_sessions_new(&s) != LOGTK_OK)
        return -1;
    logtk_window local;
    int rc = window_names(w, win, &local);
    if (rc == 0 && logtk_sessions_add_window(s, &local, w->local_names, local.nevents) != LOGTK_OK)
        rc = -1;
    double score = 0;
    uint8_t verdict = 0;
    if (rc == 0 && logtk_detector_score(w->detector, s, NULL, 0, &score, &verdict) != LOGTK_OK)
        rc = -1;
    if (rc == 0 && verdict) {
        w->anomalies++;
        for (size_t i = 0; i < win->nevents; i++)
            print_alert_line(w, "anomaly", win->id.ptr, win->id.len, score, win->lines[i], i == 0,
                             i + 1 == win->nevents);
        if (w->flush_alerts)
            fflush(stdout);
    }
    logtk_sessions_free(s);
    return rc;
}

static int report_stream_alerts(watch_state *w, const logtk_stream_alert *alerts, size_t n,
                                uint64_t number)
{
    for (size_t i = 0; i < n; i++) {
        const logtk_stream_alert *a = &alerts[i];
        logtk_slice text = {"", 0};
        uint64_t occurrences;
        logtk_parser_template(w->parser, a->event, &text, &occurrences);
        char id[9];
        logtk_loghub_event_id(text.ptr, text.len, id);
        int len = 8;
        w->alerts++;
        /* a rate change concerns a bucket, not this line */
        uint64_t line = a->kind == LOGTK_ALERT_RATE_CHANGE ? 0 : number;
        if (w->json) {
            printf("{\"kind\":\"%s\",\"id\":\"%s\",", logtk_stream_alert_name(a->kind), id);
            print_json_member("template", text.ptr, text.len);
            printf(",\"score\":%.17g,\"expected\":%.17g", a->value, a->expected);
            if (line) {
                const kept_line *k = find_kept(w, line);
                printf(",\"lines\":[{\"line\":%llu,", (unsigned long long)line);
                if (k)
                    print_json_member("text", k->text, k->len);
                else
                    printf("\"text\":null");
                printf("}]");
            } else {
                printf(",\"bucket_start\":%.17g", a->time);
            }
            printf("}\n");
        } else {
            printf("%s\t%.*s\t%.17g\t%llu\t", logtk_stream_alert_name(a->kind), len, id, a->value,
                   (unsigned long long)line);
            const kept_line *k = line ? find_kept(w, line) : NULL;
            if (k)
                logtk_tsv_write_field(stdout, k->text, k->len);
            else
                logtk_tsv_write_field(stdout, text.ptr, text.len);
            putchar('\n');
        }
    }
    if (n && w->flush_alerts)
        fflush(stdout);
    return 0;
}

static int drain_watch_windows(watch_state *w)
{
    logtk_window win;
    while (logtk_windows_next(w->win, &win) == LOGTK_OK)
        if (score_window(w, &win) != 0) {
            cli_error(w->sub, "%s", logtk_detector_errmsg(w->detector));
            return EXIT_DATA;
        }
    return EXIT_OK;
}

/* on_watch_line's "stop here" after SIGTERM/SIGINT (cli_feed_run returns it) */
#define WATCH_STOPPED 100

static int on_watch_line(void *user, const logtk_line *line, const logtk_record *rec,
                         const logtk_event *ev)
{
    watch_state *w = user;
    w->line_no++;
    if (ev->template_id == 0) {
        cli_error(w->sub, "watch needs an online parser (such as drain)");
        return EXIT_USAGE;
    }
    if (keep_line(w, line->data, line->len) != 0) {
        cli_error(w->sub, "out of memory");
        return EXIT_DATA;
    }
    if (w->stream) {
        double t = (double)w->line_no;
        if (w->ntime_fields && rec->matched) {
            char buf[256];
            size_t n = 0;
            for (size_t i = 0; i < w->ntime_fields; i++) {
                logtk_slice f = rec->fields[w->time_fields[i]];
                if (n + f.len + 1 >= sizeof buf)
                    break;
                if (i)
                    buf[n++] = ' ';
                memcpy(buf + n, f.ptr, f.len);
                n += f.len;
            }
            double parsed;
            if (logtk_parse_time(w->time_format, buf, n, &parsed) == LOGTK_OK)
                t = parsed;
        }
        const logtk_stream_alert *alerts;
        size_t nalerts;
        if (logtk_stream_observe(w->stream, ev->template_id, t, &alerts, &nalerts) != LOGTK_OK) {
            cli_error(w->sub, "%s", logtk_stream_errmsg(w->stream));
            return EXIT_DATA;
        }
        report_stream_alerts(w, alerts, nalerts, w->line_no);
    }
    if (w->win) {
        int rc = logtk_windows_add(w->win, line->data, line->len, rec->fields, rec->nfields,
                                   w->line_no, ev->template_id, LOGTK_LABEL_UNKNOWN);
        if (rc != LOGTK_OK && rc != LOGTK_ERR_LIMIT) {
            cli_error(w->sub, "%s:%llu: %s", line->source, (unsigned long long)line->number,
                      logtk_windows_errmsg(w->win));
            return EXIT_DATA;
        }
        rc = drain_watch_windows(w);
        if (rc)
            return rc;
    }
    /* a shipper's child: SIGHUP commits the alerts written, SIGTERM/SIGINT
       end the watch as the end of input does (cli_signals.c) */
    if (cli_hup_pending) {
        cli_hup_pending = 0;
        fflush(stdout);
    }
    return cli_stop_signal ? WATCH_STOPPED : 0;
}

static int cmd_watch(int argc, char **argv)
{
    const char *sub = "detect watch";
    detect_opts o;
    int rc = parse_opts(sub, argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    watch_state w;
    memset(&w, 0, sizeof w);
    w.sub = sub;
    w.o = &o;
    w.json = strcmp(o.format, "jsonl") == 0;
    /* auto: alerts go out as they come unless stdout is a regular file,
       which nobody reads alert by alert (a write(2) per alert is wasted) */
    struct stat out_st;
    int out_is_file = fstat(STDOUT_FILENO, &out_st) == 0 && S_ISREG(out_st.st_mode);
    if (o.flush && strcmp(o.flush, "line") && strcmp(o.flush, "block") && strcmp(o.flush, "auto"))
        return cli_usage_error(sub, "--flush wants line, block or auto, not '%s'", o.flush);
    w.flush_alerts = o.flush ? strcmp(o.flush, "line") == 0 ||
                                   (strcmp(o.flush, "auto") == 0 && !out_is_file)
                             : !out_is_file;
    size_t first = 0;
    if (o.ninputs > 0 && logtk_detector_probe_file(o.inputs[0])) {
        first = 1;
        logtk_detector_new(&w.detector, NULL);
        if (!w.detector || logtk_detector_load_file(w.detector, o.inputs[0]) != LOGTK_OK) {
            cli_error(sub, "%s", w.detector ? logtk_detector_errmsg(w.detector) : "out of memory");
            logtk_detector_free(w.detector);
            return EXIT_DATA;
        }
    }
    /* giving one of these turns its detector on: 0 (the library's "off") would
       silently do nothing */
    const char *const on_names[] = {"--rare-count", "--bucket", "--ngram"};
    const char *const on_values[] = {o.rare_count, o.bucket, o.ngram};
    for (size_t k = 0; k < 3; k++) {
        char *zero_end = NULL;
        if (on_values[k] && strtod(on_values[k], &zero_end) == 0 && zero_end != on_values[k] &&
            *zero_end == '\0')
            return cli_usage_error(sub, "%s %s would turn the detector off; leave the option out "
                                        "instead (%s)", on_names[k], on_values[k],
                                   k == 2 ? "n-grams: 2..16" : "a positive value");
    }
    int streaming = o.alert_new || o.rare_count || o.bucket || o.ngram;
    if (!w.detector && !streaming) {
        if (o.ninputs > 0 && access(o.inputs[0], R_OK) == 0)
            cli_error(sub, "%s is not a model file; give a MODEL or a streaming detector",
                      o.inputs[0]);
        return cli_usage_error(sub, "nothing to watch: give a MODEL or --alert-new, "
                                    "--rare-count, --bucket or --ngram");
    }
    char keep_default[] = "10000";
    const char *keep = o.keep ? o.keep : keep_default;
    char *end;
    double nkeep = strtod(keep, &end);
    if (end == keep || *end || !(nkeep >= 1 && nkeep <= 1e8) || nkeep != (double)(uint64_t)nkeep)
        return cli_usage_error(sub, "bad --keep '%s' (lines, 1..100000000)", keep);
    w.nkept = (size_t)nkeep;
    w.kept = calloc(w.nkept, sizeof *w.kept);
    window_input in;
    memset(&in, 0, sizeof in);
    in.sub = sub;
    in.o = &o;
    detect_opts wo = o;
    wo.idle_default = "10000";
    rc = w.kept ? make_windows(sub, &wo, &in.win) : EXIT_DATA;
    if (rc == EXIT_OK)
        rc = open_raw(&in);
    w.parser = in.parser;
    w.format = in.format;
    if (w.detector)
        w.win = in.win;
    if (rc == EXIT_OK && streaming) {
        if (logtk_stream_new(&w.stream) != LOGTK_OK) {
            cli_error(sub, "out of memory");
            rc = EXIT_DATA;
        }
        const char *names[] = {"new_template", "rare_count", "bucket", "rate_factor",
                               "ngram",        "top_k",      "warmup", "learn"};
        const char *values[] = {o.alert_new ? "1" : "0", o.rare_count, o.bucket, o.rate_factor,
                                o.ngram, o.top_k, o.warmup, o.no_learn ? "0" : NULL};
        for (size_t k = 0; rc == EXIT_OK && k < sizeof names / sizeof names[0]; k++)
            if (values[k] && logtk_stream_set_option(w.stream, names[k], values[k]) != LOGTK_OK)
                rc = cli_usage_error(sub, "%s", logtk_stream_errmsg(w.stream));
        /* timestamps for buckets: the time fields of the log format, if any */
        const char *ds = dataset_name(&o);
        const char *tf = o.time_fields ? o.time_fields
                         : strcmp(ds, "HDFS") == 0 ? "Date Time"
                         : strcmp(ds, "BGL") == 0 || strcmp(ds, "Thunderbird") == 0 ? "Timestamp"
                                                                                   : NULL;
        w.time_format = o.time_format ? o.time_format
                        : strcmp(ds, "HDFS") == 0 ? "%y%m%d %H%M%S"
                                                  : "%s";
        while (rc == EXIT_OK && tf && *tf && w.ntime_fields < 8) {
            while (*tf == ' ')
                tf++;
            size_t len = strcspn(tf, " ");
            for (size_t i = 0; len && i < logtk_format_field_count(w.format); i++)
                if (strlen(logtk_format_field_name(w.format, i)) == len &&
                    memcmp(logtk_format_field_name(w.format, i), tf, len) == 0)
                    w.time_fields[w.ntime_fields++] = (int)i;
            tf += len;
        }
    }
    if (rc == EXIT_OK) {
        cli_feed f;
        memset(&f, 0, sizeof f);
        f.subcommand = sub;
        f.format = w.format;
        f.parser = w.parser;
        f.on_line = on_watch_line;
        f.user = &w;
        f.quiet = o.quiet;
        if (!w.json) {
            printf("kind\tid\tscore\tline\ttext\n");
            fflush(stdout);
        }
        int reads_stdin = o.ninputs == first;
        for (size_t k = first; k < o.ninputs; k++)
            reads_stdin |= strcmp(o.inputs[k], "-") == 0;
        cli_signals_graceful(reads_stdin);
        rc = cli_feed_run(&f, (char *const *)(o.inputs + first), o.ninputs - first);
        if (rc == WATCH_STOPPED)
            rc = EXIT_OK; /* finish: windows, alerts, summary, as at the end of input */
        if (rc == EXIT_OK && w.win) {
            if (logtk_windows_finish(w.win) != LOGTK_OK) {
                cli_error(sub, "%s", logtk_windows_errmsg(w.win));
                rc = EXIT_DATA;
            } else {
                rc = drain_watch_windows(&w);
            }
        }
        if (rc == EXIT_OK && w.stream) {
            const logtk_stream_alert *alerts;
            size_t nalerts;
            logtk_stream_finish(w.stream, &alerts, &nalerts);
            report_stream_alerts(&w, alerts, nalerts, 0);
        }
        if (rc == EXIT_OK && w.win)
            report_window_stats(sub, &o, w.win, NULL);
        if (!o.quiet)
            fprintf(stderr, "logtk %s: %llu lines, %llu windows scored, %llu anomalies, %llu alerts\n",
                    sub, (unsigned long long)w.line_no, (unsigned long long)w.windows,
                    (unsigned long long)w.anomalies, (unsigned long long)w.alerts);
    }
    for (size_t i = 0; w.kept && i < w.nkept; i++)
        free(w.kept[i].text);
    free(w.kept);
    free(w.local_of);
    free(w.local_events);
    free(w.local_names);
    free(w.local_store);
    logtk_stream_free(w.stream);
    logtk_windows_free(in.win);
    logtk_parser_free(in.parser);
    logtk_format_free(in.format);
    logtk_detector_free(w.detector);
    return rc;
}

/* Writes a CSV field, quoted when it must be (RFC 4180). */
static void put_csv_field(FILE *f, const char *p, size_t n)
{
    if (!memchr(p, ',', n) && !memchr(p, '"', n) && !memchr(p, '\n', n) && !memchr(p, '\r', n)) {
        fwrite(p, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '"')
            fputc('"', f);
        fputc(p[i], f);
    }
    fputc('"', f);
}

/* `detect sessions`: the windows of the inputs as a session CSV. */
static int cmd_sessions(int argc, char **argv)
{
    const char *sub = "detect sessions";
    detect_opts o;
    int rc = parse_opts(sub, argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    if (cli_refuse_output_is_input(sub, "-o", o.output, (char *const *)o.inputs, o.ninputs) !=
        EXIT_OK)
        return EXIT_USAGE;
    logtk_sessions *s;
    if ((rc = load_inputs(sub, &o, 0, &s)) != EXIT_OK)
        return rc;
    cli_output out;
    if ((rc = cli_output_open(sub, o.output, &out)) != EXIT_OK) {
        logtk_sessions_free(s);
        return rc;
    }
    FILE *f = out.fp;
    fprintf(f, "SessionId,Label,EventSequence\n");
    for (size_t i = 0; i < logtk_sessions_count(s); i++) {
        logtk_slice id = logtk_sessions_id(s, i);
        put_csv_field(f, id.ptr, id.len);
        int label = logtk_sessions_label(s, i);
        fprintf(f, ",%s,", label == LOGTK_LABEL_ANOMALY  ? "Anomaly"
                           : label == LOGTK_LABEL_NORMAL ? "Normal"
                                                         : "-");
        for (size_t k = 0; k < logtk_sessions_length(s, i); k++) {
            logtk_slice ev = logtk_sessions_event(s, i, k);
            if (k)
                fputc(' ', f);
            put_csv_field(f, ev.ptr, ev.len);
        }
        fputc('\n', f);
    }
    rc = cli_output_close(sub, o.output, &out, 1);
    logtk_sessions_free(s);
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
    if (strcmp(verb, "sessions") == 0)
        return cmd_sessions(argc - 1, argv + 1);
    if (strcmp(verb, "watch") == 0)
        return cmd_watch(argc - 1, argv + 1);
    return cli_usage_error("detect", "unknown action '%s' (train, predict, eval, sessions, watch)",
                           verb);
}
