/*
 * cli_parser_options.c - the options that make a log format and a parser
 * (--dataset --format --mask --mask-file --parser --param --max-line-length
 * --binary), read and applied the same way by every subcommand that parses
 * logs, so that one option means one thing everywhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_parser_option(const char *subcommand, int c, const char *arg, cli_parser_options *o,
                      int *status)
{
    int bad_alloc = 0;
    *status = -1;
    switch (c) {
    case CLI_OPT_DATASET: o->dataset_name = arg; break;
    case CLI_OPT_FORMAT: o->format_spec = arg; break;
    case CLI_OPT_MASK: bad_alloc = cli_push_string(&o->masks, &o->nmasks, arg); break;
    case CLI_OPT_MASK_FILE:
        bad_alloc = cli_push_string(&o->mask_files, &o->nmask_files, arg);
        break;
    case CLI_OPT_PARSER: o->parser_name = arg; break;
    case CLI_OPT_PARAM:
        if (strchr(arg, '=') == NULL || arg[0] == '=') {
            *status = cli_usage_error(subcommand, "--param needs NAME=VALUE, got '%s'", arg);
            return 1;
        }
        bad_alloc = cli_push_string(&o->params, &o->nparams, arg);
        break;
    case CLI_OPT_MAX_LINE: {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(arg, &end, 10);
        if (errno || end == arg || *end || v == 0 || arg[0] == '-') {
            *status = cli_usage_error(subcommand, "--max-line-length needs a positive number of "
                                                  "bytes, got '%s'", arg);
            return 1;
        }
        /* the reader owns the range: ask it now, so a value it refuses is a
         * usage error and not a data error after the output was opened */
        logtk_reader *probe = NULL;
        int refused = logtk_reader_new(&probe) != LOGTK_OK || v > SIZE_MAX ||
                      logtk_reader_set_max_line(probe, (size_t)v) != LOGTK_OK;
        if (refused)
            *status = cli_usage_error(subcommand, "--max-line-length: %s",
                                      probe ? logtk_reader_errmsg(probe) : "out of memory");
        logtk_reader_free(probe);
        if (!refused)
            o->max_line = (size_t)v;
        return 1;
    }
    case CLI_OPT_BINARY: o->allow_binary = 1; break;
    default: return 0;
    }
    if (bad_alloc) {
        cli_error(subcommand, "out of memory");
        *status = o->data_exit;
    }
    return 1;
}

void cli_parser_options_free(cli_parser_options *o)
{
    free(o->masks);
    free(o->mask_files);
    free(o->params);
    o->masks = o->mask_files = o->params = NULL;
    o->nmasks = o->nmask_files = o->nparams = 0;
}

int cli_parser_options_format(const char *subcommand, const cli_parser_options *o,
                              const logtk_dataset **dataset, logtk_format **format)
{
    *dataset = NULL;
    if (o->dataset_name) {
        *dataset = logtk_dataset_find(o->dataset_name);
        if (*dataset == NULL) {
            cli_error(subcommand, "unknown dataset '%s'; known datasets:", o->dataset_name);
            for (size_t i = 0; logtk_dataset_at(i); i++)
                fprintf(stderr, "%s%s", i ? " " : "  ", logtk_dataset_name(logtk_dataset_at(i)));
            fputc('\n', stderr);
            return EXIT_USAGE;
        }
    }
    int rc = logtk_format_new(format);
    if (rc != LOGTK_OK) {
        cli_error(subcommand, "%s", logtk_strerror(rc));
        return o->data_exit;
    }
    const char *spec = o->format_spec ? o->format_spec
                                      : *dataset ? logtk_dataset_format(*dataset) : NULL;
    if (spec && logtk_format_compile(*format, spec) != LOGTK_OK) {
        cli_error(subcommand, "invalid log format: %s", logtk_format_errmsg(*format));
        return EXIT_USAGE;
    }
    return -1;
}

int cli_parser_options_new_parser(const char *subcommand, const cli_parser_options *o,
                                  const char *name, logtk_parser **parser)
{
    int rc = logtk_parser_new(parser, name);
    if (rc == LOGTK_ERR_NOT_FOUND) {
        cli_error(subcommand, "unknown parser '%s'; 'logtk parse --list-parsers' shows them",
                  name);
        return EXIT_USAGE;
    }
    if (rc != LOGTK_OK) {
        cli_error(subcommand, "%s", logtk_strerror(rc));
        return o->data_exit;
    }
    return -1;
}

/* A mask file holds a few regexes; anything near this size is not one. */
#define MASK_FILE_MAX ((size_t)16 << 20)

/* Adds the masks of one --mask-file.  Returns -1 to go on or an exit status. */
static int add_mask_file(const char *subcommand, const cli_parser_options *o, logtk_parser *p,
                         const char *path)
{
    char *text;
    size_t len;
    if (cli_read_file(subcommand, path, MASK_FILE_MAX, &text, &len) != EXIT_OK)
        return o->data_exit;
    int result = -1;
    size_t lineno = 0;
    char *line = text, *end = text + len;
    while (line < end && result < 0) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        char *stop = nl ? nl : end;
        lineno++;
        if (stop > line && stop[-1] == '\r')
            stop--;
        *stop = '\0';
        if (line[0] != '\0' && line[0] != '#') {
            char *tab = strchr(line, '\t');
            const char *replacement = NULL;
            if (tab) {
                *tab = '\0';
                replacement = tab + 1;
            }
            if (logtk_parser_add_mask(p, line, replacement) != LOGTK_OK) {
                cli_error(subcommand, "%s:%zu: %s", path, lineno, logtk_parser_errmsg(p));
                result = EXIT_USAGE;
            }
        }
        line = nl ? nl + 1 : end;
    }
    free(text);
    return result;
}

int cli_parser_options_configure(const char *subcommand, const cli_parser_options *o,
                                 const logtk_dataset *dataset, logtk_parser *parser)
{
    if (dataset && logtk_dataset_configure_for(dataset, parser, o->benchmark) != LOGTK_OK) {
        cli_error(subcommand, "dataset %s: %s", logtk_dataset_name(dataset),
                  logtk_parser_errmsg(parser));
        return o->data_exit;
    }
    for (size_t i = 0; i < o->nparams; i++) {
        char name[128];
        const char *eq = strchr(o->params[i], '=');
        size_t n = (size_t)(eq - o->params[i]);
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, o->params[i], n);
        name[n] = '\0';
        if (logtk_parser_set_option(parser, name, eq + 1) != LOGTK_OK) {
            cli_error(subcommand, "--param %s: %s", o->params[i], logtk_parser_errmsg(parser));
            return EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < o->nmasks; i++) {
        /* NAME=PATTERN names the mask when NAME is [A-Z][A-Z0-9_]* (Drain3's
           mask names: IP, NUM, HEX); any other text is a pattern, so
           "size=\d+" stays a pattern as it always was */
        const char *pattern = o->masks[i];
        size_t name_len = 0;
        if (pattern[0] >= 'A' && pattern[0] <= 'Z') {
            name_len = strspn(pattern, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
            if (pattern[name_len] != '=' || name_len > 64)
                name_len = 0;
        }
        char name[65];
        memcpy(name, pattern, name_len);
        name[name_len] = '\0';
        if (logtk_parser_add_named_mask(parser, name, pattern + (name_len ? name_len + 1 : 0),
                                        NULL) != LOGTK_OK) {
            cli_error(subcommand, "--mask: %s", logtk_parser_errmsg(parser));
            return EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < o->nmask_files; i++) {
        int st = add_mask_file(subcommand, o, parser, o->mask_files[i]);
        if (st >= 0)
            return st;
    }
    return -1;
}
