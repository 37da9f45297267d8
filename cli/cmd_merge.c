/*
 * cmd_merge.c - `logtk merge`: one parser state from the saved states of
 * several shards.
 *
 * Why a subcommand of its own rather than `logtk parse --merge-state`: a
 * merge reads no logs, so none of parse's input, format or row options
 * would apply; its inputs are state files and its outputs a state and a
 * template list.  Sharding is the usual way to parse more logs than one
 * core can (one `logtk parse --save-state` per day, host or file), and the
 * merged state is what later runs continue from (`--load-state`).
 *
 * The work is logtk_parser_merge() (see logtk.h): templates united by
 * content, counts summed, folded through a fresh parser of the same setup,
 * independent of the order of the files.  Both outputs are written to
 * temporary files and renamed into place only when both were written, so a
 * failed merge never replaces a good state.
 *
 * Exit status: 0 success; 1 bad data (a state file unreadable, damaged,
 * foreign, or made with another parser, parameter or mask; an output not
 * writable); 2 usage.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define SUB "merge"

static void merge_usage(FILE *out)
{
    fprintf(out,
            "usage: logtk merge [options] STATE...\n"
            "\n"
            "Merge parser states saved by 'logtk parse --save-state' on shards of a log into\n"
            "one state: templates united by content, line counts summed, and templates the\n"
            "parser would group folded together.  The result does not depend on the order\n"
            "of the STATE files; 'logtk parse --load-state' continues from it.  All states\n"
            "must come from the same parser with the same parameters and masks.\n"
            "\n"
            "options:\n"
            "  -o, --out FILE        write the merged state to FILE\n"
            "  --templates FILE      write the merged template list (EventId, EventTemplate,\n"
            "                        Occurrences, EventKey); - is stdout\n"
            "  -q, --quiet           no summary on stderr\n"
            "  -h, --help            show this help\n"
            "At least one of -o and --templates is needed.\n"
            "\n"
            "Exit status: 0 success, 1 bad data, 2 usage error.  See logtk-merge(1).\n");
}

static const struct option long_options[] = {
    {"out", required_argument, NULL, 'o'},
    {"templates", required_argument, NULL, 't'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Reads every state file; returns EXIT_OK or EXIT_DATA (message printed). */
static int read_states(char **paths, size_t n, char **bufs, size_t *lens)
{
    for (size_t i = 0; i < n; i++)
        if (cli_read_file_magic(SUB, paths[i], LOGTK_PARSER_SNAPSHOT_MAGIC, "logtk parser snapshot",
                                &bufs[i], &lens[i]) != EXIT_OK)
            return EXIT_DATA;
    return EXIT_OK;
}

/* Writes the merged state and/or template list, committing both only when both were written. */
static int write_outputs(logtk_parser *merged, const char *state_path, const char *templates_path)
{
    cli_output state = {0}, list = {0};
    void *snap = NULL;
    size_t len = 0;
    int status = EXIT_OK;
    if (state_path) {
        if (logtk_parser_save(merged, &snap, &len) != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_parser_errmsg(merged));
            return EXIT_DATA;
        }
        status = cli_output_open(SUB, state_path, &state);
        if (status == EXIT_OK && len && fwrite(snap, 1, len, state.fp) != len) {
            cli_error(SUB, "%s: write error", state_path);
            status = EXIT_DATA;
        }
    }
    if (status == EXIT_OK && templates_path) {
        cli_template_set set;
        if (cli_template_set_build(&set, merged) != 0) {
            cli_error(SUB, "out of memory");
            status = EXIT_DATA;
        }
        if (status == EXIT_OK)
            status = cli_output_open(SUB, templates_path, &list);
        if (status == EXIT_OK && cli_templates_write(list.fp, &set) != 0) {
            cli_error(SUB, "%s: write error", strcmp(templates_path, "-") ? templates_path
                                                                          : "standard output");
            status = EXIT_DATA;
        }
        cli_template_set_free(&set);
    }
    /* flush and sync both before renaming either (a full disk shows at flush) */
    if (status == EXIT_OK && state_path && logtk_output_prepare(state.out) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_output_errmsg(state.out));
        status = EXIT_DATA;
    }
    if (status == EXIT_OK && templates_path && logtk_output_prepare(list.out) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_output_errmsg(list.out));
        status = EXIT_DATA;
    }
    int keep = status == EXIT_OK;
    if (state_path && cli_output_close(SUB, state_path, &state, keep) != EXIT_OK)
        status = EXIT_DATA, keep = 0;
    if (templates_path && cli_output_close(SUB, templates_path, &list, keep) != EXIT_OK)
        status = EXIT_DATA;
    logtk_free(snap);
    return status;
}

int cmd_merge(int argc, char **argv)
{
    const char *state_path = NULL, *templates_path = NULL;
    int quiet = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        switch (c) {
        case 'o': state_path = optarg; break;
        case 't': templates_path = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': merge_usage(stdout); return EXIT_OK;
        case ':': return cli_usage_error(SUB, "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                return cli_usage_error(SUB, "unknown option '-%c'", optopt);
            return cli_usage_error(SUB, "unknown option '%s'", argv[optind - 1]);
        }
    }
    size_t n = (size_t)(argc - optind);
    if (n == 0)
        return cli_usage_error(SUB, "no state files to merge");
    if (state_path == NULL && templates_path == NULL)
        return cli_usage_error(SUB, "nothing to write: give -o FILE and/or --templates FILE");
    if (state_path && strcmp(state_path, "-") == 0 && isatty(STDOUT_FILENO))
        return cli_usage_error(SUB, "the merged state is binary; write it to a file with -o FILE");
    if (state_path && templates_path && strcmp(state_path, "-") == 0 &&
        strcmp(templates_path, "-") == 0)
        return cli_usage_error(SUB, "-o - and --templates - cannot both go to stdout");
    size_t stdin_count = 0;
    for (size_t i = 0; i < n; i++)
        stdin_count += strcmp(argv[optind + i], "-") == 0;
    if (stdin_count > 1)
        return cli_usage_error(SUB, "standard input ('-') can be read only once");

    char **bufs = calloc(n, sizeof *bufs);
    size_t *lens = calloc(n, sizeof *lens);
    logtk_parser *merged = NULL;
    int status = EXIT_DATA;
    if (bufs == NULL || lens == NULL) {
        cli_error(SUB, "out of memory");
        goto done;
    }
    if (read_states(argv + optind, n, bufs, lens) != EXIT_OK)
        goto done;
    int rc = logtk_parser_merge(&merged, n, (const void *const *)bufs, lens,
                                (const char *const *)(argv + optind));
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s", merged ? logtk_parser_errmsg(merged) : logtk_strerror(rc));
        goto done;
    }
    status = write_outputs(merged, state_path, templates_path);
    if (status == EXIT_OK && !quiet && isatty(STDERR_FILENO))
        fprintf(stderr, "logtk merge: %zu states, %llu lines, %lu templates\n", n,
                (unsigned long long)logtk_parser_line_count(merged),
                (unsigned long)logtk_parser_template_count(merged));
done:
    for (size_t i = 0; bufs && i < n; i++)
        free(bufs[i]);
    free(bufs);
    free(lens);
    logtk_parser_free(merged);
    return status;
}
