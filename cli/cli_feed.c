/*
 * cli_feed.c - the one loop "reader -> format -> parser" that `logtk parse`
 * and `logtk bench parse` share.
 *
 * Each input path is opened with one reused reader; every line is split by
 * the log format (a line the format does not match is kept whole as content
 * and counted, never dropped) and its content is fed to the parser.  Nothing
 * is allocated per line: the reader, the record and the event are reused, so
 * the loop costs what the three library calls cost.
 *
 * Why one shared loop: the benchmark must time exactly the path a user runs,
 * and every subcommand must treat bad input the same way: a reader error
 * (missing file, damaged archive, over-long line) stops the run with a
 * message naming the file and line; a file that looks binary is refused
 * unless the caller allows it; regex match limits are not fatal (the line is
 * kept, unmatched or unmasked) but are counted: a warning names the first
 * such line of each file and the totals follow at the end.
 *
 * Progress is updated only every PROGRESS_EVERY lines so the clock is not
 * read on the hot path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PROGRESS_EVERY 8192u

/* Prints the error and records the status; returns EXIT_DATA. */
static int feed_fail(cli_feed *f, int status, const char *msg)
{
    f->status = status;
    cli_error(f->subcommand ? f->subcommand : "feed", "%s", msg);
    return EXIT_DATA;
}

void cli_feed_explain(const cli_feed *f, const char *more)
{
    const char *sub = f->subcommand ? f->subcommand : "feed";
    if (!more)
        more = "";
    if (f->refused_binary)
        cli_error(sub, "(use --binary to parse a file that looks binary anyway%s)", more);
    else if (f->status == LOGTK_ERR_LINE_TOO_LONG)
        cli_error(sub, "(use --max-line-length N to accept longer lines%s)", more);
}

/* A regex that hit its match limit is not fatal; say so once per file. */
static void warn_limit(cli_feed *f, int *warned, const logtk_line *line, const char *what)
{
    if (*warned || f->quiet)
        return;
    cli_error(f->subcommand ? f->subcommand : "feed", "warning: %s:%llu: %s", line->source,
              (unsigned long long)line->number, what);
    *warned = 1;
}

/* A library error on one line stops the run, naming the file and line. */
static int line_fail(cli_feed *f, int rc, const logtk_line *line, const char *why)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "%s:%llu: %s", line->source, (unsigned long long)line->number, why);
    return feed_fail(f, rc, msg);
}

/* Feeds one opened source; returns EXIT_OK, EXIT_DATA or the callback's value. */
static int feed_source(cli_feed *f, logtk_reader *reader, const char *path)
{
    logtk_line line;
    logtk_record rec;
    logtk_event ev;
    int warned_format = 0, warned_mask = 0, checked_binary = f->allow_binary;
    unsigned format_lowerings = logtk_format_limit_lowerings(f->format);
    char msg[1024];

    for (;;) {
        int rc = logtk_reader_next(reader, &line);
        if (rc == LOGTK_DONE)
            return EXIT_OK;
        if (rc != LOGTK_OK)
            return feed_fail(f, rc, logtk_reader_errmsg(reader));
        if (!checked_binary) {
            checked_binary = 1;
            if (logtk_reader_is_binary(reader)) {
                snprintf(msg, sizeof msg, "%s: looks like a binary file, not a text log",
                         line.source ? line.source : path);
                f->refused_binary = 1;
                return feed_fail(f, LOGTK_ERR_DATA, msg);
            }
        }

        rc = logtk_format_match(f->format, line.data, line.len, &rec);
        if (rc == LOGTK_ERR_LIMIT) {
            f->format_limit_hits++;
            warn_limit(f, &warned_format, &line,
                       "log format hit the regex match limit; line kept whole as content");
            if (logtk_format_limit_lowerings(f->format) != format_lowerings) {
                /* once per lowering: later lines get less than this one did */
                format_lowerings = logtk_format_limit_lowerings(f->format);
                if (!f->quiet)
                    cli_error(f->subcommand ? f->subcommand : "feed", "warning: %s:%llu: %s",
                              line.source, (unsigned long long)line.number,
                              logtk_format_errmsg(f->format));
            }
        } else if (rc != LOGTK_OK) {
            return line_fail(f, rc, &line, logtk_format_errmsg(f->format));
        }
        if (!rec.matched && f->keep_unmatched) {
            if (f->unmatched == f->unmatched_cap) {
                uint64_t cap = f->unmatched_cap ? 2 * f->unmatched_cap : 64;
                uint64_t *at = realloc(f->unmatched_at, cap * sizeof *at);
                if (at == NULL)
                    return line_fail(f, LOGTK_ERR_NOMEM, &line, logtk_strerror(LOGTK_ERR_NOMEM));
                f->unmatched_at = at;
                f->unmatched_cap = cap;
            }
            f->unmatched_at[f->unmatched] = f->lines;
        }
        f->unmatched += !rec.matched;

        rc = logtk_parser_feed(f->parser, rec.content.ptr, rec.content.len, &ev);
        if (rc == LOGTK_ERR_LIMIT) {
            f->mask_limit_hits++;
            warn_limit(f, &warned_mask, &line, "a mask hit the regex match limit; line parsed without it");
        } else if (rc != LOGTK_OK) {
            return line_fail(f, rc, &line, logtk_parser_errmsg(f->parser));
        }
        f->lines++;

        if (f->on_line) {
            int stop = f->on_line(f->user, &line, &rec, &ev);
            if (stop)
                return stop;
        }
        if (f->progress && (f->lines % PROGRESS_EVERY) == 0)
            cli_progress_update(f->progress, f->lines, logtk_reader_bytes_read(reader),
                                logtk_reader_source_size(reader));
    }
}

int cli_feed_run(cli_feed *f, char *const *paths, size_t npaths)
{
    static char *const stdin_path[] = {"-"};
    logtk_reader *reader = NULL;
    int rc;

    f->status = LOGTK_OK;
    if (!f->format || !f->parser)
        return feed_fail(f, LOGTK_ERR_INVALID, "internal error: feed without format or parser");
    if (npaths == 0) {
        paths = stdin_path;
        npaths = 1;
    }
    rc = logtk_reader_new(&reader);
    if (rc != LOGTK_OK)
        return feed_fail(f, rc, logtk_strerror(rc));
    if (f->max_line) {
        rc = logtk_reader_set_max_line(reader, f->max_line);
        if (rc != LOGTK_OK) {
            int ex = feed_fail(f, rc, logtk_reader_errmsg(reader));
            logtk_reader_free(reader);
            return ex;
        }
    }

    int result = EXIT_OK;
    for (size_t i = 0; i < npaths && result == EXIT_OK; i++) {
        rc = logtk_reader_open_path(reader, paths[i]);
        if (rc != LOGTK_OK) {
            result = feed_fail(f, rc, logtk_reader_errmsg(reader));
            break;
        }
        result = feed_source(f, reader, paths[i]);
        logtk_reader_close(reader);
    }
    logtk_reader_free(reader);
    /* the warnings above name only the first line of each file: the totals
       say how much of the input was affected */
    const char *sub = f->subcommand ? f->subcommand : "feed";
    if (!f->quiet && f->format_limit_hits)
        cli_error(sub, "warning: %llu lines hit the log format's regex match limit (kept whole "
                       "as content)",
                  (unsigned long long)f->format_limit_hits);
    if (!f->quiet && f->mask_limit_hits)
        cli_error(sub, "warning: %llu lines where a mask hit its regex match limit (parsed "
                       "without it)",
                  (unsigned long long)f->mask_limit_hits);
    return result;
}
