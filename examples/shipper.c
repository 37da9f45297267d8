/*
 * shipper.c - the smallest log shipper built on liblogtk: lines from standard
 * input, parsed as they come, written to standard output as JSON Lines.
 *
 *     shipper [--dataset NAME | --format FORMAT] [--parser NAME] [--mask [NAME=]RE]...
 *
 * Each row is what `logtk parse --stream --output jsonl` writes for the line
 * (the template as it is when the line is parsed): LineId, the format's
 * header fields, Content, EventId, EventTemplate, ParameterList.  The JSON
 * comes from the library's jsonl sink through a callback (no JSON escaper
 * here), and the parser reports the template text in each event, so the
 * program makes no other call per line.  A shipper that sends rows to a
 * socket or a queue changes only write_out().
 *
 * Build against an installed liblogtk:
 *     cc shipper.c $(pkg-config --cflags --libs logtk) -o shipper
 *     cc shipper.c $(pkg-config --static --cflags --libs logtk) -static -o shipper
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logtk.h>

#if LOGTK_VERSION_NUMBER < 100
#error "this example needs liblogtk 0.1.0 or later"
#endif

/* Where the rows go: here standard output, a whole row per call. */
static int write_out(void *user, const void *data, size_t len)
{
    (void)user;
    return fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : -1;
}

static int usage(void)
{
    fprintf(stderr, "usage: shipper [--dataset NAME | --format FORMAT] [--parser NAME] "
                    "[--mask [NAME=]RE]...\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *dataset = NULL, *format_spec = NULL, *algorithm = NULL;
    const char *masks[64];
    size_t nmasks = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            return usage();
        if (strcmp(argv[i], "--dataset") == 0)
            dataset = argv[++i];
        else if (strcmp(argv[i], "--format") == 0)
            format_spec = argv[++i];
        else if (strcmp(argv[i], "--parser") == 0)
            algorithm = argv[++i];
        else if (strcmp(argv[i], "--mask") == 0 && nmasks < 64)
            masks[nmasks++] = argv[++i];
        else
            return usage();
    }
    const logtk_dataset *preset = dataset ? logtk_dataset_find(dataset) : NULL;
    if (dataset && preset == NULL) {
        fprintf(stderr, "shipper: unknown dataset %s\n", dataset);
        return 2;
    }
    if (preset && format_spec == NULL)
        format_spec = logtk_dataset_format(preset);

    logtk_reader *reader = NULL;
    logtk_format *format = NULL;
    logtk_parser *parser = NULL;
    logtk_sink *sink = NULL;
    int status = 1;
    if (logtk_reader_new(&reader) != LOGTK_OK || logtk_format_new(&format) != LOGTK_OK) {
        fprintf(stderr, "shipper: out of memory\n");
        goto out;
    }
    if (format_spec && logtk_format_compile(format, format_spec) != LOGTK_OK) {
        fprintf(stderr, "shipper: %s\n", logtk_format_errmsg(format));
        goto out;
    }
    if (logtk_parser_new(&parser, algorithm) != LOGTK_OK) {
        fprintf(stderr, "shipper: unknown parser %s\n", algorithm ? algorithm : "(default)");
        goto out;
    }
    if (preset && logtk_dataset_configure(preset, parser) != LOGTK_OK) {
        fprintf(stderr, "shipper: %s\n", logtk_parser_errmsg(parser));
        goto out;
    }
    for (size_t i = 0; i < nmasks; i++) {
        /* NAME=RE names the parameters the mask makes, as `logtk parse --mask` */
        const char *eq = strchr(masks[i], '=');
        size_t n = eq ? strspn(masks[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") : 0;
        char name[65] = "";
        if (eq && n == (size_t)(eq - masks[i]) && n > 0 && n < sizeof name &&
            masks[i][0] >= 'A' && masks[i][0] <= 'Z')
            memcpy(name, masks[i], n);
        else
            n = 0;
        if (logtk_parser_add_named_mask(parser, name, masks[i] + (n ? n + 1 : 0), NULL) !=
            LOGTK_OK) {
            fprintf(stderr, "shipper: %s\n", logtk_parser_errmsg(parser));
            goto out;
        }
    }
    if (logtk_reader_open_path(reader, "-") != LOGTK_OK ||
        logtk_sink_new_callback(&sink, "jsonl", write_out, NULL, format) != LOGTK_OK) {
        fprintf(stderr, "shipper: %s\n",
                sink ? logtk_sink_errmsg(sink) : logtk_reader_errmsg(reader));
        goto out;
    }

    logtk_line line;
    logtk_record record;
    logtk_event event;
    uint64_t line_id = 0;
    int rc;
    while ((rc = logtk_reader_next(reader, &line)) == LOGTK_OK) {
        logtk_format_match(format, line.data, line.len, &record);
        rc = logtk_parser_feed(parser, record.content.ptr, record.content.len, &event);
        if (rc != LOGTK_OK && rc != LOGTK_ERR_LIMIT) {
            fprintf(stderr, "shipper: line %llu: %s\n", (unsigned long long)line.number,
                    logtk_parser_errmsg(parser));
            goto out;
        }
        logtk_row row = {++line_id, &record, event.template_id, event.template_text,
                         event.nparams, event.params};
        if (logtk_sink_write(sink, &row) != LOGTK_OK) {
            fprintf(stderr, "shipper: %s\n", logtk_sink_errmsg(sink));
            goto out;
        }
    }
    if (rc != LOGTK_DONE) {
        fprintf(stderr, "shipper: %s\n", logtk_reader_errmsg(reader));
        goto out;
    }
    if (logtk_sink_close(sink) != LOGTK_OK) {
        fprintf(stderr, "shipper: %s\n", logtk_sink_errmsg(sink));
        goto out;
    }
    status = 0;
out:
    logtk_sink_free(sink);
    logtk_parser_free(parser);
    logtk_format_free(format);
    logtk_reader_free(reader);
    return status;
}
