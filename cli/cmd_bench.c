/*
 * cmd_bench.c - `logtk bench`: accuracy and speed of the parsers on Loghub.
 *
 * `bench parse` runs each selected parser over each selected Loghub-2k
 * dataset with the dataset's preset (format, masks, parameters), compares
 * every line's final template with the ground truth's EventTemplate column
 * and prints one TSV row per (parser, dataset) plus a `mean` row per parser.
 * With --input it times a parser on arbitrary (large) files instead, without
 * ground truth, and reports the peak resident memory.
 *
 * What is timed: exactly the path `logtk parse` runs (the shared cli_feed
 * loop: read, split by format, mask, parse) plus logtk_parser_finish(), from
 * opening the file to the last template.  Creating and configuring the parser
 * (compiling masks) and reading the ground truth are outside the clock, so a
 * 2,000-line dataset measures parsing, not setup.  --repeat N parses the data
 * N times, each with a fresh parser, and reports N*lines/seconds; the metrics
 * come from the last run (every run is deterministic).
 *
 * Ground truth rows are matched to log lines in order; a different count is a
 * data error for that dataset (the run goes on with the others and the exit
 * status is 1).  Template strings are copied out of the parser before
 * evaluation because slices the parser returns live only until its next call.
 *
 * `bench compress` and `bench detect` are dispatched to their own files.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cli.h"

#define SUB "bench parse"

enum gt_kind { GT_ORIGINAL, GT_CORRECTED, GT_LOGHUB2, GT_FULL, GT_FULL_LIST };
static const char *const gt_names[] = {"original", "corrected", "loghub2", "full", "full-list"};
/* The gt column with --no-preset, which marks that no preset helped. */
static const char *const gt_names_no_preset[] = {"original/no-preset", "corrected/no-preset",
                                                 "loghub2/no-preset", "full/no-preset",
                                                 "full-list/no-preset"};

/* A growable byte pool; strings are kept as offsets because the pool moves. */
typedef struct byte_pool {
    char *data;
    size_t len, cap;
} byte_pool;

/* A string in a byte_pool. */
typedef struct pool_ref {
    size_t off, len;
} pool_ref;

/* A growable array of pool_ref. */
typedef struct ref_list {
    pool_ref *items;
    size_t len, cap;
} ref_list;

static int pool_add(byte_pool *p, const char *s, size_t n, pool_ref *ref)
{
    if (p->len + n + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 4096;
        while (p->len + n + 1 > cap)
            cap *= 2;
        char *data = realloc(p->data, cap);
        if (!data)
            return -1;
        p->data = data;
        p->cap = cap;
    }
    if (n)
        memcpy(p->data + p->len, s, n);
    p->data[p->len + n] = '\0';
    ref->off = p->len;
    ref->len = n;
    p->len += n + 1;
    return 0;
}

static int refs_push(ref_list *l, pool_ref ref)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 2048;
        pool_ref *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return -1;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->len++] = ref;
    return 0;
}

/*
 * The distinct strings of a byte_pool, found by their bytes.  A ground
 * truth's EventTemplate column names a few thousand templates over millions
 * of rows (Thunderbird's full log: 16.6M), so each is kept once and every
 * row refers to it: the pool stays the size of the template list.
 */
typedef struct string_set {
    pool_ref *slots; /* len SIZE_MAX: empty */
    size_t nslots, count;
} string_set;

/* The slot of the string s[0..n) in set: the one holding it, else the empty one it goes in. */
static pool_ref *string_slot(const string_set *set, const byte_pool *p, const char *s, size_t n)
{
    size_t mask = set->nslots - 1;
    for (size_t i = cli_string_hash(s, n) & mask;; i = (i + 1) & mask) {
        pool_ref *slot = &set->slots[i];
        if (slot->len == SIZE_MAX || (slot->len == n && memcmp(p->data + slot->off, s, n) == 0))
            return slot;
    }
}

/* pool_add() of a string the set may hold already: then its ref, and nothing added. */
static int pool_add_distinct(byte_pool *p, string_set *set, const char *s, size_t n, pool_ref *ref)
{
    if (2 * (set->count + 1) > set->nslots) {
        string_set bigger = {NULL, set->nslots ? 2 * set->nslots : 1024, set->count};
        if ((bigger.slots = malloc(bigger.nslots * sizeof *bigger.slots)) == NULL)
            return -1;
        for (size_t i = 0; i < bigger.nslots; i++)
            bigger.slots[i].len = SIZE_MAX;
        for (size_t i = 0; i < set->nslots; i++)
            if (set->slots[i].len != SIZE_MAX)
                *string_slot(&bigger, p, p->data + set->slots[i].off, set->slots[i].len) =
                    set->slots[i];
        free(set->slots);
        *set = bigger;
    }
    pool_ref *slot = string_slot(set, p, s, n);
    if (slot->len == SIZE_MAX) {
        if (pool_add(p, s, n, slot) != 0)
            return -1;
        set->count++;
    }
    *ref = *slot;
    return 0;
}

/* ---------------------------------------------------------------- options */

typedef struct bench_options {
    const char *loghub;
    const char *loghub2;
    const char *full;        /* --loghub2-full DIR: <D>/<D>_full.log + _structured.csv */
    const char *full_lists;  /* --full-lists DIR: <D>_full.log_templates.csv (--gt full-list) */
    const char *parser;      /* NULL: library default; "all": every algorithm */
    enum gt_kind gt;
    unsigned long repeat;
    const char *datasets;    /* comma-separated, NULL: all */
    const char *format;      /* --format (speed mode) */
    const char **inputs;     /* --input FILE... (speed mode) */
    size_t ninputs;
    int quiet;
    int no_preset;           /* --no-preset: whole raw lines, no format, masks or parameters */
    const char *against;     /* --against NAME: speed against this parser, alternated runs */
    unsigned long rounds;    /* --rounds N: alternated pairs per input (0: not given) */
    cli_parser_options parser_options; /* --param NAME=VALUE..., after the preset's */
    const char *errors_path; /* --errors FILE */
    FILE *errors;            /* its stream while the accuracy runs write it */
} bench_options;

static void bench_usage(FILE *out)
{
    fprintf(out,
            "usage: logtk bench parse [--loghub DIR] [--parser NAME|all]\n"
            "                         [--gt original|corrected|loghub2] [--loghub2 DIR]\n"
            "                         [--loghub2-full DIR] [--full-lists DIR]\n"
            "                         [--dataset A,B,...] [--no-preset] [--param NAME=VALUE...]\n"
            "                         [--repeat N] [--max-line-length N] [--errors FILE]\n"
            "                         [--quiet]\n"
            "       logtk bench parse --input FILE [--input FILE...] (--dataset NAME | --format FMT)\n"
            "                         [--parser NAME] [--param NAME=VALUE...] [--repeat N] [--quiet]\n"
            "                         [--binary] [--max-line-length N]\n"
            "       logtk bench parse --against NAME [--rounds N] [--parser NAME] [--repeat N]\n"
            "                         [--dataset A,B,... | --input FILE...] [other options as above]\n"
            "       logtk bench compress ...   (see logtk bench compress --help)\n"
            "       logtk bench detect ...     (see logtk bench detect --help)\n"
            "       logtk bench diff ...       (see logtk bench diff --help)\n"
            "\n"
            "Measures parsing accuracy and speed on the Loghub-2k datasets and prints TSV:\n"
            "  dataset parser gt lines GA PA FGA FTA seconds lines_per_s\n"
            "with a final 'mean' row per parser (metrics averaged over datasets, lines and\n"
            "seconds summed).\n"
            "\n"
            "  --loghub DIR      Loghub-2k folder (default $LOGTK_LOGHUB)\n"
            "  --gt KIND         ground truth: original (DIR/D/original/D_2k.log_structured.csv,\n"
            "                    default), corrected (DIR/D/D_2k.log_structured_corrected.csv)\n"
            "                    or loghub2 (Loghub-2.0's, 14 datasets, from --loghub2)\n"
            "  --loghub2 DIR     Loghub-2.0 folder (default $LOGTK_LOGHUB2)\n"
            "  --loghub2-full DIR  full-size Loghub-2.0 sets: scores every DIR/D/D_full.log\n"
            "                    against DIR/D/D_full.log_structured.csv (the sets DIR lacks\n"
            "                    are skipped) and prints the published rows (Drain, LILAC,\n"
            "                    UNLEASH) beside ours; the same as --gt full\n"
            "  --full-lists DIR  score the Loghub-2.0 2k logs (from --loghub2) against the\n"
            "                    convention of the full ground truth: each line's label is the\n"
            "                    template of DIR/D_full.log_templates.csv that matches its\n"
            "                    content (the most literal one when several do); lines that\n"
            "                    match none are left out; the same as --gt full-list\n"
            "                    (default DIR: $LOGTK_LOGHUB2_FULL/templates)\n"
            "  --parser NAME     parser algorithm, or 'all' for every one (default: the default)\n"
            "  --dataset LIST    only these datasets, comma-separated, case-insensitive\n"
            "  --no-preset       parse each whole raw line as content: no log format, masks or\n"
            "                    parameters of the dataset (how a parser does on an unknown log);\n"
            "                    the gt column then reads e.g. original/no-preset\n"
            "  --param NAME=VALUE  a parser parameter (repeatable), set after the dataset's own\n"
            "                    (e.g. fuse's threshold=3, drain's st=0.5; see logtk-parse(1));\n"
            "                    every parser run must know it\n"
            "  --repeat N        parse each dataset N times with fresh state (default 1);\n"
            "                    lines_per_s = N * lines / seconds\n"
            "  --input FILE      speed only, no ground truth: parse FILE (repeatable) with the\n"
            "                    --dataset preset or --format, and print lines, templates,\n"
            "                    seconds, lines_per_s and peak_rss_kb\n"
            "  --format FMT      log format for --input (instead of a preset)\n"
            "  --binary          with --input: parse files that look binary instead of refusing\n"
            "                    them (a dataset's log is always read: its ground truth vouches\n"
            "                    for its lines)\n"
            "  --max-line-length N  longest line accepted, in bytes (default 1048576)\n"
            "  --against NAME    speed only: time --parser against parser NAME on each dataset\n"
            "                    (or on the --input files), in alternated pairs whose order\n"
            "                    flips each round, and print\n"
            "                      dataset parser against rounds lines seconds against_seconds\n"
            "                      speed_ratio ratio_low ratio_high\n"
            "                    (seconds: the median of the rounds; speed_ratio: the median of\n"
            "                    against's seconds over the parser's, above 1 when the parser is\n"
            "                    faster; low and high: the extreme rounds), then an 'all' row\n"
            "                    (medians summed, the geometric mean of the ratios, the lowest\n"
            "                    and highest ratio of a dataset)\n"
            "  --rounds N        pairs per dataset for --against (default 5)\n"
            "  --errors FILE     also write where each parser's groups differ from the ground\n"
            "                    truth's, as TSV: dataset parser gt kind lines first_line truth\n"
            "                    parsed, a row per true and parsed template sharing lines that\n"
            "                    cost a metric; kind: split (the true template's lines are in\n"
            "                    several parsed ones), merged (the parsed template holds lines\n"
            "                    of several true ones), split+merged, or text (the same lines,\n"
            "                    the template written otherwise: costs PA and FTA only)\n"
            "  --quiet           no progress or warnings on stderr\n"
            "  --help            this help\n"
            "\n"
            "Metrics (Loghub-2.0): GA, PA, FGA, FTA; see logtk-bench(1).\n"
            "Exit status: 0 success, 1 bad data (missing file, count mismatch), 2 usage error.\n");
}

/* Parses a positive integer; returns 0 on success. */
static int parse_count(const char *s, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v == 0 || v > 1000000 || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

/* Nonzero when dataset `name` is selected by the comma-separated list. */
static int dataset_selected(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncasecmp(p, name, n) == 0)
            return 1;
        p += len + (comma ? 1 : 0);
    }
    return 0;
}

/* Checks that every name in the list is a preset; returns 0 or a usage error. */
static int check_dataset_list(const char *list)
{
    char name[128];
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof name)
            return cli_usage_error(SUB, "bad --dataset list '%s'", list);
        memcpy(name, p, len);
        name[len] = '\0';
        if (!logtk_dataset_find(name)) {
            cli_error(SUB, "unknown dataset '%s'; the presets are:", name);
            for (size_t i = 0; logtk_dataset_at(i); i++)
                fprintf(stderr, "%s%s", i ? " " : "  ",
                        logtk_dataset_name(logtk_dataset_at(i)));
            fputc('\n', stderr);
            return EXIT_USAGE;
        }
        p += len + (comma ? 1 : 0);
    }
    return 0;
}

/*
 * 0 when `path`, the data folder `what` names, is a folder; else prints why
 * not and returns -1 (one error, instead of one per dataset's missing file).
 */
static int check_folder(const char *path, const char *what)
{
    struct stat st;
    const int found = stat(path, &st) == 0;
    if (found && S_ISDIR(st.st_mode))
        return 0;
    cli_error(SUB, "%s: %s (%s)", path, found ? "not a folder" : strerror(errno), what);
    return -1;
}

/* Nonzero when `name` is an available parser algorithm. */
static int parser_known(const char *name)
{
    for (size_t i = 0; logtk_parser_algorithm_name(i); i++)
        if (strcmp(logtk_parser_algorithm_name(i), name) == 0)
            return 1;
    return 0;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ------------------------------------------------------------ ground truth */

/* The EventTemplate column of a structured CSV, one entry per record; with
 * --gt full-list only the lines a listed template matches have a row, row k
 * being line line_of_row[k] of total_lines. */
typedef struct ground_truth {
    byte_pool pool;
    string_set distinct;     /* the pool's strings, when they are templates (kept once) */
    ref_list rows;
    size_t *line_of_row;     /* NULL: row k is line k */
    size_t total_lines;      /* lines of the log when line_of_row is set */
    size_t unmatched;        /* lines no listed template matches (left out) */
    size_t format_unmatched; /* lines the log format does not match (left out) */
    size_t several;          /* lines several listed templates match */
} ground_truth;

static void ground_truth_free(ground_truth *g)
{
    free(g->pool.data);
    free(g->distinct.slots);
    free(g->rows.items);
    free(g->line_of_row);
    memset(g, 0, sizeof *g);
}

/*
 * Loads column `name` of the CSV at `path`, each distinct value once in the
 * pool when `distinct` (a column of templates); prints the error and
 * returns -1 on failure.
 */
static int column_load(ground_truth *g, const char *path, const char *name, int distinct)
{
    size_t name_len = strlen(name);
    logtk_csv *csv = NULL;
    const logtk_slice *fields;
    size_t nfields, column = SIZE_MAX;
    int rc = logtk_csv_new(&csv);
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_strerror(rc));
        return -1;
    }
    rc = logtk_csv_open_path(csv, path);
    if (rc == LOGTK_OK)
        rc = logtk_csv_next(csv, &fields, &nfields);
    if (rc == LOGTK_DONE) {
        cli_error(SUB, "%s: empty file, expected a header row", path);
        goto fail;
    }
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_csv_errmsg(csv));
        goto fail;
    }
    for (size_t i = 0; i < nfields; i++)
        if (fields[i].len == name_len && memcmp(fields[i].ptr, name, name_len) == 0)
            column = i;
    if (column == SIZE_MAX) {
        cli_error(SUB, "%s:1: no %s column in the header", path, name);
        goto fail;
    }
    while ((rc = logtk_csv_next(csv, &fields, &nfields)) == LOGTK_OK) {
        pool_ref ref;
        if (column >= nfields) {
            cli_error(SUB, "%s:%llu: record has %zu fields, %s is field %zu", path,
                      (unsigned long long)logtk_csv_line(csv), nfields, name, column + 1);
            goto fail;
        }
        if ((distinct ? pool_add_distinct(&g->pool, &g->distinct, fields[column].ptr,
                                          fields[column].len, &ref)
                      : pool_add(&g->pool, fields[column].ptr, fields[column].len, &ref)) ||
            refs_push(&g->rows, ref)) {
            cli_error(SUB, "%s", logtk_strerror(LOGTK_ERR_NOMEM));
            goto fail;
        }
    }
    if (rc != LOGTK_DONE) {
        cli_error(SUB, "%s", logtk_csv_errmsg(csv));
        goto fail;
    }
    logtk_csv_free(csv);
    return 0;
fail:
    logtk_csv_free(csv);
    return -1;
}

/* Loads the EventTemplate column of `path`; prints the error and returns -1 on failure. */
static int ground_truth_load(ground_truth *g, const char *path)
{
    return column_load(g, path, "EventTemplate", 1);
}

/* Characters of a template that are its own text: neither "<*>" nor blanks.
 * Of several listed templates that match a line, the one with the most such
 * characters is the most specific, the one an annotator meant for it. */
static size_t template_literal_chars(const char *t, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 3 <= n && memcmp(t + i, "<*>", 3) == 0) {
            i += 2;
            continue;
        }
        if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r' && t[i] != '\n' && t[i] != '\v' &&
            t[i] != '\f')
            count++;
    }
    return count;
}

/*
 * --gt full-list: the 2k lines' contents (the Content column of `structured`)
 * labelled with the full ground truth's template list `list` (EventTemplate
 * column): a line's label is the listed template that matches its content
 * (logtk_template_match), the most literal one when several do; lines that
 * no listed template matches get no row.  Prints the error and returns -1
 * on failure.
 */
static int full_list_truth_load(ground_truth *g, const char *structured, const char *list)
{
    ground_truth contents = {0}, listed = {0};
    size_t *literal = NULL;
    int ret = -1;
    if (column_load(&contents, structured, "Content", 0) != 0 ||
        column_load(&listed, list, "EventTemplate", 0) != 0)
        goto done;
    literal = malloc((listed.rows.len + 1) * sizeof *literal);
    g->line_of_row = malloc((contents.rows.len + 1) * sizeof *g->line_of_row);
    if (!literal || !g->line_of_row) {
        cli_error(SUB, "%s", logtk_strerror(LOGTK_ERR_NOMEM));
        goto done;
    }
    for (size_t t = 0; t < listed.rows.len; t++)
        literal[t] = template_literal_chars(listed.pool.data + listed.rows.items[t].off,
                                            listed.rows.items[t].len);
    g->total_lines = contents.rows.len;
    for (size_t i = 0; i < contents.rows.len; i++) {
        const char *content = contents.pool.data + contents.rows.items[i].off;
        size_t content_len = contents.rows.items[i].len, best = SIZE_MAX, matches = 0;
        for (size_t t = 0; t < listed.rows.len; t++) {
            int rc = logtk_template_match(listed.pool.data + listed.rows.items[t].off,
                                          listed.rows.items[t].len, content, content_len, NULL,
                                          0, NULL);
            if (rc == LOGTK_ERR_NOT_FOUND)
                continue;
            if (rc != LOGTK_OK) {
                cli_error(SUB, "%s: %s", list, logtk_strerror(rc));
                goto done;
            }
            matches++;
            if (best == SIZE_MAX || literal[t] > literal[best])
                best = t;
        }
        if (best == SIZE_MAX) {
            g->unmatched++;
            continue;
        }
        if (matches > 1)
            g->several++;
        pool_ref ref;
        const pool_ref *label = &listed.rows.items[best];
        if (pool_add_distinct(&g->pool, &g->distinct, listed.pool.data + label->off, label->len,
                              &ref) ||
            refs_push(&g->rows, ref)) {
            cli_error(SUB, "%s", logtk_strerror(LOGTK_ERR_NOMEM));
            goto done;
        }
        g->line_of_row[g->rows.len - 1] = i;
    }
    ret = 0;
done:
    free(literal);
    ground_truth_free(&contents);
    ground_truth_free(&listed);
    return ret;
}

/* ------------------------------------------------------------ one run */

/* Result of parsing one input (possibly repeated). */
typedef struct run_result {
    uint64_t lines;     /* lines of one pass */
    uint32_t templates; /* of the last pass */
    double seconds;     /* all passes */
    uint64_t unmatched; /* lines the log format did not match */
    uint64_t *unmatched_at; /* their 0-based numbers, when asked for (free it) */
} run_result;

/*
 * Parses `paths` `repeat` times, each with a fresh parser configured by the
 * preset (or without one) and --param, and returns the last parser in *last (caller
 * frees) when `last` is non-NULL.  Returns EXIT_OK or EXIT_DATA (message
 * printed) or EXIT_USAGE (unknown parser, a --param it refuses).
 */
static int timed_parse(const bench_options *o, const char *algorithm, const logtk_dataset *preset,
                       logtk_format *format, char *const *paths, size_t npaths, int streaming,
                       const char *label, run_result *res, logtk_parser **last)
{
    const unsigned long repeat = o->repeat;
    const int quiet = o->quiet;
    memset(res, 0, sizeof *res);
    if (last)
        *last = NULL;
    for (unsigned long r = 0; r < repeat; r++) {
        logtk_parser *parser = NULL;
        int rc = logtk_parser_new(&parser, algorithm);
        if (rc == LOGTK_ERR_NOT_FOUND)
            return cli_usage_error(SUB, "unknown parser '%s'", algorithm ? algorithm : "");
        if (rc != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_strerror(rc));
            return EXIT_DATA;
        }
        int st = cli_parser_options_configure(SUB, &o->parser_options, preset, parser);
        if (st >= 0) {
            logtk_parser_free(parser);
            return st;
        }
        if (streaming) {
            rc = logtk_parser_set_option(parser, "keep_assignments", "0");
            (void)rc; /* a parser without the option keeps them; memory then grows */
        }

        cli_progress progress;
        cli_progress_init(&progress, label, quiet);
        cli_feed feed = {0};
        feed.subcommand = SUB;
        feed.format = format;
        feed.parser = parser;
        feed.progress = &progress;
        feed.quiet = quiet;
        feed.max_line = o->parser_options.max_line;
        /* a dataset's log is read whatever its bytes (its ground truth has a
           record per line, and the counts must agree); --input obeys --binary */
        feed.allow_binary = o->parser_options.allow_binary || o->ninputs == 0;
        /* which lines the format leaves out, for a ground truth that has no record of them */
        feed.keep_unmatched = last && o->ninputs == 0 && r + 1 == repeat;

        double start = cli_now();
        int ex = cli_feed_run(&feed, paths, npaths);
        if (ex != EXIT_OK)
            cli_feed_explain(&feed, NULL);
        if (ex == EXIT_OK && (rc = logtk_parser_finish(parser)) != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_parser_errmsg(parser));
            ex = EXIT_DATA;
        }
        res->seconds += cli_now() - start;
        cli_progress_end(&progress);
        if (ex != EXIT_OK) {
            free(feed.unmatched_at);
            logtk_parser_free(parser);
            return ex;
        }
        res->lines = feed.lines;
        res->unmatched = feed.unmatched;
        if (feed.keep_unmatched)
            res->unmatched_at = feed.unmatched_at;
        res->templates = logtk_parser_template_count(parser);
        if (last && r + 1 == repeat)
            *last = parser;
        else
            logtk_parser_free(parser);
    }
    return EXIT_OK;
}

/* ------------------------------------------------------------ accuracy mode */

/* Running sums for the mean row. */
typedef struct bench_totals {
    size_t datasets;
    uint64_t lines, passes_lines;
    double seconds, ga, pa, fga, fta;
} bench_totals;

/* Paths of one dataset's log and ground truth for the chosen ground truth. */
static void dataset_paths(const bench_options *o, const char *name, char *log, char *csv,
                          size_t size)
{
    switch (o->gt) {
    case GT_ORIGINAL:
        snprintf(log, size, "%s/%s/original/%s_2k.log", o->loghub, name, name);
        snprintf(csv, size, "%s/%s/original/%s_2k.log_structured.csv", o->loghub, name, name);
        break;
    case GT_CORRECTED:
        snprintf(log, size, "%s/%s/%s_2k.log", o->loghub, name, name);
        snprintf(csv, size, "%s/%s/%s_2k.log_structured_corrected.csv", o->loghub, name, name);
        break;
    case GT_LOGHUB2:
        snprintf(log, size, "%s/2k_dataset/%s/%s_2k.log", o->loghub2, name, name);
        snprintf(csv, size, "%s/2k_dataset/%s/%s_2k.log_structured_corrected.csv", o->loghub2,
                 name, name);
        break;
    case GT_FULL:
        snprintf(log, size, "%s/%s/%s_full.log", o->full, name, name);
        snprintf(csv, size, "%s/%s/%s_full.log_structured.csv", o->full, name, name);
        break;
    case GT_FULL_LIST: /* the 2k log and its contents; the labels come from the list */
        snprintf(log, size, "%s/2k_dataset/%s/%s_2k.log", o->loghub2, name, name);
        snprintf(csv, size, "%s/2k_dataset/%s/%s_2k.log_structured_corrected.csv", o->loghub2,
                 name, name);
        break;
    }
}

/* One published row, marked "published" in the gt column; lines and timing
 * are not theirs to give. */
static void print_published_row(const char *dataset, const char *parser, const char *source,
                                double ga, double pa, double fga, double fta)
{
    printf("%s\t%s\tpublished (%s)\t-\t%.4f\t%.4f\t%.4f\t%.4f\t-\t-\n", dataset, parser, source,
           ga, pa, fga, fta);
}

/* The published full-dataset rows of `dataset`. */
static void print_published(const char *dataset)
{
    const logtk_published_result *r;
    for (size_t i = 0; (r = logtk_published_full_result(dataset, i)); i++)
        print_published_row(dataset, r->parser, r->source, r->ga, r->pa, r->fga, r->fta);
    fflush(stdout);
}

/* The published row of `parser` for `dataset`, or NULL. */
static const logtk_published_result *published_of(const char *dataset, const char *parser)
{
    const logtk_published_result *r;
    for (size_t i = 0; (r = logtk_published_full_result(dataset, i)); i++)
        if (strcmp(r->parser, parser) == 0)
            return r;
    return NULL;
}

/*
 * The published means beside ours: over the same sets as ours (`scored`, the
 * names of the nscored sets scored), so that a run on some of the 14
 * full-size sets is compared with the papers' figures on those sets (a
 * parser is left out unless its paper gives each of them); the papers' own
 * means over all 14 when every set was scored.
 */
static void print_published_means(const char *const *scored, size_t nscored)
{
    const logtk_published_result *r;
    if (nscored == 0)
        return;
    size_t published_sets = 0; /* the sets a paper gives figures for: the 14 */
    for (size_t i = 0; logtk_dataset_at(i); i++)
        published_sets +=
            logtk_published_full_result(logtk_dataset_name(logtk_dataset_at(i)), 0) != NULL;
    if (nscored == published_sets) {
        for (size_t i = 0; (r = logtk_published_full_result("mean", i)); i++)
            print_published_row("mean", r->parser, r->source, r->ga, r->pa, r->fga, r->fta);
        fflush(stdout);
        return;
    }
    for (size_t i = 0; (r = logtk_published_full_result(scored[0], i)); i++) {
        double ga = 0, pa = 0, fga = 0, fta = 0;
        size_t k = 0;
        for (const logtk_published_result *s; k < nscored; k++) {
            if ((s = published_of(scored[k], r->parser)) == NULL)
                break;
            ga += s->ga, pa += s->pa, fga += s->fga, fta += s->fta;
        }
        if (k == nscored)
            print_published_row("mean", r->parser, r->source, ga / (double)k, pa / (double)k,
                                fga / (double)k, fta / (double)k);
    }
    fflush(stdout);
}

/* What write_error() needs to write one row of --errors. */
typedef struct error_rows {
    FILE *out;
    const char *dataset, *parser, *gt;
    const ground_truth *truth;
} error_rows;

static int write_error(void *arg, const logtk_group_error *e)
{
    error_rows *w = arg;
    const char *kind = e->kind == LOGTK_GROUP_TEXT    ? "text"
                       : e->kind == LOGTK_GROUP_SPLIT ? "split"
                       : e->kind == LOGTK_GROUP_MERGED ? "merged"
                                                      : "split+merged";
    size_t line = w->truth->line_of_row ? w->truth->line_of_row[e->first] : e->first;
    fprintf(w->out, "%s\t%s\t%s\t%s\t%zu\t%zu\t", w->dataset, w->parser, w->gt, kind,
            e->messages, line + 1);
    if (logtk_tsv_write_field(w->out, e->truth.ptr, e->truth.len) != LOGTK_OK ||
        fputc('\t', w->out) == EOF ||
        logtk_tsv_write_field(w->out, e->parsed.ptr, e->parsed.len) != LOGTK_OK ||
        fputc('\n', w->out) == EOF)
        return LOGTK_ERR_IO;
    return LOGTK_OK;
}

/*
 * --errors: one row per pair of a true and a parsed template that costs a
 * metric (logtk_evaluate_errors()), with the line of its first message in
 * the dataset's log.  0, or -1 with the error printed.
 */
static int write_errors(const char *dataset, const char *parser_name, const bench_options *o,
                        const ground_truth *gt, size_t n, const logtk_slice *parsed,
                        const logtk_slice *truth)
{
    error_rows w = {o->errors, dataset, parser_name,
                    (o->no_preset ? gt_names_no_preset : gt_names)[o->gt], gt};
    int rc = logtk_evaluate_errors(n, parsed, truth, write_error, &w);
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s: %s: %s", dataset, o->errors_path,
                  rc == LOGTK_ERR_IO ? "cannot write" : logtk_strerror(rc));
        return -1;
    }
    return 0;
}

/* Evaluates the parser's assignments against the ground truth and prints the row. */
static int evaluate_and_print(const char *dataset, const char *parser_name,
                              const bench_options *o, logtk_parser *parser,
                              const ground_truth *gt, const run_result *res,
                              bench_totals *totals)
{
    size_t n = gt->rows.len;
    int ex = EXIT_DATA;
    byte_pool pool = {0};
    pool_ref *templates = NULL;
    logtk_slice *parsed = malloc(n * sizeof *parsed);
    logtk_slice *truth = malloc(n * sizeof *truth);
    uint32_t count = logtk_parser_template_count(parser);
    templates = calloc((size_t)count + 1, sizeof *templates);
    if (!parsed || !truth || !templates) {
        cli_error(SUB, "%s", logtk_strerror(LOGTK_ERR_NOMEM));
        goto done;
    }
    for (uint32_t id = 1; id <= count; id++) {
        logtk_slice text;
        uint64_t lines;
        int rc = logtk_parser_template(parser, id, &text, &lines);
        if (rc != LOGTK_OK) {
            cli_error(SUB, "%s: template %u: %s", dataset, id, logtk_parser_errmsg(parser));
            goto done;
        }
        if (pool_add(&pool, text.ptr, text.len, &templates[id])) {
            cli_error(SUB, "%s", logtk_strerror(LOGTK_ERR_NOMEM));
            goto done;
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t id = 0;
        size_t line = gt->line_of_row ? gt->line_of_row[i] : i;
        int rc = logtk_parser_assignment(parser, line, &id);
        if (rc != LOGTK_OK || id == 0 || id > count) {
            cli_error(SUB, "%s: line %zu: no template (%s)", dataset, line + 1,
                      rc != LOGTK_OK ? logtk_parser_errmsg(parser) : "id out of range");
            goto done;
        }
        parsed[i].ptr = pool.data + templates[id].off;
        parsed[i].len = templates[id].len;
        truth[i].ptr = gt->pool.data + gt->rows.items[i].off;
        truth[i].len = gt->rows.items[i].len;
    }
    logtk_parse_metrics m;
    int rc = logtk_evaluate(n, parsed, truth, &m);
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s: %s", dataset, logtk_strerror(rc));
        goto done;
    }
    if (o->errors && write_errors(dataset, parser_name, o, gt, n, parsed, truth) != 0)
        goto done;
    uint64_t passes_lines = res->lines * o->repeat;
    if (gt->line_of_row && gt->format_unmatched && !o->quiet)
        fprintf(stderr, "%s %s: note: %s: %zu of %zu lines scored (%zu the log format does not "
                "match, as the ground truth has no record of them)\n", cli_progname, SUB, dataset,
                n, gt->total_lines, gt->format_unmatched);
    else if (gt->line_of_row && !o->quiet)
        fprintf(stderr, "%s %s: note: %s: %zu of %zu lines scored (%zu match no listed template, "
                "%zu several)\n", cli_progname, SUB, dataset, n, gt->total_lines, gt->unmatched,
                gt->several);
    printf("%s\t%s\t%s\t%llu\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.0f\n", dataset, parser_name,
           (o->no_preset ? gt_names_no_preset : gt_names)[o->gt],
           (unsigned long long)(gt->line_of_row ? n : res->lines), m.ga, m.pa, m.fga, m.fta,
           res->seconds, res->seconds > 0 ? (double)passes_lines / res->seconds : 0.0);
    fflush(stdout);
    totals->datasets++;
    totals->lines += gt->line_of_row ? n : res->lines;
    totals->passes_lines += passes_lines;
    totals->seconds += res->seconds;
    totals->ga += m.ga;
    totals->pa += m.pa;
    totals->fga += m.fga;
    totals->fta += m.fta;
    ex = EXIT_OK;
done:
    free(parsed);
    free(truth);
    free(templates);
    free(pool.data);
    return ex;
}

/* The default algorithm's name, as the library gives it, copied into buf; NULL when no parser can be made. */
static const char *default_algorithm(char *buf, size_t size)
{
    logtk_parser *p = NULL;
    if (logtk_parser_new(&p, NULL) != LOGTK_OK)
        return NULL;
    snprintf(buf, size, "%s", logtk_parser_algorithm(p));
    logtk_parser_free(p);
    return buf;
}

/* The log format of a dataset's runs (the whole line with --no-preset), or NULL (reported). */
static logtk_format *dataset_format(const bench_options *o, const logtk_dataset *preset)
{
    logtk_format *format = NULL;
    int rc = logtk_format_new(&format);
    if (rc == LOGTK_OK)
        rc = logtk_format_compile(format, o->no_preset ? "<Content>" : logtk_dataset_format(preset));
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s format: %s", logtk_dataset_name(preset),
                  format ? logtk_format_errmsg(format) : logtk_strerror(rc));
        logtk_format_free(format);
        return NULL;
    }
    return format;
}

/* Runs one parser over one dataset; returns EXIT_OK, EXIT_DATA, EXIT_USAGE or -1 (skipped). */
static int bench_dataset(const bench_options *o, const char *algorithm,
                         const logtk_dataset *preset, bench_totals *totals)
{
    const char *name = logtk_dataset_name(preset);
    char log_path[4096], csv_path[4096], label[160];
    dataset_paths(o, name, log_path, csv_path, sizeof log_path);
    if (o->gt == GT_LOGHUB2 && !file_exists(log_path) && !file_exists(csv_path)) {
        if (!o->quiet)
            fprintf(stderr, "%s %s: note: %s has no Loghub-2.0 ground truth; skipped\n",
                    cli_progname, SUB, name);
        return -1;
    }
    /* A full-size folder holds whichever sets its user could download: the
     * missing ones are skipped quietly, and a run that finds none fails. */
    if (o->gt == GT_FULL && !file_exists(log_path) && !file_exists(csv_path))
        return -1;
    char list_path[4096];
    if (o->gt == GT_FULL_LIST) {
        snprintf(list_path, sizeof list_path, "%s/%s_full.log_templates.csv", o->full_lists,
                 name);
        if (!file_exists(list_path))
            return -1; /* the lists cover some of the 14 sets */
    }

    ground_truth gt = {0};
    run_result res = {0};
    logtk_format *format = NULL;
    logtk_parser *parser = NULL;
    int ex = EXIT_DATA;
    if ((o->gt == GT_FULL_LIST ? full_list_truth_load(&gt, csv_path, list_path)
                               : ground_truth_load(&gt, csv_path)) != 0)
        goto done;
    if ((format = dataset_format(o, preset)) == NULL)
        goto done;

    char *paths[1] = {log_path};
    snprintf(label, sizeof label, "%s %s", name, algorithm ? algorithm : "");
    ex = timed_parse(o, algorithm, o->no_preset ? NULL : preset, format, paths, 1, 0, label, &res,
                     &parser);
    if (ex != EXIT_OK)
        goto done;
    size_t records = gt.line_of_row ? gt.total_lines : gt.rows.len;
    if (res.lines != records && !gt.line_of_row && res.unmatched_at &&
        res.lines - res.unmatched == records) {
        /* the ground truth has a record for each line the log format matches,
           none for the others: Loghub's loader leaves those out, and so does
           the scoring (a record is then the matched line of its rank) */
        if ((gt.line_of_row = malloc((records + 1) * sizeof *gt.line_of_row)) == NULL) {
            cli_error(SUB, "%s", logtk_strerror(LOGTK_ERR_NOMEM));
            ex = EXIT_DATA;
            goto done;
        }
        for (size_t line = 0, row = 0, skip = 0; line < res.lines; line++) {
            if (skip < res.unmatched && res.unmatched_at[skip] == line)
                skip++;
            else
                gt.line_of_row[row++] = line;
        }
        gt.total_lines = res.lines;
        gt.format_unmatched = res.unmatched;
        records = res.lines;
    }
    if (res.lines != records) {
        cli_error(SUB, "%s: %s has %llu lines but %s has %zu records; cannot match them", name,
                  log_path, (unsigned long long)res.lines, csv_path, records);
        ex = EXIT_DATA;
        goto done;
    }
    if (res.lines == 0 || gt.rows.len == 0) {
        cli_error(SUB, "%s: %s is empty%s", name, log_path,
                  res.lines ? " of lines a listed template matches" : "");
        ex = EXIT_DATA;
        goto done;
    }
    ex = evaluate_and_print(name, logtk_parser_algorithm(parser), o, parser, &gt, &res, totals);
done:
    free(res.unmatched_at);
    logtk_parser_free(parser);
    logtk_format_free(format);
    ground_truth_free(&gt);
    return ex;
}

static void print_mean(const char *parser_name, const bench_options *o, const bench_totals *t)
{
    if (t->datasets == 0)
        return;
    double k = (double)t->datasets;
    printf("mean\t%s\t%s\t%llu\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.0f\n", parser_name,
           (o->no_preset ? gt_names_no_preset : gt_names)[o->gt], (unsigned long long)t->lines, t->ga / k, t->pa / k, t->fga / k,
           t->fta / k, t->seconds,
           t->seconds > 0 ? (double)t->passes_lines / t->seconds : 0.0);
    fflush(stdout);
}

static int bench_accuracy(const bench_options *o)
{
    const char *single[1] = {o->parser};
    const char **algorithms = single;
    size_t nalgorithms = 1;
    const char *all[64];
    if (o->parser && strcmp(o->parser, "all") == 0) {
        nalgorithms = 0;
        while (nalgorithms < 64 && logtk_parser_algorithm_name(nalgorithms)) {
            all[nalgorithms] = logtk_parser_algorithm_name(nalgorithms);
            nalgorithms++;
        }
        algorithms = all;
    }

    int status = EXIT_OK;
    printf("dataset\tparser\tgt\tlines\tGA\tPA\tFGA\tFTA\tseconds\tlines_per_s\n");
    fflush(stdout);
    /* --gt full: the published rows follow the first parser's row of each
       set, and their means are over the sets that parser scored */
    const int with_published = o->gt == GT_FULL && !o->no_preset;
    const char *scored[64];
    size_t nscored = 0;
    for (size_t a = 0; a < nalgorithms; a++) {
        bench_totals totals = {0};
        const char *parser_name = algorithms[a];
        for (size_t i = 0; logtk_dataset_at(i); i++) {
            const logtk_dataset *preset = logtk_dataset_at(i);
            if (!dataset_selected(o->datasets, logtk_dataset_name(preset)))
                continue;
            int ex = bench_dataset(o, algorithms[a], preset, &totals);
            if (ex == EXIT_OK && with_published && a == 0 && nscored < 64) {
                print_published(logtk_dataset_name(preset));
                scored[nscored++] = logtk_dataset_name(preset);
            }
            if (ex == EXIT_USAGE)
                return ex;
            if (ex == EXIT_DATA)
                status = EXIT_DATA;
        }
        char default_name[64];
        if (!parser_name)
            parser_name = default_algorithm(default_name, sizeof default_name);
        print_mean(parser_name ? parser_name : "default", o, &totals);
        if (a + 1 == nalgorithms && with_published)
            print_published_means(scored, nscored);
        if (o->gt == GT_FULL_LIST && totals.datasets == 0 && status == EXIT_OK) {
            cli_error(SUB, "%s holds no template list of a Loghub-2.0 set with a 2k log in %s "
                      "(<D>_full.log_templates.csv)", o->full_lists, o->loghub2);
            return EXIT_DATA;
        }
        if (o->gt == GT_FULL && totals.datasets == 0 && status == EXIT_OK) {
            cli_error(SUB, "%s holds no full-size Loghub-2.0 set%s%s (<D>/<D>_full.log and "
                      "<D>/<D>_full.log_structured.csv)", o->full,
                      o->datasets ? " of those selected: " : "", o->datasets ? o->datasets : "");
            return EXIT_DATA;
        }
    }
    return status;
}

/* ------------------------------------------------------------ speed against another parser */

/*
 * --against: the two parsers timed on the same input in alternated pairs
 * (the order flips each round), so that a machine whose speed drifts or
 * varies from run to run slows both alike; the ratio of each pair is
 * taken, and the median ratio reported with the lowest and highest.
 */
typedef struct compare_totals {
    size_t inputs;
    uint64_t lines;
    double seconds, against_seconds; /* sums of the medians */
    double log_ratio;                /* sum of log(median ratio): the geometric mean */
    double low, high;                /* lowest and highest median ratio */
} compare_totals;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (n >= 1); sorts v. */
static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Times o->parser and o->against on one input, o->rounds pairs; prints its row. */
static int compare_input(const bench_options *o, const char *name, const logtk_dataset *preset,
                         logtk_format *format, char *const *paths, size_t npaths, int streaming,
                         compare_totals *t)
{
    const size_t rounds = (size_t)o->rounds;
    double *v = malloc(3 * rounds * sizeof *v);
    if (v == NULL) {
        cli_error(SUB, "%s", logtk_strerror(LOGTK_ERR_NOMEM));
        return EXIT_DATA;
    }
    double *mine = v, *theirs = v + rounds, *ratio = v + 2 * rounds;
    const char *algorithm[2] = {o->parser, o->against};
    char label[160];
    run_result res[2];
    uint64_t lines = 0;
    int ex = EXIT_OK;
    for (size_t r = 0; r < rounds && ex == EXIT_OK; r++) {
        for (int k = 0; k < 2 && ex == EXIT_OK; k++) {
            int which = (int)(r & 1) ^ k; /* round 0: the parser first, round 1: the other */
            snprintf(label, sizeof label, "%s %s (round %zu of %zu)", name, algorithm[which],
                     r + 1, rounds);
            ex = timed_parse(o, algorithm[which], preset, format, paths, npaths, streaming, label,
                             &res[which], NULL);
        }
        if (ex != EXIT_OK)
            break;
        if (res[0].lines != res[1].lines) {
            cli_error(SUB, "%s: the two parsers read %llu and %llu lines", name,
                      (unsigned long long)res[0].lines, (unsigned long long)res[1].lines);
            ex = EXIT_DATA;
            break;
        }
        lines = res[0].lines;
        /* a timer that saw no time at all stands for the shortest it can see */
        mine[r] = res[0].seconds > 0 ? res[0].seconds : 1e-9;
        theirs[r] = res[1].seconds > 0 ? res[1].seconds : 1e-9;
        ratio[r] = theirs[r] / mine[r];
    }
    if (ex == EXIT_OK) {
        double m_mine = median_of(mine, rounds), m_theirs = median_of(theirs, rounds);
        double m_ratio = median_of(ratio, rounds); /* sorted: the extremes at the ends */
        double ratio_low = ratio[0], ratio_high = ratio[rounds - 1];
        printf("%s\t%s\t%s\t%zu\t%llu\t%.4f\t%.4f\t%.3f\t%.3f\t%.3f\n", name,
               algorithm[0], algorithm[1], rounds,
               (unsigned long long)lines, m_mine, m_theirs, m_ratio, ratio_low, ratio_high);
        fflush(stdout);
        t->low = t->inputs == 0 || m_ratio < t->low ? m_ratio : t->low;
        t->high = t->inputs == 0 || m_ratio > t->high ? m_ratio : t->high;
        t->inputs++;
        t->lines += lines;
        t->seconds += m_mine;
        t->against_seconds += m_theirs;
        t->log_ratio += log(m_ratio);
    }
    free(v);
    return ex;
}

static void compare_header(void)
{
    printf("dataset\tparser\tagainst\trounds\tlines\tseconds\tagainst_seconds\tspeed_ratio"
           "\tratio_low\tratio_high\n");
    fflush(stdout);
}

/* The 'all' row: medians summed, the geometric mean of the ratios, the lowest and highest. */
static void compare_all(const bench_options *o, const compare_totals *t)
{
    if (t->inputs == 0)
        return;
    printf("all\t%s\t%s\t%lu\t%llu\t%.4f\t%.4f\t%.3f\t%.3f\t%.3f\n", o->parser,
           o->against, o->rounds,
           (unsigned long long)t->lines, t->seconds, t->against_seconds,
           exp(t->log_ratio / (double)t->inputs), t->low, t->high);
    fflush(stdout);
}

/* --against with --input: one row for the inputs together. */
static int compare_speed(const bench_options *o, const logtk_dataset *preset, logtk_format *format)
{
    compare_totals t = {0};
    compare_header();
    return compare_input(o, preset ? logtk_dataset_name(preset) : "-", preset, format,
                         (char *const *)o->inputs, o->ninputs, 1, &t);
}

/* --against over the datasets: a row per dataset whose log is there, then 'all'. */
static int compare_datasets(const bench_options *o)
{
    compare_totals t = {0};
    int status = EXIT_OK;
    compare_header();
    for (size_t i = 0; logtk_dataset_at(i); i++) {
        const logtk_dataset *preset = logtk_dataset_at(i);
        const char *name = logtk_dataset_name(preset);
        if (!dataset_selected(o->datasets, name))
            continue;
        char log_path[4096], csv_path[4096];
        dataset_paths(o, name, log_path, csv_path, sizeof log_path);
        if (!file_exists(log_path)) {
            /* the sets a folder lacks are skipped, as the accuracy runs skip them */
            if (!o->quiet && o->datasets)
                fprintf(stderr, "%s %s: note: no %s; skipped\n", cli_progname, SUB, log_path);
            continue;
        }
        logtk_format *format = dataset_format(o, preset);
        char *paths[1] = {log_path};
        int ex = format ? compare_input(o, name, o->no_preset ? NULL : preset, format, paths, 1,
                                        0, &t)
                        : EXIT_DATA;
        logtk_format_free(format);
        if (ex == EXIT_USAGE)
            return ex;
        if (ex != EXIT_OK)
            status = ex;
    }
    if (t.inputs == 0 && status == EXIT_OK) {
        cli_error(SUB, "no dataset log found to time (looked under the folder of --gt)");
        return EXIT_DATA;
    }
    compare_all(o, &t);
    return status;
}

/* ------------------------------------------------------------ speed mode */

static int bench_speed(const bench_options *o)
{
    const logtk_dataset *preset = NULL;
    if (o->datasets) {
        preset = logtk_dataset_find(o->datasets);
        if (!preset)
            return check_dataset_list(o->datasets) ? EXIT_USAGE
                                                   : cli_usage_error(SUB, "--input takes one --dataset");
    }
    logtk_format *format = NULL;
    int rc = logtk_format_new(&format);
    const char *spec = o->format ? o->format : preset ? logtk_dataset_format(preset) : NULL;
    if (rc == LOGTK_OK && spec)
        rc = logtk_format_compile(format, spec);
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s", format ? logtk_format_errmsg(format) : logtk_strerror(rc));
        logtk_format_free(format);
        return o->format ? EXIT_USAGE : EXIT_DATA;
    }

    if (o->against) {
        int ex = compare_speed(o, preset, format);
        logtk_format_free(format);
        return ex;
    }
    run_result res;
    logtk_parser *parser = NULL;
    int ex = timed_parse(o, o->parser, preset, format, (char *const *)o->inputs, o->ninputs, 1,
                         "bench parse", &res, &parser);
    if (ex == EXIT_OK) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("dataset\tparser\tlines\ttemplates\tseconds\tlines_per_s\tpeak_rss_kb\n");
        printf("%s\t%s\t%llu\t%u\t%.4f\t%.0f\t%ld\n",
               preset ? logtk_dataset_name(preset) : "-", logtk_parser_algorithm(parser),
               (unsigned long long)res.lines, res.templates, res.seconds,
               res.seconds > 0 ? (double)(res.lines * o->repeat) / res.seconds : 0.0,
               (long)ru.ru_maxrss);
    }
    logtk_parser_free(parser);
    logtk_format_free(format);
    return ex;
}

/* ------------------------------------------------------------ entry points */

static int cmd_bench_parse(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"loghub", required_argument, NULL, 'l'},
        {"loghub2", required_argument, NULL, 'L'},
        {"loghub2-full", required_argument, NULL, 'F'},
        {"full-lists", required_argument, NULL, 'T'},
        {"parser", required_argument, NULL, 'p'},
        {"gt", required_argument, NULL, 'g'},
        {"repeat", required_argument, NULL, 'r'},
        {"dataset", required_argument, NULL, 'd'},
        {"input", required_argument, NULL, 'i'},
        {"format", required_argument, NULL, 'f'},
        {"quiet", no_argument, NULL, 'q'},
        {"no-preset", no_argument, NULL, 'N'},
        {"against", required_argument, NULL, 'a'},
        {"rounds", required_argument, NULL, 'R'},
        {"param", required_argument, NULL, CLI_OPT_PARAM},
        {"binary", no_argument, NULL, CLI_OPT_BINARY},
        {"max-line-length", required_argument, NULL, CLI_OPT_MAX_LINE},
        {"errors", required_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bench_options o = {0};
    logtk_output *errors = NULL;
    o.loghub = getenv("LOGTK_LOGHUB");
    o.loghub2 = getenv("LOGTK_LOGHUB2");
    o.gt = GT_ORIGINAL;
    o.repeat = 1;
    o.parser_options.data_exit = EXIT_DATA;
    int ex = EXIT_OK;
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    if (!inputs) {
        cli_error(SUB, "%s", logtk_strerror(LOGTK_ERR_NOMEM));
        return EXIT_DATA;
    }
    o.inputs = inputs;

    optind = 0; /* glibc: restart scanning */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":q", long_options, NULL)) != -1) {
        switch (c) {
        case 'l': o.loghub = optarg; break;
        case 'L': o.loghub2 = optarg; break;
        case 'F': o.full = optarg; o.gt = GT_FULL; break;
        case 'T': o.full_lists = optarg; o.gt = GT_FULL_LIST; break;
        case 'p': o.parser = optarg; break;
        case 'd': o.datasets = optarg; break;
        case 'f': o.format = optarg; break;
        case 'q': o.quiet = 1; break;
        case 'N': o.no_preset = 1; break;
        case 'i': inputs[o.ninputs++] = optarg; break;
        case 'a': o.against = optarg; break;
        case 'e': o.errors_path = optarg; break;
        case CLI_OPT_PARAM:
        case CLI_OPT_BINARY:
        case CLI_OPT_MAX_LINE: {
            int st;
            cli_parser_option(SUB, c, optarg, &o.parser_options, &st);
            if (st >= 0) {
                ex = st;
                goto done;
            }
            break;
        }
        case 'g':
            if (strcmp(optarg, "original") == 0)
                o.gt = GT_ORIGINAL;
            else if (strcmp(optarg, "corrected") == 0)
                o.gt = GT_CORRECTED;
            else if (strcmp(optarg, "loghub2") == 0)
                o.gt = GT_LOGHUB2;
            else if (strcmp(optarg, "full") == 0)
                o.gt = GT_FULL;
            else if (strcmp(optarg, "full-list") == 0)
                o.gt = GT_FULL_LIST;
            else {
                ex = cli_usage_error(SUB, "--gt must be original, corrected, loghub2, full or "
                                     "full-list, not '%s'", optarg);
                goto done;
            }
            break;
        case 'r':
        case 'R':
            if (parse_count(optarg, c == 'r' ? &o.repeat : &o.rounds)) {
                ex = cli_usage_error(SUB, "--%s needs a count from 1 to 1000000, not '%s'",
                                     c == 'r' ? "repeat" : "rounds", optarg);
                goto done;
            }
            break;
        case 'h':
            bench_usage(stdout);
            goto done;
        case ':':
            ex = cli_usage_error(SUB, "option '%s' needs a value", argv[optind - 1]);
            goto done;
        default:
            ex = cli_usage_error(SUB, "unknown option '%s'", argv[optind - 1]);
            goto done;
        }
    }
    if (optind < argc) {
        ex = cli_usage_error(SUB, "unexpected argument '%s' (inputs are given with --input)",
                             argv[optind]);
        goto done;
    }
    const char *unknown = o.parser && strcmp(o.parser, "all") != 0 && !parser_known(o.parser)
                              ? o.parser
                          : o.against && !parser_known(o.against) ? o.against
                                                                  : NULL;
    if (unknown) {
        cli_error(SUB, "unknown parser '%s'; available:", unknown);
        for (size_t i = 0; logtk_parser_algorithm_name(i); i++)
            fprintf(stderr, "  %-12s %s\n", logtk_parser_algorithm_name(i),
                    logtk_parser_algorithm_summary(i) ? logtk_parser_algorithm_summary(i) : "");
        ex = EXIT_USAGE;
        goto done;
    }
    if (o.rounds && !o.against) {
        ex = cli_usage_error(SUB, "--rounds counts the pairs of --against NAME");
        goto done;
    }
    if (o.against && o.parser && strcmp(o.parser, "all") == 0) {
        ex = cli_usage_error(SUB, "--against times one parser against another, not --parser all");
        goto done;
    }
    if (o.against && !o.rounds)
        o.rounds = 5;
    char default_name[64];
    /* the rows name both parsers: the default's name, as the library gives it */
    if (o.against && !o.parser &&
        !(o.parser = default_algorithm(default_name, sizeof default_name))) {
        cli_error(SUB, "%s", logtk_strerror(LOGTK_ERR_NOMEM));
        ex = EXIT_DATA;
        goto done;
    }

    if (o.errors_path && strcmp(o.errors_path, "-") == 0) {
        ex = cli_usage_error(SUB, "--errors needs a file: standard output carries the metrics");
        goto done;
    }
    /* Loghub-2.0's ground truths come with its benchmark's parser settings,
       so the drain rows compare with the published ones */
    if (o.gt == GT_LOGHUB2 || o.gt == GT_FULL || o.gt == GT_FULL_LIST)
        o.parser_options.benchmark = "loghub2";
    if (o.errors_path && (o.ninputs || o.against)) {
        ex = cli_usage_error(SUB, "--errors lists the errors of the accuracy runs, not of %s",
                             o.ninputs ? "--input" : "--against");
        goto done;
    }
    if (o.ninputs) {
        if (o.parser && strcmp(o.parser, "all") == 0) {
            ex = cli_usage_error(SUB, "--input times one parser; --parser all needs --loghub");
            goto done;
        }
        if (o.datasets && o.format) {
            ex = cli_usage_error(SUB, "give --dataset or --format, not both");
            goto done;
        }
        if (o.no_preset) {
            ex = cli_usage_error(SUB, "--no-preset applies to the accuracy runs, not --input");
            goto done;
        }
        ex = bench_speed(&o);
        goto done;
    }
    if (o.format) {
        ex = cli_usage_error(SUB, "--format applies to --input only");
        goto done;
    }
    if (o.datasets && (ex = check_dataset_list(o.datasets)) != 0)
        goto done;
    char default_lists[4096];
    if (o.gt == GT_FULL_LIST && !o.full_lists && getenv("LOGTK_LOGHUB2_FULL") &&
        *getenv("LOGTK_LOGHUB2_FULL")) {
        snprintf(default_lists, sizeof default_lists, "%s/templates", getenv("LOGTK_LOGHUB2_FULL"));
        o.full_lists = default_lists;
    }
    if (o.gt == GT_FULL_LIST && (!o.full_lists || !o.loghub2 || !*o.loghub2)) {
        ex = cli_usage_error(SUB, "--gt full-list needs --full-lists DIR (or $LOGTK_LOGHUB2_FULL) "
                             "and --loghub2 DIR (or $LOGTK_LOGHUB2)");
        goto done;
    }
    const char *root = o.gt == GT_LOGHUB2 || o.gt == GT_FULL_LIST ? o.loghub2
                       : o.gt == GT_FULL                         ? o.full
                                                                 : o.loghub;
    if (!root || !*root) {
        ex = cli_usage_error(SUB, o.gt == GT_LOGHUB2 ? "--gt loghub2 needs --loghub2 DIR (or $LOGTK_LOGHUB2)"
                                  : o.gt == GT_FULL ? "--gt full needs --loghub2-full DIR"
                                                    : "needs --loghub DIR (or $LOGTK_LOGHUB) or --input FILE");
        goto done;
    }
    if (check_folder(root, o.gt == GT_LOGHUB2 || o.gt == GT_FULL_LIST
                               ? "the Loghub-2.0 folder: --loghub2 or $LOGTK_LOGHUB2"
                           : o.gt == GT_FULL ? "the full-size sets' folder: --loghub2-full"
                                             : "the Loghub-2k folder: --loghub or $LOGTK_LOGHUB") ||
        (o.gt == GT_FULL_LIST &&
         check_folder(o.full_lists, "the template lists' folder: --full-lists or "
                                    "$LOGTK_LOGHUB2_FULL/templates"))) {
        ex = EXIT_DATA;
        goto done;
    }
    if (o.errors_path) {
        int rc = logtk_output_open(&errors, o.errors_path);
        if (rc != LOGTK_OK) {
            cli_error(SUB, "%s", errors ? logtk_output_errmsg(errors) : logtk_strerror(rc));
            ex = EXIT_DATA;
            goto done;
        }
        o.errors = logtk_output_stream(errors);
        fprintf(o.errors, "dataset\tparser\tgt\tkind\tlines\tfirst_line\ttruth\tparsed\n");
    }
    ex = o.against ? compare_datasets(&o) : bench_accuracy(&o);
    /* a run that failed leaves an older FILE as it was */
    if (errors && ex == EXIT_OK && logtk_output_commit(errors) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_output_errmsg(errors));
        ex = EXIT_DATA;
    }
done:
    logtk_output_free(errors);
    free(inputs);
    cli_parser_options_free(&o.parser_options);
    return ex;
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("bench", "needs a benchmark: parse, compress or detect");
    const char *what = argv[1];
    if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
        bench_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(what, "parse") == 0)
        return cmd_bench_parse(argc - 1, argv + 1);
    if (strcmp(what, "compress") == 0)
        return cmd_bench_compress(argc - 1, argv + 1);
    if (strcmp(what, "detect") == 0)
        return cmd_bench_detect(argc - 1, argv + 1);
    if (strcmp(what, "diff") == 0)
        return cmd_bench_diff(argc - 1, argv + 1);
    return cli_usage_error("bench", "unknown benchmark '%s' (parse, compress, detect or diff)",
                           what);
}
