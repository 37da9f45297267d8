/*
 * cmd_merge.c - `logtk merge`: one parser state from the saved states of
 * several shards, and the template list writer shared with `logtk parse`.
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

/*
 * Template sets.  An online parser may merge two templates by making their
 * texts equal (fuse redirects the later id to the first); both ids stay
 * valid, and lines assigned before the merge keep the later one.  Users
 * group rows by EventId, so output names every template by the lowest id
 * with the same text (its content key groups them the same way), and the
 * list has one row per distinct text with the lines of all its ids.
 */
static const cli_template_set *sort_set; /* qsort has no user pointer */

static int by_text_then_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const cli_template_set *s = sort_set;
    if (s->key[x] != s->key[y])
        return s->key[x] < s->key[y] ? -1 : 1;
    size_t n = s->text[x].len < s->text[y].len ? s->text[x].len : s->text[y].len;
    int c = n ? memcmp(s->text[x].ptr, s->text[y].ptr, n) : 0;
    if (c == 0 && s->text[x].len != s->text[y].len)
        c = s->text[x].len < s->text[y].len ? -1 : 1;
    return c ? c : x < y ? -1 : x > y;
}

int cli_template_set_build(cli_template_set *s, logtk_parser *p)
{
    memset(s, 0, sizeof *s);
    uint32_t n = logtk_parser_template_count(p);
    size_t total = 0;
    for (uint32_t id = 1; id <= n; id++) {
        logtk_slice t;
        if (logtk_parser_template(p, id, &t, NULL) != LOGTK_OK)
            return -1;
        total += t.len;
    }
    s->text = calloc((size_t)n + 1, sizeof *s->text);
    s->key = calloc((size_t)n + 1, sizeof *s->key);
    s->count = calloc((size_t)n + 1, sizeof *s->count);
    s->canonical = calloc((size_t)n + 1, sizeof *s->canonical);
    s->number = calloc((size_t)n + 1, sizeof *s->number);
    s->bytes = malloc(total + 1);
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    if (!s->text || !s->key || !s->count || !s->canonical || !s->number || !s->bytes ||
        !order) {
        free(order);
        cli_template_set_free(s);
        return -1;
    }
    size_t off = 0;
    for (uint32_t id = 1; id <= n; id++) {
        logtk_slice t;
        uint64_t count;
        if (logtk_parser_template(p, id, &t, &count) != LOGTK_OK || off + t.len > total ||
            logtk_parser_template_key(p, id, &s->key[id]) != LOGTK_OK) {
            free(order);
            cli_template_set_free(s);
            return -1;
        }
        memcpy(s->bytes + off, t.ptr, t.len);
        s->text[id].ptr = s->bytes + off;
        s->text[id].len = t.len;
        off += t.len;
        s->count[id] = count;
        order[id - 1] = id;
    }
    s->n = n;
    sort_set = s;
    qsort(order, n, sizeof *order, by_text_then_id);
    sort_set = NULL;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = order[i], first = id;
        if (i > 0) {
            uint32_t prev = order[i - 1];
            if (s->key[prev] == s->key[id] && s->text[prev].len == s->text[id].len &&
                memcmp(s->text[prev].ptr, s->text[id].ptr, s->text[id].len) == 0)
                first = s->canonical[prev];
        }
        s->canonical[id] = first;
        if (first != id) {
            s->count[first] += s->count[id];
            s->count[id] = 0;
        }
    }
    free(order);
    /*
     * Output numbers the canonical templates 1, 2, ... in id order.  The ids
     * an online parser merged away leave gaps that depend on the order the
     * lines came in (a template created, then merged, by one line); a run
     * over shards (logtk_parser_merge(), logtk.dask) cannot know them, but
     * it knows the canonical templates and their order, which for an online
     * parser is the order of their first lines.  So one process and shards
     * print the same EventIds.
     */
    uint32_t next = 0;
    for (uint32_t id = 1; id <= n; id++)
        s->number[id] = s->canonical[id] == id ? ++next : s->number[s->canonical[id]];
    return 0;
}

void cli_template_set_free(cli_template_set *s)
{
    free(s->text);
    free(s->key);
    free(s->count);
    free(s->canonical);
    free(s->number);
    free(s->bytes);
    memset(s, 0, sizeof *s);
}

int cli_templates_write(FILE *fp, const cli_template_set *s)
{
    if (fputs("EventId\tEventTemplate\tOccurrences\tEventKey\n", fp) == EOF)
        return -1;
    for (uint32_t id = 1; id <= s->n; id++) {
        if (s->canonical[id] != id)
            continue;
        if (fprintf(fp, "E%lu\t", (unsigned long)s->number[id]) < 0 ||
            logtk_tsv_write_field(fp, s->text[id].ptr, s->text[id].len) != LOGTK_OK ||
            fprintf(fp, "\t%llu\t%016llx\n", (unsigned long long)s->count[id],
                    (unsigned long long)s->key[id]) < 0)
            return -1;
    }
    return ferror(fp) ? -1 : 0;
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
