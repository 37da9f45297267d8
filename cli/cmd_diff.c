/*
 * cmd_diff.c - `logtk diff`: what changed between two logs, or which host
 * differs from its peers.
 *
 * Every input goes through ONE parser, so a template has the same id on
 * both sides (or on every host); each parsed line is then counted for its
 * group in a logtk_diff, which does the statistics (see logtk.h and
 * detect/diff_templates.c).  Groups come from:
 *   - two inputs A B: A is the reference ("before"), B the other side;
 *   - --peers FILE...: each file is a peer;
 *   - --group-by REGEX: the first capture group of a POSIX extended regex
 *     matched against each raw line (a host name, a date, a component);
 *   - --by-field NAME: a header field of the log format (--format/--dataset).
 * With --group-by/--by-field the first group seen is side a and the second
 * side b, unless --peers ranks them all.  Lines that name no group are
 * still parsed (the templates stay the same) but not counted; their number
 * is reported.
 *
 * Archives made by `logtk compress` are read with the archive reader (their
 * blocks' text is split into lines by a reader over memory), so an archived
 * day can be compared with today's plain log.
 *
 * Exit status, as diff(1) and cmp(1) have it, so that a deploy can be gated
 * on it: 0 nothing changed significantly, 1 something did, 2 trouble (usage
 * error, unreadable input, damaged archive).
 */
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define SUB "diff"
#define EXIT_TROUBLE 2

static void diff_usage(FILE *out)
{
    fprintf(out,
            "usage: logtk diff [options] A B\n"
            "       logtk diff [options] --peers FILE...\n"
            "       logtk diff [options] (--group-by REGEX | --by-field NAME) [--peers] [FILE...]\n"
            "\n"
            "Compare logs by template: counts and rates on each side, templates that\n"
            "appeared or vanished, changes tested for significance (exact conditional\n"
            "binomial test, Benjamini-Hochberg), and numeric parameters whose distribution\n"
            "moved (Mann-Whitney U).  Files, compressed files and logtk archives (.ltk).\n"
            "\n"
            "groups:\n"
            "  --peers               rank every group (file, host, ...) against all the others\n"
            "  --group-by REGEX      the group of a line is the first capture group of REGEX\n"
            "                        (POSIX extended) in the raw line\n"
            "  --by-field NAME       the group of a line is its header field NAME\n"
            "input:\n"
            "  --dataset NAME        Loghub preset: log format, masks, parser parameters\n"
            "  --format FMT          log format, e.g. '<Date> <Time> <Level> <Component>: <Content>'\n"
            "  --parser NAME         online parser (default fuse)\n"
            "  --param NAME=VALUE    parser parameter (repeatable)\n"
            "  --mask [NAME=]RE      replace matches of the PCRE2 regex by <*> (repeatable)\n"
            "  --mask-file FILE      one regex per line, optionally REGEX<TAB>REPLACEMENT\n"
            "  --max-line-length N   longest line accepted, in bytes (default 1048576)\n"
            "  --binary              read files that look binary instead of refusing them\n"
            "statistics:\n"
            "  --alpha A             false discovery rate (default 0.05)\n"
            "  --min-ratio R         smallest rate ratio reported as a change (default 1.5)\n"
            "  --examples N          example lines per template and side (default 3)\n"
            "  --top N               templates named per peer (default 5)\n"
            "output:\n"
            "  --output KIND         table (default on a terminal), tsv (default otherwise), jsonl\n"
            "  -o, --out FILE        write to FILE (default stdout)\n"
            "  --limit N             rows of the table (default 20, 0 = all)\n"
            "  -q, --quiet           no notes on stderr\n"
            "  -h, --help            show this help\n"
            "\n"
            "Exit status: 0 no significant change, 1 significant change, 2 trouble.\n"
            "See logtk-diff(1).\n");
}

typedef struct diff_options {
    cli_parser_options in; /* read and applied as parse does */
    const char *out_path, *out_kind;
    const char *group_regex, *by_field;
    const char *alpha, *min_ratio, *examples, *top;
    long limit;
    int peers, quiet;
} diff_options;

enum {
    OPT_OUTPUT = 256, OPT_PEERS,
    OPT_GROUP_BY, OPT_BY_FIELD, OPT_ALPHA, OPT_MIN_RATIO, OPT_EXAMPLES, OPT_TOP, OPT_LIMIT
};

static const struct option long_options[] = {
    CLI_PARSER_LONG_OPTIONS,
    {"out", required_argument, NULL, 'o'},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"peers", no_argument, NULL, OPT_PEERS},
    {"group-by", required_argument, NULL, OPT_GROUP_BY},
    {"by-field", required_argument, NULL, OPT_BY_FIELD},
    {"alpha", required_argument, NULL, OPT_ALPHA},
    {"min-ratio", required_argument, NULL, OPT_MIN_RATIO},
    {"examples", required_argument, NULL, OPT_EXAMPLES},
    {"top", required_argument, NULL, OPT_TOP},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Returns -1 to go on, or the exit status. */
static int parse_arguments(int argc, char **argv, diff_options *o, int *first_file)
{
    int c;
    optind = 1;
    opterr = 0;
    o->limit = 20;
    while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        char *end;
        int status;
        if (cli_parser_option(SUB, c, optarg, &o->in, &status)) {
            if (status >= 0)
                return status;
            continue;
        }
        switch (c) {
        case 'o': o->out_path = optarg; break;
        case OPT_OUTPUT: o->out_kind = optarg; break;
        case OPT_PEERS: o->peers = 1; break;
        case OPT_GROUP_BY: o->group_regex = optarg; break;
        case OPT_BY_FIELD: o->by_field = optarg; break;
        case OPT_ALPHA: o->alpha = optarg; break;
        case OPT_MIN_RATIO: o->min_ratio = optarg; break;
        case OPT_EXAMPLES: o->examples = optarg; break;
        case OPT_TOP: o->top = optarg; break;
        case OPT_LIMIT:
            errno = 0;
            o->limit = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || o->limit < 0)
                return cli_usage_error(SUB, "--limit needs a number >= 0, got '%s'", optarg);
            break;
        case 'q': o->quiet = 1; break;
        case 'h': diff_usage(stdout); return EXIT_OK;
        case ':': return cli_usage_error(SUB, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_unknown_option(SUB, argv);
        }
    }
    *first_file = optind;
    if (o->group_regex && o->by_field)
        return cli_usage_error(SUB, "--group-by and --by-field exclude each other");
    if (o->out_kind == NULL)
        o->out_kind = (!o->out_path || strcmp(o->out_path, "-") == 0) && isatty(STDOUT_FILENO)
                          ? "table"
                          : "tsv";
    if (strcmp(o->out_kind, "table") && strcmp(o->out_kind, "tsv") && strcmp(o->out_kind, "jsonl"))
        return cli_usage_error(SUB, "unknown output kind '%s' (table, tsv or jsonl)", o->out_kind);
    return -1;
}

/* ------------------------------------------------------------ the run */

typedef struct diff_run {
    const diff_options *o;
    logtk_format *format;
    logtk_parser *parser;
    logtk_diff *diff;
    regex_t regex;
    int have_regex;
    long field;              /* --by-field: the field's index */
    char *line_copy;         /* --group-by: the line, NUL-terminated */
    size_t line_copy_cap;
    uint64_t lines, ungrouped, limit_hits;
    int pass;                /* 0: one pass (stdin); 1: learn templates; 2: count */
    uint64_t index;          /* pass 2: the line's index in pass 1 */
} diff_run;

static int set_up(diff_run *run)
{
    const diff_options *o = run->o;
    const logtk_dataset *dataset;
    int rc = cli_parser_options_format(SUB, &o->in, &dataset, &run->format);
    if (rc < 0)
        rc = cli_parser_options_new_parser(SUB, &o->in, o->in.parser_name, &run->parser);
    if (rc >= 0)
        return rc;
    /* one pass: counts are taken as lines are fed, per-line assignments are
       not needed */
    if (run->pass == 0)
        logtk_parser_set_option(run->parser, "keep_assignments", "0");
    if ((rc = cli_parser_options_configure(SUB, &o->in, dataset, run->parser)) >= 0)
        return rc;

    if (logtk_diff_new(&run->diff) != LOGTK_OK) {
        cli_error(SUB, "out of memory");
        return EXIT_TROUBLE;
    }
    const char *names[] = {"alpha", "min_ratio", "examples", "top"};
    const char *values[] = {o->alpha, o->min_ratio, o->examples, o->top};
    const char *flags[] = {"--alpha", "--min-ratio", "--examples", "--top"};
    for (size_t i = 0; i < 4; i++)
        if (values[i] && logtk_diff_set_option(run->diff, names[i], values[i]) != LOGTK_OK)
            return cli_usage_error(SUB, "%s: %s", flags[i], logtk_diff_errmsg(run->diff));

    if (o->group_regex) {
        int e = regcomp(&run->regex, o->group_regex, REG_EXTENDED);
        if (e != 0) {
            char msg[256];
            regerror(e, &run->regex, msg, sizeof msg);
            return cli_usage_error(SUB, "--group-by '%s': %s", o->group_regex, msg);
        }
        run->have_regex = 1;
        if (run->regex.re_nsub < 1)
            return cli_usage_error(SUB, "--group-by '%s' needs a capture group, e.g. 'host=([^ ]+)'",
                                   o->group_regex);
    }
    run->field = -1;
    if (o->by_field) {
        for (size_t i = 0; i < logtk_format_field_count(run->format); i++)
            if (strcmp(logtk_format_field_name(run->format, i), o->by_field) == 0)
                run->field = (long)i;
        if (run->field < 0)
            return cli_usage_error(SUB, "--by-field %s: the log format has no such field "
                                        "(give --format or --dataset)",
                                   o->by_field);
    }
    return -1;
}

/* The group of one line: *group, or 0 when the line names none. */
static int line_group(diff_run *run, const logtk_line *line, const logtk_record *rec,
                      uint32_t fixed_group, uint32_t *group, int *has_group)
{
    const char *name = NULL;
    size_t len = 0;
    *has_group = 0;
    if (run->have_regex) {
        if (line->len + 1 > run->line_copy_cap) {
            size_t cap = line->len + 1 > 2 * run->line_copy_cap ? line->len + 1 : 2 * run->line_copy_cap;
            char *p = realloc(run->line_copy, cap);
            if (!p)
                return LOGTK_ERR_NOMEM;
            run->line_copy = p;
            run->line_copy_cap = cap;
        }
        memcpy(run->line_copy, line->data, line->len);
        run->line_copy[line->len] = '\0';
        regmatch_t m[2];
        if (regexec(&run->regex, run->line_copy, 2, m, 0) != 0 || m[1].rm_so < 0)
            return LOGTK_OK;
        name = run->line_copy + m[1].rm_so;
        len = (size_t)(m[1].rm_eo - m[1].rm_so);
    } else if (run->field >= 0) {
        if (!rec->matched)
            return LOGTK_OK;
        name = rec->fields[run->field].ptr;
        len = rec->fields[run->field].len;
    } else {
        *group = fixed_group;
        *has_group = 1;
        return LOGTK_OK;
    }
    *has_group = 1;
    return logtk_diff_group(run->diff, name, len, group);
}

/* Parses one line and counts it.  Returns EXIT_OK or EXIT_TROUBLE. */
static int take_line(diff_run *run, const logtk_line *line, uint32_t fixed_group)
{
    logtk_record rec;
    logtk_event ev;
    int rc = logtk_format_match(run->format, line->data, line->len, &rec);
    if (rc == LOGTK_ERR_LIMIT && run->pass != 1)
        run->limit_hits++;
    else if (rc != LOGTK_OK) {
        cli_error(SUB, "%s:%llu: %s", line->source, (unsigned long long)line->number,
                  logtk_format_errmsg(run->format));
        return EXIT_TROUBLE;
    }
    if (run->pass == 2) {
        /* the final template, and the parameters against it, so that every
           line's parameters line up whatever the template was when it came */
        uint32_t id;
        if (logtk_parser_assignment(run->parser, run->index++, &id) != LOGTK_OK) {
            cli_error(SUB, "%s:%llu: the input changed while it was read", line->source,
                      (unsigned long long)line->number);
            return EXIT_TROUBLE;
        }
        if (logtk_parser_extract(run->parser, id, rec.content.ptr, rec.content.len, &ev) !=
            LOGTK_OK) {
            memset(&ev, 0, sizeof ev);
            ev.template_id = id;
        }
    } else {
        rc = logtk_parser_feed(run->parser, rec.content.ptr, rec.content.len, &ev);
        if (rc == LOGTK_ERR_LIMIT)
            run->limit_hits++;
        else if (rc != LOGTK_OK) {
            cli_error(SUB, "%s:%llu: %s", line->source, (unsigned long long)line->number,
                      logtk_parser_errmsg(run->parser));
            return EXIT_TROUBLE;
        }
        if (run->pass == 1)
            return EXIT_OK;
    }
    if (ev.template_id == 0) {
        cli_error(SUB, "parser %s assigns templates only at the end; diff needs an online "
                       "parser (fuse, drain, ...)",
                  logtk_parser_algorithm(run->parser));
        return EXIT_TROUBLE;
    }
    run->lines++;
    uint32_t group;
    int has_group;
    if ((rc = line_group(run, line, &rec, fixed_group, &group, &has_group)) != LOGTK_OK ||
        (has_group && (rc = logtk_diff_add(run->diff, group, &ev, line->data, line->len)) != LOGTK_OK)) {
        cli_error(SUB, "%s:%llu: %s", line->source, (unsigned long long)line->number,
                  logtk_diff_errmsg(run->diff));
        return EXIT_TROUBLE;
    }
    if (!has_group)
        run->ungrouped++;
    return EXIT_OK;
}

/* Lines of an open reader.  Returns EXIT_OK or EXIT_TROUBLE. */
static int take_reader(diff_run *run, logtk_reader *reader, const char *path, uint32_t group,
                       int check_binary, uint64_t first_line)
{
    logtk_line line;
    for (int first = 1;; first = 0) {
        int rc = logtk_reader_next(reader, &line);
        if (rc == LOGTK_DONE)
            return EXIT_OK;
        if (rc != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_reader_errmsg(reader));
            return EXIT_TROUBLE;
        }
        if (first && check_binary && logtk_reader_is_binary(reader)) {
            cli_error(SUB, "%s: looks like a binary file, not a text log (--binary reads it)",
                      path);
            return EXIT_TROUBLE;
        }
        line.source = path;
        line.number += first_line - 1;
        if (take_line(run, &line, group) != EXIT_OK)
            return EXIT_TROUBLE;
    }
}

static int is_archive(const char *path)
{
    if (strcmp(path, "-") == 0)
        return 0;
    FILE *fp = fopen(path, "rb");
    char magic[4];
    int yes = fp && fread(magic, 1, 4, fp) == 4 && memcmp(magic, "LTKA", 4) == 0;
    if (fp)
        fclose(fp);
    return yes;
}

static int take_archive(diff_run *run, logtk_reader *reader, const char *path, uint32_t group)
{
    logtk_archive_reader *ar = NULL;
    int result = EXIT_OK;
    if (logtk_archive_reader_new(&ar) != LOGTK_OK) {
        cli_error(SUB, "out of memory");
        return EXIT_TROUBLE;
    }
    if (logtk_archive_reader_open_path(ar, path) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_archive_reader_errmsg(ar));
        logtk_archive_reader_free(ar);
        return EXIT_TROUBLE;
    }
    logtk_archive_block b;
    for (;;) {
        int rc = logtk_archive_reader_next(ar, &b);
        if (rc == LOGTK_DONE)
            break;
        if (rc != LOGTK_OK) {
            /* a diff of a partial input would report changes that are not there */
            cli_error(SUB, "%s", logtk_archive_reader_errmsg(ar));
            result = EXIT_TROUBLE;
            break;
        }
        if (logtk_reader_open_memory(reader, b.text.ptr, b.text.len, path) != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_reader_errmsg(reader));
            result = EXIT_TROUBLE;
            break;
        }
        result = take_reader(run, reader, path, group, 0, b.first_line);
        logtk_reader_close(reader);
        if (result != EXIT_OK)
            break;
    }
    logtk_archive_reader_free(ar);
    return result;
}

static int take_inputs(diff_run *run, char **paths, size_t npaths, int one_group_per_file)
{
    static char *stdin_path[] = {"-"};
    if (npaths == 0) {
        paths = stdin_path;
        npaths = 1;
    }
    logtk_reader *reader = NULL;
    if (logtk_reader_new(&reader) != LOGTK_OK) {
        cli_error(SUB, "out of memory");
        return EXIT_TROUBLE;
    }
    if (run->o->in.max_line && logtk_reader_set_max_line(reader, run->o->in.max_line) != LOGTK_OK) {
        cli_error(SUB, "--max-line-length: %s", logtk_reader_errmsg(reader));
        logtk_reader_free(reader);
        return EXIT_TROUBLE;
    }
    int result = EXIT_OK;
    for (size_t i = 0; i < npaths && result == EXIT_OK; i++) {
        uint32_t group = 0;
        if (one_group_per_file &&
            logtk_diff_group(run->diff, paths[i], strlen(paths[i]), &group) != LOGTK_OK) {
            cli_error(SUB, "out of memory");
            result = EXIT_TROUBLE;
            break;
        }
        if (is_archive(paths[i])) {
            result = take_archive(run, reader, paths[i], group);
            continue;
        }
        if (logtk_reader_open_path(reader, paths[i]) != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_reader_errmsg(reader));
            result = EXIT_TROUBLE;
            break;
        }
        result = take_reader(run, reader, strcmp(paths[i], "-") ? paths[i] : "-", group,
                             !run->o->in.allow_binary, 1);
        logtk_reader_close(reader);
    }
    logtk_reader_free(reader);
    return result;
}

/* Gives the diff every template's final text. */
static int name_templates(diff_run *run)
{
    uint32_t n = logtk_parser_template_count(run->parser);
    for (uint32_t id = 1; id <= n; id++) {
        logtk_slice text;
        uint64_t count;
        if (logtk_parser_template(run->parser, id, &text, &count) != LOGTK_OK)
            continue;
        if (logtk_diff_set_template(run->diff, id, text.ptr, text.len) != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_diff_errmsg(run->diff));
            return EXIT_TROUBLE;
        }
    }
    return EXIT_OK;
}

/* ------------------------------------------------------------ output */

/* A JSON string: control bytes escaped, a byte that starts no well-formed
   UTF-8 sequence written as U+FFFD (the output stays valid JSON). */
static void json_string(FILE *fp, const char *s, size_t n)
{
    fputc('"', fp);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            fputc('\\', fp);
            fputc(c, fp);
            i++;
        } else if (c < 0x20) {
            fprintf(fp, "\\u%04x", c);
            i++;
        } else if (c < 0x80) {
            fputc(c, fp);
            i++;
        } else {
            size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            int ok = len && i + len <= n;
            for (size_t k = 1; ok && k < len; k++)
                ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
            if (ok && len == 3) {
                unsigned char d = (unsigned char)s[i + 1];
                ok = !(c == 0xe0 && d < 0xa0) && !(c == 0xed && d >= 0xa0);
            }
            if (ok && len == 4) {
                unsigned char d = (unsigned char)s[i + 1];
                ok = !(c == 0xf0 && d < 0x90) && !(c == 0xf4 && d >= 0x90);
            }
            if (ok) {
                fwrite(s + i, 1, len, fp);
                i += len;
            } else {
                fputs("\xef\xbf\xbd", fp);
                i++;
            }
        }
    }
    fputc('"', fp);
}

/* A double for JSON and TSV: shortest round-trip-ish form, never inf/nan. */
static void put_num(FILE *fp, double v)
{
    if (v != v)
        v = 0;
    if (v > 1.7e308)
        v = 1.7e308;
    fprintf(fp, "%.6g", v);
}

static const char *status_name(int status)
{
    switch (status) {
    case LOGTK_DIFF_APPEARED: return "appeared";
    case LOGTK_DIFF_VANISHED: return "vanished";
    case LOGTK_DIFF_CHANGED: return "changed";
    default: return "same";
    }
}

static void write_compare_jsonl(FILE *fp, const logtk_diff *d)
{
    for (size_t r = 0; r < logtk_diff_change_count(d); r++) {
        logtk_diff_change c;
        logtk_diff_change_at(d, r, &c);
        fprintf(fp, "{\"rank\":%zu,\"template_id\":%u,\"template\":", r + 1, c.template_id);
        json_string(fp, c.text.ptr, c.text.len);
        fprintf(fp, ",\"count_a\":%llu,\"count_b\":%llu,\"rate_a\":", (unsigned long long)c.count_a,
                (unsigned long long)c.count_b);
        put_num(fp, c.rate_a);
        fputs(",\"rate_b\":", fp);
        put_num(fp, c.rate_b);
        fprintf(fp, ",\"status\":\"%s\",\"score\":", status_name(c.status));
        put_num(fp, c.score);
        fputs(",\"p\":", fp);
        put_num(fp, c.p);
        fputs(",\"q\":", fp);
        put_num(fp, c.q);
        fprintf(fp, ",\"significant\":%s", c.significant ? "true" : "false");
        for (int side = 0; side < 2; side++) {
            fprintf(fp, ",\"examples_%c\":[", side ? 'b' : 'a');
            size_t ne = side ? c.nexamples_b : c.nexamples_a;
            for (size_t i = 0; i < ne; i++) {
                logtk_slice ex;
                logtk_diff_change_example(d, r, side, i, &ex);
                if (i)
                    fputc(',', fp);
                json_string(fp, ex.ptr, ex.len);
            }
            fputc(']', fp);
        }
        fputs(",\"params\":[", fp);
        for (size_t i = 0; i < c.nparams; i++) {
            logtk_diff_param pp;
            logtk_diff_change_param(d, r, i, &pp);
            fprintf(fp, "%s{\"index\":%zu,\"n_a\":%llu,\"n_b\":%llu,\"median_a\":", i ? "," : "",
                    pp.index, (unsigned long long)pp.n_a, (unsigned long long)pp.n_b);
            put_num(fp, pp.median_a);
            fputs(",\"median_b\":", fp);
            put_num(fp, pp.median_b);
            fputs(",\"score\":", fp);
            put_num(fp, pp.score);
            fputs(",\"p\":", fp);
            put_num(fp, pp.p);
            fputs(",\"q\":", fp);
            put_num(fp, pp.q);
            fprintf(fp, ",\"significant\":%s}", pp.significant ? "true" : "false");
        }
        fputs("]}\n", fp);
    }
}

static void tsv_field(FILE *fp, const char *s, size_t n)
{
    logtk_tsv_write_field(fp, s, n);
}

static void write_compare_tsv(FILE *fp, const logtk_diff *d)
{
    fputs("rank\ttemplate_id\tstatus\tcount_a\tcount_b\trate_a\trate_b\tscore\tp\tq\tsignificant"
          "\ttemplate\tparams\texample_a\texample_b\n",
          fp);
    for (size_t r = 0; r < logtk_diff_change_count(d); r++) {
        logtk_diff_change c;
        logtk_diff_change_at(d, r, &c);
        fprintf(fp, "%zu\t%u\t%s\t%llu\t%llu\t", r + 1, c.template_id, status_name(c.status),
                (unsigned long long)c.count_a, (unsigned long long)c.count_b);
        double nums[] = {c.rate_a, c.rate_b, c.score, c.p, c.q};
        for (size_t i = 0; i < 5; i++) {
            put_num(fp, nums[i]);
            fputc('\t', fp);
        }
        fprintf(fp, "%d\t", c.significant);
        tsv_field(fp, c.text.ptr, c.text.len);
        fputc('\t', fp);
        /* params: "INDEX:MEDIAN_A>MEDIAN_B:q=Q[:significant]" joined by ";" */
        for (size_t i = 0; i < c.nparams; i++) {
            logtk_diff_param pp;
            logtk_diff_change_param(d, r, i, &pp);
            fprintf(fp, "%s%zu:", i ? ";" : "", pp.index);
            put_num(fp, pp.median_a);
            fputc('>', fp);
            put_num(fp, pp.median_b);
            fputs(":q=", fp);
            put_num(fp, pp.q);
            if (pp.significant)
                fputs(":significant", fp);
        }
        for (int side = 0; side < 2; side++) {
            logtk_slice ex = {"", 0};
            logtk_diff_change_example(d, r, side, 0, &ex);
            fputc('\t', fp);
            tsv_field(fp, ex.ptr, ex.len);
        }
        fputc('\n', fp);
    }
}

/* Prints at most `width` bytes of s (a table cell), "..." when cut. */
static void put_cut(FILE *fp, const char *s, size_t n, size_t width)
{
    for (size_t i = 0; i < n && i < width; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i + 3 >= width && n > width) {
            fputs("...", fp);
            return;
        }
        fputc(c < 0x20 || c == 0x7f ? '?' : c, fp);
    }
}

static void write_compare_table(FILE *fp, const logtk_diff *d, uint32_t a, uint32_t b, long limit)
{
    size_t n = logtk_diff_change_count(d), nsig = 0;
    for (size_t r = 0; r < n; r++) {
        logtk_diff_change c;
        logtk_diff_change_at(d, r, &c);
        nsig += c.significant != 0;
    }
    fprintf(fp, "a: %s (%llu lines)\nb: %s (%llu lines)\n%zu of %zu templates changed significantly\n\n",
            logtk_diff_group_name(d, a), (unsigned long long)logtk_diff_group_lines(d, a),
            logtk_diff_group_name(d, b), (unsigned long long)logtk_diff_group_lines(d, b), nsig, n);
    fprintf(fp, "%4s  %-9s %9s %9s %8s %9s  %s\n", "#", "status", "a", "b", "b/a", "q", "template");
    for (size_t r = 0; r < n && (limit == 0 || (long)r < limit); r++) {
        logtk_diff_change c;
        logtk_diff_change_at(d, r, &c);
        char ratio[32];
        if (c.rate_a == 0)
            snprintf(ratio, sizeof ratio, "new");
        else if (c.rate_b == 0)
            snprintf(ratio, sizeof ratio, "gone");
        else
            snprintf(ratio, sizeof ratio, "%.2fx", c.rate_b / c.rate_a);
        fprintf(fp, "%4zu%c %-9s %9llu %9llu %8s %9.2g  ", r + 1, c.significant ? '*' : ' ',
                status_name(c.status), (unsigned long long)c.count_a,
                (unsigned long long)c.count_b, ratio, c.q);
        put_cut(fp, c.text.ptr, c.text.len, 100);
        fputc('\n', fp);
        for (size_t i = 0; i < c.nparams; i++) {
            logtk_diff_param pp;
            logtk_diff_change_param(d, r, i, &pp);
            if (pp.significant)
                fprintf(fp, "%48s <*> #%zu: median %g -> %g (q %.2g)\n", "", pp.index + 1,
                        pp.median_a, pp.median_b, pp.q);
        }
        if (!c.significant)
            continue;
        for (int side = 0; side < 2; side++) {
            logtk_slice ex;
            if (logtk_diff_change_example(d, r, side, 0, &ex) == LOGTK_OK) {
                fprintf(fp, "%48s %c: ", "", side ? 'b' : 'a');
                put_cut(fp, ex.ptr, ex.len, 100);
                fputc('\n', fp);
            }
        }
    }
    if (limit && (size_t)limit < n)
        fprintf(fp, "(%zu more; --limit 0 shows all)\n", n - (size_t)limit);
}

static void write_peers_jsonl(FILE *fp, const logtk_diff *d)
{
    for (size_t r = 0; r < logtk_diff_peer_count(d); r++) {
        logtk_diff_peer p;
        logtk_diff_peer_at(d, r, &p);
        const char *name = logtk_diff_group_name(d, p.group);
        fputs("{\"peer\":", fp);
        json_string(fp, name, strlen(name));
        fprintf(fp, ",\"lines\":%llu,\"score\":", (unsigned long long)p.lines);
        put_num(fp, p.score);
        fprintf(fp, ",\"rank\":%zu,\"significant\":%s,\"top_templates\":[", r + 1,
                p.significant ? "true" : "false");
        for (size_t i = 0; i < p.ntop; i++) {
            logtk_diff_peer_template t;
            logtk_diff_peer_template_at(d, r, i, &t);
            fprintf(fp, "%s{\"template_id\":%u,\"template\":", i ? "," : "", t.template_id);
            json_string(fp, t.text.ptr, t.text.len);
            fprintf(fp, ",\"count\":%llu,\"expected\":", (unsigned long long)t.count);
            put_num(fp, t.expected);
            fputs(",\"score\":", fp);
            put_num(fp, t.score);
            fputs(",\"q\":", fp);
            put_num(fp, t.q);
            fprintf(fp, ",\"significant\":%s}", t.significant ? "true" : "false");
        }
        fputs("]}\n", fp);
    }
}

static void write_peers_tsv(FILE *fp, const logtk_diff *d)
{
    fputs("rank\tpeer\tlines\tscore\tsignificant\ttemplate_id\tcount\texpected\ttemplate_score"
          "\ttemplate_significant\ttemplate\n",
          fp);
    for (size_t r = 0; r < logtk_diff_peer_count(d); r++) {
        logtk_diff_peer p;
        logtk_diff_peer_at(d, r, &p);
        const char *name = logtk_diff_group_name(d, p.group);
        for (size_t i = 0; i < p.ntop || i == 0; i++) {
            fprintf(fp, "%zu\t", r + 1);
            tsv_field(fp, name, strlen(name));
            fprintf(fp, "\t%llu\t", (unsigned long long)p.lines);
            put_num(fp, p.score);
            fprintf(fp, "\t%d\t", p.significant);
            logtk_diff_peer_template t;
            if (logtk_diff_peer_template_at(d, r, i, &t) != LOGTK_OK) {
                fputs("\t\t\t\t\t\n", fp);
                break;
            }
            fprintf(fp, "%u\t%llu\t", t.template_id, (unsigned long long)t.count);
            put_num(fp, t.expected);
            fputc('\t', fp);
            put_num(fp, t.score);
            fprintf(fp, "\t%d\t", t.significant);
            tsv_field(fp, t.text.ptr, t.text.len);
            fputc('\n', fp);
        }
    }
}

static void write_peers_table(FILE *fp, const logtk_diff *d, long limit)
{
    size_t n = logtk_diff_peer_count(d), nsig = 0;
    for (size_t r = 0; r < n; r++) {
        logtk_diff_peer p;
        logtk_diff_peer_at(d, r, &p);
        nsig += p.significant != 0;
    }
    fprintf(fp, "%zu of %zu peers differ significantly from the others\n\n", nsig, n);
    fprintf(fp, "%4s  %-24s %10s %10s  %s\n", "#", "peer", "lines", "score", "templates that differ");
    for (size_t r = 0; r < n && (limit == 0 || (long)r < limit); r++) {
        logtk_diff_peer p;
        logtk_diff_peer_at(d, r, &p);
        const char *name = logtk_diff_group_name(d, p.group);
        fprintf(fp, "%4zu%c ", r + 1, p.significant ? '*' : ' ');
        put_cut(fp, name, strlen(name), 24);
        fprintf(fp, "%*s %10llu %10.1f\n", (int)(strlen(name) < 24 ? 24 - strlen(name) : 0), "",
                (unsigned long long)p.lines, p.score);
        for (size_t i = 0; i < p.ntop; i++) {
            logtk_diff_peer_template t;
            logtk_diff_peer_template_at(d, r, i, &t);
            if (!t.significant)
                break;
            fprintf(fp, "%52s %llu (expected %.1f)  ", "", (unsigned long long)t.count, t.expected);
            put_cut(fp, t.text.ptr, t.text.len, 80);
            fputc('\n', fp);
        }
    }
    if (limit && (size_t)limit < n)
        fprintf(fp, "(%zu more; --limit 0 shows all)\n", n - (size_t)limit);
}

/* ------------------------------------------------------------ main */

int cmd_diff(int argc, char **argv)
{
    diff_options o;
    memset(&o, 0, sizeof o);
    o.in.data_exit = EXIT_TROUBLE;
    int first = 0;
    int st = parse_arguments(argc, argv, &o, &first);
    if (st >= 0) {
        cli_parser_options_free(&o.in);
        return st;
    }
    char **paths = argv + first;
    size_t npaths = (size_t)(argc - first);
    int grouped_lines = o.group_regex || o.by_field;
    int result = EXIT_TROUBLE;
    diff_run run;
    memset(&run, 0, sizeof run);
    run.o = &o;
    cli_output out = {0};
    int out_open = 0;

    if (!grouped_lines && !o.peers && npaths != 2) {
        result = cli_usage_error(SUB, "give two inputs A B, or --peers, --group-by or --by-field");
        goto done;
    }
    if (!grouped_lines && o.peers && npaths < 2) {
        result = cli_usage_error(SUB, "--peers needs at least two inputs (or --group-by/--by-field)");
        goto done;
    }
    if (!grouped_lines && npaths == 2 && strcmp(paths[0], paths[1]) == 0) {
        result = cli_usage_error(SUB, "A and B are the same input '%s'", paths[0]);
        goto done;
    }
    if (cli_refuse_output_is_input(SUB, "-o", o.out_path, paths, npaths) != EXIT_OK) {
        result = EXIT_TROUBLE;
        goto done;
    }
    /* standard input cannot be read twice: one pass, parameters taken
       against each template as it was when the line came */
    run.pass = 1;
    if (npaths == 0)
        run.pass = 0;
    for (size_t i = 0; i < npaths; i++)
        if (strcmp(paths[i], "-") == 0)
            run.pass = 0;
    if ((st = set_up(&run)) >= 0) {
        result = st == EXIT_OK ? EXIT_TROUBLE : st;
        goto done;
    }
    if (take_inputs(&run, paths, npaths, !grouped_lines) != EXIT_OK)
        goto done;
    logtk_parser_finish(run.parser);
    if (run.pass == 1) {
        run.pass = 2;
        if (take_inputs(&run, paths, npaths, !grouped_lines) != EXIT_OK)
            goto done;
    }
    if (name_templates(&run) != EXIT_OK)
        goto done;

    uint32_t ngroups = logtk_diff_group_count(run.diff);
    if (ngroups < 2) {
        cli_error(SUB, "found %u group%s in %llu lines; a diff needs two", ngroups,
                  ngroups == 1 ? "" : "s", (unsigned long long)run.lines);
        goto done;
    }
    if (!o.peers && ngroups > 2) {
        cli_error(SUB, "found %u groups (%s, %s, %s%s); --peers compares them all, or make "
                       "the grouping yield two",
                  ngroups, logtk_diff_group_name(run.diff, 0), logtk_diff_group_name(run.diff, 1),
                  logtk_diff_group_name(run.diff, 2), ngroups > 3 ? ", ..." : "");
        goto done;
    }
    if (!o.quiet && run.ungrouped)
        cli_error(SUB, "note: %llu of %llu lines named no group and were not counted",
                  (unsigned long long)run.ungrouped, (unsigned long long)run.lines);
    if (!o.quiet && run.limit_hits)
        cli_error(SUB, "warning: %llu lines hit a regex match limit", (unsigned long long)run.limit_hits);
    int rc = o.peers ? logtk_diff_peers(run.diff) : logtk_diff_compare(run.diff, 0, 1);
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_diff_errmsg(run.diff));
        goto done;
    }

    if (cli_output_open(SUB, o.out_path, &out) != EXIT_OK)
        goto done;
    out_open = 1;
    int changed = 0;
    if (o.peers) {
        for (size_t r = 0; r < logtk_diff_peer_count(run.diff); r++) {
            logtk_diff_peer p;
            logtk_diff_peer_at(run.diff, r, &p);
            changed |= p.significant;
        }
        if (strcmp(o.out_kind, "jsonl") == 0)
            write_peers_jsonl(out.fp, run.diff);
        else if (strcmp(o.out_kind, "tsv") == 0)
            write_peers_tsv(out.fp, run.diff);
        else
            write_peers_table(out.fp, run.diff, o.limit);
    } else {
        for (size_t r = 0; r < logtk_diff_change_count(run.diff); r++) {
            logtk_diff_change c;
            logtk_diff_change_at(run.diff, r, &c);
            changed |= c.significant;
        }
        if (strcmp(o.out_kind, "jsonl") == 0)
            write_compare_jsonl(out.fp, run.diff);
        else if (strcmp(o.out_kind, "tsv") == 0)
            write_compare_tsv(out.fp, run.diff);
        else
            write_compare_table(out.fp, run.diff, 0, 1, o.limit);
    }
    out_open = 0;
    if (cli_output_close(SUB, o.out_path, &out, 1) != EXIT_OK)
        goto done;
    result = changed ? 1 : 0;
done:
    if (out_open)
        cli_output_close(SUB, o.out_path, &out, 0);
    if (run.have_regex)
        regfree(&run.regex);
    free(run.line_copy);
    logtk_diff_free(run.diff);
    logtk_parser_free(run.parser);
    logtk_format_free(run.format);
    cli_parser_options_free(&o.in);
    return result;
}
