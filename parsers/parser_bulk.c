/*
 * parser_bulk.c - whole inputs through a parser in one call, for bindings.
 *
 * A language binding (python/logtk) that called logtk_reader_next(),
 * logtk_format_match() and logtk_parser_feed() once per line would spend
 * more time crossing the language boundary than parsing: a ctypes call costs
 * about a microsecond, and fuse parses a line in a third of that.  These
 * calls keep the per-line loop in C and hand back one array of template
 * ids (or write the rows) per call, so the binding pays its overhead once
 * per block of lines.
 *
 * The loop is the one `logtk parse` runs (cli_feed.c): each line of the
 * reader split by the format, a line the format does not match kept whole as
 * content, regex match limits not fatal (the line is kept unmatched or
 * unmasked).  Nothing is allocated per line; rows reuse one parameter array.
 */
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "parser_state.h"

/* The content of one line: the format's Content field, or the whole line. */
static logtk_slice line_content(logtk_format *f, const logtk_line *line, logtk_record *rec)
{
    if (f == NULL) {
        rec->matched = 0;
        rec->nfields = 0;
        rec->content.ptr = line->data;
        rec->content.len = line->len;
        return rec->content;
    }
    /* LOGTK_ERR_LIMIT leaves the record filled as unmatched: the line is kept */
    logtk_format_match(f, line->data, line->len, rec);
    return rec->content;
}

/* One loop for both calls: learn (feed) or only classify (match). */
static int run_reader(logtk_parser *p, logtk_format *f, logtk_reader *r, size_t max_lines,
                      uint32_t *ids, size_t *nlines, int learn)
{
    logtk_line line;
    logtk_record rec;
    logtk_event ev;
    size_t n = 0;
    int rc = LOGTK_OK;
    if (nlines)
        *nlines = 0;
    if (p == NULL || r == NULL)
        return LOGTK_ERR_INVALID;
    while (n < max_lines) {
        rc = logtk_reader_next(r, &line);
        if (rc != LOGTK_OK)
            break;
        logtk_slice content = line_content(f, &line, &rec);
        if (learn) {
            rc = logtk_parser_feed(p, content.ptr, content.len, &ev);
        } else {
            /* the id alone: no event to fill */
            rc = ltk_parser_match_id(p, content.ptr, content.len, &ev.template_id);
            if (rc == LOGTK_ERR_NOT_FOUND)
                rc = LOGTK_OK; /* no template matches: id 0, not an error */
        }
        if (rc != LOGTK_OK && rc != LOGTK_ERR_LIMIT)
            break; /* out of memory or a bad argument: the line was not used */
        if (ids)
            ids[n] = ev.template_id;
        n++;
        rc = LOGTK_OK;
    }
    if (nlines)
        *nlines = n;
    return rc;
}

int logtk_parser_feed_reader(logtk_parser *p, logtk_format *f, logtk_reader *r, size_t max_lines,
                             uint32_t *ids, size_t *nlines)
{
    return run_reader(p, f, r, max_lines, ids, nlines, 1);
}

int logtk_parser_match_reader(logtk_parser *p, logtk_format *f, logtk_reader *r, size_t max_lines,
                              uint32_t *ids, size_t *nlines)
{
    return run_reader(p, f, r, max_lines, ids, nlines, 0);
}

/*
 * The classify pass of a sharded run with the shard's own ids in hand: per
 * line, the answer its shard template plans (parser.c, ltk_parser_shard_plan),
 * after trying only the templates that may beat it; no content is even cut
 * out of a line whose answer has none.  Lines without a planned answer take
 * the full match.  The plan is made once per call: pass a shard's lines in
 * one call (its ids array is there anyway).
 */
int logtk_parser_rematch_reader(logtk_parser *p, logtk_parser *shard, logtk_format *f,
                                logtk_reader *r, size_t max_lines, uint32_t *ids,
                                size_t *nlines)
{
    logtk_line line;
    logtk_record rec;
    size_t n = 0;
    if (nlines)
        *nlines = 0;
    if (p == NULL || shard == NULL || r == NULL || (max_lines > 0 && ids == NULL))
        return LOGTK_ERR_INVALID;
    ltk_shard_plan plan;
    int rc = ltk_parser_shard_plan(p, shard, &plan);
    if (rc != LOGTK_OK)
        return rc;
    while (n < max_lines) {
        rc = logtk_reader_next(r, &line);
        if (rc != LOGTK_OK)
            break;
        uint32_t sid = ids[n];
        uint32_t answer = sid < plan.n ? plan.answer[sid] : 0;
        if (answer != 0 && plan.rival_at[sid] == plan.rival_at[sid + 1]) {
            ids[n++] = answer; /* no template can take the line first */
            continue;
        }
        logtk_slice content = line_content(f, &line, &rec);
        if (answer != 0) {
            for (uint32_t k = plan.rival_at[sid]; k < plan.rival_at[sid + 1]; k++)
                if (ltk_parser_template_matches(p, plan.rivals[k], content.ptr, content.len)) {
                    answer = plan.rivals[k];
                    break;
                }
            ids[n++] = answer;
            continue;
        }
        rc = ltk_parser_match_id(p, content.ptr, content.len, &answer);
        if (rc != LOGTK_OK && rc != LOGTK_ERR_LIMIT && rc != LOGTK_ERR_NOT_FOUND)
            break; /* out of memory: the line was not classified */
        ids[n++] = answer; /* 0 when no template matches */
        rc = LOGTK_OK;
    }
    ltk_shard_plan_free(&plan);
    if (nlines)
        *nlines = n;
    return rc;
}

int logtk_rows_write(logtk_sink *s, logtk_format *f, logtk_reader *r, uint64_t first_line_id,
                     const uint32_t *ids, size_t n, const logtk_slice *texts, size_t ntexts,
                     size_t *written)
{
    logtk_line line;
    logtk_record rec;
    logtk_slice *params = NULL;
    size_t cap = 0, done = 0;
    int rc = LOGTK_OK;
    if (written)
        *written = 0;
    if (s == NULL || r == NULL || (n && ids == NULL) || (ntexts && texts == NULL))
        return LOGTK_ERR_INVALID;
    while (done < n) {
        rc = logtk_reader_next(r, &line);
        if (rc == LOGTK_DONE)
            break; /* fewer lines than ids: the caller compares *written with n */
        if (rc != LOGTK_OK)
            break;
        logtk_slice content = line_content(f, &line, &rec);
        logtk_row row;
        memset(&row, 0, sizeof row);
        row.line_id = first_line_id + done;
        row.record = &rec;
        row.template_id = ids[done];
        row.template_text.ptr = "";
        if (ids[done] >= 1 && ids[done] < ntexts) {
            const logtk_slice *t = &texts[ids[done]];
            size_t np = 0;
            rc = logtk_template_match(t->ptr, t->len, content.ptr, content.len, params, cap, &np);
            if (rc == LOGTK_OK && np > cap) {
                /* the first template with this many "<*>": grow once, match again */
                logtk_slice *bigger = realloc(params, np * sizeof *params);
                if (bigger == NULL) {
                    rc = LOGTK_ERR_NOMEM;
                    break;
                }
                params = bigger;
                cap = np;
                rc = logtk_template_match(t->ptr, t->len, content.ptr, content.len, params, cap,
                                          &np);
            }
            if (rc == LOGTK_ERR_NOMEM)
                break;
            row.template_text = *t;
            if (rc == LOGTK_OK) { /* a line its template does not match: no parameters */
                row.nparams = np;
                row.params = params;
            }
        }
        rc = logtk_sink_write(s, &row);
        if (rc != LOGTK_OK)
            break;
        done++;
    }
    free(params);
    if (written)
        *written = done;
    return rc == LOGTK_DONE ? LOGTK_OK : rc;
}
