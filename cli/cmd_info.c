/*
 * cmd_info.c - `logtk info`: an archive's blocks, lines, templates, sizes
 * and the bytes of each column stream before and after zstd, as TSV.  It
 * walks the archive block by block (memory: one block); a damaged block is
 * counted and reported and the walk goes on.
 *
 * Exit status: 0 success, 1 damaged or unreadable archive, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static void info_usage(FILE *out)
{
    fprintf(out, "usage: logtk info ARCHIVE\n\n"
                 "Print an archive's blocks, lines, templates, sizes and the bytes of each\n"
                 "column stream before and after zstd, as TSV (key, value).\n\n"
                 "  -h, --help   show this help\n\n"
                 "Exit status: 0 success, 1 damaged or unreadable archive, 2 usage error.\n");
}

static const struct option info_options[] = {
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int cmd_info(int argc, char **argv)
{
    const char *sub = "info";
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", info_options, NULL)) != -1) {
        if (c != 'h')
            return cli_unknown_option(sub, argv);
        info_usage(stdout);
        return EXIT_OK;
    }
    if (argc - optind != 1)
        return cli_usage_error(sub, "give one archive");
    const char *path = argv[optind];
    logtk_archive_reader *r = NULL;
    if (cli_archive_open(sub, path, &r) != 0) {
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
    uint64_t file_bytes = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
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

