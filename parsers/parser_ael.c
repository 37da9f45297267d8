/*
 * parser_ael.c - AEL: Abstracting Execution Logs (Jiang, Hassan, Flora and
 * Hamann, QSIC 2008), following logparser's AEL.py.
 *
 * AEL assumes the variable parts were already anonymised (here: by the
 * masks, which write "<*>"), and groups what is left:
 *   1. categorize: put every message into a bin keyed by (number of tokens,
 *      number of "<*>" tokens); inside a bin, identical messages form one
 *      event;
 *   2. reconcile: a bin with more than min_event_count events is merged
 *      greedily: each event not yet taken opens a group and takes every later
 *      untaken event that differs from it in a share of positions in
 *      (0, merge_percent]; a group's template is its first event with every
 *      position where members differ turned into "<*>".
 * Bins with few events keep their events as templates.
 *
 * Differences from the reference (noted where they matter):
 *  - events are compared as token sequences; the reference compares the
 *    masked strings, so two messages differing only in spacing are one event
 *    here (they print the same template there too);
 *  - a bin of messages without tokens is never merged (the reference would
 *    divide by zero).
 * Equal templates from different bins or groups are one template (the
 * reference's event id is the MD5 of the template text).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "growarray.h"
#include "parser_impl.h"

typedef struct ael_state {
    long min_event_count;
    double merge_percent;
    uint32_t wildcard;
} ael_state;

static int ael_init(logtk_parser *p, void *state)
{
    ael_state *s = state;
    s->min_event_count = 2;
    s->merge_percent = 1.0;
    s->wildcard = ltk_parser_intern_token(p, LTK_WILDCARD, LTK_WILDCARD_LEN);
    if (s->wildcard == UINT32_MAX)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "ael: out of memory");
    return LOGTK_OK;
}

static int ael_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    ael_state *s = state;
    if (strcmp(name, "min_event_count") == 0)
        return ltk_param_int(p, name, value, 0, 1000000000L, &s->min_event_count);
    if (strcmp(name, "merge_percent") == 0)
        return ltk_param_double(p, name, value, 0.0, 1.0, &s->merge_percent);
    return LOGTK_ERR_NOT_FOUND;
}

static int ael_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                    uint32_t *template_id)
{
    (void)state;
    *template_id = 0;
    return ltk_parser_store_line(p, line);
}

/* An event: a distinct token sequence. */
typedef struct ael_event {
    const uint32_t *tokens; /* of its first message (stored line) */
    size_t ntokens;
    uint32_t bin;
    uint32_t next_in_bin; /* event index + 1, 0 = end */
    uint32_t group;       /* index of the event heading its group */
    uint32_t template_id;
} ael_event;

typedef struct ael_bin {
    uint32_t first, last; /* event index + 1 */
    uint32_t nevents;
} ael_bin;

/* 1 when a and b differ in a share of positions in (0, limit]. */
static int has_diff(const uint32_t *a, const uint32_t *b, size_t n, double limit)
{
    size_t diff = 0;
    for (size_t i = 0; i < n; i++)
        diff += a[i] != b[i];
    double share = (double)diff / (double)n;
    return share > 0 && share <= limit;
}

static int ael_finish(logtk_parser *p, void *state)
{
    ael_state *s = state;
    uint64_t nlines = ltk_parser_stored_count(p);
    ltk_hashtab events_by_tokens, bins_by_key;
    ael_event *events = NULL;
    ael_bin *bins = NULL;
    uint32_t *event_of_line = NULL, *tmpl = NULL;
    size_t events_cap = 0, bins_cap = 0, tmpl_cap = 0;
    int rc = LOGTK_OK;
    int ok_e = ltk_hashtab_init(&events_by_tokens, 1024) == 0;
    int ok_b = ltk_hashtab_init(&bins_by_key, 256) == 0;
    event_of_line = malloc((nlines ? nlines : 1) * sizeof *event_of_line);
    if (!ok_e || !ok_b || event_of_line == NULL)
        goto oom;

    /* categorize */
    for (uint64_t k = 0; k < nlines; k++) {
        size_t n;
        static const uint32_t no_tokens[1] = {0};
        const uint32_t *t = ltk_parser_stored_line(p, k, &n);
        if (t == NULL || n == 0)
            t = no_tokens; /* an empty line: a valid pointer for the zero-length key */
        int inserted = 0;
        int64_t e = ltk_hashtab_intern(&events_by_tokens, t, n * sizeof *t, &inserted);
        if (e < 0)
            goto oom;
        event_of_line[k] = (uint32_t)e;
        if (!inserted)
            continue;
        uint32_t key[2] = {(uint32_t)n, 0};
        for (size_t i = 0; i < n; i++)
            key[1] += t[i] == s->wildcard;
        int new_bin = 0;
        int64_t b = ltk_hashtab_intern(&bins_by_key, key, sizeof key, &new_bin);
        if (b < 0 || ltk_array_reserve((void **)&events, &events_cap, (size_t)e + 1, sizeof *events) ||
            ltk_array_reserve((void **)&bins, &bins_cap, (size_t)b + 1, sizeof *bins))
            goto oom;
        if (new_bin)
            memset(&bins[b], 0, sizeof bins[b]);
        ael_event *ev = &events[e];
        ev->tokens = t;
        ev->ntokens = n;
        ev->bin = (uint32_t)b;
        ev->next_in_bin = 0;
        ev->group = (uint32_t)e;
        ev->template_id = 0;
        if (bins[b].last)
            events[bins[b].last - 1].next_in_bin = (uint32_t)e + 1;
        else
            bins[b].first = (uint32_t)e + 1;
        bins[b].last = (uint32_t)e + 1;
        bins[b].nevents++;
    }

    /* reconcile, bin by bin; then one template per group */
    size_t nbins = bins_by_key.count;
    for (size_t b = 0; b < nbins; b++) {
        uint32_t first = bins[b].first;
        size_t n = events[first - 1].ntokens;
        int merge = (long)bins[b].nevents > s->min_event_count && n > 0;
        if (ltk_array_reserve((void **)&tmpl, &tmpl_cap, n + 1, sizeof *tmpl))
            goto oom;
        /* taken: group != self or self-headed after visit; use template_id as mark */
        for (uint32_t e1 = first; e1; e1 = events[e1 - 1].next_in_bin) {
            ael_event *a = &events[e1 - 1];
            if (a->template_id != 0)
                continue; /* merged into an earlier group */
            a->template_id = UINT32_MAX; /* taken */
            if (n)
                memcpy(tmpl, a->tokens, n * sizeof *tmpl);
            if (merge) {
                for (uint32_t e2 = a->next_in_bin; e2; e2 = events[e2 - 1].next_in_bin) {
                    ael_event *c = &events[e2 - 1];
                    if (c->template_id != 0 ||
                        !has_diff(a->tokens, c->tokens, n, s->merge_percent))
                        continue;
                    c->template_id = UINT32_MAX;
                    c->group = e1 - 1;
                    for (size_t i = 0; i < n; i++)
                        if (tmpl[i] != c->tokens[i])
                            tmpl[i] = s->wildcard;
                }
            }
            a->template_id = ltk_tmpl_from_token_ids(p, tmpl, n);
            if (a->template_id == 0) {
                rc = LOGTK_ERR_NOMEM;
                goto done;
            }
        }
    }
    for (uint64_t k = 0; k < nlines; k++) {
        const ael_event *ev = &events[event_of_line[k]];
        rc = ltk_parser_assign(p, k, events[ev->group].template_id);
        if (rc != LOGTK_OK)
            goto done;
    }
    goto done;
oom:
    rc = ltk_parser_error(p, LOGTK_ERR_NOMEM, "ael: out of memory");
done:
    if (ok_e)
        ltk_hashtab_free(&events_by_tokens);
    if (ok_b)
        ltk_hashtab_free(&bins_by_key);
    free(events);
    free(bins);
    free(event_of_line);
    free(tmpl);
    return rc;
}

const ltk_parser_algo ltk_algo_ael = {
    .name = "ael",
    .summary = "AEL (QSIC'08): batch, bins by token and variable count, merges similar events",
    .online = 0,
    .state_size = sizeof(ael_state),
    .init = ael_init,
    .destroy = NULL,
    .set_param = ael_set_param,
    .feed = ael_feed,
    .finish = ael_finish,
    .save = NULL,
    .load = NULL,
};
