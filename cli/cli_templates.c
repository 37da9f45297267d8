/*
 * cli_templates.c - the template list of `parse --templates` and
 * `merge --templates`: a parser's templates as output names them.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

/* The templates sink hands its rows here: they go to the caller's stream. */
static int write_to_stream(void *user, const void *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)user) == len ? 0 : -1;
}

int cli_templates_write(FILE *fp, const cli_template_set *s)
{
    /* the library's "templates" sink writes the list (header, escaping, key),
       so parse, merge and an embedder's list are one format */
    logtk_sink *sink = NULL;
    int rc = logtk_sink_new_callback(&sink, "templates", write_to_stream, fp, NULL);
    for (uint32_t id = 1; rc == LOGTK_OK && id <= s->n; id++)
        if (s->canonical[id] == id)
            rc = logtk_sink_write_template(sink, s->number[id], s->text[id], s->count[id]);
    if (rc == LOGTK_OK)
        rc = logtk_sink_close(sink);
    logtk_sink_free(sink);
    return rc == LOGTK_OK && !ferror(fp) ? 0 : -1;
}
