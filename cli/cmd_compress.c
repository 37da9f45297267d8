/*
 * cmd_compress.c - `logtk compress`, `decompress`, `info`, `grep` and `cat`.
 *
 * All five are thin loops over the archive API in logtk.h: compress feeds
 * raw input bytes (read with fread, not the line reader, so binary files and
 * lines of any length are stored exactly) to an archive writer; the others
 * walk the archive block by block, so memory stays at one block whatever the
 * archive size.  A damaged block is reported on stderr with its line range
 * and the walk goes on with the next intact block; the exit status then
 * says so.  Files named with -o are written to a temporary file next to the
 * target and renamed into place at the end (the archive writer does this
 * itself for compress), so an interrupted run never replaces a good file.
 *
 * Exit status: compress, decompress, info, cat: 0 success, 1 bad data
 * (unreadable input, damaged archive: intact blocks are still delivered),
 * 2 usage.  grep follows grep(1): 0 lines selected, 1 none, 2 usage error or
 * damaged/unreadable archive.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "compress_stream.h"

/* ------------------------------------------------------------------ output */

/* An output file written to a temporary name and renamed into place on
 * success: the library's atomic output (logtk_output), as parse uses, so a
 * symlink is followed (the link survives) and a device or FIFO is written
 * directly. */
typedef struct cli_out {
    FILE *fp;
    logtk_output *out;
} cli_out;

static int out_open(cli_out *o, const char *sub, const char *path)
{
    memset(o, 0, sizeof *o);
    if (logtk_output_open(&o->out, path) != LOGTK_OK) {
        cli_error(sub, "%s", logtk_output_errmsg(o->out));
        logtk_output_free(o->out);
        o->out = NULL;
        return -1;
    }
    o->fp = logtk_output_stream(o->out);
    return 0;
}

static int out_write(void *user, const void *data, size_t len)
{
    cli_out *o = user;
    return fwrite(data, 1, len, o->fp) == len ? 0 : -1;
}

/* Commits (ok) or discards the output.  Returns 0 or -1 (message printed;
 * not for a closed pipe, which ends the run quietly as it does for cat). */
static int out_close(cli_out *o, const char *sub, int ok)
{
    int rc = 0;
    if (!o->out)
        return 0;
    if (ok) {
        errno = 0;
        if (logtk_output_commit(o->out) != LOGTK_OK) {
            if (errno != EPIPE)
                cli_error(sub, "%s", logtk_output_errmsg(o->out));
            rc = -1;
        }
    }
    logtk_output_free(o->out); /* not committed: the temporary file is removed */
    memset(o, 0, sizeof *o);
    return rc;
}

/* ---------------------------------------------------------------- compress */

static void compress_usage(FILE *out)
{
    fprintf(out,
            "usage: logtk compress [--dataset NAME | --format FMT] [-l LEVEL] [-T THREADS]\n"
            "                      [-o OUT] [FILE...]\n"
            "\n"
            "Compress logs into a lossless, searchable archive (see logtk-archive(5)).\n"
            "The FILEs are stored one after another, byte for byte; no FILE or \"-\"\n"
            "reads stdin.  Without -o the archive goes to stdout (not to a terminal).\n"
            "\n"
            "  -l, --level N       zstd level of the column streams, -7..22 (default %d)\n"
            "  -T, --threads N     blocks compressed in parallel (default 1; output identical)\n"
            "  --block-lines N     lines per block (default 65536)\n"
            "  --block-bytes N     bytes per block (default 8388608)\n"
            "  --dataset NAME      Loghub preset: its log format places the header fields\n"
            "  --format FMT        log format (Loghub notation): the fields before <Content>\n"
            "                      are stored as header columns; any line, matching or not,\n"
            "                      comes back exactly\n"
            "  -o, --out FILE      write the archive to FILE (temporary file, then rename)\n"
            "  --append            append to the archive FILE (created when missing), block\n"
            "                      by block, each synced: a crash loses only the block in\n"
            "                      memory; a torn end left by a killed run is cut first\n"
            "  --flush-interval S  with --append: close and commit a block once its oldest\n"
            "                      line is S seconds old (default 5; 0: only full blocks)\n"
            "  --confirm           with --append: rsyslog omprog confirmMessages: \"OK\" on\n"
            "                      stdout when ready, then per line once it is on disk\n"
            "  -q, --quiet         no progress on stderr\n"
            "  -h, --help          this help\n"
            "\n"
            "SIGTERM/SIGINT: the lines read are committed, exit 0.  SIGHUP: with --append\n"
            "the archive is closed and FILE reopened (log rotation); see logtk-shippers(7).\n"
            "Exit status: 0 success, 1 bad data (unreadable input), 2 usage error.\n",
            LOGTK_ARCHIVE_DEFAULT_LEVEL);
}

int cmd_compress(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"level", required_argument, NULL, 'l'},   {"threads", required_argument, NULL, 'T'},
        {"out", required_argument, NULL, 'o'},     {"dataset", required_argument, NULL, 'D'},
        {"format", required_argument, NULL, 'F'},  {"block-lines", required_argument, NULL, 'B'},
        {"block-bytes", required_argument, NULL, 'b'}, {"quiet", no_argument, NULL, 'q'},
        {"append", no_argument, NULL, 'A'},       {"flush-interval", required_argument, NULL, 'I'},
        {"confirm", no_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    const char *sub = "compress";
    const char *level = NULL, *threads = NULL, *out = NULL, *dataset = NULL, *format = NULL;
    const char *block_lines = NULL, *block_bytes = NULL;
    int quiet = 0, c, append = 0, confirm = 0;
    const char *flush_interval = NULL;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":l:T:o:qh", long_options, NULL)) != -1) {
        switch (c) {
        case 'l': level = optarg; break;
        case 'T': threads = optarg; break;
        case 'o': out = optarg; break;
        case 'D': dataset = optarg; break;
        case 'F': format = optarg; break;
        case 'B': block_lines = optarg; break;
        case 'b': block_bytes = optarg; break;
        case 'q': quiet = 1; break;
        case 'A': append = 1; break;
        case 'I': flush_interval = optarg; break;
        case 'C': confirm = 1; break;
        case 'h': compress_usage(stdout); return EXIT_OK;
        case ':': return cli_usage_error(sub, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_unknown_option(sub, argv);
        }
    }
    if (dataset && format)
        return cli_usage_error(sub, "--dataset and --format exclude each other");
    if (dataset && !logtk_dataset_find(dataset))
        return cli_usage_error(sub, "unknown dataset '%s'", dataset);
    if (dataset)
        format = logtk_dataset_format(logtk_dataset_find(dataset));
    double interval = append ? 5 : 0;
    if (flush_interval) {
        char *end;
        errno = 0;
        interval = strtod(flush_interval, &end);
        if (end == flush_interval || *end || errno || !(interval >= 0 && interval <= 86400))
            return cli_usage_error(sub, "--flush-interval wants seconds from 0 to 86400, not '%s'",
                                   flush_interval);
    }
    if ((flush_interval || confirm) && !append)
        return cli_usage_error(sub, "%s needs --append (blocks are committed to the archive "
                                    "as they are written only when appending)",
                               confirm ? "--confirm" : "--flush-interval");
    if (append && (!out || strcmp(out, "-") == 0))
        return cli_usage_error(sub, "--append needs -o FILE");
    if ((!out || strcmp(out, "-") == 0) && isatty(STDOUT_FILENO))
        return cli_usage_error(sub, "refusing to write an archive to a terminal; use -o FILE");

    if (cli_refuse_output_is_input(sub, "-o", out, argv + optind, (size_t)(argc - optind)) !=
        EXIT_OK)
        return EXIT_USAGE;

    logtk_archive_writer *w = NULL;
    if (logtk_archive_writer_new(&w) != LOGTK_OK) {
        cli_error(sub, "out of memory");
        return EXIT_DATA;
    }
    const char *names[] = {"level", "threads", "block_lines", "block_bytes", "format"};
    const char *values[] = {level, threads, block_lines, block_bytes, format};
    for (int i = 0; i < 5; i++)
        if (values[i] && logtk_archive_writer_set_option(w, names[i], values[i]) != LOGTK_OK) {
            int r = cli_usage_error(sub, "%s", logtk_archive_writer_errmsg(w));
            logtk_archive_writer_free(w);
            return r;
        }
    /* a shipper's child: SIGTERM finishes the block in hand, SIGHUP rotates */
    int reads_stdin = argc == optind;
    for (int i = optind; i < argc; i++)
        reads_stdin |= strcmp(argv[i], "-") == 0;
    cli_signals_graceful(reads_stdin);
    if (confirm)
        signal(SIGPIPE, SIG_IGN); /* a shipper gone away: EPIPE on the confirmations */
    compress_stream_opts so = {out, append, interval, confirm, quiet};
    int status = compress_stream_run(w, &so, argv + optind, argc - optind);
    logtk_archive_writer_free(w); /* removes the temporary file after a failure */
    return status;
}

/* ------------------------------------------------- decompress, cat, info */

static int open_archive(const char *sub, const char *path, logtk_archive_reader **r)
{
    if (logtk_archive_reader_new(r) != LOGTK_OK) {
        cli_error(sub, "out of memory");
        return -1;
    }
    if (logtk_archive_reader_open_path(*r, path) != LOGTK_OK) {
        cli_error(sub, "%s", logtk_archive_reader_errmsg(*r));
        return -1;
    }
    return 0;
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
static int write_range(cli_out *o, const logtk_archive_block *blk, uint64_t a, uint64_t b)
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
    return out_write(o, start, (size_t)(p - start));
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
    cli_out o;
    if (logtk_archive_unpacker_new(&u, threads) != LOGTK_OK) {
        cli_error(sub, "out of memory");
        return EXIT_DATA;
    }
    if (open_archive(sub, path, &r) != 0) {
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
    if (out_open(&o, sub, out) != 0) {
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
        int wrc = is_cat ? write_range(&o, &blk, a, b) : out_write(&o, blk.text.ptr, blk.text.len);
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
    if (out_close(&o, sub, !fatal) != 0)
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

int cmd_info(int argc, char **argv)
{
    const char *sub = "info";
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: logtk info ARCHIVE\n\n"
               "Print an archive's blocks, lines, templates, sizes and the bytes of each\n"
               "column stream before and after zstd, as TSV (key, value).\n\n"
               "Exit status: 0 success, 1 damaged or unreadable archive, 2 usage error.\n");
        return EXIT_OK;
    }
    if (argc != 2 || (argv[1][0] == '-' && argv[1][1] != '\0')) /* "-" is stdin */
        return cli_usage_error(sub, argc != 2 ? "give one archive" : "unknown option '%s'", argv[1]);
    logtk_archive_reader *r = NULL;
    if (open_archive(sub, argv[1], &r) != 0) {
        logtk_archive_reader_free(r);
        return EXIT_DATA;
    }
    int status = EXIT_OK;
    uint64_t blocks = 0, lines = 0, raw = 0, stored = 0, templates = 0, damaged = 0;
    logtk_archive_block blk;
    for (;;) {
        int rc = logtk_archive_reader_next(r, &blk);
        if (rc == LOGTK_DONE)
            break;
        if (rc == LOGTK_ERR_ARCHIVE) {
            cli_error(sub, "%s", logtk_archive_reader_errmsg(r));
            status = EXIT_DATA;
            damaged++;
            continue;
        }
        if (rc != LOGTK_OK) {
            cli_error(sub, "%s", logtk_archive_reader_errmsg(r));
            status = EXIT_DATA;
            break;
        }
        blocks++;
        lines += blk.nlines;
        raw += blk.raw_bytes;
        stored += blk.stored_bytes;
        templates += blk.templates;
    }
    struct stat st;
    uint64_t file_bytes = stat(argv[1], &st) == 0 ? (uint64_t)st.st_size : 0;
    printf("key\tvalue\n");
    printf("blocks\t%llu\n", (unsigned long long)blocks);
    printf("damaged_blocks\t%llu\n", (unsigned long long)damaged);
    printf("lines\t%llu\n", (unsigned long long)lines);
    printf("templates\t%llu\n", (unsigned long long)templates);
    printf("raw_bytes\t%llu\n", (unsigned long long)raw);
    printf("archive_bytes\t%llu\n", (unsigned long long)file_bytes);
    printf("block_bytes\t%llu\n", (unsigned long long)stored);
    printf("ratio\t%.3f\n", file_bytes ? (double)raw / (double)file_bytes : 0.0);
    for (int i = 0;; i++) {
        const char *name;
        uint64_t sraw, sstored;
        if (logtk_archive_reader_stream_stats(r, i, &name, &sraw, &sstored) != LOGTK_OK)
            break;
        printf("column.%s.raw_bytes\t%llu\n", name, (unsigned long long)sraw);
        printf("column.%s.stored_bytes\t%llu\n", name, (unsigned long long)sstored);
    }
    logtk_archive_reader_free(r);
    return status;
}

/* -------------------------------------------------------------------- grep */

typedef struct grep_out {
    const char *prefix; /* "ARCHIVE:" when several archives, else NULL */
} grep_out;

static int grep_write(void *user, const void *data, size_t len)
{
    grep_out *g = user;
    if (g->prefix && fputs(g->prefix, stdout) == EOF)
        return -1;
    return fwrite(data, 1, len, stdout) == len ? 0 : -1;
}

int cmd_grep(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"fixed-strings", no_argument, NULL, 'F'}, {"extended-regexp", no_argument, NULL, 'E'},
        {"ignore-case", no_argument, NULL, 'i'},   {"invert-match", no_argument, NULL, 'v'},
        {"count", no_argument, NULL, 'c'},         {"threads", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    const char *sub = "grep";
    int flags = 0, count_only = 0, c;
    /* default: the online CPUs, at most 4 (output is the same with any count) */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = ncpu < 1 ? 1 : ncpu > 4 ? 4 : (int)ncpu;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":FEivcT:h", long_options, NULL)) != -1) {
        switch (c) {
        case 'F': flags |= LOGTK_GREP_FIXED; break;
        case 'E': flags &= ~LOGTK_GREP_FIXED; break;
        case 'i': flags |= LOGTK_GREP_ICASE; break;
        case 'v': flags |= LOGTK_GREP_INVERT; break;
        case 'c': count_only = 1; break;
        case 'T': {
            char *end;
            long t = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || t < 1 || t > 16)
                return cli_usage_error(sub, "-T wants a thread count from 1 to 16, not '%s'", optarg);
            threads = (int)t;
            break;
        }
        case 'h':
            printf("usage: logtk grep [-F|-E] [-i] [-v] [-c] [-T THREADS] PATTERN ARCHIVE...\n\n"
                   "Print the lines of archives that match PATTERN, as `logtk decompress\n"
                   "ARCHIVE | grep` with the same options would.  -E (default): PCRE2 regular\n"
                   "expression; -F: fixed string; -i: ignore case; -v: non-matching lines;\n"
                   "-c: print the count only.  With several archives each line (or count)\n"
                   "is prefixed with \"ARCHIVE:\".  Lines of templates that cannot hold the\n"
                   "fixed string (or the literal text an -E match needs) are skipped.\n"
                   "-T: blocks searched in parallel (default: online CPUs, at most 4).\n\n"
                   "Exit status (as grep): 0 lines selected, 1 none selected, 2 usage error,\n"
                   "bad pattern, or damaged/unreadable archive (intact blocks are still searched).\n");
            return EXIT_OK;
        case ':': return cli_usage_error(sub, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_unknown_option(sub, argv);
        }
    }
    if (argc - optind < 2)
        return cli_usage_error(sub, "need PATTERN and at least one ARCHIVE");
    const char *pattern = argv[optind++];
    logtk_grep *g = NULL;
    if (logtk_grep_new(&g, pattern, flags) != LOGTK_OK) {
        int r = cli_usage_error(sub, "%s", logtk_grep_errmsg(g));
        logtk_grep_free(g);
        return r;
    }
    logtk_grep_set_threads(g, threads);
    int nfiles = argc - optind, error = 0;
    uint64_t total = 0;
    for (int i = optind; i < argc; i++) {
        logtk_archive_reader *r = NULL;
        if (open_archive(sub, argv[i], &r) != 0) {
            logtk_archive_reader_free(r);
            error = 1;
            continue;
        }
        char *prefix = NULL;
        if (nfiles > 1) {
            prefix = malloc(strlen(argv[i]) + 2);
            if (prefix)
                sprintf(prefix, "%s:", argv[i]);
        }
        grep_out go = {prefix};
        uint64_t count = 0;
        logtk_archive_block blk;
        for (;;) {
            int rc = logtk_grep_next_block(g, r, &blk, count_only ? NULL : grep_write, &go, &count);
            if (rc == LOGTK_DONE)
                break;
            if (rc == LOGTK_ERR_ARCHIVE) {
                cli_error(sub, "%s", logtk_grep_errmsg(g));
                error = 1;
                continue;
            }
            if (rc != LOGTK_OK) {
                if (!(rc == LOGTK_ERR_IO && errno == EPIPE))
                    cli_error(sub, "%s", logtk_grep_errmsg(g));
                error = 1;
                break;
            }
        }
        if (count_only) {
            if (prefix)
                printf("%s%llu\n", prefix, (unsigned long long)count);
            else
                printf("%llu\n", (unsigned long long)count);
        }
        total += count;
        free(prefix);
        logtk_archive_reader_free(r);
    }
    logtk_grep_free(g);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (errno != EPIPE)
            cli_error(sub, "standard output: %s", strerror(errno ? errno : EIO));
        error = 1;
    }
    if (error)
        return 2;
    return total > 0 ? 0 : 1;
}
