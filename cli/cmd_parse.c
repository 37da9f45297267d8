/*
 * cmd_parse.c - `logtk parse`: raw logs in, structured rows out.
 *
 * Two modes, because users want two different things:
 *
 *  - Batch (default) gives every line its FINAL template, as Loghub's
 *    *_structured.csv files do.  An online parser such as Drain may still
 *    generalise a template after a line was assigned to it ("user <*> logged
 *    in" may become "<*> <*> logged in"), so rows cannot be written during the
 *    first pass.  Pass 1 feeds every line to the parser (cli_feed_run, the
 *    loop `logtk bench parse` times too); the parser keeps one template id per
 *    line (4 bytes), nothing else.  Pass 2 re-reads the inputs, matches the
 *    format again and writes each row with the line's final template and its
 *    parameters extracted against that template.  Re-reading costs a second
 *    decompression but keeps memory at 4 bytes per line instead of the whole
 *    input; stdin cannot be re-read, so pass 1 spools it (decompressed) to a
 *    temporary file.  A file that changed in between is reported rather than
 *    silently mis-joined: before pass 2 writes anything, each file must still
 *    be the same file (device, inode, size, mtime), and pass 2 must read the
 *    same lines (count and a fingerprint of their bytes) as pass 1.
 *
 *  - --stream writes each row as soon as its line is parsed, with the template
 *    as it is at that moment, and tells the parser not to keep per-line
 *    assignments ("keep_assignments"=0), so memory depends on the number of
 *    templates only: `tail -F app.log | logtk parse --stream` runs forever.
 *    Latency versus throughput: rows are flushed one by one when the output is
 *    a pipe, socket or terminal (someone may be waiting at the other end), and
 *    left to stdio's buffering otherwise (a regular file, /dev/null: nobody
 *    reads those line by line, and a write(2) per line would cost more than
 *    the parsing).
 *
 * The default parser is the library's (fuse).  An online parser may merge
 * two templates by making their texts equal, keeping both ids; batch rows
 * and the template lists name such a template by its lowest id, so rows of
 * one template share one EventId (cli_template_set in cli_templates.c).  The
 * --templates list adds an EventKey column, the template's content hash,
 * which names it the same way in every run and shard (see `logtk merge`).
 * --load-state without --parser continues with the state's own parser.
 *
 * Output files (rows, --templates, --save-state) are all written to
 * temporary files and renamed into place only when the whole run succeeded,
 * so a failed run never replaces a good file.
 *
 * A damaged compressed input or archive (truncated download, disk full while
 * rotating) is the one error that does not discard the run: the reader
 * delivers every complete line before the damage, so those lines are parsed
 * and written in full -- in batch mode with their final templates, pass 2
 * stopping where pass 1 stopped -- and the outputs are committed, because
 * they are the complete result for the data that exists.  Inputs after the
 * damaged one are not read, the reader's message (file and last line read)
 * is printed, and the exit status is still 1.
 *
 * Exit status: 0 success; 1 bad data (unreadable/missing input, damaged
 * archive, binary file, over-long line, bad state file, output not writable);
 * 2 usage (unknown option, dataset or parser, invalid format string or regex,
 * bad parameter).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "parse_shippers.h"
#include "parse_live.h"

#define SUB "parse"
/* batch mode on a live standard input: the wait after which it says why no row comes */
#define PARSE_HINT_SECONDS 3
/* an on_line callback's "stop here" after SIGTERM/SIGINT (cli_feed_run returns it) */
#define PARSE_STOPPED 100

static void parse_usage(FILE *out)
{
    fprintf(out,
            "usage: logtk parse [options] [FILE...]\n"
            "\n"
            "Parse logs into templates and parameters.  No FILE or \"-\" reads stdin;\n"
            "compressed files (.gz .bz2 .xz .zst) and .tar/.zip archives are read directly.\n"
            "\n"
            "input:\n"
            "  --dataset NAME        Loghub preset: log format, masks, parser parameters\n"
            "  --format FMT          log format, e.g. '<Date> <Time> <Level> <Component>: <Content>'\n"
            "                        (default: the whole line is the content)\n"
            "  --max-line-length N   longest line accepted, in bytes (default 1048576)\n"
            "  --binary              parse files that look binary instead of refusing them\n"
            "parser:\n"
            "  --parser NAME         algorithm (default fuse); --list-parsers shows them\n"
            "  --param NAME=VALUE    parser parameter, e.g. --param st=0.5 (repeatable)\n"
            "  --mask [NAME=]RE      replace matches of the PCRE2 regex by <*> (repeatable);\n"
            "                        NAME ([A-Z][A-Z0-9_]*) names the parameters it makes\n"
            "  --mask-file FILE      one regex per line, optionally REGEX<TAB>REPLACEMENT;\n"
            "                        blank lines and lines starting with # are skipped\n"
            "  --load-state FILE     start from a saved parser state (its parser unless --parser);\n"
            "                        'logtk merge' merges the states of several shards\n"
            "  --save-state FILE     save the parser state at the end\n"
            "output:\n"
            "  -o, --out FILE        write rows to FILE (default stdout)\n"
            "  --output KIND         tsv (default), csv (Loghub layout), jsonl, sqlite;\n"
            "                        default guessed from -o's extension\n"
            "  --templates FILE      write the template list (EventId, EventTemplate, Occurrences,\n"
            "                        EventKey: a content hash of the template, 16 hex digits)\n"
            "  --stream              write each row at once with the template as it is then;\n"
            "                        no per-line state: memory grows with the templates, not\n"
            "                        the lines; with -o FILE the rows go into FILE as they come\n"
            "  --flush WHEN          line (each row), block (stdio buffer) or auto (default:\n"
            "                        per row with --stream to a pipe, socket or terminal)\n"
            "  --append              --stream -o FILE: keep FILE's rows and add to them\n"
            "  --confirm             --stream -o FILE: rsyslog omprog confirmMessages, \"OK\"\n"
            "                        on stdout when ready and per line once its row is synced\n"
            "  --save-every N|Ns     with --save-state: save the state every N lines or N\n"
            "                        seconds as well (atomically)\n"
            "  -q, --quiet           no progress or summary on stderr\n"
            "  --export KIND FILE    also write the final templates as shipper rules: KIND is\n"
            "                        lognorm (liblognorm v2 rulebase: rsyslog mmnormalize) or\n"
            "                        patterndb (syslog-ng db-parser); once per KIND;\n"
            "                        see logtk-shippers(7)\n"
            "  --reply rsyslog       answer on stdout as an rsyslog mmexternal plugin: one JSON\n"
            "                        reply per input line, results under $!logtk\n"
            "  --reply-input KIND    what rsyslog sends: msg (default) or fulljson\n"
            "  --reply-alert OPT=VAL streaming anomaly alerts in each reply (Alerts, Anomaly):\n"
            "                        new_template=1, rare_count=N, bucket=LINES, ngram=N,\n"
            "                        top_k=K, rate_factor=F, warmup=N (repeatable)\n"
            "  --check               check every row: its template matches its content and\n"
            "                        its parameters are the content's text (report the\n"
            "                        first 10 that do not, and a count; exit 1 if any)\n"
            "  --list-parsers        list the parser algorithms and exit\n"
            "  -h, --help            show this help\n"
            "\n"
            "Exit status: 0 success, 1 bad data, 2 usage error.  See logtk-parse(1).\n");
}

/* ------------------------------------------------------------- options */

typedef struct parse_options {
    cli_parser_options in; /* the input and parser options (cli_parser_options.c) */
    const char *out_path;
    const char *out_kind;
    const char *templates_path;
    const char *save_state;
    const char *load_state;
    int stream, quiet, list_parsers, check;
    const char *export_kind[2], *export_path[2]; /* --export KIND FILE, once per kind */
    size_t nexports;
    const char *reply;                     /* --reply rsyslog */
    int reply_input;                       /* --reply-input: REPLY_INPUT_* */
    const char **alerts;                   /* --reply-alert NAME=VALUE */
    size_t nalerts;
    int flush; /* --flush: 0 auto, 1 line, 2 block */
    int append, confirm;
    const char *save_every;
} parse_options;

enum {
    OPT_OUTPUT = 256,
    OPT_TEMPLATES, OPT_STREAM, OPT_SAVE, OPT_LOAD, OPT_LIST, OPT_CHECK,
    OPT_EXPORT, OPT_REPLY, OPT_REPLY_INPUT, OPT_REPLY_ALERT,
    OPT_FLUSH, OPT_APPEND, OPT_CONFIRM, OPT_SAVE_EVERY
};

static const struct option long_options[] = {
    CLI_PARSER_LONG_OPTIONS,
    {"out", required_argument, NULL, 'o'},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"templates", required_argument, NULL, OPT_TEMPLATES},
    {"stream", no_argument, NULL, OPT_STREAM},
    {"save-state", required_argument, NULL, OPT_SAVE},
    {"load-state", required_argument, NULL, OPT_LOAD},
    {"list-parsers", no_argument, NULL, OPT_LIST},
    {"check", no_argument, NULL, OPT_CHECK},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"reply", required_argument, NULL, OPT_REPLY},
    {"reply-input", required_argument, NULL, OPT_REPLY_INPUT},
    {"reply-alert", required_argument, NULL, OPT_REPLY_ALERT},
    {"flush", required_argument, NULL, OPT_FLUSH},
    {"append", no_argument, NULL, OPT_APPEND},
    {"confirm", no_argument, NULL, OPT_CONFIRM},
    {"save-every", required_argument, NULL, OPT_SAVE_EVERY},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The output kind implied by -o's file name, or "tsv". */
static const char *kind_from_path(const char *path)
{
    if (path == NULL || strcmp(path, "-") == 0)
        return "tsv";
    if (ends_with(path, ".csv"))
        return "csv";
    if (ends_with(path, ".jsonl") || ends_with(path, ".json") || ends_with(path, ".ndjson"))
        return "jsonl";
    if (ends_with(path, ".db") || ends_with(path, ".sqlite") || ends_with(path, ".sqlite3"))
        return "sqlite";
    return "tsv";
}

/* Parses argv into *o; returns -1 to go on, or the exit status to return now. */
static int parse_arguments(int argc, char **argv, parse_options *o, int *first_file)
{
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        int bad_alloc = 0, status;
        if (cli_parser_option(SUB, c, optarg, &o->in, &status)) {
            if (status >= 0)
                return status;
            continue;
        }
        switch (c) {
        case 'o': o->out_path = optarg; break;
        case OPT_OUTPUT: o->out_kind = optarg; break;
        case OPT_TEMPLATES: o->templates_path = optarg; break;
        case OPT_STREAM: o->stream = 1; break;
        case OPT_SAVE: o->save_state = optarg; break;
        case OPT_LOAD: o->load_state = optarg; break;
        case OPT_LIST: o->list_parsers = 1; break;
        case 'q': o->quiet = 1; break;
        case OPT_CHECK: o->check = 1; break;
        case OPT_EXPORT:
            /* two values: KIND here, FILE the next argument (getopt moves it
             * along with the option when it permutes) */
            if (!cli_export_kind_known(optarg))
                return cli_usage_error(SUB, "--export: unknown kind '%s' (lognorm or patterndb)",
                                       optarg);
            if (optind >= argc)
                return cli_usage_error(SUB, "--export %s needs a FILE", optarg);
            for (size_t i = 0; i < o->nexports; i++)
                if (strcmp(o->export_kind[i], optarg) == 0)
                    return cli_usage_error(SUB, "--export %s given twice", optarg);
            o->export_kind[o->nexports] = optarg; /* two kinds: never more than 2 */
            o->export_path[o->nexports++] = argv[optind++];
            break;
        case OPT_REPLY:
            if (strcmp(optarg, "rsyslog") != 0)
                return cli_usage_error(SUB, "--reply: unknown protocol '%s' (rsyslog)", optarg);
            o->reply = optarg;
            break;
        case OPT_REPLY_INPUT:
            if (strcmp(optarg, "msg") == 0)
                o->reply_input = REPLY_INPUT_MSG;
            else if (strcmp(optarg, "fulljson") == 0)
                o->reply_input = REPLY_INPUT_FULLJSON;
            else
                return cli_usage_error(SUB, "--reply-input: '%s' is not msg or fulljson", optarg);
            break;
        case OPT_REPLY_ALERT:
            if (strchr(optarg, '=') == NULL || optarg[0] == '=')
                return cli_usage_error(SUB, "--reply-alert needs NAME=VALUE, got '%s'", optarg);
            bad_alloc = cli_push_string(&o->alerts, &o->nalerts, optarg);
            break;
        case OPT_FLUSH:
            if (strcmp(optarg, "auto") == 0)
                o->flush = 0;
            else if (strcmp(optarg, "line") == 0)
                o->flush = 1;
            else if (strcmp(optarg, "block") == 0)
                o->flush = 2;
            else
                return cli_usage_error(SUB, "--flush wants line, block or auto, not '%s'", optarg);
            break;
        case OPT_APPEND: o->append = 1; break;
        case OPT_CONFIRM: o->confirm = 1; break;
        case OPT_SAVE_EVERY: {
            parse_live probe;
            memset(&probe, 0, sizeof probe);
            if (parse_live_parse_every(optarg, &probe) != 0)
                return cli_usage_error(SUB, "--save-every wants a line count N or seconds Ns, "
                                            "not '%s'", optarg);
            o->save_every = optarg;
            break;
        }
        case 'h': parse_usage(stdout); return EXIT_OK;
        case ':':
            return cli_usage_error(SUB, "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                return cli_usage_error(SUB, "unknown option '-%c'", optopt);
            return cli_usage_error(SUB, "unknown option '%s'", argv[optind - 1]);
        }
        if (bad_alloc) {
            cli_error(SUB, "out of memory");
            return EXIT_DATA;
        }
    }
    *first_file = optind;

    if (o->out_kind == NULL)
        o->out_kind = kind_from_path(o->out_path);
    if (strcmp(o->out_kind, "tsv") && strcmp(o->out_kind, "csv") && strcmp(o->out_kind, "jsonl") &&
        strcmp(o->out_kind, "sqlite"))
        return cli_usage_error(SUB, "unknown output kind '%s' (tsv, csv, jsonl or sqlite)",
                               o->out_kind);
    int out_is_stdout = o->out_path == NULL || strcmp(o->out_path, "-") == 0;
    if (strcmp(o->out_kind, "sqlite") == 0 && out_is_stdout)
        return cli_usage_error(SUB, "--output sqlite needs a file: add -o FILE.db");
    if (o->templates_path && strcmp(o->templates_path, "-") == 0 && out_is_stdout)
        return cli_usage_error(SUB, "--templates - and the rows cannot both go to stdout; "
                                    "use -o FILE for the rows");
    if (o->nexports && (o->stream || o->reply))
        return cli_usage_error(SUB, "--export needs the final templates: leave out --stream "
                                    "and --reply");
    if (o->reply && (o->out_path || o->templates_path || o->check || *first_file < argc))
        return cli_usage_error(SUB, "--reply rsyslog reads standard input and answers on "
                                    "standard output: it takes no FILE, -o, --templates "
                                    "or --check");
    if (o->nalerts && !o->reply)
        return cli_usage_error(SUB, "--reply-alert goes with --reply rsyslog");
    if (o->reply)
        o->stream = 1; /* an online parser, no per-line memory */
    int live_file = o->stream && !out_is_stdout && strcmp(o->out_kind, "sqlite") != 0;
    if ((o->append || o->confirm) && !live_file)
        return cli_usage_error(SUB, "%s needs --stream and -o FILE (tsv, csv or jsonl)",
                               o->append ? "--append" : "--confirm");
    if (o->save_every && !o->save_state)
        return cli_usage_error(SUB, "--save-every needs --save-state FILE");
    if (o->load_state && (o->in.nmasks || o->in.nmask_files || o->in.nparams))
        return cli_usage_error(SUB, "--load-state restores the parser's masks and parameters; "
                                    "it cannot be combined with --mask, --mask-file or --param");
    int stdin_count = 0;
    for (int i = *first_file; i < argc; i++)
        stdin_count += strcmp(argv[i], "-") == 0;
    if (stdin_count > 1)
        return cli_usage_error(SUB, "standard input ('-') can be read only once");
    char *const *inputs = argv + *first_file;
    size_t ninputs = (size_t)(argc - *first_file);
    if (cli_refuse_output_is_input(SUB, "-o", o->out_path, inputs,
                                   ninputs) != EXIT_OK ||
        (o->templates_path && cli_refuse_output_is_input(SUB, "--templates", o->templates_path,
                                                         inputs, ninputs) != EXIT_OK) ||
        (o->save_state && cli_refuse_output_is_input(SUB, "--save-state", o->save_state, inputs,
                                                     ninputs) != EXIT_OK) ||
        (o->nexports && cli_refuse_output_is_input(SUB, "--export", o->export_path[0], inputs,
                                                   ninputs) != EXIT_OK) ||
        (o->nexports > 1 && cli_refuse_output_is_input(SUB, "--export", o->export_path[1],
                                                       inputs, ninputs) != EXIT_OK))
        return EXIT_USAGE;
    return -1;
}

/* One line per algorithm: name, summary; the default's summary ends in "(default)". */
static void list_parsers(void)
{
    logtk_parser *p = NULL;
    const char *default_name = logtk_parser_new(&p, NULL) == LOGTK_OK ? logtk_parser_algorithm(p)
                                                                      : "";
    for (size_t i = 0; logtk_parser_algorithm_name(i); i++) {
        const char *name = logtk_parser_algorithm_name(i);
        const char *summary = logtk_parser_algorithm_summary(i);
        if (summary == NULL)
            summary = "";
        size_t n = strlen(summary);
        int marked = n >= 9 && strcmp(summary + n - 9, "(default)") == 0;
        printf("%s\t%s%s\n", name, summary,
               strcmp(name, default_name) == 0 && !marked ? " (default)" : "");
    }
    logtk_parser_free(p);
}

/* ------------------------------------------------------------ set-up */

/*
 * Nonzero for a batch algorithm: one that assigns no template while lines are
 * fed (logtk.h: template_id 0 "when a batch parser has not assigned one yet"),
 * so --stream would write every row with an empty template.  A throwaway
 * parser of that algorithm is fed one line to find out.
 */
static int is_batch_parser(const char *name)
{
    logtk_parser *probe = NULL;
    logtk_event ev;
    int batch = 0;
    if (logtk_parser_new(&probe, name) == LOGTK_OK &&
        logtk_parser_feed(probe, "probe line", 10, &ev) == LOGTK_OK)
        batch = ev.template_id == 0;
    logtk_parser_free(probe);
    return batch;
}

/* Creates and configures the format and parser.  Returns -1 to go on or an exit status. */
static int set_up(const parse_options *o, logtk_format **format, logtk_parser **parser)
{
    const logtk_dataset *dataset;
    int rc = cli_parser_options_format(SUB, &o->in, &dataset, format);
    if (rc >= 0)
        return rc;

    /* --load-state without --parser continues with the state's own parser */
    char *state = NULL;
    size_t state_len = 0;
    const char *parser_name = o->in.parser_name;
    if (o->load_state) {
        if (cli_read_file_magic(SUB, o->load_state, LOGTK_PARSER_SNAPSHOT_MAGIC,
                                "logtk parser snapshot", &state, &state_len) != EXIT_OK)
            return EXIT_DATA;
        const char *saved_by = NULL;
        if (parser_name == NULL &&
            logtk_parser_snapshot_algorithm(state, state_len, &saved_by) == LOGTK_OK)
            parser_name = saved_by; /* otherwise the load below reports the problem */
    }
    rc = cli_parser_options_new_parser(SUB, &o->in, parser_name, parser);
    if (rc >= 0) {
        free(state);
        return rc;
    }
    if (o->stream) {
        const char *name = logtk_parser_algorithm(*parser);
        if (is_batch_parser(name)) {
            free(state);
            return cli_usage_error(SUB, "--stream needs an online parser: %s is a batch parser "
                                        "(its templates exist only once all input is read); "
                                        "leave out --stream, or pick an online one "
                                        "(--list-parsers says which)",
                                   name);
        }
        rc = logtk_parser_set_option(*parser, "keep_assignments", "0");
        if (rc != LOGTK_OK) {
            free(state);
            cli_error(SUB, "--stream: %s", logtk_parser_errmsg(*parser));
            return EXIT_USAGE;
        }
    }

    if (o->load_state) {
        rc = logtk_parser_load(*parser, state, state_len);
        free(state);
        if (rc != LOGTK_OK) {
            cli_error(SUB, "%s: %s", o->load_state, logtk_parser_errmsg(*parser));
            return EXIT_DATA;
        }
        return -1; /* the snapshot holds masks and parameters */
    }

    return cli_parser_options_configure(SUB, &o->in, dataset, *parser);
}

/* -------------------------------------------------------------- the run */

typedef struct parse_run {
    const parse_options *opt;
    logtk_format *format;
    logtk_parser *parser;
    logtk_sink *sink;
    cli_output templates;       /* --templates (cli_templates_write) */
    cli_output state;           /* --save-state */
    cli_output exported[2];     /* --export FILE, in option order */
    cli_export *exporter[2];    /* --export: learn the shapes in pass 2 */
    cli_progress progress;
    uint64_t rows;              /* rows written = the last LineId */
    logtk_slice *params;        /* stream mode: a copy of the event's parameter slices */
    size_t params_cap;
    FILE *spool;                /* batch mode: stdin copied here during pass 1 */
    char spool_path[4096];
    cli_template_set set;       /* final templates (batch: pass 2; both: the lists) */
    int templates_ready;
    uint64_t checked, violations; /* --check */
    uint64_t *hash;             /* batch pass 1: the current input's line fingerprint */
    parse_live live;            /* --stream -o FILE, --confirm, --save-every */
    int live_input;             /* standard input is read and is a pipe, socket or terminal */
    int flush_each_row;         /* the sink's flush policy, kept for the sink after a SIGHUP */
} parse_run;

/*
 * --check: the row's template must match its content and its parameters must
 * be the content's own text at the template's "<*>", rebuilding it (logtk.h's
 * promise, checked by the library's matcher, not by the parser).
 */
static int check_row(parse_run *run, const logtk_row *row, const char *source, uint64_t number)
{
    const logtk_slice *content = &row->record->content;
    int matches = logtk_template_match(row->template_text.ptr, row->template_text.len,
                                       content->ptr, content->len, NULL, 0, NULL) == LOGTK_OK;
    int ok = matches && logtk_template_rebuilds(row->template_text.ptr, row->template_text.len,
                                                content->ptr, content->len, row->params,
                                                row->nparams) == LOGTK_OK;
    run->checked++;
    if (!ok && run->violations++ < 10)
        cli_error(SUB, "check: %s:%llu: %s \"%.*s\"", source, (unsigned long long)number,
                  !matches ? "the template does not match the line:"
                           : "the parameters do not rebuild the line under the template",
                  (int)row->template_text.len, row->template_text.ptr);
    return EXIT_OK;
}

/* What pass 1 saw of one input, for pass 2 to check against. */
typedef struct input_seen {
    uint64_t lines;
    uint64_t hash;   /* cli_line_hash() of its lines */
    int have_stat;   /* st is valid (a named file) */
    struct stat st;
} input_seen;

/* The same file, unchanged as far as stat(2) can tell. */
static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int sink_failed(logtk_sink *s)
{
    cli_error(SUB, "%s", logtk_sink_errmsg(s));
    return EXIT_DATA;
}

/* --stream: one row per line, right away. */
static int on_line_stream(void *user, const logtk_line *line, const logtk_record *rec,
                          const logtk_event *ev)
{
    parse_run *run = user;
    if (cli_hup_pending) { /* rotation: commit what is written, reopen -o FILE */
        cli_hup_pending = 0;
        if (run->live.path) {
            if (parse_live_reopen(&run->live, &run->sink, run->opt->out_kind, run->format) !=
                EXIT_OK)
                return EXIT_DATA;
            logtk_sink_set_flush(run->sink, run->flush_each_row);
        } else if (fflush(stdout) != 0) {
            return sink_failed(run->sink);
        }
    }
    /* Keep our own copy of the parameter slices: the event's array belongs to
     * the parser and the template lookup below is another call on it. */
    if (ev->nparams > run->params_cap) {
        size_t cap = ev->nparams * 2;
        logtk_slice *bigger = realloc(run->params, cap * sizeof *bigger);
        if (bigger == NULL) {
            cli_error(SUB, "out of memory");
            return EXIT_DATA;
        }
        run->params = bigger;
        run->params_cap = cap;
    }
    if (ev->nparams)
        memcpy(run->params, ev->params, ev->nparams * sizeof *run->params);
    logtk_row row;
    row.line_id = ++run->rows;
    row.record = rec;
    row.template_id = ev->template_id;
    row.nparams = ev->nparams;
    row.params = run->params;
    uint64_t count;
    if (logtk_parser_template(run->parser, ev->template_id, &row.template_text, &count) !=
        LOGTK_OK) {
        row.template_text.ptr = "";
        row.template_text.len = 0;
    }
    if (logtk_sink_write(run->sink, &row) != LOGTK_OK)
        return sink_failed(run->sink);
    if (run->opt->check && check_row(run, &row, line->source, line->number) != EXIT_OK)
        return EXIT_DATA;
    if (run->live.confirm && parse_live_confirm(&run->live, 1) != EXIT_OK)
        return EXIT_DATA;
    if (run->live.state_path && parse_live_save_state(&run->live, run->parser, run->rows) != EXIT_OK)
        return EXIT_DATA;
    return cli_stop_signal ? PARSE_STOPPED : 0;
}

/* Batch mode, reading stdin in pass 1: copy each line to the spool file.  A
 * line without a terminator (end of an archive member) gets "\n" so that the
 * spool yields the same lines in pass 2. */
static int on_line_spool(void *user, const logtk_line *line, const logtk_record *rec,
                         const logtk_event *ev)
{
    parse_run *run = user;
    size_t n = line->len + line->eol_len;
    if ((n && fwrite(line->data, 1, n, run->spool) != n) ||
        (line->eol_len == 0 && fputc('\n', run->spool) == EOF)) {
        cli_error(SUB, "%s: cannot spool standard input: %s", run->spool_path, strerror(errno));
        return EXIT_DATA;
    }
    return cli_stop_signal ? PARSE_STOPPED : 0;
}

/* Batch mode, pass 1 of a named file: fingerprint its lines. */
static int on_line_fingerprint(void *user, const logtk_line *line, const logtk_record *rec,
                               const logtk_event *ev)
{
    parse_run *run = user;
    *run->hash = cli_line_hash(*run->hash, line->data, line->len, line->eol_len);
    return cli_stop_signal ? PARSE_STOPPED : 0;
}

static int open_spool(parse_run *run)
{
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    snprintf(run->spool_path, sizeof run->spool_path, "%s/logtk-stdin.XXXXXX", dir);
    int fd = mkstemp(run->spool_path);
    if (fd < 0 || (run->spool = fdopen(fd, "w+")) == NULL) {
        cli_error(SUB, "cannot create a temporary file in %s to hold standard input: %s", dir,
                  strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(run->spool_path);
        }
        run->spool_path[0] = '\0';
        return EXIT_DATA;
    }
    logtk_temporary_add(run->spool_path); /* removed on a signal too (main.c) */
    return EXIT_OK;
}

/* The final templates as output names them (cli_template_set: merged ids
 * share the lowest id), cached so pass 2 needs one parser call per line. */
static int cache_templates(parse_run *run)
{
    if (run->templates_ready)
        return EXIT_OK;
    if (cli_template_set_build(&run->set, run->parser) != 0) {
        cli_error(SUB, "out of memory");
        return EXIT_DATA;
    }
    /* --stream (and --reply) rows went out with the ids as they were then:
       the template list names them the same way, gaps and all */
    for (uint32_t id = 1; (run->opt->stream || run->opt->reply) && id <= run->set.n; id++)
        run->set.number[id] = run->set.canonical[id];
    run->templates_ready = 1;
    return EXIT_OK;
}

/*
 * Pass 2 over one input: the same lines again, now written with their final
 * templates.  `first_index` is the parser's index of the input's first line,
 * `expected` the number of lines pass 1 saw in it.  `damaged`: pass 1 ended
 * in this input with LOGTK_ERR_ARCHIVE, so the same error after exactly
 * `expected` lines is the known damage, already reported, not a change.
 */
static int write_input(parse_run *run, logtk_reader *reader, const char *path, const char *shown,
                       uint64_t first_index, const input_seen *was, int damaged, int cut_short)
{
    uint64_t expected = was->lines, hash = 0;
    int grew = 0;
    int rc = logtk_reader_open_path(reader, path);
    if (rc == LOGTK_ERR_ARCHIVE && damaged && expected == 0)
        return EXIT_OK;
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_reader_errmsg(reader));
        return EXIT_DATA;
    }
    logtk_line line;
    logtk_record rec;
    logtk_event ev;
    uint64_t seen = 0;
    for (;;) {
        rc = logtk_reader_next(reader, &line);
        if (rc == LOGTK_DONE)
            break;
        if (rc == LOGTK_ERR_ARCHIVE && damaged && seen == expected)
            break;
        if (rc != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_reader_errmsg(reader));
            return EXIT_DATA;
        }
        if (seen == expected) {
            grew = !cut_short; /* grew since pass 1 (report below), unless a signal cut pass 1 here */
            break;
        }
        hash = cli_line_hash(hash, line.data, line.len, line.eol_len);
        logtk_format_match(run->format, line.data, line.len, &rec); /* LIMIT: kept unmatched */
        uint32_t id = 0;
        logtk_parser_assignment(run->parser, first_index + seen, &id);
        seen++;
        logtk_row row;
        row.line_id = ++run->rows;
        row.record = &rec;
        row.template_id = id;
        row.nparams = 0;
        row.params = NULL;
        if (id >= 1 && id <= run->set.n) {
            id = run->set.canonical[id];
            row.template_id = run->set.number[id]; /* printed without gaps (cli.h) */
            row.template_text = run->set.text[id];
            rc = logtk_parser_extract(run->parser, id, rec.content.ptr, rec.content.len, &ev);
            if (rc == LOGTK_OK || rc == LOGTK_ERR_LIMIT) {
                row.nparams = ev.nparams;
                row.params = ev.params;
            }
        } else {
            row.template_text.ptr = "";
            row.template_text.len = 0;
        }
        if (logtk_sink_write(run->sink, &row) != LOGTK_OK)
            return sink_failed(run->sink);
        for (size_t x = 0; x < run->opt->nexports && row.template_id; x++) {
            if (cli_export_observe(run->exporter[x], id, rec.content.ptr,
                                   rec.content.len, row.params, row.nparams) != 0) {
                cli_error(SUB, "out of memory");
                return EXIT_DATA;
            }
        }
        if (run->opt->check && (rc = check_row(run, &row, line.source, line.number)) != EXIT_OK)
            return rc;
        if ((run->rows & 8191) == 0)
            cli_progress_update(&run->progress, run->rows, logtk_reader_bytes_read(reader),
                                logtk_reader_source_size(reader));
    }
    logtk_reader_close(reader);
    /* rows already on stdout cannot be taken back; files are not committed */
    const char *out = run->opt->out_path;
    const char *outcome = out == NULL || strcmp(out, "-") == 0 ? "the rows written are incomplete"
                                                               : "nothing written";
    if (seen != expected || grew) {
        cli_error(SUB, "%s: changed while being parsed (%llu lines on the first pass, %s on the "
                       "second); %s",
                  shown, (unsigned long long)expected, seen < expected ? "fewer" : "more", outcome);
        return EXIT_DATA;
    }
    if (was->have_stat && hash != was->hash) {
        cli_error(SUB, "%s: changed while being parsed (its lines differ between the first and "
                       "the second pass); %s",
                  shown, outcome);
        return EXIT_DATA;
    }
    return EXIT_OK;
}

/* Opens the row sink (and the --templates sink).  Returns EXIT_OK or EXIT_DATA. */
static int open_outputs(parse_run *run)
{
    const parse_options *o = run->opt;
    if (run->live.path) {
        if (parse_live_open(&run->live, &run->sink, o->out_kind, run->format) != EXIT_OK)
            return EXIT_DATA;
    } else if (logtk_sink_new(&run->sink, o->out_kind, o->out_path, run->format) != LOGTK_OK) {
        return sink_failed(run->sink);
    }
    if (o->flush || run->live.confirm) {
        /* asked for; --confirm syncs each row, so it must leave stdio first */
        run->flush_each_row = o->flush == 1 || run->live.confirm;
        logtk_sink_set_flush(run->sink, run->flush_each_row);
    } else if (o->stream) {
        /* flush per row when someone may be waiting at the other end: a pipe,
         * a socket or a terminal (see the top comment) */
        struct stat st;
        int waiting;
        if (o->out_path && strcmp(o->out_path, "-") != 0)
            waiting = stat(o->out_path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
        else
            waiting = isatty(STDOUT_FILENO) ||
                      (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)));
        /* rows into a file (--stream -o FILE) from a live input (a pipe, a
           socket, a terminal: a shipper, tail -F) are wanted as they come too */
        if (run->live.path && run->live_input)
            waiting = 1;
        run->flush_each_row = waiting;
        logtk_sink_set_flush(run->sink, waiting);
    }
    if (o->templates_path &&
        cli_output_open(SUB, o->templates_path, &run->templates) != EXIT_OK)
        return EXIT_DATA;
    for (size_t x = 0; x < o->nexports; x++) {
        if (cli_output_open(SUB, o->export_path[x], &run->exported[x]) != EXIT_OK)
            return EXIT_DATA;
        if ((run->exporter[x] = cli_export_new(o->export_kind[x])) == NULL) {
            cli_error(SUB, "out of memory");
            return EXIT_DATA;
        }
    }
    return EXIT_OK;
}

/* Writes the template list to the sqlite sink and --templates, and the
 * --save-state snapshot; commits the outputs only when all were written, so a
 * failed --templates or --save-state leaves -o OUT as it was too. */
static int finish_outputs(parse_run *run)
{
    int status = cache_templates(run);
    if (status != EXIT_OK)
        return status;
    /* --stream -o FILE put FILE on stdout: --templates - wants the real one */
    if (run->live.opened && parse_live_restore_stdout(&run->live) != EXIT_OK)
        return EXIT_DATA;
    for (uint32_t id = 1; id <= run->set.n; id++) {
        if (run->set.canonical[id] != id)
            continue;
        if (logtk_sink_write_template(run->sink, run->set.number[id], run->set.text[id],
                                      run->set.count[id]) !=
            LOGTK_OK)
            return sink_failed(run->sink);
    }
    if (run->templates.fp) {
        const char *path = run->opt->templates_path;
        if (cli_templates_write(run->templates.fp, &run->set) != 0) {
            cli_error(SUB, "%s: write error", strcmp(path, "-") ? path : "standard output");
            return EXIT_DATA;
        }
        if (logtk_output_prepare(run->templates.out) != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_output_errmsg(run->templates.out));
            return EXIT_DATA;
        }
    }
    for (size_t x = 0; x < run->opt->nexports; x++) {
        const char *path = run->opt->export_path[x], *kind = run->opt->export_kind[x];
        if (cli_export_write(run->exporter[x], run->exported[x].fp, &run->set) != 0) {
            cli_error(SUB, "%s: write error", strcmp(path, "-") ? path : "standard output");
            return EXIT_DATA;
        }
        if (logtk_output_prepare(run->exported[x].out) != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_output_errmsg(run->exported[x].out));
            return EXIT_DATA;
        }
        if (cli_export_skipped(run->exporter[x]) && !run->opt->quiet)
            cli_error(SUB, "--export %s: %llu lines have no rule (a NUL byte, text %s cannot "
                           "hold, or over 256 shapes of one template)",
                      kind, (unsigned long long)cli_export_skipped(run->exporter[x]), kind);
    }
    const char *state_path = run->opt->save_state;
    if (state_path) {
        void *snap = NULL;
        size_t len = 0;
        if (logtk_parser_save(run->parser, &snap, &len) != LOGTK_OK) {
            cli_error(SUB, "--save-state: %s", logtk_parser_errmsg(run->parser));
            return EXIT_DATA;
        }
        status = cli_output_open(SUB, state_path, &run->state);
        if (status == EXIT_OK && len && fwrite(snap, 1, len, run->state.fp) != len) {
            cli_error(SUB, "%s: %s", state_path, strerror(errno));
            status = EXIT_DATA;
        }
        logtk_free(snap);
        if (status == EXIT_OK && logtk_output_prepare(run->state.out) != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_output_errmsg(run->state.out));
            status = EXIT_DATA;
        }
        if (status != EXIT_OK)
            return status;
    }
    /* everything is written: now the renames */
    if (logtk_sink_close(run->sink) != LOGTK_OK)
        return sink_failed(run->sink);
    if (run->templates.out &&
        cli_output_close(SUB, run->opt->templates_path, &run->templates, 1) != EXIT_OK)
        return EXIT_DATA;
    if (run->state.out && cli_output_close(SUB, state_path, &run->state, 1) != EXIT_OK)
        return EXIT_DATA;
    for (size_t x = 0; x < run->opt->nexports; x++)
        if (cli_output_close(SUB, run->opt->export_path[x], &run->exported[x], 1) != EXIT_OK)
            return EXIT_DATA;
    return EXIT_OK;
}

static int run_parse(parse_run *run, char **paths, size_t npaths)
{
    const parse_options *o = run->opt;
    static char *stdin_only[] = {"-"};
    if (npaths == 0) {
        paths = stdin_only;
        npaths = 1;
    }
    int to_stdout = o->out_path == NULL || strcmp(o->out_path, "-") == 0;
    int status;
    int damaged = 0; /* pass 1 stopped at a damaged compressed input: keep what came before */
    int stopped = 0; /* pass 1 stopped by SIGTERM/SIGINT: the lines read are written */
    int reads_stdin = 0;
    for (size_t i = 0; i < npaths; i++)
        reads_stdin |= strcmp(paths[i], "-") == 0;
    cli_signals_graceful(reads_stdin);
    struct stat in_st;
    run->live_input = reads_stdin && (isatty(STDIN_FILENO) ||
                                      (fstat(STDIN_FILENO, &in_st) == 0 &&
                                       (S_ISFIFO(in_st.st_mode) || S_ISSOCK(in_st.st_mode))));
    if (o->confirm)
        signal(SIGPIPE, SIG_IGN); /* the shipper gone: EPIPE on the confirmations */
    /* a device or FIFO given as -o is written directly (and as it goes) anyway */
    struct stat out_st;
    if (o->stream && !to_stdout && strcmp(o->out_kind, "sqlite") != 0 &&
        (stat(o->out_path, &out_st) != 0 || S_ISREG(out_st.st_mode)))
        run->live.path = o->out_path;
    if ((o->confirm || o->append) && !run->live.path)
        return cli_usage_error(SUB, "%s needs -o to name a regular file", o->confirm ? "--confirm" : "--append");
    run->live.append = o->append;
    run->live.confirm = o->confirm;
    run->live.confirm_fd = -1;
    run->live.state_path = o->save_state;
    if (o->save_every)
        parse_live_parse_every(o->save_every, &run->live);
    /* Batch output to stdout starts only after pass 1 succeeded (or stopped at
     * damage, see the top comment), so another bad input prints nothing; a
     * file output is opened first to catch an unwritable path before a long
     * parse (its temporary file is removed on failure). */
    if ((o->stream || !to_stdout) && (status = open_outputs(run)) != EXIT_OK)
        return status;

    input_seen *counts = calloc(npaths, sizeof *counts);
    if (counts == NULL) {
        cli_error(SUB, "out of memory");
        return EXIT_DATA;
    }
    uint64_t first_index = logtk_parser_line_count(run->parser); /* > 0 after --load-state */
    cli_feed feed;
    memset(&feed, 0, sizeof feed);
    feed.subcommand = SUB;
    feed.format = run->format;
    feed.parser = run->parser;
    feed.user = run;
    feed.progress = &run->progress;
    feed.max_line = o->in.max_line;
    feed.allow_binary = o->in.allow_binary;
    feed.quiet = o->quiet;
    cli_progress_init(&run->progress, o->stream ? "parse" : "parse (pass 1 of 2)", o->quiet);
    /* `tail -F app.log | logtk parse` in batch mode writes its first row at the
       end of an input that never ends: tell the person at the terminal why
       nothing comes, once the input has kept them waiting a little */
    int hinted = !o->stream && !o->quiet && run->live_input && isatty(STDERR_FILENO);
    if (hinted)
        cli_hint_after(PARSE_HINT_SECONDS,
                       "\r\033[Klogtk parse: batch mode reads all of standard input before it "
                       "writes a row (each row gets its line's final template); --stream "
                       "writes each row as its line comes\n");
    status = EXIT_OK;
    for (size_t i = 0; i < npaths && status == EXIT_OK; i++) {
        int is_stdin = strcmp(paths[i], "-") == 0;
        feed.on_line = NULL;
        if (o->stream) {
            feed.on_line = on_line_stream;
        } else if (is_stdin) {
            if ((status = open_spool(run)) != EXIT_OK)
                break;
            feed.on_line = on_line_spool;
        } else {
            /* the file as it is before pass 1 reads it; pass 2 checks it is unchanged */
            counts[i].have_stat = stat(paths[i], &counts[i].st) == 0;
            run->hash = &counts[i].hash;
            feed.on_line = on_line_fingerprint;
        }
        uint64_t before = feed.lines;
        status = cli_feed_run(&feed, &paths[i], 1);
        counts[i].lines = feed.lines - before;
        if (status == PARSE_STOPPED || (status == EXIT_OK && cli_stop_signal)) {
            stopped = 1;
            npaths = i + 1; /* pass 2 stops here too */
            status = EXIT_OK;
        }
        if (status != EXIT_OK && feed.status == LOGTK_ERR_ARCHIVE) {
            /* cli_feed printed the message; the lines before the damage were fed */
            damaged = 1;
            npaths = i + 1; /* pass 2 stops here too */
            status = EXIT_OK;
        }
        if (status != EXIT_OK) /* without --stream the rows wait for the end */
            cli_feed_explain(&feed, o->stream ? NULL : "; nothing was written");
        if (status == EXIT_OK && is_stdin && run->spool && fflush(run->spool) != 0) {
            cli_error(SUB, "%s: cannot spool standard input: %s", run->spool_path,
                      strerror(errno));
            status = EXIT_DATA;
        }
        if (damaged || stopped)
            break;
    }
    if (hinted)
        cli_hint_cancel();
    cli_progress_end(&run->progress);
    if (status == EXIT_OK && logtk_parser_finish(run->parser) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_parser_errmsg(run->parser));
        status = EXIT_DATA;
    }
    const char *capped_what = NULL;
    uint64_t capped = logtk_parser_capped(run->parser, &capped_what);
    if (status == EXIT_OK && capped && !o->quiet) /* a cap never acts silently */
        cli_error(SUB, "warning: %s", capped_what ? capped_what : "capped");

    /* a file replaced, rewritten or appended to since pass 1 read it: say so
       before a row is written */
    for (size_t i = 0; i < npaths && status == EXIT_OK && !o->stream; i++) {
        struct stat now;
        if (counts[i].have_stat && (stat(paths[i], &now) != 0 || !same_file(&now, &counts[i].st))) {
            cli_error(SUB, "%s: changed while being parsed (replaced, rewritten or appended to "
                           "between the two passes); nothing written",
                      paths[i]);
            status = EXIT_DATA;
        }
    }
    if (status == EXIT_OK && !o->stream) {
        logtk_reader *reader = NULL;
        if (to_stdout)
            status = open_outputs(run);
        if (status == EXIT_OK)
            status = cache_templates(run);
        if (status == EXIT_OK && logtk_reader_new(&reader) != LOGTK_OK) {
            cli_error(SUB, "out of memory");
            status = EXIT_DATA;
        }
        if (status == EXIT_OK && o->in.max_line)
            logtk_reader_set_max_line(reader, o->in.max_line);
        cli_progress_init(&run->progress, "parse (pass 2 of 2)", o->quiet);
        uint64_t index = first_index;
        for (size_t i = 0; i < npaths && status == EXIT_OK; i++) {
            int is_stdin = strcmp(paths[i], "-") == 0;
            status = write_input(run, reader, is_stdin ? run->spool_path : paths[i],
                                 is_stdin ? "standard input" : paths[i], index, &counts[i],
                                 damaged && i + 1 == npaths && !is_stdin,
                                 stopped && i + 1 == npaths);
            index += counts[i].lines;
        }
        cli_progress_end(&run->progress);
        logtk_reader_free(reader);
    }
    free(counts);

    if (status == EXIT_OK)
        status = finish_outputs(run);
    if (status == EXIT_OK && !o->quiet && isatty(STDERR_FILENO))
        fprintf(stderr, "logtk parse: %llu lines, %lu templates, %llu lines did not match the "
                        "format%s%s\n",
                (unsigned long long)feed.lines,
                (unsigned long)logtk_parser_template_count(run->parser),
                (unsigned long long)feed.unmatched, damaged ? " (input damaged, see above)" : "",
                capped ? " (parser capped, see the warning)" : "");
    if (status == EXIT_OK && o->check) {
        if (!o->quiet || run->violations)
            fprintf(stderr, "logtk parse: check: %llu rows, %llu whose template does not match "
                            "its line or whose parameters are not its text\n",
                    (unsigned long long)run->checked, (unsigned long long)run->violations);
        if (run->violations)
            status = EXIT_DATA;
    }
    if (status == EXIT_OK && damaged)
        status = EXIT_DATA;
    if (status == EXIT_OK && stopped && !o->quiet)
        cli_error(SUB, "stopped by %s after %llu lines; their rows are written",
                  cli_signal_name(cli_stop_signal), (unsigned long long)feed.lines);
    return status;
}

/* --reply --save-state: the parser state at the end of the input. */
static int save_reply_state(logtk_parser *parser, const char *path)
{
    void *snap = NULL;
    size_t len = 0;
    if (logtk_parser_save(parser, &snap, &len) != LOGTK_OK) {
        cli_error(SUB, "--save-state: %s", logtk_parser_errmsg(parser));
        return EXIT_DATA;
    }
    int status = cli_write_file_atomic(SUB, path, snap, len);
    logtk_free(snap);
    return status;
}

int cmd_parse(int argc, char **argv)
{
    parse_options opt;
    memset(&opt, 0, sizeof opt);
    opt.in.data_exit = EXIT_DATA;
    int first_file = argc;
    int status = parse_arguments(argc, argv, &opt, &first_file);
    if (status < 0 && opt.list_parsers) {
        list_parsers();
        status = EXIT_OK;
    }
    parse_run run;
    memset(&run, 0, sizeof run);
    run.opt = &opt;
    if (status < 0)
        status = set_up(&opt, &run.format, &run.parser);
    if (status < 0 && opt.reply) {
        status = cli_parse_reply_run(SUB, run.format, run.parser, opt.reply_input, opt.in.max_line,
                                     opt.alerts, opt.nalerts);
        if (status == EXIT_OK && opt.save_state) /* rsyslog closed our input: keep the templates */
            status = save_reply_state(run.parser, opt.save_state);
    }
    else if (status < 0)
        status = run_parse(&run, argv + first_file, (size_t)(argc - first_file));

    logtk_sink_free(run.sink); /* an uncommitted output's temporary file goes away */
    if (run.live.opened) /* confirm_fd is set only then */
        parse_live_close(&run.live);
    if (run.templates.out) /* not committed: the temporary file goes away */
        cli_output_close(SUB, opt.templates_path, &run.templates, 0);
    if (run.state.out)
        cli_output_close(SUB, opt.save_state, &run.state, 0);
    for (size_t x = 0; x < 2; x++) {
        if (run.exported[x].out)
            cli_output_close(SUB, opt.export_path[x], &run.exported[x], 0);
        cli_export_free(run.exporter[x]);
    }
    if (run.spool)
        fclose(run.spool);
    if (run.spool_path[0]) {
        unlink(run.spool_path);
        logtk_temporary_remove(run.spool_path);
    }
    free(run.params);
    cli_template_set_free(&run.set);
    logtk_parser_free(run.parser);
    logtk_format_free(run.format);
    cli_parser_options_free(&opt.in);
    free(opt.alerts);
    return status;
}
