/*
 * cmd_decompress.c - `logtk decompress` and `logtk cat`: the exact bytes of
 * an archive, all of them or a line range.  Both are one walk over the
 * archive block by block (cat starts at the block that holds its first line,
 * through the index), so memory stays at one block whatever the archive
 * size.  A damaged block is reported on stderr with its line range and the
 * walk goes on with the next intact block; the exit status then says so.
 * -o is the library's atomic output (logtk_output through cli_output): a
 * temporary file renamed into place at the end, so an interrupted run never
 * replaces a good file.
 *
 * Exit status: 0 success, 1 bad data (unreadable input, damaged archive:
 * intact blocks are still delivered; cat: a first line past the end),
 * 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Writes len bytes to o; returns 0 or -1 (errno says why). */
static int output_write(cli_output *o, const void *data, size_t len)
{
    return fwrite(data, 1, len, o->fp) == len ? 0 : -1;
}

/*
 * Commits (keep) or discards o.  Returns 0 or -1 (message printed; not for
 * a closed pipe, which ends the run quietly, as it does for cat(1)).
 */
static int output_close(const char *sub, const char *path, cli_output *o, int keep)
{
    if (o->out && keep) {
        errno = 0;
        if (fflush(o->fp) != 0 && errno == EPIPE) {
            cli_output_close(sub, path, o, 0);
            return -1;
        }
    }
    return cli_output_close(sub, path, o, keep) == EXIT_OK ? 0 : -1;
}

/* Parses "A-B", "A-" or "A" (1-based, inclusive). */
static int parse_range(const char *s, uint64_t *a, uint64_t *b)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || errno || x == 0 || s[0] == '-')
        return -1;
    *a = x;
    if (*end == '\0') {
        *b = x;
        return 0;
    }
    if (*end != '-')
        return -1;
    s = end + 1;
    if (*s == '\0') {
        *b = UINT64_MAX;
        return 0;
    }
    unsigned long long y = strtoull(s, &end, 10);
    if (end == s || *end || errno || y < x || s[0] == '-')
        return -1;
    *b = y;
    return 0;
}

/* Writes lines [a, b] (1-based) of a block's text. */
static int write_range(cli_output *o, const logtk_archive_block *blk, uint64_t a, uint64_t b)
{
    const char *p = blk->text.ptr, *end = p + blk->text.len;
    uint64_t line = blk->first_line;
    while (p < end && line < a) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
        line++;
    }
    const char *start = p;
    while (p < end && line <= b) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
        line++;
    }
    return output_write(o, start, (size_t)(p - start));
}

static int decompress_like(int argc, char **argv, const char *sub, int is_cat)
{
    static const struct option long_options[] = {{"out", required_argument, NULL, 'o'},
                                                 {"lines", required_argument, NULL, 'L'},
                                                 {"threads", required_argument, NULL, 'T'},
                                                 {"help", no_argument, NULL, 'h'},
                                                 {NULL, 0, NULL, 0}};
    const char *out = NULL, *lines = NULL;
    int c, threads = 1;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, is_cat ? ":o:h" : ":o:T:h", long_options, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'T': {
            /* cat decodes one or two blocks: read-ahead would only waste work */
            if (is_cat)
                return cli_usage_error(sub, "unknown option '%s'", argv[optind - 1]);
            char *end;
            long t = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || t < 1 || t > 64)
                return cli_usage_error(sub, "-T wants a thread count from 1 to 64, not '%s'", optarg);
            threads = (int)t;
            break;
        }
        case 'L':
            if (!is_cat)
                return cli_usage_error(sub, "unknown option '--lines'");
            lines = optarg;
            break;
        case 'h':
            if (is_cat)
                printf("usage: logtk cat ARCHIVE --lines A-B [-o OUT]\n\n"
                       "Print lines A to B (1-based, inclusive; \"A-\" to the end, \"A\" one line)\n"
                       "of an archive, decoding only the blocks that hold them (found through the\n"
                       "index, or by reading from the start when the index is unusable).\n\n"
                       "Exit status: 0 success, 1 damaged or unreadable archive or A past the\n"
                       "last line, 2 usage error.\n");
            else
                printf("usage: logtk decompress [-T THREADS] [ARCHIVE] [-o OUT]\n\n"
                       "Restore the exact bytes stored in an archive (stdin when no ARCHIVE or \"-\").\n"
                       "Damaged blocks are reported with their line ranges; every intact block\n"
                       "is still written.  -T: blocks decoded in parallel (default 1; the output\n"
                       "is the same).\n\n"
                       "Exit status: 0 success, 1 damaged or unreadable archive, 2 usage error.\n");
            return EXIT_OK;
        case ':': return cli_usage_error(sub, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_unknown_option(sub, argv);
        }
    }
    if (argc - optind > 1)
        return cli_usage_error(sub, "one archive at a time");
    uint64_t a = 1, b = UINT64_MAX;
    if (is_cat) {
        if (!lines)
            return cli_usage_error(sub, "--lines A-B is required");
        if (parse_range(lines, &a, &b) != 0)
            return cli_usage_error(sub, "bad line range '%s' (want A-B, A- or A, from 1)", lines);
        if (argc - optind != 1)
            return cli_usage_error(sub, "which archive?");
    }
    const char *path = argc > optind ? argv[optind] : "-";
    if (cli_refuse_output_is_input(sub, "-o", out, argv + optind, (size_t)(argc - optind)) !=
        EXIT_OK)
        return EXIT_USAGE;
    logtk_archive_reader *r = NULL;
    logtk_archive_unpacker *u = NULL;
    cli_output o = {0};
    if (logtk_archive_unpacker_new(&u, threads) != LOGTK_OK) {
        cli_error(sub, "out of memory");
        return EXIT_DATA;
    }
    if (cli_archive_open(sub, path, &r) != 0) {
        logtk_archive_reader_free(r);
        logtk_archive_unpacker_free(u);
        return EXIT_DATA;
    }
    if (is_cat) {
        int rc = logtk_archive_reader_seek_line(r, a);
        if (rc != LOGTK_OK) {
            uint64_t total = 0, blocks, raw;
            if (rc != LOGTK_DONE)
                cli_error(sub, "%s", logtk_archive_reader_errmsg(r));
            else if (logtk_archive_reader_totals(r, &total, &blocks, &raw) == LOGTK_OK)
                cli_error(sub, "%s: line %llu is past the end (the archive has %llu lines)",
                          path, (unsigned long long)a, (unsigned long long)total);
            else
                cli_error(sub, "%s: line %llu is past the end", path, (unsigned long long)a);
            logtk_archive_reader_free(r);
            logtk_archive_unpacker_free(u);
            return EXIT_DATA;
        }
    }
    if (cli_output_open(sub, out, &o) != EXIT_OK) {
        logtk_archive_reader_free(r);
        logtk_archive_unpacker_free(u);
        return EXIT_DATA;
    }
    int status = EXIT_OK, fatal = 0;
    uint64_t seen_to = 0; /* cat: the last line of the archive seen so far (intact or named lost) */
    int lost_to_end = 0;  /* a loss named from some line to the end */
    logtk_archive_block blk;
    for (;;) {
        int rc = logtk_archive_unpacker_next(u, r, &blk);
        if (rc == LOGTK_DONE)
            break;
        if (rc == LOGTK_ERR_ARCHIVE) {
            /* cat: damage wholly before the range (met while scanning without an index) is not its business */
            if (is_cat && blk.nlines && blk.first_line + blk.nlines - 1 < a)
                continue;
            cli_error(sub, "%s", logtk_archive_unpacker_errmsg(u));
            status = EXIT_DATA;
            if (blk.nlines && blk.first_line + blk.nlines - 1 > seen_to)
                seen_to = blk.first_line + blk.nlines - 1;
            else if (!blk.nlines && blk.stored_bytes && blk.first_line - 1 > seen_to)
                seen_to = blk.first_line - 1; /* bytes passed over, no line lost */
            else if (!blk.nlines && !blk.stored_bytes)
                lost_to_end = 1; /* lines from first_line on lost: the range may lie in them */
            if (is_cat && blk.nlines && blk.first_line + blk.nlines - 1 >= b)
                break;
            continue;
        }
        if (rc != LOGTK_OK) {
            cli_error(sub, "%s", logtk_archive_unpacker_errmsg(u));
            status = EXIT_DATA;
            fatal = 1;
            break;
        }
        int wrc = is_cat ? write_range(&o, &blk, a, b) : output_write(&o, blk.text.ptr, blk.text.len);
        if (wrc != 0) {
            if (errno != EPIPE)
                cli_error(sub, "%s: %s", out ? out : "standard output", strerror(errno));
            status = EXIT_DATA;
            fatal = 1;
            break;
        }
        if (blk.first_line + blk.nlines - 1 > seen_to)
            seen_to = blk.first_line + blk.nlines - 1;
        if (is_cat && blk.first_line + blk.nlines - 1 >= b)
            break;
    }
    /* without an index cat scanned to the end: say so when the range lies past it */
    if (is_cat && !fatal && !lost_to_end && seen_to < a) {
        if (seen_to)
            cli_error(sub, "%s: line %llu is past the end (the archive has %llu lines)", path,
                      (unsigned long long)a, (unsigned long long)seen_to);
        else
            cli_error(sub, "%s: line %llu is past the end", path, (unsigned long long)a);
        status = EXIT_DATA;
    }
    /* intact blocks are delivered even when some were damaged */
    if (output_close(sub, out, &o, !fatal) != 0)
        status = EXIT_DATA;
    logtk_archive_unpacker_free(u);
    logtk_archive_reader_free(r);
    return status;
}

int cmd_decompress(int argc, char **argv)
{
    return decompress_like(argc, argv, "decompress", 0);
}

int cmd_cat(int argc, char **argv)
{
    return decompress_like(argc, argv, "cat", 1);
}

