/*
 * cmd_grep.c - `logtk grep`: the lines of archives that match a pattern,
 * found by the library's archive search (logtk.h), which skips the blocks
 * and templates that cannot match.
 *
 * Exit status as grep(1): 0 lines selected, 1 none, 2 usage error or
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
        if (cli_archive_open(sub, argv[i], &r) != 0) {
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
