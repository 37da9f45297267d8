/*
 * parser_logcluster.c - LogCluster (Vaarandi and Pihelgas, "LogCluster - A
 * Data Clustering and Pattern Mining Algorithm for Event Logs", CNSM 2015),
 * following logparser's LogCluster wrapper around logcluster.pl 0.09 with
 * the options the benchmark uses (only a relative support).
 *
 * Idea: a constant word of an event type occurs in at least as many lines as
 * the event type has, so with a support threshold s:
 *   pass 1: words occurring in at least s lines are frequent (a word counts
 *           once per line);
 *   pass 2: a line's candidate is the sequence of its frequent words, in
 *           order, and between consecutive frequent words it records how
 *           many infrequent words it skipped; lines with the same sequence
 *           share a candidate, which keeps the minimum and maximum of every
 *           skip count;
 *   candidates supported by at least s lines are the clusters, printed as
 *   their words with a "*{min,max}" wildcard wherever max > 0.
 * Every other line (no frequent word, or a candidate below s) is an outlier;
 * the wrapper gives it its own content as template, so identical outliers
 * group together.
 *
 * Details kept from the reference:
 *  - s = int(rsupport * lines / 100) when rsupport (a percentage) is given;
 *    `support` sets s directly instead;
 *  - the preprocessing regexes delete what they match (the wrapper
 *    substitutes ''), so here a "<*>" written by a mask is removed from its
 *    token and a token that becomes empty is no word at all;
 *  - words are split on whitespace by Perl's split, which yields an empty
 *    first word when the line starts with whitespace: here when the first
 *    token was deleted entirely and a later one was not.
 * Differences: each "*{min,max}" renders as one "<*>" (the shared template
 * store's wildcard); an outlier's template is its masked tokens rather than
 * its raw content, so outliers that differ only in masked values group
 * together; the empty first word is part of a candidate's identity but is
 * not printed.
 *
 * Cost: two passes over interned token ids, a hash lookup per line; memory
 * is the stored lines plus a counter per distinct word.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "growarray.h"
#include "parser_impl.h"

typedef struct logcluster_candidate {
    uint32_t *words; /* frequent word ids (in the vmin block) */
    uint32_t nwords;
    uint32_t *vmin, *vmax; /* nwords + 1 skip counts */
    uint64_t count;
    uint32_t template_id;
} logcluster_candidate;

typedef struct logcluster_state {
    double rsupport;   /* percent; used when support < 0 */
    long support;      /* absolute; -1 = from rsupport */
    uint32_t empty;    /* id of the empty word */

    uint32_t *words;   /* all lines' words (after deleting masks), flat */
    size_t nwords, words_cap;
    uint64_t *off;     /* line k: words[off[k] .. off[k+1]) */
    size_t nlines, off_cap;
} logcluster_state;

static int lc_nomem(logtk_parser *p)
{
    return ltk_parser_error(p, LOGTK_ERR_NOMEM, "logcluster: out of memory");
}

static int logcluster_init(logtk_parser *p, void *state)
{
    logcluster_state *s = state;
    s->rsupport = 10;
    s->support = -1;
    s->empty = ltk_parser_intern_token(p, "", 0);
    if (s->empty == UINT32_MAX || ltk_array_reserve((void **)&s->off, &s->off_cap, 1024, sizeof *s->off))
        return lc_nomem(p);
    s->off[0] = 0;
    return LOGTK_OK;
}

static void logcluster_destroy(void *state)
{
    logcluster_state *s = state;
    free(s->words);
    free(s->off);
}

static int logcluster_set_param(logtk_parser *p, void *state, const char *name,
                                const char *value)
{
    logcluster_state *s = state;
    if (strcmp(name, "rsupport") == 0) {
        s->support = -1;
        return ltk_param_double(p, name, value, 0.0, 100.0, &s->rsupport);
    }
    if (strcmp(name, "support") == 0)
        return ltk_param_int(p, name, value, 0, 1L << 40, &s->support);
    return LOGTK_ERR_NOT_FOUND;
}

/* Appends the token with every "<*>" removed; returns its length, or -1 on OOM. */
static long deleted_form(logtk_parser *p, const logtk_slice *t, char *buf, uint32_t *id)
{
    size_t n = 0;
    for (size_t i = 0; i < t->len;) {
        if (i + 3 <= t->len && ltk_is_wildcard(t->ptr + i, 3)) {
            i += 3;
            continue;
        }
        buf[n++] = t->ptr[i++];
    }
    *id = UINT32_MAX;
    if (n == 0)
        return 0;
    *id = ltk_parser_intern_token(p, buf, n);
    return *id == UINT32_MAX ? -1 : (long)n;
}

static int logcluster_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                           uint32_t *template_id)
{
    logcluster_state *s = state;
    *template_id = 0;
    int rc = ltk_parser_store_line(p, line);
    if (rc != LOGTK_OK)
        return rc;
    size_t maxlen = 0;
    for (size_t t = 0; t < line->ntokens; t++)
        if (line->tokens[t].len > maxlen)
            maxlen = line->tokens[t].len;
    char small[256];
    char *buf = maxlen <= sizeof small ? small : malloc(maxlen);
    if (buf == NULL ||
        ltk_array_reserve((void **)&s->words, &s->words_cap, s->nwords + line->ntokens + 1, sizeof *s->words) ||
        ltk_array_reserve((void **)&s->off, &s->off_cap, s->nlines + 2, sizeof *s->off)) {
        if (buf != small)
            free(buf);
        return lc_nomem(p);
    }
    int leading_gap = 0;
    for (size_t t = 0; t < line->ntokens; t++) {
        uint32_t id;
        long n = deleted_form(p, &line->tokens[t], buf, &id);
        if (n < 0) {
            if (buf != small)
                free(buf);
            return lc_nomem(p);
        }
        if (n == 0) {
            if (t == 0)
                leading_gap = 1;
            continue;
        }
        if (leading_gap == 1) { /* Perl's split: leading whitespace gives an empty field */
            s->words[s->nwords++] = s->empty;
            leading_gap = 2;
        }
        s->words[s->nwords++] = id;
    }
    if (buf != small)
        free(buf);
    s->nlines++;
    s->off[s->nlines] = s->nwords;
    return LOGTK_OK;
}

/* Template tokens of a cluster: "<*>" for each skip with max > 0, then the word. */
static uint32_t cluster_template(logtk_parser *p, const logcluster_candidate *c,
                                 logtk_slice *out)
{
    size_t n = 0;
    for (uint32_t i = 0; i <= c->nwords; i++) {
        if (c->vmax[i] > 0) {
            out[n].ptr = LTK_WILDCARD;
            out[n++].len = LTK_WILDCARD_LEN;
        }
        if (i < c->nwords) {
            size_t len;
            const char *w = ltk_parser_token_text(p, c->words[i], &len);
            if (len == 0)
                continue; /* the empty first word is not printed */
            out[n].ptr = w;
            out[n++].len = len;
        }
    }
    return ltk_tmpl_create(p, out, n);
}

static int logcluster_finish(logtk_parser *p, void *state)
{
    logcluster_state *s = state;
    uint64_t nlines = s->nlines;
    uint64_t support = s->support >= 0 ? (uint64_t)s->support
                                       : (uint64_t)(s->rsupport * (double)nlines / 100.0);
    int rc = LOGTK_ERR_NOMEM;
    uint32_t maxid = 0;
    for (size_t i = 0; i < s->nwords; i++)
        if (s->words[i] > maxid)
            maxid = s->words[i];
    uint64_t *freq = calloc((size_t)maxid + 1, sizeof *freq);
    uint64_t *seen = calloc((size_t)maxid + 1, sizeof *seen);
    uint32_t *cand_of_line = malloc((nlines + 1) * sizeof *cand_of_line);
    uint32_t *seq = malloc((s->nwords + 1) * sizeof *seq);
    uint32_t *vars = malloc((s->nwords + 2) * sizeof *vars);
    logtk_slice *slices = NULL;
    size_t slices_cap = 0;
    logcluster_candidate *cands = NULL;
    size_t ncands = 0, cands_cap = 0, max_line = 0;
    ltk_hashtab table, outliers;
    int table_ready = ltk_hashtab_init(&table, 1024) == 0;
    int outliers_ready = ltk_hashtab_init(&outliers, 1024) == 0;
    uint32_t *outlier_ids = NULL;
    size_t noutlier_ids = 0, outlier_cap = 0;
    if (!freq || !seen || !cand_of_line || !seq || !vars || !table_ready || !outliers_ready)
        goto done;

    /* pass 1: frequent words */
    for (uint64_t k = 0; k < nlines; k++) {
        for (uint64_t i = s->off[k]; i < s->off[k + 1]; i++) {
            uint32_t w = s->words[i];
            if (seen[w] != k + 1) {
                seen[w] = k + 1;
                freq[w]++;
            }
        }
        if (s->off[k + 1] - s->off[k] > max_line)
            max_line = (size_t)(s->off[k + 1] - s->off[k]);
    }
    /* pass 2: candidates */
    for (uint64_t k = 0; k < nlines; k++) {
        uint32_t n = 0, gap = 0;
        for (uint64_t i = s->off[k]; i < s->off[k + 1]; i++) {
            uint32_t w = s->words[i];
            if (freq[w] >= support && freq[w] > 0) {
                seq[n] = w;
                vars[n++] = gap;
                gap = 0;
            } else {
                gap++;
            }
        }
        vars[n] = gap;
        if (n == 0) {
            cand_of_line[k] = UINT32_MAX;
            continue;
        }
        int inserted;
        int64_t id = ltk_hashtab_intern(&table, seq, (size_t)n * sizeof *seq, &inserted);
        if (id < 0)
            goto done;
        if (inserted) {
            if (ltk_array_reserve((void **)&cands, &cands_cap, ncands + 1, sizeof *cands))
                goto done;
            logcluster_candidate *c = &cands[ncands++];
            memset(c, 0, sizeof *c);
            c->nwords = n;
            c->vmin = malloc((3 * (size_t)n + 2) * sizeof *c->vmin);
            if (c->vmin == NULL)
                goto done;
            c->vmax = c->vmin + n + 1;
            c->words = c->vmax + n + 1;
            memcpy(c->words, seq, (size_t)n * sizeof *seq);
            memcpy(c->vmin, vars, ((size_t)n + 1) * sizeof *vars);
            memcpy(c->vmax, vars, ((size_t)n + 1) * sizeof *vars);
        } else {
            logcluster_candidate *c = &cands[id];
            for (uint32_t i = 0; i <= n; i++) {
                if (vars[i] < c->vmin[i])
                    c->vmin[i] = vars[i];
                if (vars[i] > c->vmax[i])
                    c->vmax[i] = vars[i];
            }
        }
        cands[id].count++;
        cand_of_line[k] = (uint32_t)id;
    }
    if (ltk_array_reserve((void **)&slices, &slices_cap, 2 * max_line + 2, sizeof *slices))
        goto done;
    /* clusters, then outliers by their own tokens */
    for (uint64_t k = 0; k < nlines; k++) {
        uint32_t c = cand_of_line[k];
        uint32_t tid;
        if (c != UINT32_MAX && cands[c].count >= support) {
            if (cands[c].template_id == 0) {
                cands[c].template_id = cluster_template(p, &cands[c], slices);
                if (cands[c].template_id == 0)
                    goto done;
            }
            tid = cands[c].template_id;
        } else {
            size_t n;
            const uint32_t *toks = ltk_parser_stored_line(p, k, &n);
            int inserted;
            int64_t o = ltk_hashtab_intern(&outliers, toks ? (const void *)toks : "",
                                             n * sizeof *toks, &inserted);
            if (o < 0)
                goto done;
            if (inserted) {
                if (ltk_array_reserve((void **)&outlier_ids, &outlier_cap, noutlier_ids + 1,
                         sizeof *outlier_ids) ||
                    ltk_array_reserve((void **)&slices, &slices_cap, n + 1, sizeof *slices))
                    goto done;
                for (size_t i = 0; i < n; i++)
                    slices[i].ptr = ltk_parser_token_text(p, toks[i], &slices[i].len);
                outlier_ids[noutlier_ids] = ltk_tmpl_create(p, slices, n);
                if (outlier_ids[noutlier_ids] == 0)
                    goto done;
                noutlier_ids++;
            }
            tid = outlier_ids[o];
        }
        rc = ltk_parser_assign(p, k, tid);
        if (rc != LOGTK_OK)
            goto done_rc;
    }
    rc = LOGTK_OK;
    goto done_rc;
done:
    rc = lc_nomem(p);
done_rc:
    for (size_t i = 0; i < ncands; i++)
        free(cands[i].vmin);
    free(cands);
    free(freq);
    free(seen);
    free(cand_of_line);
    free(seq);
    free(vars);
    free(slices);
    free(outlier_ids);
    if (table_ready)
        ltk_hashtab_free(&table);
    if (outliers_ready)
        ltk_hashtab_free(&outliers);
    return rc;
}

const ltk_parser_algo ltk_algo_logcluster = {
    .name = "logcluster",
    .summary = "LogCluster (CNSM'15): batch, frequent words then frequent word sequences; "
               "params rsupport (percent) or support",
    .online = 0,
    .state_size = sizeof(logcluster_state),
    .init = logcluster_init,
    .destroy = logcluster_destroy,
    .set_param = logcluster_set_param,
    .feed = logcluster_feed,
    .finish = logcluster_finish,
    .save = NULL,
    .load = NULL,
};
