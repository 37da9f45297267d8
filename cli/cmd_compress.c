/*
 * cmd_compress.c - `logtk compress`: raw input bytes (read with fread, not
 * the line reader, so binary files and lines of any length are stored
 * exactly) fed to an archive writer, which writes a temporary file next to
 * the target and renames it into place at the end, so an interrupted run
 * never replaces a good file.  `decompress`, `cat`, `info` and `grep` read
 * what it writes (cmd_decompress.c, cmd_info.c, cmd_grep.c).
 *
 * Exit status: 0 success, 1 bad data (unreadable input), 2 usage.
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

